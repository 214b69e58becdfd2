"""Generated triangle pairs on which the hard cases of the triangle test are frequent: the
inputs of ``python -m core.collide.exact`` (:func:`core.collide.exact.main`) and of the tests
that compare the float64 kernel with the exact referee.

Integer families (:class:`PairFamily`: touching, coplanar, edge-edge, vertex-face, sliver and
degenerate configurations on a small grid) and float families (:class:`FloatFamily`: shared
corners and edges moved by 1e-15 to 1e-10, corners rounded onto faces and edges, float
slivers, exactly degenerate float triangles, random rotations, power-of-two scalings over the
whole guaranteed range, swaps and corner permutations).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

__all__ = [
    "FloatFamily",
    "PairFamily",
    "family_name",
    "float_pairs",
    "mixed_pairs",
    "random_pairs",
]


# ---------------------------------------------------------------------------------------------
# Random integer pairs on which special cases are frequent.


class PairFamily(IntEnum):
    """How :func:`random_pairs` builds the second triangle Q from the first, P.

    Each family makes a kind of contact frequent that uniform sampling almost never hits.
    """

    UNIFORM = 0
    """All six corners uniform in the cube."""
    SHARED_VERTEX = 1
    """Q reuses one corner of P."""
    SHARED_EDGE = 2
    """Q reuses an edge of P (folded, coplanar or flipped)."""
    COPLANAR = 3
    """Q's corners in P's plane at half-integer barycentric coordinates."""
    ONE_IN_PLANE = 4
    """One or two of Q's corners in P's plane, the others anywhere (vertex-face, edge-face)."""
    ON_EDGE = 5
    """A corner of Q on an edge line of P (edge-edge, vertex-edge contacts)."""
    DEGENERATE = 6
    """P or Q (or both) with repeated or collinear corners."""
    SLIVER = 7
    """P or Q a thin needle: its third corner one unit off a long edge."""
    NEAR = 8
    """Q one grid step away from a corner or edge of P along P's normal."""


def _in_plane(rng, p, k):
    """``k`` points ``(k, 3) int64`` of the plane of ``p`` (doubled coordinates) at barycentric
    coordinates that are multiples of 1/2 in ``[-1, 2]``."""
    a = rng.integers(-2, 5, size=(k, 1))
    b = rng.integers(-2, 5, size=(k, 1))
    return 2 * p[0] + a * (p[1] - p[0]) + b * (p[2] - p[0])


