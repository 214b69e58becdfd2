"""Exact rational classification of a triangle pair, the referee of the float64 test.

:func:`exact_contact` decides the same four :class:`~core.collide.tritri.ContactKind` values as
:func:`core.collide.tritri.tri_tri_contact` by a different construction: every sign is the sign
of an exact integer or :class:`fractions.Fraction` expression (float64 inputs become the
Fractions they exactly equal), and the interval ends and clipped polygons are computed as
rationals, where the kernel uses orientation signs only. The semantics are those of the
tritri module docstring:

* a triangle with ``(p1 - p0) x (p2 - p0) == 0`` (repeated or collinear corners) is
  degenerate and stands for the segment between its two farthest corners (a point if all three
  coincide); any contact of a degenerate triangle is TOUCHING;
* two non-degenerate triangles in the same plane are COPLANAR when their overlap has positive
  area, TOUCHING when they meet only along their boundaries, DISJOINT otherwise;
* otherwise each triangle meets the other's plane in a segment on the line ``L`` where the
  planes meet (Moller 1997). The triangles meet iff the two segments overlap; they are
  CROSSING iff the overlap has positive length and each triangle has corners strictly on both
  sides of the other's plane, TOUCHING if they meet in any other way.

It is slow (pure Python, about 0.1 ms a pair on small integers, more on floats with wide
exponents) and used only by the tests and by ``python -m core.collide.exact --pairs N``, which
compares the float64 kernel with it, pair by pair, on generated families where the hard cases
are frequent (:mod:`core.collide.exact_pairs`): integer families (:class:`PairFamily`:
touching, coplanar, edge-edge, vertex-face, sliver and degenerate configurations on a small
grid) and float families (:class:`FloatFamily`: shared corners and edges moved by 1e-15 to
1e-10, corners rounded onto faces and edges, float slivers, exactly degenerate float
triangles, random rotations, power-of-two scalings over the whole guaranteed range, swaps and
corner permutations). Since both sides are exact, any disagreement is a bug.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction

import numpy as np

from core.collide.exact_pairs import FloatFamily, PairFamily, family_name, float_pairs, random_pairs
from core.collide.tritri import ContactKind
from core.exact.rational import cross, dot, is_zero, sub

__all__ = [
    "compare",
    "exact_contact",
    "exact_contact_extent",
    "float_kinds",
    "main",
]
_DISJOINT = ContactKind.DISJOINT
_CROSSING = ContactKind.CROSSING
_TOUCHING = ContactKind.TOUCHING
_COPLANAR = ContactKind.COPLANAR


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
            c = float(c)
            # Integral floats as ints: the same exact value, and much faster arithmetic.
            out.append(int(c) if c.is_integer() else Fraction(c))
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
        e = sub(t[j], t[i])
        d2 = dot(e, e)
        if d2 > best[0]:
            best = (d2, t[i], t[j])
    return best[1], best[2]


def _point_on_segment(x, a, b) -> bool:
    ab = sub(b, a)
    ax = sub(x, a)
    if not is_zero(cross(ab, ax)):
        return False
    s = dot(ax, ab)
    return 0 <= s <= dot(ab, ab)


def _segment_segment(a, b, c, d) -> tuple[bool, bool]:
    """Do the closed segments ``[a, b]`` and ``[c, d]`` (either may be a point) meet, and is
    their intersection more than one point?"""
    if a == b:
        return (a == c if c == d else _point_on_segment(a, c, d)), False
    if c == d:
        return _point_on_segment(c, a, b), False
    d1 = sub(b, a)
    d2 = sub(d, c)
    r = sub(c, a)
    n = cross(d1, d2)
    if dot(n, r) != 0:
        return False, False  # skew lines
    if is_zero(n):  # parallel
        if not is_zero(cross(d1, r)):
            return False, False
        tc = dot(r, d1)
        td = dot(sub(d, a), d1)
        lo = max(0, min(tc, td))
        hi = min(dot(d1, d1), max(tc, td))
        return lo <= hi, lo < hi
    nn = dot(n, n)
    s = dot(cross(r, d2), n)
    t = dot(cross(r, d1), n)
    return 0 <= s <= nn and 0 <= t <= nn, False


def _segment_triangle(a, b, tri, normal) -> tuple[bool, bool]:
    """Does the closed segment ``[a, b]`` (maybe a point) meet the non-degenerate ``tri``, and
    is the intersection more than one point?"""
    t0 = tri[0]
    da = dot(normal, sub(a, t0))
    db = dot(normal, sub(b, t0))
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


def _exact_interval(t, d, w):
    """Extreme values of ``dot(w, x)`` over the points where triangle ``t`` meets the other
    plane (``d`` its corners' exact signed plane values, not all of one strict sign)."""
    values = []
    for i in range(3):
        if d[i] == 0:
            values.append(dot(w, t[i]))
        j = (i + 1) % 3
        if (d[i] > 0 and d[j] < 0) or (d[i] < 0 and d[j] > 0):
            x = _lerp(t[i], t[j], Fraction(d[i]) / (d[i] - d[j]))
            values.append(dot(w, x))
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
    n_p = cross(sub(p[1], p[0]), sub(p[2], p[0]))
    n_q = cross(sub(q[1], q[0]), sub(q[2], q[0]))
    is_p_degenerate = is_zero(n_p)
    is_q_degenerate = is_zero(n_q)
    if is_p_degenerate or is_q_degenerate:
        if is_p_degenerate and is_q_degenerate:
            hit, extended = _segment_segment(*_as_segment(p), *_as_segment(q))
        elif is_p_degenerate:
            hit, extended = _segment_triangle(*_as_segment(p), q, n_q)
        else:
            hit, extended = _segment_triangle(*_as_segment(q), p, n_p)
        return (_TOUCHING, extended) if hit else (_DISJOINT, False)

    dq = tuple(dot(n_p, sub(x, p[0])) for x in q)
    if all(x > 0 for x in dq) or all(x < 0 for x in dq):
        return _DISJOINT, False
    dp = tuple(dot(n_q, sub(x, q[0])) for x in p)
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
    w = cross(n_p, n_q)
    lo_p, hi_p = _exact_interval(p, dp, w)
    lo_q, hi_q = _exact_interval(q, dq, w)
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
# The float64 kernel against the referee, pair by pair.


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
    pairs : (n, 2, 3, 3) int64 or float64

    Returns
    -------
    exact : (n,) int8
    fast : (n,) int8
        The float64 kernel's kinds; -1 (``OUT_OF_RANGE``) for a pair outside its range.
    """
    fast = float_kinds(pairs)
    listed = pairs.tolist()  # Python numbers: exact and much faster than numpy scalars
    exact = np.fromiter((exact_contact(p, q) for p, q in listed), dtype=np.int8, count=len(listed))
    return exact, fast


def main(argv: list[str] | None = None) -> int:
    """``python -m core.collide.exact --pairs N``: compare the float64 test with the exact one.

    Half the pairs come from the integer families, half from the float families
    (:func:`core.collide.exact_pairs.mixed_pairs`). Prints the count of each kind per family
    and every disagreement (up to ``--show``); exits with status 1 if there is any disagreement.
    """
    parser = argparse.ArgumentParser(
        prog="python -m core.collide.exact",
        description="Fuzz the float64 triangle test against the exact rational classification.",
    )
    parser.add_argument("--pairs", type=int, default=100_000, help="pairs to test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--range", type=int, default=3, dest="coord_range",
                        help="integer families: base corners in [-R, R] (default 3)")  # fmt: skip
    parser.add_argument("--batch", type=int, default=100_000, help="pairs per batch")
    parser.add_argument("--show", type=int, default=20, help="disagreements printed")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.batch < 1:
        parser.error("--pairs and --batch must be positive")

    n_kinds = len(ContactKind)
    codes = [int(f) for f in PairFamily] + [100 + int(f) for f in FloatFamily]
    row_of = {c: i for i, c in enumerate(codes)}
    counts = np.zeros((len(codes), n_kinds), dtype=np.int64)
    bad = []
    n_bad = 0
    t0 = time.perf_counter()
    done = 0
    batch_id = 0
    while done < args.pairs:
        n = min(args.batch, args.pairs - done)
        seed = args.seed * 1_000_003 + batch_id
        n_int = n // 2
        ints, fam_int = random_pairs(n_int, seed=seed, coord_range=args.coord_range)
        floats, fam_float = float_pairs(n - n_int, seed=seed)
        pairs = np.concatenate([ints.astype(np.float64), floats])
        families = np.concatenate([fam_int.astype(np.int16), 100 + fam_float.astype(np.int16)])
        exact, fast = compare(pairs)
        rows = np.array([row_of[int(c)] for c in families], dtype=np.int64)
        np.add.at(counts, (rows, exact.astype(np.int64)), 1)
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
    print(f"{'family':<24}" + "".join(f"{s:>10}" for s in names))
    for code, row in zip(codes, counts, strict=True):
        print(f"{family_name(code):<24}" + "".join(f"{c:>10}" for c in row))
    print(f"{'total':<24}" + "".join(f"{c:>10}" for c in counts.sum(axis=0)))
    print(f"disagreements: {n_bad}")
    for pair, e, f, fam in bad:
        got = ContactKind(f).name if f >= 0 else "OUT_OF_RANGE"
        print(f"  [{family_name(fam)}] P={pair[0].tolist()} Q={pair[1].tolist()} "
              f"exact={ContactKind(e).name} float64={got}")  # fmt: skip
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
