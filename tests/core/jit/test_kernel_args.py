"""Arrays reach the kernels read-only, whatever the caller passed (core.jit.kernel_args).

numba compiles a kernel apart for a writable and a read-only array: a caller with arrays of
its own (a tree it built, ``np.load`` rows, a test) used to compile a second signature that
the warm-up had not made, tens of seconds each for the traversal or the exact triangle test.
Each test here calls an entry point of the core with writable arrays (and int64 ids) and
checks, with a spy in place of the kernel, that every input array arrived read-only and
C-contiguous; the outputs the kernel writes stay writable. The results are checked too.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from core.bvh import build_tree
from core.jit.kernel_args import frozen, frozen_args
from core.pose import Pose
from tests.core.meshgen import sphere_mesh


def test_frozen_views_without_copying_and_leaves_the_callers_array_writable():
    a = np.arange(6.0).reshape(2, 3)
    out = frozen(a)
    assert not out.flags.writeable and out.flags.c_contiguous
    assert np.shares_memory(out, a) and a.flags.writeable
    assert frozen(out) is out, "a read-only array passes as it is"
    ids = frozen(np.arange(4, dtype=np.int64), np.int32)
    assert ids.dtype == np.int32 and not ids.flags.writeable
    strided = frozen(a[:, ::2])
    assert strided.flags.c_contiguous and np.array_equal(strided, a[:, ::2])
    args = frozen_args((1, a, 2.5, np.float64(3.0)))
    assert args[0] == 1 and args[2] == 2.5 and not args[1].flags.writeable


def _spy(monkeypatch, module, name, outputs=()):
    """Replace ``module.name`` by a wrapper that records, for each call, the positions of the
    array arguments that arrived writable (the ``outputs`` positions are expected writable)."""
    original = getattr(module, name)
    calls = []

    def spy(*args):
        writable = [i for i, a in enumerate(args)
                    if isinstance(a, np.ndarray) and a.ndim and i not in outputs
                    and (a.flags.writeable or not a.flags.c_contiguous)]
        calls.append(writable)
        return original(*args)

    monkeypatch.setattr(module, name, spy)
    return calls


def _writable_tree(tree):
    """``tree`` made from writable copies of its arrays, as a caller (or a tree file reader)
    may build one (the Tree keeps read-only views of them)."""
    return dataclasses.replace(tree, **{
        f.name: np.array(getattr(tree, f.name)) for f in dataclasses.fields(tree)
        if isinstance(getattr(tree, f.name), np.ndarray)})


@pytest.mark.parametrize("trace", [False, True])
def test_the_traversal_reads_a_callers_writable_tree_read_only(monkeypatch, trace):
    import core.collide.traversal_driver as driver
    from core.collide import collide

    a, b = sphere_mesh(10), sphere_mesh(8, radius=0.8)
    pose = Pose.from_axis_angle((1, 2, 3), 0.5, (0.9, 0.1, 0.0))
    tree_a, tree_b = build_tree(a), build_tree(b)
    expected = collide(a, tree_a, b, tree_b, None, pose, trace=trace)
    levels = _spy(monkeypatch, driver, "traverse_levels", outputs={22})
    walks = _spy(monkeypatch, driver, "traverse_depth_first", outputs={18})
    result = collide(a, _writable_tree(tree_a), b, _writable_tree(tree_b), None, pose,
                     trace=trace)
    assert levels + walks and all(c == [] for c in levels + walks), levels + walks
    assert np.array_equal(result.pairs, expected.pairs) and result.n_contacts > 0


def test_the_triangle_tests_take_writable_arrays_and_int64_ids_read_only(monkeypatch):
    from core.collide import tritri

    a = sphere_mesh(6)
    va, fa = np.array(a.vertices), np.array(a.faces)
    pairs = np.array([(i, j) for i in range(4) for j in range(a.n_faces)], dtype=np.int64)
    calls = _spy(monkeypatch, tritri, "_tri_tri_batch", outputs={5, 6})
    kinds = np.empty(len(pairs), dtype=np.int8)
    segs = np.empty((len(pairs), 2, 3))
    tritri.tri_tri_batch(va, fa, va, fa, pairs, kinds, segs)
    assert calls == [[]]
    # A mesh against itself: each face touches itself and its neighbours.
    assert (kinds[pairs[:, 0] == pairs[:, 1]] != tritri.ContactKind.DISJOINT).all()
    dist_calls = _spy(monkeypatch, tritri, "_tri_tri_distance_batch", outputs={5, 6})
    dist = np.empty(len(pairs))
    tritri.tri_tri_distance_batch(va, fa, va, fa, pairs, dist, segs)
    assert dist_calls == [[]] and (dist[pairs[:, 0] == pairs[:, 1]] == 0.0).all()


def test_a_refit_of_a_callers_writable_tree_reads_it_read_only(monkeypatch):
    import core.bvh.refit as refit

    mesh = sphere_mesh(12)
    tree = _writable_tree(build_tree(mesh))
    moved = mesh.with_vertices(mesh.vertices * 1.5)
    calls = _spy(monkeypatch, refit, "_refit_range", outputs={4, 5})
    refitted = refit.refit_tree(tree, moved)
    assert calls == [[]]
    assert not refitted.bmin.flags.writeable and not refitted.bmax.flags.writeable
    assert np.allclose(refitted.bmax[0], moved.vertices.max(axis=0))
    # The level-by-level refit (children before parents) reads the tree read-only too.
    leaves = _spy(monkeypatch, refit, "_refit_leaves", outputs={6, 7})
    merge = _spy(monkeypatch, refit, "_refit_internal", outputs={4, 5})
    bmin, bmax = np.empty_like(tree.bmin), np.empty_like(tree.bmax)
    refit.refit_by_levels(tree, moved, bmin, bmax)
    assert leaves == merge == [[]]
    assert np.array_equal(bmin, refitted.bmin) and np.array_equal(bmax, refitted.bmax)


def test_a_deformer_reads_a_callers_writable_rest_read_only(monkeypatch):
    import core.deform.wave as wave
    from core.deform import DEFORMERS

    rest = np.array(sphere_mesh(8).vertices)
    calls = _spy(monkeypatch, wave, "_wave")
    out = DEFORMERS["wave"]()(rest, 0.25)
    assert calls == [[]]
    assert out.flags.writeable and out.shape == rest.shape and rest.flags.writeable
    assert not np.array_equal(out, rest)


def test_the_distance_oracle_takes_writable_arrays_read_only(monkeypatch):
    import core.distance as distance

    a = sphere_mesh(6)
    far = np.array(a.vertices) + (3.0, 0.0, 0.0)
    expected, pair = distance.brute_force_distance(a.vertices, a.faces, frozen(far), a.faces)
    calls = _spy(monkeypatch, distance, "_brute_force_distance")
    d, same_pair = distance.brute_force_distance(np.array(a.vertices),
                                                 np.array(a.faces, np.int64), far, a.faces)
    assert calls == [[]]
    assert d == expected and 0.9 < d < 1.5 and np.array_equal(same_pair, pair)


def test_a_tree_made_from_writable_arrays_holds_them_read_only():
    """Every tree reads as read-only, whoever made it: a build, a refit, a tree file, a
    caller (a file's writable boxes compiled ``sah_cost`` and the traversal again)."""
    tree = build_tree(sphere_mesh(6))
    made = _writable_tree(tree)
    arrays = [getattr(made, f.name) for f in dataclasses.fields(made)
              if isinstance(getattr(made, f.name), np.ndarray)]
    assert len(arrays) == 12 and not any(a.flags.writeable for a in arrays)
    assert np.array_equal(made.bmin, tree.bmin) and np.array_equal(made.first, tree.first)
