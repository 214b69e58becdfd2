"""Exact rational classification of a triangle pair, the referee of the float64 test.

:func:`exact_contact` decides the same four :class:`~core.collide.tritri.ContactKind` values as
:func:`core.collide.tritri.tri_tri_contact`, with the tolerance taken to zero: every sign is
the sign of an exact integer or :class:`fractions.Fraction` expression, so the answer is the
true one for integer or rational coordinates. The semantics are those of the tritri module
docstring with ``eps = 0``:

* a triangle with ``(p1 - p0) x (p2 - p0) == 0`` (repeated or collinear corners) is
  degenerate and stands for the segment between its two farthest corners (a point if all three
  coincide); any contact of a degenerate triangle is TOUCHING;
* two non-degenerate triangles in the same plane are COPLANAR when their overlap has positive
  area, TOUCHING when they meet only along their boundaries, DISJOINT otherwise;
* otherwise each triangle meets the other's plane in a segment on the line ``L`` where the
  planes meet (Möller 1997). The triangles meet iff the two segments overlap; they are
  CROSSING iff the overlap has positive length and each triangle has corners strictly on both
  sides of the other's plane, TOUCHING if they meet in any other way.

It is slow (pure Python: 1e6 pairs took 105 s including the float64 side, about 0.1 ms a
pair) and used only by the tests and by ``python -m core.collide.exact --pairs N``, which
compares the float64 kernel with it on random integer triangles built so that touching,
coplanar, edge-edge, vertex-face, sliver and degenerate cases are frequent
(:func:`random_pairs`). The two should agree on small integer corners because every exact
quantity that is not zero is then far above the float64 test's tolerance: a corner off the
other plane is at least ``1 / |n| >= 1.4e-4`` from it (``|n| <= 6912`` for corners in
``[-24, 24]``), 1.7e-6 of the longest edge against ``tri_rel = 1e-12``; interval ends are
ratios of such integers, and their gaps stay far above it as well (the 1e6-pair run found no
disagreement).
"""

from __future__ import annotations

import argparse
import sys
import time
from enum import IntEnum
from fractions import Fraction

import numpy as np

from core.collide.tritri import ContactKind

__all__ = [
    "PairFamily",
    "compare",
    "exact_contact",
    "exact_contact_extent",
    "float_kinds",
    "main",
    "random_pairs",
]

_DISJOINT = ContactKind.DISJOINT
_CROSSING = ContactKind.CROSSING
_TOUCHING = ContactKind.TOUCHING
_COPLANAR = ContactKind.COPLANAR


# ---------------------------------------------------------------------------------------------
# Exact vector algebra on tuples of int or Fraction.


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _is_zero(a) -> bool:
    return a[0] == 0 and a[1] == 0 and a[2] == 0


def _lerp(a, b, t):
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _as_point(x):
    """A corner as a tuple of exact numbers: ints stay ints, floats become Fractions (exact)."""
    out = []
    for c in x:
        if isinstance(c, (int, Fraction)):
            out.append(c)
        elif isinstance(c, np.integer):
            out.append(int(c))
        else:
            out.append(Fraction(float(c)))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Planar helpers: a plane is handled in the coordinate plane that drops the axis of the largest
# normal component (an affine bijection, so contact and positive area are preserved).


def _drop_axis(normal) -> int:
    mags = [abs(c) for c in normal]
    return mags.index(max(mags))


def _project(x, axis):
    if axis == 0:
        return (x[1], x[2])
    if axis == 1:
        return (x[0], x[2])
    return (x[0], x[1])


