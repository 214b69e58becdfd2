"""Is one closed mesh inside another? Closedness, generalised winding number, a report.

Two meshes with no surface contact are either nested or apart; which one is decided by a
single point of the inner candidate. Its generalised winding number with respect to the outer
mesh (Jacobson, Kavan and Sorkine-Hornung, "Robust Inside-Outside Segmentation using
Generalized Winding Numbers", SIGGRAPH 2013) is the sum of the signed solid angles of the
outer triangles seen from the point, divided by 4 pi: 1 inside a closed outward-wound surface,
0 outside (-1 inside an inward-wound one). The solid angle of one triangle is the formula of
Van Oosterom and Strackee (IEEE Trans. Biomed. Eng. 30(2), 1983).

The answer is only defined for a closed outer surface: every edge shared by exactly two
triangles. For an open one the winding number takes any value between 0 and 1 and
"inside" means nothing, so :func:`contained` says UNDEFINED and gives the count of boundary
edges. It is also only meaningful when the two surfaces do not touch: the caller checks for
contacts first (:func:`pair_containment` does).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from core.mesh import TriMesh
from core.pose import Pose

__all__ = [
    "Containment",
    "ContainmentKind",
    "EdgeStats",
    "PairContainment",
    "Relation",
    "contained",
    "containment_report",
    "edge_stats",
    "pair_containment",
    "winding_number",
]

#: Triangles processed per numpy block in :func:`winding_number`: blocks of points x triangles
#: of this many entries keep each temporary near 8 MB.
_BLOCK_ENTRIES = 1 << 20

#: A closed surface has an integer winding number at every point off it; round-off in the
#: solid-angle sum is many orders below 1/2, so 1/2 separates "inside" from "outside"
#: (Jacobson et al. 2013 threshold their fractional field at 1/2 as well).
_INSIDE_THRESHOLD = 0.5


class ContainmentKind(enum.Enum):
    """Where the inner mesh is relative to the outer one."""

    INSIDE = "inside"
    """Inside the closed outer surface (assuming no surface contact)."""
    OUTSIDE = "outside"
    """Outside the closed outer surface."""
    UNDEFINED = "undefined"
    """The outer mesh is not closed: containment is undefined for open meshes."""


@dataclass(frozen=True)
class EdgeStats:
    """How the triangles of a mesh share their edges.

    Attributes
    ----------
    n_edges : int
        Distinct undirected edges (edges of a triangle with a repeated corner that join a
        vertex to itself are not counted).
    n_boundary_edges : int
        Edges used by exactly one triangle.
    n_nonmanifold_edges : int
        Edges used by three triangles or more.
    """

    n_edges: int
    n_boundary_edges: int
    n_nonmanifold_edges: int

    @property
    def is_closed(self) -> bool:
        """Every edge is shared by exactly two triangles."""
        return self.n_boundary_edges == 0 and self.n_nonmanifold_edges == 0


@dataclass(frozen=True)
class Containment:
    """The answer of :func:`contained`.

    Attributes
    ----------
    kind : ContainmentKind
    winding : float
        Generalised winding number of the tested point with respect to the outer mesh
        (NaN when UNDEFINED).
    outer_edges : EdgeStats
        Edge sharing of the outer mesh (why it is or is not closed).
    point : (3,) float64
        The inner mesh's point that was tested, in the outer mesh's coordinates.
    """

    kind: ContainmentKind
    winding: float
    outer_edges: EdgeStats
    point: np.ndarray

    @property
    def reason(self) -> str:
        """One sentence, for messages."""
        if self.kind is ContainmentKind.UNDEFINED:
            return "containment is undefined for open meshes: " + _open_detail(self.outer_edges)
        return f"winding number {self.winding:.3f} at the tested point"


def _open_detail(stats: EdgeStats) -> str:
    parts = []
    if stats.n_boundary_edges:
        parts.append(f"{stats.n_boundary_edges} boundary edges")
    if stats.n_nonmanifold_edges:
        parts.append(f"{stats.n_nonmanifold_edges} non-manifold edges")
    return ", ".join(parts)


def edge_stats(mesh: TriMesh) -> EdgeStats:
    """Count how many triangles use each undirected edge.

    Parameters
    ----------
    mesh : TriMesh

    Returns
    -------
    EdgeStats
    """
    f = mesh.faces.astype(np.int64)
    ends = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])  # (3m, 2) int64
    ends = ends[ends[:, 0] != ends[:, 1]]
    lo = ends.min(axis=1)
    hi = ends.max(axis=1)
    # One int64 key per edge: sorting 3m integers is several times faster than unique(axis=0).
    keys = lo * np.int64(mesh.n_vertices) + hi
    _, uses = np.unique(keys, return_counts=True)
    return EdgeStats(
        n_edges=int(uses.size),
        n_boundary_edges=int(np.count_nonzero(uses == 1)),
        n_nonmanifold_edges=int(np.count_nonzero(uses > 2)),
    )


def winding_number(vertices: np.ndarray, faces: np.ndarray, points) -> np.ndarray:
    """Generalised winding number of points with respect to a triangle mesh.

    Parameters
    ----------
    vertices : (n, 3) float64
    faces : (m, 3) int32
    points : (k, 3) array_like of float
        Query points, in the mesh's coordinates.

    Returns
    -------
    (k,) float64
        ``sum over triangles of solid angle / (4 pi)``: 1 inside and 0 outside a closed
        surface wound counter-clockwise seen from outside, fractional for open surfaces.
    """
    pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
    tris = np.asarray(vertices, dtype=np.float64)[np.asarray(faces)]
    total = np.zeros(pts.shape[0])
    block = max(1, _BLOCK_ENTRIES // max(1, pts.shape[0]))
    for start in range(0, tris.shape[0], block):
        t = tris[start : start + block]
        a = t[None, :, 0, :] - pts[:, None, :]  # (k, b, 3)
        b = t[None, :, 1, :] - pts[:, None, :]
        c = t[None, :, 2, :] - pts[:, None, :]
        la = np.linalg.norm(a, axis=2)
        lb = np.linalg.norm(b, axis=2)
        lc = np.linalg.norm(c, axis=2)
        det = np.einsum("kbi,kbi->kb", a, np.cross(b, c))
        den = (
            la * lb * lc
            + np.einsum("kbi,kbi->kb", a, b) * lc
            + np.einsum("kbi,kbi->kb", b, c) * la
            + np.einsum("kbi,kbi->kb", c, a) * lb
        )
        # tan(omega / 2) = det / den (Van Oosterom and Strackee 1983).
        total += 2.0 * np.arctan2(det, den).sum(axis=1)
    return total / (4.0 * np.pi)


def _probe_point(mesh: TriMesh) -> np.ndarray:
    """A point of the mesh's surface: the centroid of its largest triangle, ``(3,) float64``.

    A centroid rather than a corner: a corner is shared by several triangles, and a surface
    that merely passes near the other one is less likely to pass through a face's middle.
    """
    tris = mesh.triangles
    areas = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
    return tris[int(np.argmax(areas))].mean(axis=0)


def contained(
    mesh_inner: TriMesh,
    mesh_outer: TriMesh,
    pose_inner: Pose | None = None,
    pose_outer: Pose | None = None,
) -> Containment:
    """Is ``mesh_inner`` inside the closed surface ``mesh_outer``?

    Only meaningful when the two surfaces do not touch (check with
    :func:`core.collide.collide` first): then one point of the inner surface decides for all.

    Parameters
    ----------
    mesh_inner, mesh_outer : TriMesh
    pose_inner, pose_outer : Pose, optional
        World poses; None is the identity.

    Returns
    -------
    Containment
        UNDEFINED when the outer mesh is not closed (with the count of boundary edges).
    """
    stats = edge_stats(mesh_outer)
    x = _probe_point(mesh_inner)
    if pose_inner is not None:
        x = pose_inner.apply(x[None, :])[0]
    if pose_outer is not None:
        x = pose_outer.inverse().apply(x[None, :])[0]
    if not stats.is_closed:
        return Containment(ContainmentKind.UNDEFINED, float("nan"), stats, x)
    w = float(winding_number(mesh_outer.vertices, mesh_outer.faces, x[None, :])[0])
    # abs: an inward-wound closed surface gives -1 inside; it is still inside.
    kind = ContainmentKind.INSIDE if abs(w) > _INSIDE_THRESHOLD else ContainmentKind.OUTSIDE
    return Containment(kind, w, stats, x)


class Relation(enum.Enum):
    """How two posed meshes sit relative to each other."""

    IN_CONTACT = "in_contact"
    A_INSIDE_B = "a_inside_b"
    B_INSIDE_A = "b_inside_a"
    APART = "apart"
    UNDEFINED = "undefined"


@dataclass(frozen=True)
class PairContainment:
    """The answer of :func:`pair_containment`.

    Attributes
    ----------
    relation : Relation
    text : str
        For a person: "A is inside B", "B is inside A", "apart", "in contact" or
        "undefined: B is open (412 boundary edges)".
    a_in_b, b_in_a : Containment or None
        The two one-way tests (None when the meshes are in contact: not run).
    """

    relation: Relation
    text: str
    a_in_b: Containment | None
    b_in_a: Containment | None

    def as_dict(self) -> dict:
        """JSON-ready form: relation, text, winding numbers and boundary edge counts."""

        def one_way(c: Containment | None) -> dict | None:
            if c is None:
                return None
            return {
                "kind": c.kind.value,
                "winding": None if np.isnan(c.winding) else c.winding,
                "outer_boundary_edges": c.outer_edges.n_boundary_edges,
                "outer_nonmanifold_edges": c.outer_edges.n_nonmanifold_edges,
            }

        return {
            "relation": self.relation.value,
            "text": self.text,
            "a_in_b": one_way(self.a_in_b),
            "b_in_a": one_way(self.b_in_a),
        }


def pair_containment(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None,
    pose_b: Pose | None,
    result,
    labels: tuple[str, str] = ("A", "B"),
) -> PairContainment:
    """Nested, apart, in contact, or undefined: the containment of two posed meshes.

    Parameters
    ----------
    mesh_a, mesh_b : TriMesh
    pose_a, pose_b : Pose or None
    result : CollisionResult
        Of the same meshes and poses (``core.collide.collide``); any contact makes the
        relation IN_CONTACT, since containment needs surfaces that do not touch.
    labels : (str, str)
        Names of the meshes in the text.

    Returns
    -------
    PairContainment
    """
    la, lb = labels
    if result.in_contact:
        return PairContainment(Relation.IN_CONTACT, "in contact", None, None)
    a_in_b = contained(mesh_a, mesh_b, pose_a, pose_b)
    b_in_a = contained(mesh_b, mesh_a, pose_b, pose_a)
    if a_in_b.kind is ContainmentKind.INSIDE:
        return PairContainment(Relation.A_INSIDE_B, f"{la} is inside {lb}", a_in_b, b_in_a)
    if b_in_a.kind is ContainmentKind.INSIDE:
        return PairContainment(Relation.B_INSIDE_A, f"{lb} is inside {la}", a_in_b, b_in_a)
    is_a_open = b_in_a.kind is ContainmentKind.UNDEFINED
    is_b_open = a_in_b.kind is ContainmentKind.UNDEFINED
    if is_a_open or is_b_open:
        opened = []
        if is_a_open:
            opened.append(f"{la} is open ({_open_detail(b_in_a.outer_edges)})")
        if is_b_open:
            opened.append(f"{lb} is open ({_open_detail(a_in_b.outer_edges)})")
        text = "undefined: " + " and ".join(opened)
        return PairContainment(Relation.UNDEFINED, text, a_in_b, b_in_a)
    return PairContainment(Relation.APART, "apart", a_in_b, b_in_a)


def containment_report(
    mesh_a: TriMesh,
    mesh_b: TriMesh,
    pose_a: Pose | None,
    pose_b: Pose | None,
    result,
) -> str:
    """One line: "A is inside B", "B is inside A", "apart", "in contact", or
    "undefined: B is open (412 boundary edges)". See :func:`pair_containment`."""
    return pair_containment(mesh_a, mesh_b, pose_a, pose_b, result).text
