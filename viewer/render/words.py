"""Words for what is drawn: the name of each bounding-volume kind's volume, and which test
separated a culled pair (pure: no pyvista, no Qt, no core).

The separating ids are the core's (``Trace.sep_axis``; see each module's ``overlap``
docstring in ``core/bv/``):

- ``aabb`` (SAT lite): 0-2 A's face axes, 3-5 B's face axes;
- ``aabb15``, ``obb``: 0-2 A's axes, 3-5 B's axes, ``6 + 3 i + j`` the edge-edge axis
  ``a_i x b_j`` (Gottschalk et al. 1996, the 15-axis test);
- ``kdopN``: the slab index, ``i < N/2`` for slab ``i`` (of A's when B is rotated), and
  ``N/2 + i`` for B's slab ``i`` (A's box projected on it);
- ``sphere``, ``pss``: 0, the centre distance;
- ``lss``, ``rss``: 1, the bounding spheres' centre distance; 0, the distance of the cores
  (segments, rectangles).

Axes and slabs are numbered from 1 on screen, as the OBBTree paper names the axes A1, A2, A3.
"""

from __future__ import annotations

import numpy as np

_NOUNS = {
    "aabb": ("box", "boxes"),
    "aabb15": ("box", "boxes"),
    "obb": ("oriented box", "oriented boxes"),
    "sphere": ("sphere", "spheres"),
    "pss": ("sphere", "spheres"),
    "lss": ("capsule", "capsules"),
    "rss": ("rounded rectangle", "rounded rectangles"),
}

_AXIS_LETTERS = "xyz"

OVERLAPPED = -1
"""Mirror of ``core.collide.trace.OVERLAPPED`` (a test checks they agree)."""


def volume_noun(kind: str | None, plural: bool = False) -> str:
    """What one volume of ``kind`` is called: "box", "oriented box", "14-DOP", "capsule",
    ...; ``plural`` gives "boxes", "14-DOPs", .... ``None`` (no frame yet) is "box"."""
    kind = kind or "aabb"
    if kind.startswith("kdop"):
        noun = f"{kind[4:]}-DOP"
        return noun + "s" if plural else noun
    singular, many = _NOUNS.get(kind, ("volume", "volumes"))
    return many if plural else singular


def pair_noun(kind: str | None) -> str:
    """The legend's word for a pair of volumes: "box pairs", "oriented box pairs",
    "sphere pairs", "rounded-rectangle pairs"."""
    if kind == "rss":
        return "rounded-rectangle pairs"  # "rounded rectangle pairs" misreads as a noun pile
    return volume_noun(kind) + " pairs"


def _direction(dirs: np.ndarray | None, i: int) -> str:
    if dirs is None or i >= len(dirs):
        return ""
    d = np.asarray(dirs[i], dtype=np.float64)
    d = d / np.abs(d).max()  # (1, 1, -1) reads better than the unit vector
    return " (direction (" + ", ".join(f"{v:g}" for v in d) + "))"


def separation_text(kind: str | None, sep_id: int, dirs: np.ndarray | None = None) -> str:
    """Which test separated a culled pair, in words.

    Parameters
    ----------
    kind : str or None
        Registry key of the kind the traversal tested (None reads as ``"aabb"``).
    sep_id : int
        The trace's separating id (``-1`` = the pair overlapped).
    dirs : (nd, 3) float64, optional
        Slab directions of a k-DOP, to name the slab's direction.

    Returns
    -------
    str
        E.g. "A's axis 2", "B's axis 1 (x)", "A1 x B3 (edge-edge axis)", "slab 5 (direction
        (1, 1, 1))", "centre distance"; "overlapping" for -1.
    """
    kind = kind or "aabb"
    sep_id = int(sep_id)
    if sep_id == OVERLAPPED:
        return "overlapping"
    if kind in ("aabb", "aabb15", "obb"):
        letter = f" ({_AXIS_LETTERS[sep_id % 3]})" if kind != "obb" and sep_id < 6 else ""
        if sep_id < 3:
            return f"A's axis {sep_id + 1}{letter}"
        if sep_id < 6:
            return f"B's axis {sep_id - 2}{letter}"
        i, j = divmod(sep_id - 6, 3)
        return f"A{i + 1} x B{j + 1} (edge-edge axis)"
    if kind.startswith("kdop"):
        n_dirs = int(kind[4:]) // 2
        if sep_id < n_dirs:
            return f"slab {sep_id + 1}{_direction(dirs, sep_id)}"
        i = sep_id - n_dirs
        return f"B's slab {i + 1}{_direction(dirs, i)}"
    if kind in ("lss", "rss"):
        if sep_id == 1:
            return "centre distance (bounding spheres)"
        core = "segment" if kind == "lss" else "rectangle"
        return f"{core} distance (cores farther apart than the radii)"
    if kind in ("sphere", "pss"):
        return "centre distance"
    return f"test {sep_id}"