def _cross2(o, a, b):
    """``(a - o) x (b - o)``: positive when ``o, a, b`` turn counter-clockwise."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _clip(poly, tri2):
    """Sutherland-Hodgman clip of the convex polygon ``poly`` (list of 2-D points, possibly
    degenerate: a segment or a point) by the closed triangle ``tri2``. In exact arithmetic the
    result's convex hull is exactly the intersection; an empty list means no contact."""
    t0, t1, t2 = tri2
    sgn = _sign(_cross2(t0, t1, t2))
    for ti, tj in ((t0, t1), (t1, t2), (t2, t0)):
        out = []
        n = len(poly)
        for i in range(n):
            x = poly[i]
            y = poly[(i + 1) % n]
            fx = sgn * _cross2(ti, tj, x)
            fy = sgn * _cross2(ti, tj, y)
            if fx >= 0:
                out.append(x)
            if (fx >= 0) != (fy >= 0):
                t = Fraction(fx) / (fx - fy)
                out.append((x[0] + (y[0] - x[0]) * t, x[1] + (y[1] - x[1]) * t))
        poly = out
        if not poly:
            break
    return poly


def _doubled_area(poly) -> object:
    s = 0
    n = len(poly)
    for i in range(n):
        x, y = poly[i], poly[(i + 1) % n]
        s += x[0] * y[1] - x[1] * y[0]
    return abs(s)


# ---------------------------------------------------------------------------------------------
# Degenerate triangles: segments and points.


def _as_segment(t):
    """The two farthest-apart corners of a degenerate triangle (they span the other)."""
    best = (-1, t[0], t[0])
    for i, j in ((0, 1), (1, 2), (2, 0)):
        e = _sub(t[j], t[i])
        d2 = _dot(e, e)
        if d2 > best[0]:
            best = (d2, t[i], t[j])
    return best[1], best[2]


def _point_on_segment(x, a, b) -> bool:
    ab = _sub(b, a)
    ax = _sub(x, a)
    if not _is_zero(_cross(ab, ax)):
        return False
    s = _dot(ax, ab)
    return 0 <= s <= _dot(ab, ab)


def _segment_segment(a, b, c, d) -> tuple[bool, bool]:
    """Do the closed segments ``[a, b]`` and ``[c, d]`` (either may be a point) meet, and is
    their intersection more than one point?"""
    if a == b:
        return (a == c if c == d else _point_on_segment(a, c, d)), False
    if c == d:
        return _point_on_segment(c, a, b), False
    d1 = _sub(b, a)
    d2 = _sub(d, c)
    r = _sub(c, a)
    n = _cross(d1, d2)
    if _dot(n, r) != 0:
        return False, False  # skew lines
    if _is_zero(n):  # parallel
        if not _is_zero(_cross(d1, r)):
            return False, False
        tc = _dot(r, d1)
        td = _dot(_sub(d, a), d1)
        lo = max(0, min(tc, td))
        hi = min(_dot(d1, d1), max(tc, td))
        return lo <= hi, lo < hi
    nn = _dot(n, n)
    s = _dot(_cross(r, d2), n)
    t = _dot(_cross(r, d1), n)
    return 0 <= s <= nn and 0 <= t <= nn, False


def _segment_triangle(a, b, tri, normal) -> tuple[bool, bool]:
    """Does the closed segment ``[a, b]`` (maybe a point) meet the non-degenerate ``tri``, and
    is the intersection more than one point?"""
    t0 = tri[0]
    da = _dot(normal, _sub(a, t0))
    db = _dot(normal, _sub(b, t0))
    if (da > 0 and db > 0) or (da < 0 and db < 0):
        return False, False
    axis = _drop_axis(normal)
    tri2 = tuple(_project(t, axis) for t in tri)
    if da == 0 and db == 0:
        poly = [_project(a, axis)] if a == b else [_project(a, axis), _project(b, axis)]
        out = _clip(poly, tri2)
        return bool(out), len(set(out)) > 1
    if da == 0:
        x = a
    elif db == 0:
        x = b
    else:
        x = _lerp(a, b, Fraction(da) / (da - db))
    return bool(_clip([_project(x, axis)], tri2)), False


# ---------------------------------------------------------------------------------------------
# The classification.


