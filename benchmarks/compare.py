"""Comparing a peer's contact set with ours."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from core.lab.exact_gap import exact_gap


@dataclass
class PairCheck:
    """How a peer's triangle pairs differ from ours.

    Attributes
    ----------
    n_ours, n_peer : int
        Distinct pairs found by each.
    n_missing : int
        Pairs we report and the peer does not.
    n_extra : int
        Pairs the peer reports and we do not.
    example_missing, example_extra : list of [int, int]
        Up to three of each, for the report.
    gap_missing, gap_extra : float or None
        Largest distance between the two triangles of a differing pair (checked for up to
        ``MAX_GAP_CHECKS`` pairs), in world units (the spheres have radius 1); 0 means they
        touch or cross. None when not computed.
    n_checks : int
        How many queries (W3 frames) were compared and summed.
    """

    n_ours: int
    n_peer: int
    n_missing: int
    n_extra: int
    example_missing: list
    example_extra: list
    gap_missing: float | None = None
    gap_extra: float | None = None
    n_checks: int = 1

    @property
    def is_same(self) -> bool:
        return self.n_missing == 0 and self.n_extra == 0

    def as_json(self) -> dict:
        return asdict(self)

    def short(self) -> str:
        frames = f" in {self.n_checks} frames" if self.n_checks > 1 else ""
        if self.is_same:
            return f"same {self.n_ours}{frames}"
        text = f"{self.n_peer} vs {self.n_ours}{frames}: -{self.n_missing} +{self.n_extra}"
        gaps = [
            f"{sign} gap <= {g:.1e}"
            for sign, g in (("-", self.gap_missing), ("+", self.gap_extra))
            if g is not None
        ]
        return text + (f" ({', '.join(gaps)})" if gaps else "")


def _keys(pairs: np.ndarray) -> np.ndarray:
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.unique(p[:, 0] << 32 | p[:, 1])


# Largest exact gap (world units; the spheres have radius 1) allowed for a pair that a peer
# which must agree with us reports differently: such a peer's float64 test on a pair rescaled to
# unit size rounds at about 1e-16 of the triangle size (1e-3 at 500k), so only pairs that touch
# or nearly touch may differ.
AGREEMENT_GAP = 1e-12


class ContactsDisagree(RuntimeError):
    """A peer that must agree with us reported (or missed) a pair whose triangles are apart."""


def require_agreement(
    peer_name: str,
    where: str,
    ours: np.ndarray,
    peer: np.ndarray,
    tris_a: np.ndarray,
    tris_b: np.ndarray,
    max_gap: float = AGREEMENT_GAP,
) -> None:
    """Raise unless every pair found by only one side touches (exact gap <= ``max_gap``).

    Parameters
    ----------
    peer_name, where : str
        For the message, e.g. ``"warp"``, ``"W3 100k frame 7"``.
    ours, peer : (c, 2) array_like of int
        Contact pairs (face of A, face of B).
    tris_a, tris_b : (m, 3, 3) float64
        World-space triangles of A and B.
    max_gap : float

    Raises
    ------
    ContactsDisagree
        Naming the first pair that is apart, who found it and its exact gap.
    """
    a, b = _keys(ours), _keys(peer)
    for side, keys in (("only ours", np.setdiff1d(a, b)), ("only the peer", np.setdiff1d(b, a))):
        for k in keys:
            i, j = int(k >> 32), int(k & 0xFFFFFFFF)
            gap = exact_gap(tris_a[i], tris_b[j])
            if gap > max_gap:
                raise ContactsDisagree(
                    f"{peer_name} {where}: contact sets differ: pair (A {i}, B {j}), found by "
                    f"{side}, has exact gap {gap:.3e} > {max_gap:g}"
                )


# Differing pairs whose triangle distance is computed (plain Python geometry, ~50 us each).
MAX_GAP_CHECKS = 200


def compare_pairs(
    ours: np.ndarray,
    peer: np.ndarray,
    tris_a: np.ndarray | None = None,
    tris_b: np.ndarray | None = None,
) -> PairCheck:
    """Set difference of two ``(c, 2)`` integer pair arrays (face of A, face of B).

    Parameters
    ----------
    ours, peer : (c, 2) array_like of int
    tris_a, tris_b : (m, 3, 3) float64, optional
        World-space triangles of A and B; when given, the gap of differing pairs is measured.
    """
    a, b = _keys(ours), _keys(peer)
    missing = np.setdiff1d(a, b, assume_unique=True)
    extra = np.setdiff1d(b, a, assume_unique=True)

    def unpack(keys, n):
        return [[int(k >> 32), int(k & 0xFFFFFFFF)] for k in keys[:n]]

    check = PairCheck(
        len(a), len(b), len(missing), len(extra), unpack(missing, 3), unpack(extra, 3)
    )
    if tris_a is not None and tris_b is not None:
        check.gap_missing = gap_of_pairs(unpack(missing, MAX_GAP_CHECKS), tris_a, tris_b)
        check.gap_extra = gap_of_pairs(unpack(extra, MAX_GAP_CHECKS), tris_a, tris_b)
    return check


def merge_checks(checks: list[PairCheck]) -> PairCheck | None:
    """Sum of several checks (e.g. over W3 frames); examples from the first that differ."""
    if not checks:
        return None
    total = PairCheck(0, 0, 0, 0, [], [], n_checks=len(checks))
    for c in checks:
        total.n_ours += c.n_ours
        total.n_peer += c.n_peer
        total.n_missing += c.n_missing
        total.n_extra += c.n_extra
        if not total.example_missing:
            total.example_missing = c.example_missing
        if not total.example_extra:
            total.example_extra = c.example_extra
        for name in ("gap_missing", "gap_extra"):
            g = getattr(c, name)
            if g is not None:
                old = getattr(total, name)
                setattr(total, name, g if old is None else max(old, g))
    return total


def _segment_segment(p1, q1, p2, q2) -> float:
    """Distance between segments ``p1q1`` and ``p2q2`` (Ericson 2005, 5.1.9)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    c, b = d1 @ r, d1 @ d2
    denom = a * e - b * b
    s = float(np.clip((b * f - c * e) / denom, 0.0, 1.0)) if denom > 0 else 0.0
    t = (b * s + f) / e if e > 0 else 0.0
    if t < 0.0:
        t, s = 0.0, float(np.clip(-c / a, 0.0, 1.0)) if a > 0 else 0.0
    elif t > 1.0:
        t, s = 1.0, float(np.clip((b - c) / a, 0.0, 1.0)) if a > 0 else 0.0
    return float(np.linalg.norm(p1 + d1 * s - (p2 + d2 * t)))