def random_pairs(n: int, seed: int = 0, coord_range: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Random integer triangle pairs, each :class:`PairFamily` about equally often.

    Parameters
    ----------
    n : int
        Number of pairs.
    seed : int
    coord_range : int
        Base corners are uniform integers in ``[-coord_range, coord_range]``; the families then
        double them (to place points at half-integer barycentric coordinates), so coordinates
        stay within about ``±8 * coord_range``.

    Returns
    -------
    pairs : (n, 2, 3, 3) int64
        ``pairs[i, 0]`` is P, ``pairs[i, 1]`` is Q, one corner per row.
    families : (n,) int8
        The :class:`PairFamily` of each pair.
    """
    rng = np.random.default_rng(seed)
    r = coord_range
    families = rng.integers(0, len(PairFamily), size=n).astype(np.int8)
    out = np.empty((n, 2, 3, 3), dtype=np.int64)
    base = rng.integers(-r, r + 1, size=(n, 2, 3, 3))
    for i in range(n):
        p = base[i, 0].copy()
        q = base[i, 1].copy()
        fam = families[i]
        if fam == PairFamily.SHARED_VERTEX:
            q[rng.integers(3)] = p[rng.integers(3)]
        elif fam == PairFamily.SHARED_EDGE:
            e = rng.integers(3)
            q[0], q[1] = p[e], p[(e + 1) % 3]
            if rng.random() < 0.5:  # third corner in the plane: a coplanar neighbour or a fold
                q = 2 * q
                q[2] = _in_plane(rng, p, 1)[0]
                p = 2 * p
        elif fam == PairFamily.COPLANAR:
            q = _in_plane(rng, p, 3)
            p = 2 * p
        elif fam == PairFamily.ONE_IN_PLANE:
            k = rng.integers(1, 3)
            q = 2 * q
            q[:k] = _in_plane(rng, p, k)
            p = 2 * p
        elif fam == PairFamily.ON_EDGE:
            e = rng.integers(3)
            t = rng.integers(-1, 4)  # half-steps along the edge, inside and beyond it
            q = 2 * q
            q[0] = 2 * p[e] + t * (p[(e + 1) % 3] - p[e])
            p = 2 * p
        elif fam == PairFamily.DEGENERATE:
            which = rng.integers(3)  # 0: P, 1: Q, 2: both
            for tri_id in ((0,), (1,), (0, 1))[which]:
                t = p if tri_id == 0 else q
                if rng.random() < 0.5:
                    t[2] = t[rng.integers(2)]  # repeated corner (or all three when t0 == t1)
                    if rng.random() < 0.2:
                        t[1] = t[0]
                else:
                    t[2] = t[0] + rng.integers(-2, 3) * (t[1] - t[0])  # collinear
        elif fam == PairFamily.SLIVER:
            t = p if rng.random() < 0.5 else q
            t[1] = t[0] + 4 * (t[1] - t[0])
            t[2] = t[0] + 2 * (t[1] - t[0]) // 4 + rng.integers(-1, 2, size=3)
        elif fam == PairFamily.NEAR:
            n_p = np.cross(p[1] - p[0], p[2] - p[0])
            unit = np.sign(n_p)  # one grid step towards the normal's side
            if rng.random() < 0.5:
                q[0] = p[rng.integers(3)] + unit
            else:
                e = rng.integers(3)
                q = 2 * q
                q[0] = p[e] + p[(e + 1) % 3] + unit
                p = 2 * p
        out[i, 0] = p
        out[i, 1] = q
    return out, families


class FloatFamily(IntEnum):
    """How :func:`float_pairs` builds a pair of float64 triangles.

    Each family puts the pair within a few ulps of a change of answer, where a tolerance-based
    test goes wrong (issue 10): the exact answer is the referee's, however small the gap.
    """

    SHARED_VERTEX_MOVED = 0
    """Q reuses a corner of P moved by 1e-15 to 1e-10 in a random direction."""
    SHARED_EDGE_MOVED = 1
    """Q reuses an edge of P, both ends moved by 1e-15 to 1e-10."""
    VERTEX_ON_FACE = 2
    """A corner of Q at a random point of P's face, rounded to float64 (on the plane, or a
    few ulps off it)."""
    EDGE_ACROSS_EDGE = 3
    """An edge of Q through a rounded point of an edge of P."""
    SLIVER = 4
    """P or Q a needle: its third corner 1e-15 to 1e-8 off its long edge."""
    DEGENERATE = 5
    """P or Q exactly degenerate in float64: a repeated corner, or three collinear dyadic
    corners."""
    ROTATED = 6
    """An integer-family pair (:class:`PairFamily`) under a random rotation, rounded: the
    special relation survives only up to round-off."""
    SCALED = 7
    """A pair of the other families scaled by a random power of two over the whole range the
    test guarantees (from near the smallest normal to near the largest float64)."""
    SWAPPED = 8
    """A pair of the other families with P and Q swapped and each triangle's corners
    permuted."""


def _unit(rng, k):
    v = rng.normal(size=(k, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _tiny(rng, lo=-15.0, hi=-10.0):
    return 10.0 ** rng.uniform(lo, hi)


def _random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def _scale_exponents(pair, rng):
    """A random power-of-two exponent keeping the scaled pair exact and in the normal range."""
    mags = np.abs(pair[pair != 0.0])
    if mags.size == 0:
        return 0
    hi = 1022 - int(np.floor(np.log2(mags.max())))
    lo = -1021 - int(np.floor(np.log2(mags.min())))
    return int(rng.integers(lo, hi + 1)) if lo <= hi else 0


def float_pairs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random float64 triangle pairs, each :class:`FloatFamily` about equally often.

    Parameters
    ----------
    n : int
        Number of pairs.
    seed : int

    Returns
    -------
    pairs : (n, 2, 3, 3) float64
        ``pairs[i, 0]`` is P, ``pairs[i, 1]`` is Q, one corner per row.
    families : (n,) int8
        The :class:`FloatFamily` of each pair.
    """
    rng = np.random.default_rng(seed)
    families = rng.integers(0, len(FloatFamily), size=n).astype(np.int8)
    out = np.empty((n, 2, 3, 3))
    base_int, _ = random_pairs(n, seed=seed + 7_919)
    for i in range(n):
        fam = FloatFamily(families[i])
        inner = fam
        if fam in (FloatFamily.SCALED, FloatFamily.SWAPPED):
            inner = FloatFamily(rng.integers(0, FloatFamily.SCALED))
        pair = _float_pair(rng, inner, base_int[i])
        if fam == FloatFamily.SCALED:
            pair = np.ldexp(pair, _scale_exponents(pair, rng))
        elif fam == FloatFamily.SWAPPED:
            pair = pair[::-1][:, rng.permutation(3)].copy()
            pair[1] = pair[1][rng.permutation(3)]
        out[i] = pair
    return out, families