def _interval(t, d, w):
    """Extreme values of ``dot(w, x)`` over the points where triangle ``t`` meets the other
    plane (``d`` its corners' exact signed plane values, not all of one strict sign)."""
    values = []
    for i in range(3):
        if d[i] == 0:
            values.append(_dot(w, t[i]))
        j = (i + 1) % 3
        if (d[i] > 0 and d[j] < 0) or (d[i] < 0 and d[j] > 0):
            x = _lerp(t[i], t[j], Fraction(d[i]) / (d[i] - d[j]))
            values.append(_dot(w, x))
    return min(values), max(values)


def _straddles(d) -> bool:
    return any(x > 0 for x in d) and any(x < 0 for x in d)


def exact_contact(tri_a, tri_b) -> ContactKind:
    """Classify two triangles exactly.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of int, Fraction or float
        Corners, one per row. Floats are converted to the Fractions they exactly equal.

    Returns
    -------
    ContactKind
        The kind :func:`core.collide.tritri.tri_tri_contact` would return with a zero
        tolerance (see the module docstring).
    """
    return exact_contact_extent(tri_a, tri_b)[0]


def exact_contact_extent(tri_a, tri_b) -> tuple[ContactKind, bool]:
    """Classify two triangles exactly, and say whether they share more than one point.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) array_like of int, Fraction or float
        Corners, one per row. Floats are converted to the Fractions they exactly equal.

    Returns
    -------
    kind : ContactKind
        As :func:`exact_contact`.
    is_extended : bool
        The intersection holds two distinct points (a segment or an area), not just one:
        two triangles sharing a corner meet beyond it iff this is true.
    """
    p = tuple(_as_point(x) for x in tri_a)
    q = tuple(_as_point(x) for x in tri_b)
    n_p = _cross(_sub(p[1], p[0]), _sub(p[2], p[0]))
    n_q = _cross(_sub(q[1], q[0]), _sub(q[2], q[0]))
    is_p_degenerate = _is_zero(n_p)
    is_q_degenerate = _is_zero(n_q)
    if is_p_degenerate or is_q_degenerate:
        if is_p_degenerate and is_q_degenerate:
            hit, extended = _segment_segment(*_as_segment(p), *_as_segment(q))
        elif is_p_degenerate:
            hit, extended = _segment_triangle(*_as_segment(p), q, n_q)
        else:
            hit, extended = _segment_triangle(*_as_segment(q), p, n_p)
        return (_TOUCHING, extended) if hit else (_DISJOINT, False)

    dq = tuple(_dot(n_p, _sub(x, p[0])) for x in q)
    if all(x > 0 for x in dq) or all(x < 0 for x in dq):
        return _DISJOINT, False
    dp = tuple(_dot(n_q, _sub(x, q[0])) for x in p)
    if all(x > 0 for x in dp) or all(x < 0 for x in dp):
        return _DISJOINT, False

    if all(x == 0 for x in dq):
        # Same plane (Q non-degenerate with three corners on P's plane).
        axis = _drop_axis(n_p)
        p2 = tuple(_project(x, axis) for x in p)
        overlap = _clip([_project(x, axis) for x in q], p2)
        if not overlap:
            return _DISJOINT, False
        if _doubled_area(overlap) > 0:
            return _COPLANAR, True
        return _TOUCHING, len(set(overlap)) > 1

    # Planes meet in a line (parallel distinct planes were rejected above) of direction w.
    w = _cross(n_p, n_q)
    lo_p, hi_p = _interval(p, dp, w)
    lo_q, hi_q = _interval(q, dq, w)
    lo = max(lo_p, lo_q)
    hi = min(hi_p, hi_q)
    if lo > hi:
        return _DISJOINT, False
    if lo == hi:
        return _TOUCHING, False
    if _straddles(dp) and _straddles(dq):
        return _CROSSING, True
    return _TOUCHING, True


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


