"""The registry of bounding-volume kinds, and numba dispatch over them.

Every kind is a :class:`BVKind`: a row width and the kind's numba functions with the common
signatures (``fit``, ``refit``, ``overlap``, ``volume``, ``lower_bound``), a ``wire`` for the
viewer, and everything a student reads about it (its name, the nouns for one volume and for
pairs, how the test that separated a pair is said). Nothing outside the kind's module and its
row knows which kind it is: adding one is the recipe in ``CONTRIBUTING.md``.

Why the traversal dispatches on a small integer ``code`` instead of taking the ``overlap``
function as a first-class argument: numba 0.68 compiles a kernel that takes (or closes over)
a dispatcher fine, but does not reuse its on-disk cache in a new process (measured: the
cache index is re-written on every run), so every process would pay the compile of every
kind's traversal again. :func:`overlap_by_code` is an ``if`` chain over the same functions;
one kernel, compiled and cached once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from numba import njit

from core.bv import aabb, kdop, obb, sphere, ssv
from core.bv.obb_fit import ObbFit, fit_hull_bottom_up, fit_method
from core.jit.kernel_args import frozen, frozen_args


@dataclass(frozen=True)
class BVKind:
    """One kind of bounding volume.

    Attributes
    ----------
    name : str
        Registry key.
    code : int
        Its number in the numba dispatch (:func:`overlap_by_code`, :func:`volume_by_code`,
        :func:`lower_bound_by_code`): which ``overlap``, ``volume`` and ``lower_bound`` the
        traversal and the distance query run on its rows. A kind with tests of its own takes
        the next free number and one branch in each of the three; a kind whose rows have
        another kind's layout and tests (a box fitted differently) takes that kind's number.
    width : int
        Floats per node row.
    fit, refit, overlap, volume, lower_bound : numba functions
        ``fit(vertices, faces, prim_ids, prim_start, n_prims, out)``;
        ``refit(vertices, faces, prim_ids, prim_start, n_prims, first, count, level_nodes,
        level_start, out)``; ``overlap(row_a, row_b, rot, trans, margin) -> int`` (-1 or the
        id of the test that separated); ``volume(row) -> float``;
        ``lower_bound(row_a, row_b, rot, trans) -> float`` (None where not offered).
    wire : callable
        ``wire(rows (j, width) float64) -> dict`` of plain numpy drawable records: ``points
        (N, 3) float64``, ``line_sizes (c,) int64``, ``line_ids (line_sizes.sum(),) int64``
        (see :mod:`core.bv._wire`), plus the kind's own descriptive keys.
    refit_exact : bool
        Whether ``refit`` gives the same volumes as ``fit`` (exact merge or from primitives).
    label : str
        Short name with the acronym, for tables ("OBB", "AABB (SAT lite)").
    description : str
        A few sentences for students: what the volume is, how it is tested, what it costs.
    people_name : str
        What a student reads in a list of kinds ("oriented box (OBB)", "14-DOP", "capsule
        (LSS)"): the viewer's choice labels.
    noun, noun_plural, pair_noun : str
        One volume, several, and a pair of them in a sentence ("oriented box", "oriented
        boxes", "oriented box pairs").
    separating_test : callable
        ``separating_test(sep_id: int) -> str``: the test that separated a culled pair, from
        the id ``overlap`` returned ("A's axis 2 (y)", "slab 5 (direction (1, 1, 0))").
    distance_outside : callable
        ``distance_outside(row (width,) float64, points (p, 3) float64) -> (p,) float64``:
        how far each point is outside the volume, <= 0 inside (what the generic tests check
        containment with).
    refit_how : str
        How ``refit`` works and what it costs, in a few words (the refit benchmark's table).
    parameters : dict
        The kind's fixed parameters by name (a k-DOP's ``"directions"``, ``(k/2, 3)
        float64``); empty for most.
    max_drawn : int or None
        Most volumes a viewer should draw per overlay when drawing one costs more than a box
        (a k-DOP's faces are solved per node); None: no limit of its own.
    exact_volume : callable or None
        ``exact_volume(rows) -> (j,) float64`` of the drawn shape, where ``volume`` is only an
        upper bound (a k-DOP's is its box's); None: ``volume`` is exact.
    has_fit_choice : bool
        Its fit has a choice of method (:class:`core.bv.obb_fit.ObbFit`, the OBB's).
    is_tree_box : bool
        Its volumes are the tree's own boxes (``core.bvh.Tree.bmin, bmax``), so a viewer can
        draw those instead of fitting.
    separation : callable or None
        ``separation(row_a, row_b, rot, trans, sep_id) -> (axis (3,), interval_a, interval_b,
        through (3,))`` of a pair that ``overlap`` culled with ``sep_id``: the unit axis the
        test separated along, both volumes' projections on it (``x . axis``, B posed in A's
        frame) and a point near the pair to draw the axis through, all in A's frame (what
        :func:`core.lab.separation.separation` shows).
    shape : callable or None
        ``shape(rows (j, width) float64)`` -> one record of :mod:`core.bv.shapes` (``Boxes``,
        ``OrientedBoxes``, ``Slabs``, ``Balls``, ``SweptRectangles``): the rows as geometry,
        read through the module's named columns. The tree-quality metrics
        (:mod:`core.bvh.metrics`) measure that shape; None: the kind has no metrics.
    listing : str or None
        Name of the pseudo-code listing of its ``overlap`` test in
        :mod:`core.lab.pseudocode` (``"sat_lite"``, ``"sat15"``, ``"kdop"``, ...);
        None: no listing.
    """

    name: str
    code: int
    width: int
    fit: Callable
    refit: Callable
    overlap: Callable
    volume: Callable
    lower_bound: Callable | None
    wire: Callable
    refit_exact: bool
    label: str
    description: str
    people_name: str
    noun: str
    noun_plural: str
    pair_noun: str
    separating_test: Callable[[int], str]
    distance_outside: Callable
    refit_how: str
    parameters: dict = field(default_factory=dict, compare=False)
    max_drawn: int | None = None
    exact_volume: Callable | None = None
    has_fit_choice: bool = False
    is_tree_box: bool = False
    separation: Callable | None = None
    shape: Callable | None = None
    listing: str | None = None

    @property
    def bounds_distance(self) -> bool:
        """Whether its ``lower_bound`` can drive :func:`core.distance.min_distance`."""
        return self.lower_bound is not None

    def shape_volumes(self, rows: np.ndarray) -> np.ndarray:
        """Volume of each row's shape, ``(j,) float64`` (``exact_volume``, else ``volume``)."""
        # Read-only rows (core.jit.kernel_args): a caller's selection of rows is a writable copy.
        rows = frozen(np.asarray(rows, dtype=np.float64).reshape(-1, self.width))
        if self.exact_volume is not None:
            return self.exact_volume(rows)
        return np.array([self.volume(r) for r in rows], dtype=np.float64)


TREE_BOX_KIND = "aabb"
"""The kind that tests the tree's own boxes (``core.bvh.Tree.bmin, bmax``) the way the tree
traversal and self-collision do (SAT lite under rotation)."""


def _words(people_name: str, noun: str, noun_plural: str, pair_noun: str) -> dict:
    return {"people_name": people_name, "noun": noun, "noun_plural": noun_plural,
            "pair_noun": pair_noun}  # fmt: skip


def _kinds() -> dict[str, BVKind]:
    boxes = _words("axis-aligned box", "box", "boxes", "box pairs")
    k = [
        BVKind("aabb", 0, aabb.WIDTH, aabb.fit, aabb.refit, aabb.overlap, aabb.volume,
               aabb.lower_bound, aabb.wire, True, "AABB (SAT lite)",
               "Axis-aligned boxes. Under rotation B's box is tested in A's frame with only the "
               "six face axes (van den Bergen's SAT lite): cheap, never misses, sometimes lets "
               "a separated pair through.",
               **{**boxes, "people_name": "axis-aligned box (AABB, SAT lite)"},
               separating_test=aabb.separating_test, distance_outside=aabb.distance_outside,
               refit_how="exact merge of children, O(k)", is_tree_box=True,
               separation=aabb.separation, shape=aabb.shape, listing="sat_lite"),
        BVKind("aabb15", 1, aabb.WIDTH, aabb.fit, aabb.refit, aabb.overlap15, aabb.volume,
               aabb.lower_bound, aabb.wire, True, "AABB (15 axes)",
               "Axis-aligned boxes tested with the full 15-axis separating axis test: fewer "
               "box tests than SAT lite, more arithmetic per test.",
               **{**boxes, "people_name": "axis-aligned box (AABB, 15 axes)"},
               separating_test=aabb.separating_test, distance_outside=aabb.distance_outside,
               refit_how="exact merge of children, O(k)", is_tree_box=True,
               separation=aabb.separation, shape=aabb.shape, listing="sat15"),
        BVKind("obb", 2, obb.WIDTH, obb.fit, obb.refit, obb.overlap, obb.volume,
               obb.lower_bound, obb.wire, True, "OBB",
               "Oriented boxes along the principal axes of the triangles (OBBTree, RAPID); "
               "15-axis test. Tight on long thin parts; fit costs an eigen-decomposition.",
               **_words("oriented box (OBB)", "oriented box", "oriented boxes",
                        "oriented box pairs"),
               separating_test=obb.separating_test, distance_outside=obb.distance_outside,
               refit_how="from primitives: covariance O(k) by running sums, extents O(m depth)",
               has_fit_choice=True, separation=obb.separation, shape=obb.shape,
               listing="sat15"),
        BVKind("sphere", 3, sphere.WIDTH, sphere.fit, sphere.refit, sphere.overlap,
               sphere.volume, sphere.lower_bound, sphere.wire, False, "Sphere",
               "Spheres around the box centre. Rotation-invariant and the cheapest test, but "
               "loose on flat and long parts; refit merges child spheres loosely.",
               **_words("sphere", "sphere", "spheres", "sphere pairs"),
               separating_test=sphere.separating_test,
               distance_outside=sphere.distance_outside,
               refit_how="loose merge of child spheres, O(k)", separation=sphere.separation,
               shape=sphere.shape, listing="sphere"),
    ]
    code = 4
    for n in (6, 14, 18, 26):
        dirs = kdop.DIRECTIONS[n]
        k.append(BVKind(
            f"kdop{n}", code, 2 * dirs.shape[0], getattr(kdop, f"fit{n}"),
            getattr(kdop, f"refit{n}"), getattr(kdop, f"overlap{n}"),
            getattr(kdop, f"volume{n}"), None, kdop.make_wire(dirs), True, f"{n}-DOP",
            f"Slabs along {dirs.shape[0]} fixed directions. Exact and cheap without rotation; "
            "under rotation each side's box is projected on the other's slabs (conservative).",
            **_words(f"{n}-DOP", f"{n}-DOP", f"{n}-DOPs", f"{n}-DOP pairs"),
            separating_test=kdop.make_separating_test(dirs),
            distance_outside=partial(kdop.distance_outside, dirs=dirs),
            refit_how="exact slab-wise merge, O(k)", parameters={"directions": dirs},
            max_drawn=kdop.MAX_DRAWN, exact_volume=partial(kdop.shape_volume, dirs=dirs),
            separation=kdop.make_separation(dirs), shape=kdop.make_shape(dirs), listing="kdop",
        ))  # fmt: skip
        code += 1
    k += [
        BVKind("pss", 8, ssv.WIDTH, ssv.fit_pss, ssv.refit_pss, ssv.overlap_pss, ssv.volume,
               ssv.lower_bound_pss, ssv.wire, True, "PSS (point swept sphere)",
               "A sphere, stored as a swept sphere (PQP). Its distance bound is the centre "
               "distance minus the radii.",
               **_words("point swept sphere (PSS)", "sphere", "spheres", "sphere pairs"),
               separating_test=ssv.separating_test_pss, distance_outside=ssv.distance_outside,
               refit_how="from primitives (the sphere fit of every node), O(m depth)",
               separation=ssv.separation, shape=ssv.shape_pss, listing="point_swept_sphere"),
        BVKind("lss", 9, ssv.WIDTH, ssv.fit_lss, ssv.refit_lss, ssv.overlap_lss, ssv.volume,
               ssv.lower_bound_lss, ssv.wire, True, "LSS (capsule)",
               "A segment along the main axis swept by a sphere (PQP): a capsule.",
               **_words("capsule (LSS)", "capsule", "capsules", "capsule pairs"),
               separating_test=ssv.separating_test_lss, distance_outside=ssv.distance_outside,
               refit_how="from primitives (OBB fit, then the radius), O(m depth)",
               separation=ssv.separation, shape=ssv.shape, listing="swept_sphere"),
        BVKind("rss", 10, ssv.WIDTH, ssv.fit_rss, ssv.refit_rss, ssv.overlap_rss, ssv.volume,
               ssv.lower_bound_rss, ssv.wire, True, "RSS (rounded rectangle)",
               "A rectangle in the two main axes swept by a sphere (PQP): tight for distance "
               "queries, its bound is the rectangle-rectangle distance minus the radii.",
               # "rounded rectangle pairs" misreads as a noun pile: hyphenate the pair noun.
               **_words("rounded rectangle (RSS)", "rounded rectangle", "rounded rectangles",
                        "rounded-rectangle pairs"),
               separating_test=ssv.separating_test_rss, distance_outside=ssv.distance_outside,
               refit_how="from primitives (the OBB fit), O(m depth)",
               separation=ssv.separation, shape=ssv.shape, listing="swept_sphere"),
    ]
    return {kind.name: kind for kind in k}


#: Every bounding-volume kind by name.
BV_KINDS: dict[str, BVKind] = _kinds()


def get_kind(bv: str | BVKind) -> BVKind:
    """Look a kind up by name; a clear error lists the names."""
    if isinstance(bv, BVKind):
        return bv
    try:
        return BV_KINDS[str(bv).lower()]
    except KeyError:
        raise ValueError(f"unknown bounding volume {bv!r}; one of {', '.join(BV_KINDS)}") from None


@njit(cache=True, nogil=True)
def overlap_by_code(code, vol_a, a, vol_b, b, rot, trans, margin):
    """The ``overlap`` of kind ``code`` (see :class:`BVKind`) of row ``a`` of ``vol_a`` and row
    ``b`` of ``vol_b``.

    The OBB test reads the rows by index: a row view costs two atomic reference counts, which
    doubled the time of a serial 15-axis test (measured, 150 vs 67 ns per pair).
    """
    if code == 2:
        return obb.overlap_at(vol_a, a, vol_b, b, rot, trans, margin)
    # An if-chain over the kind codes, not a table of functions: a cached njit kernel cannot
    # index a tuple of other kernels by a runtime code, and each branch calls the kind's own
    # test directly so numba compiles it in. volume_by_code and lower_bound_by_code follow suit.
    ra = vol_a[a]
    rb = vol_b[b]
    if code == 0:
        return aabb.overlap(ra, rb, rot, trans, margin)
    if code == 1:
        return aabb.overlap15(ra, rb, rot, trans, margin)
    if code == 3:
        return sphere.overlap(ra, rb, rot, trans, margin)
    if code == 4:
        return kdop.overlap6(ra, rb, rot, trans, margin)
    if code == 5:
        return kdop.overlap14(ra, rb, rot, trans, margin)
    if code == 6:
        return kdop.overlap18(ra, rb, rot, trans, margin)
    if code == 7:
        return kdop.overlap26(ra, rb, rot, trans, margin)
    if code == 8:
        return ssv.overlap_pss(ra, rb, rot, trans, margin)
    if code == 9:
        return ssv.overlap_lss(ra, rb, rot, trans, margin)
    return ssv.overlap_rss(ra, rb, rot, trans, margin)


@njit(cache=True, nogil=True)
def volume_by_code(code, vol, i):
    """The ``volume`` of kind ``code`` of row ``i`` of ``vol`` (the OBB's read by index, as in
    :func:`overlap_by_code`)."""
    if code == 2:
        # 8 a b c as obb.volume: scaling by a power of two is exact, so the product is the same.
        return 8.0 * obb.half_volume(vol, i)
    row = vol[i]
    if code <= 1:
        return aabb.volume(row)
    if code == 3:
        return sphere.volume(row)
    if code == 4:
        return kdop.volume6(row)
    if code == 5:
        return kdop.volume14(row)
    if code == 6:
        return kdop.volume18(row)
    if code == 7:
        return kdop.volume26(row)
    return ssv.volume(row)


@njit(cache=True, nogil=True)
def lower_bound_by_code(code, ra, rb, rot, trans):
    """The ``lower_bound`` of kind ``code`` (0 for kinds without one: never prunes)."""
    if code <= 1:
        return aabb.lower_bound(ra, rb, rot, trans)
    if code == 2:
        return obb.lower_bound(ra, rb, rot, trans)
    if code == 3:
        return sphere.lower_bound(ra, rb, rot, trans)
    if code == 8:
        return ssv.lower_bound_pss(ra, rb, rot, trans)
    if code == 9:
        return ssv.lower_bound_lss(ra, rb, rot, trans)
    if code == 10:
        return ssv.lower_bound_rss(ra, rb, rot, trans)
    return 0.0


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GIVEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def give_volumes(tree, vertices: np.ndarray, volumes: dict) -> None:
    """Make ``volumes`` (kind name -> ``(k, width)`` rows, read-only) what
    :func:`fit_volumes` returns for ``tree`` while the mesh's vertices equal ``vertices``:
    an engine's tree file brings its own volumes (coal's OBBs), used as they are by the
    query, the drawing and the measures. Once the vertices change they are fitted again."""
    if volumes:
        _GIVEN[tree] = (vertices, dict(volumes))


def given_volumes(tree, vertices: np.ndarray, bv: str | BVKind):
    """The rows :func:`give_volumes` gave ``tree`` for kind ``bv`` if ``vertices`` are
    still those they were given for, else None."""
    hit = _GIVEN.get(tree)
    if hit is None:
        return None
    rows = hit[1].get(get_kind(bv).name)
    if rows is None:
        return None
    same = hit[0] is vertices or (hit[0].shape == vertices.shape
                                  and np.array_equal(hit[0], vertices))  # fmt: skip
    return rows if same else None


def fit_volumes(tree, mesh, bv: str | BVKind = "obb", obb_fit: ObbFit | None = None):
    """Every node's volume of one kind, fitted from its triangles; cached per tree and mesh.

    Parameters
    ----------
    tree : core.bvh.Tree
    mesh : TriMesh
        The vertices the volumes are fitted to (same faces as the tree).
    bv : str or BVKind
    obb_fit : ObbFit, optional
        Only for ``"obb"``: the covariance used (default ``SURFACE``).

    Returns
    -------
    (k, width) float64
        Read-only; row layout documented in the kind's module. For a tree given volumes of
        this kind (:func:`give_volumes`, a tree read from coal's file) while the vertices
        are those they were given for: those volumes, whatever ``obb_fit``.
    """
    kind = get_kind(bv)
    given = given_volumes(tree, mesh.vertices, kind) if tree in _GIVEN else None
    if given is not None:
        return given
    method = ObbFit.SURFACE if obb_fit is None else ObbFit(obb_fit)
    key = (kind.name, int(method) if kind.has_fit_choice else -1)
    per_tree = _CACHE.setdefault(tree, {})
    hit = per_tree.get(key)
    if hit is not None and hit[0] is mesh.vertices:
        return hit[1]
    out = np.empty((tree.n_nodes, kind.width))
    # Read-only inputs (core.jit.kernel_args): one compiled signature for any caller's tree.
    args = frozen_args((mesh.vertices, mesh.faces, tree.prim_ids, tree.prim_start,
                        tree.n_prims))
    levels = frozen_args((tree.first, tree.count, tree.level_nodes, tree.level_start))
    if kind.has_fit_choice and method in (ObbFit.HULL_VERTICES, ObbFit.HULL_SURFACE):
        fit_hull_bottom_up(*args, *levels, out, int(method))
    elif kind.has_fit_choice:
        fit_method(*args, out, int(method))
    elif kind.refit_exact:
        # The same volumes as ``fit``, and for the merging kinds (boxes, k-DOPs) O(k) instead
        # of O(m log m): bunny-bunny, 69k triangles each, 14-DOP 26 -> 10 ms a frame (measured).
        kind.refit(*args, *levels, out)
    else:
        kind.fit(*args, out)
    out.flags.writeable = False
    per_tree[key] = (mesh.vertices, out)
    return out


def fit_from_triangles(tree, mesh, bv: str | BVKind = "obb",
                       obb_fit: ObbFit | None = None) -> np.ndarray:
    """Every node's volume fitted from its own triangles (the kind's ``fit``, or for a kind
    with a fit choice the ``obb_fit`` method), ``(k, width) float64``, read-only; not cached,
    so callers can time it."""
    kind = get_kind(bv)
    out = np.empty((tree.n_nodes, kind.width))
    args = frozen_args((mesh.vertices, mesh.faces, tree.prim_ids, tree.prim_start,
                        tree.n_prims)) + (out,)
    if kind.has_fit_choice:
        fit_method(*args, int(ObbFit.SURFACE if obb_fit is None else ObbFit(obb_fit)))
    else:
        kind.fit(*args)
    # Read-only like fit_volumes' rows: numba types read-only arrays apart, and a traversal
    # compiled for writable ones is not in the warmed cache (measured: a 28 s compile).
    out.flags.writeable = False
    return out


def refit_volumes(tree, mesh, bv: str | BVKind = "obb") -> np.ndarray:
    """Every node's volume through the kind's ``refit`` (bottom-up merge where the kind has
    one, from primitives otherwise), ``(k, width) float64``, read-only; not cached."""
    kind = get_kind(bv)
    out = np.empty((tree.n_nodes, kind.width))
    kind.refit(*frozen_args((mesh.vertices, mesh.faces, tree.prim_ids, tree.prim_start,
                             tree.n_prims, tree.first, tree.count, tree.level_nodes,
                             tree.level_start)), out)  # fmt: skip
    # Read-only like fit_volumes' rows (the traversal reads them through core.jit.kernel_args).
    out.flags.writeable = False
    return out