def _float_pair(rng, fam, base_int):
    """One pair ``(2, 3, 3) float64`` of family ``fam`` (not SCALED or SWAPPED)."""
    p = rng.uniform(-1.0, 1.0, size=(3, 3))
    q = rng.uniform(-1.0, 1.0, size=(3, 3))
    if fam == FloatFamily.SHARED_VERTEX_MOVED:
        q[rng.integers(3)] = p[rng.integers(3)] + _tiny(rng) * _unit(rng, 1)[0]
    elif fam == FloatFamily.SHARED_EDGE_MOVED:
        e = rng.integers(3)
        q[0] = p[e] + _tiny(rng) * _unit(rng, 1)[0]
        q[1] = p[(e + 1) % 3] + _tiny(rng) * _unit(rng, 1)[0]
    elif fam == FloatFamily.VERTEX_ON_FACE:
        s, t = rng.uniform(-0.2, 1.0, size=2)
        if rng.random() < 0.5:  # dyadic corners and weights: exactly on the face
            p = np.round(p * 64.0) / 64.0
            s, t = np.round(s * 8.0) / 8.0, np.round(t * 8.0) / 8.0
        q[0] = p[0] + s * (p[1] - p[0]) + t * (p[2] - p[0])
    elif fam == FloatFamily.EDGE_ACROSS_EDGE:
        e = rng.integers(3)
        s = rng.uniform(-0.1, 1.1)
        if rng.random() < 0.5:  # dyadic: the crossing point exactly on the edge
            p = np.round(p * 64.0) / 64.0
            s = np.round(s * 8.0) / 8.0
        x = p[e] + s * (p[(e + 1) % 3] - p[e])
        d = np.round(rng.uniform(-1.0, 1.0, size=3) * 64.0) / 64.0
        q[0] = x + d
        q[1] = x - rng.choice([0.25, 0.5, 1.0, 2.0]) * d
    elif fam == FloatFamily.SLIVER:
        t = p if rng.random() < 0.5 else q
        t[2] = t[0] + rng.uniform(0.0, 1.0) * (t[1] - t[0]) + _tiny(rng, -15.0, -8.0) * _unit(
            rng, 1
        )[0]
    elif fam == FloatFamily.DEGENERATE:
        for t in ((p,), (q,), (p, q))[rng.integers(3)]:
            t[:2] = np.round(t[:2] * 64.0) / 64.0  # dyadic: the collinear corner is exact
            if rng.random() < 0.4:
                t[2] = t[rng.integers(2)]
            else:
                t[2] = t[0] + rng.choice([-1.0, -0.5, 0.25, 0.5, 2.0]) * (t[1] - t[0])
    elif fam == FloatFamily.ROTATED:
        rot = _random_rotation(rng)
        shift = rng.uniform(-1.0, 1.0, size=3)
        pair = np.asarray(base_int, dtype=np.float64) / 8.0
        return pair @ rot.T + shift
    return np.stack([p, q])


def mixed_pairs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Half integer families (:func:`random_pairs`), half float families (:func:`float_pairs`).

    Returns
    -------
    pairs : (n, 2, 3, 3) float64
    families : (n,) int16
        ``PairFamily`` values for the integer half, ``100 + FloatFamily`` for the float half.
    """
    n_int = n // 2
    ints, fam_int = random_pairs(n_int, seed=seed)
    floats, fam_float = float_pairs(n - n_int, seed=seed)
    pairs = np.concatenate([ints.astype(np.float64), floats])
    families = np.concatenate([fam_int.astype(np.int16), 100 + fam_float.astype(np.int16)])
    return pairs, families


def family_name(code: int) -> str:
    """Name of a :func:`mixed_pairs` family code."""
    if code >= 100:
        return "f:" + FloatFamily(code - 100).name.lower()
    return "i:" + PairFamily(code).name.lower()