def float_kinds(pairs: np.ndarray) -> np.ndarray:
    """The float64 kernel's kinds for many pairs, through :func:`tri_tri_batch`.

    Parameters
    ----------
    pairs : (n, 2, 3, 3) array_like of float

    Returns
    -------
    (n,) int8
    """
    from core.collide.tritri import tri_tri_batch

    pts = np.asarray(pairs, dtype=np.float64)
    n = pts.shape[0]
    va = np.ascontiguousarray(pts[:, 0].reshape(-1, 3))
    vb = np.ascontiguousarray(pts[:, 1].reshape(-1, 3))
    faces = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    ids = np.repeat(np.arange(n, dtype=np.int32)[:, None], 2, axis=1)
    kinds = np.empty(n, dtype=np.int8)
    segs = np.empty((n, 2, 3))
    tri_tri_batch(va, faces, vb, faces, ids, kinds, segs)
    return kinds


def compare(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact and float kinds of many integer pairs.

    Parameters
    ----------
    pairs : (n, 2, 3, 3) int64

    Returns
    -------
    exact : (n,) int8
    fast : (n,) int8
    """
    fast = float_kinds(pairs)
    listed = pairs.tolist()  # Python ints: exact and much faster than numpy scalars
    exact = np.fromiter((exact_contact(p, q) for p, q in listed), dtype=np.int8, count=len(listed))
    return exact, fast


def main(argv: list[str] | None = None) -> int:
    """``python -m core.collide.exact --pairs N``: compare the float64 test with the exact one.

    Prints the count of each kind per family and every disagreement (up to ``--show``);
    exits with status 1 if there is any disagreement.
    """
    parser = argparse.ArgumentParser(
        prog="python -m core.collide.exact",
        description="Fuzz the float64 triangle test against the exact rational classification.",
    )
    parser.add_argument("--pairs", type=int, default=100_000, help="pairs to test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--range", type=int, default=3, dest="coord_range",
                        help="base corners are integers in [-R, R] (default 3)")  # fmt: skip
    parser.add_argument("--batch", type=int, default=100_000, help="pairs per batch")
    parser.add_argument("--show", type=int, default=20, help="disagreements printed")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.batch < 1:
        parser.error("--pairs and --batch must be positive")

    n_kinds = len(ContactKind)
    counts = np.zeros((len(PairFamily), n_kinds), dtype=np.int64)
    bad = []
    n_bad = 0
    t0 = time.perf_counter()
    done = 0
    batch_id = 0
    while done < args.pairs:
        n = min(args.batch, args.pairs - done)
        pairs, families = random_pairs(n, seed=args.seed * 1_000_003 + batch_id,
                                       coord_range=args.coord_range)  # fmt: skip
        exact, fast = compare(pairs)
        np.add.at(counts, (families.astype(np.int64), exact.astype(np.int64)), 1)
        wrong = np.flatnonzero(exact != fast)
        n_bad += wrong.size
        for i in wrong[: max(0, args.show - len(bad))]:
            bad.append((pairs[i], int(exact[i]), int(fast[i]), int(families[i])))
        done += n
        batch_id += 1
        print(f"{done} pairs, {n_bad} disagreements, {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)  # fmt: skip
    seconds = time.perf_counter() - t0

    names = [k.name.lower() for k in ContactKind]
    print(f"{done} pairs (seed {args.seed}, range {args.coord_range}) in {seconds:.1f} s")
    print(f"{'family':<14}" + "".join(f"{s:>10}" for s in names))
    for fam in PairFamily:
        print(f"{fam.name.lower():<14}" + "".join(f"{c:>10}" for c in counts[fam]))
    print(f"{'total':<14}" + "".join(f"{c:>10}" for c in counts.sum(axis=0)))
    print(f"disagreements: {n_bad}")
    for pair, e, f, fam in bad:
        print(f"  [{PairFamily(fam).name.lower()}] P={pair[0].tolist()} Q={pair[1].tolist()} "
              f"exact={ContactKind(e).name} float64={ContactKind(f).name}")  # fmt: skip
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