def _point_triangle(p, tri) -> float:
    a, b, c = tri
    n = np.cross(b - a, c - a)
    n_len = np.linalg.norm(n)
    if n_len > 0:
        n = n / n_len
        height = (p - a) @ n
        q = p - height * n
        if all(np.cross(tri[(i + 1) % 3] - tri[i], q - tri[i]) @ n >= 0 for i in range(3)):
            return abs(float(height))
    return min(_segment_segment(p, p, tri[i], tri[(i + 1) % 3]) for i in range(3))


def _segment_crosses(p, q, tri) -> bool:
    a, b, c = tri
    n = np.cross(b - a, c - a)
    dp, dq = (p - a) @ n, (q - a) @ n
    if dp * dq > 0 or dp == dq:
        return False
    x = p + (q - p) * (dp / (dp - dq))
    return all(np.cross(tri[(i + 1) % 3] - tri[i], x - tri[i]) @ n >= 0 for i in range(3))


def triangle_distance(tri_a: np.ndarray, tri_b: np.ndarray) -> float:
    """Euclidean distance between two triangles, 0 when they intersect.

    Plain float64 geometry, independent of the core's test, used only to explain why a
    peer's pair set differs from ours.

    Parameters
    ----------
    tri_a, tri_b : (3, 3) float64
        Corners (corner, xyz) in the same frame.
    """
    for s, t in ((tri_a, tri_b), (tri_b, tri_a)):
        if any(_segment_crosses(s[i], s[(i + 1) % 3], t) for i in range(3)):
            return 0.0
    d = min(
        _segment_segment(tri_a[i], tri_a[(i + 1) % 3], tri_b[j], tri_b[(j + 1) % 3])
        for i in range(3)
        for j in range(3)
    )
    d = min(d, *(_point_triangle(tri_a[i], tri_b) for i in range(3)))
    return min(d, *(_point_triangle(tri_b[i], tri_a) for i in range(3)))


def gap_of_pairs(pairs: list, tris_a: np.ndarray, tris_b: np.ndarray) -> float | None:
    """Largest distance between the two triangles of each pair.

    Parameters
    ----------
    pairs : list of [int, int]
    tris_a, tris_b : (m, 3, 3) float64
        Triangles of A and of B in world coordinates.

    Returns
    -------
    float or None
        ``max(distance)``; None for no pairs.
    """
    gaps = [triangle_distance(tris_a[i], tris_b[j]) for i, j in pairs]
    return max(gaps) if gaps else None
