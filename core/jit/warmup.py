"""Compile every numba kernel once so the first frame of the app does not stall.

Kernels are compiled with ``cache=True``: this writes the machine code to the on-disk cache
and later processes load it in well under a second. ``make run`` and ``make test`` call
``python -m core warmup`` after installing; the app runs it in the background when it finds
the cache incomplete (:mod:`core.jit.interpreted` runs the kernels as Python meanwhile).

The work is a list of :data:`STEPS`, the app's first frame first. ``warm_up`` hands the
steps to worker processes one at a time (``python -m core warmup --worker`` reads step keys
on standard input), so two cores stay busy to the end and every finished step is reported
as it happens: ``compiled 3 of 24 [traversal] the traversal's variants...``
(:func:`progress_line`, read back by :func:`parse_progress`). A complete run leaves a stamp in
the cache directory (:func:`core.jit.numba_cache.mark_complete`).
"""

from __future__ import annotations

import functools
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def _tiny_meshes():
    from core.mesh import TriMesh

    # Two small closed octahedra: enough triangles for internal nodes on both sides.
    v = np.array(
        [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.float64
    )
    f = np.array(
        [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]
    )
    return TriMesh.from_arrays(v, f, "a"), TriMesh.from_arrays(v * 0.9 + 0.3, f, "b")


def _warm_frame(a, b, pose) -> None:
    """The app's first frame: build, refit, the traversal with its record, the triangle
    tests, distance and containment, with the viewer's settings."""
    from core.deform import DEFORMERS
    from core.pipeline import BodyInput, FramePipeline, PipelineSettings
    from core.request import CollisionRequest, FrameOptions

    settings = PipelineSettings(CollisionRequest(trace=True),
                                frame=FrameOptions(containment=True, distance=True))
    bodies = [BodyInput("a", a, deformer=DEFORMERS["radial_wave"]()), BodyInput("b", b, pose)]
    pipe = FramePipeline(settings)
    for t in (0.0, 0.1):  # the second frame refits the deformed body's tree
        pipe.step(bodies, t)


def _warm_triangle_tests(a, b, pose) -> None:
    """The exact triangle-triangle test on every face pair (its exact fallback is the
    costliest kernel to compile: about half of the first frame's compile)."""
    from core.collide.query import exact_contacts
    from core.collide.tritri import tri_tri

    pairs = np.array([(i, j) for i in range(a.n_faces) for j in range(b.n_faces)],
                     dtype=np.int32)
    exact_contacts(a, b, pairs, np.eye(3), np.zeros(3), None)
    tri_tri(a.vertices[a.faces[0]], b.vertices[b.faces[0]])  # one pair, the public entry


def _warm_trees(a, b, pose) -> None:
    """The first frame's tree build (midpoint split), refit and drift measure; the refit's
    two-thread variant (trees of many nodes) and its level-by-level one (a tree whose
    children come before their parents, as a tree file may order them)."""
    import core.bvh.refit as refit
    from core.bvh import SplitRule, build_tree, refit_tree, tree_drift

    tree_a = build_tree(a, SplitRule.MIDPOINT, 1)
    moved = a.with_vertices(a.vertices * 1.01)
    saved = refit._PARALLEL_REFIT_MIN
    try:
        for parallel_min in (saved, 0):
            refit._PARALLEL_REFIT_MIN = parallel_min
            tree_drift(tree_a, refit_tree(tree_a, moved))
    finally:
        refit._PARALLEL_REFIT_MIN = saved
    refit.refit_by_levels(tree_a, moved, np.empty_like(tree_a.bmin), np.empty_like(tree_a.bmax))


def _warm_splits(a, b, pose) -> None:
    """Every split rule's build, the refit and the drift measure."""
    from core.bvh import SplitRule, build_tree, refit_tree, tree_drift

    for rule in SplitRule:
        tree_a = build_tree(a, rule, 1)
        build_tree(b, rule, 2)
        tree_drift(tree_a, refit_tree(tree_a, a.with_vertices(a.vertices * 1.01)))


def _midpoint_trees(a, b):
    from core.bvh import SplitRule, build_tree

    return build_tree(a, SplitRule.MIDPOINT, 1), build_tree(b, SplitRule.MIDPOINT, 2)


def _warm_traversal(a, b, pose) -> None:
    """The traversal's variants: each descend rule, serial and parallel levels, with and
    without the record, two bodies and one body against itself."""
    import core.collide.selfcollide as selfcollide
    import core.collide.tandem as tandem
    import core.collide.traversal_driver as driver
    from core.collide import DescendRule, collide, self_collide

    tree_a, tree_b = _midpoint_trees(a, b)
    # Levels run serially below a size threshold and in parallel above it: lower the
    # threshold once so both variants run. Every query below goes through the one traversal
    # kernel (core.collide.traversal), whose machine code holds both variants.
    modules = (driver, selfcollide)
    saved = [m.PARALLEL_MIN_PAIRS for m in modules]
    saved_split = driver.SPLIT_FRONTIER
    saved_screen = tandem.PARALLEL_MIN_LEAF_PAIRS
    try:
        for parallel_min in (saved[0], 0):
            for m in modules:
                m.PARALLEL_MIN_PAIRS = parallel_min
            # The triangle pairs' box screen, on one thread and in one run per thread.
            tandem.PARALLEL_MIN_LEAF_PAIRS = saved_screen if parallel_min else 0
            for descend in DescendRule:
                for trace in (False, True):
                    collide(a, tree_a, b, tree_b, None, pose, descend=descend, trace=trace)
                    collide(a, tree_a, b, tree_b, None, None, descend=descend, trace=trace)
                    self_collide(a, tree_a, trace=trace, descend=descend)
        # A frontier wider than SPLIT_FRONTIER hands two halves to two threads: the recorded
        # level loop from given start pairs, and the fast mode's depth-first walk of volumes
        # other than the trees' own boxes (core.collide.depthfirst; its halves take the same
        # argument types as the whole walk the queries here run, so one signature serves
        # both). Big meshes get there; these tiny ones only with the split lowered.
        driver.SPLIT_FRONTIER = 1
        for trace in (False, True):
            collide(a, tree_a, b, tree_b, None, pose, trace=trace)
    finally:
        for m, value in zip(modules, saved):
            m.PARALLEL_MIN_PAIRS = value
        driver.SPLIT_FRONTIER = saved_split
        tandem.PARALLEL_MIN_LEAF_PAIRS = saved_screen


def _warm_near(a, b, pose) -> None:
    """Near contacts within a margin, and the distance queries."""
    from core.collide import collide
    from core.distance import brute_force_distance, min_distance, within_distance

    tree_a, tree_b = _midpoint_trees(a, b)
    collide(a, tree_a, b, tree_b, None, pose, margin=0.1)  # the near-contact distance kernel
    min_distance(a, tree_a, b, tree_b, None, pose)
    within_distance(a, tree_a, b, tree_b, None, pose, d=0.1)
    brute_force_distance(a.vertices, a.faces, b.vertices, b.faces)  # the tests' oracle


def _warm_kind(name: str) -> Callable:
    def warm(a, b, pose) -> None:
        """Fitting and refitting one bounding-volume kind, and the traversal over its rows."""
        import core.collide.traversal_driver as driver
        from core.bv import BV_KINDS, ObbFit, fit_volumes, get_kind, refit_volumes
        from core.bv.registry import fit_from_triangles
        from core.collide.bvquery import collide_bv

        tree_a, tree_b = _midpoint_trees(a, b)
        for method in ObbFit if get_kind(name).has_fit_choice else ():
            fit_volumes(tree_a, a, name, obb_fit=method)
        rows = fit_volumes(tree_b, b, name)
        refit_volumes(tree_a, a, name)
        # The kind's hooks called from Python (the inspector, the tests), on read-only rows
        # and pose arrays as the traversal passes them.
        kind = BV_KINDS[name]
        kind.volume(rows[0])
        kind.shape_volumes(rows)  # the compare view's tightness (exact_volume where it has one)
        kind.overlap(rows[0], rows[0], pose.rotation, pose.translation, 0.0)
        # The fit from each node's own triangles (the compare view times it; fit_volumes
        # merges children instead for the kinds whose merge is exact).
        fit_from_triangles(tree_b, b, name)
        # collide_bv runs through the traversal driver: its threshold picks the variant.
        saved = driver.PARALLEL_MIN_PAIRS
        try:
            for parallel_min in (saved, 0):
                driver.PARALLEL_MIN_PAIRS = parallel_min
                for trace in (False, True):
                    collide_bv(a, tree_a, b, tree_b, None, pose, bv=name, trace=trace)
        finally:
            driver.PARALLEL_MIN_PAIRS = saved

    return warm


def _warm_partition(kind: str) -> Callable:
    def warm(a, b, pose) -> None:
        """One spatial partition's build and query. The tiny meshes fit in one cell of the
        default capacity (16 triangles): a capacity of 1 makes the tree kinds split, so
        their split kernels compile too."""
        from dataclasses import fields

        from core.partition import PARTITION_KINDS, partition_contacts

        names = {f.name for f in fields(PARTITION_KINDS[kind].params_type)}
        settings = {"capacity": 1} if "capacity" in names else {}
        partition_contacts(a, b, None, pose, kind=kind, **settings)

    return warm


def _warm_deformers(a, b, pose) -> None:
    """Every deformer of the Deform dock and the sculpting brush (each falloff)."""
    from core.deform import DEFORMERS
    from core.deform.brush import Falloff, brush_pull, brush_weights

    for make in DEFORMERS.values():
        make()(a.vertices, 0.3)
    for falloff in Falloff:
        brush_weights(a.vertices, a.vertices[0], 0.5, falloff)
        brush_pull(a.vertices, a.vertices[0], (0.0, 0.0, 0.1), 0.5, 1.0, falloff)


def _warm_overlap_region(a, b, pose) -> None:
    """The overlap-region method (Yu et al. 2018)."""
    from core.partition.overlap_region import overlap_region_contacts

    overlap_region_contacts(a, b, None, pose)


def _warm_quality(a, b, pose) -> None:
    """The tree-quality kernels: EPO clipping against half-spaces and balls, the polytope
    face solver (k-DOPs, OBB intersections)."""
    from core.bvh.metrics import tree_quality

    tree_a, _ = _midpoint_trees(a, b)
    for bv in ("aabb", "obb", "kdop14", "sphere"):
        tree_quality(a, tree_a, bv)


def _warm_tree_files(a, b, pose) -> None:
    """Reading a tree file: its compiled walks (renumbering, triangle runs, cycle search)."""
    from core.bvh.treefile_walk import breadth_first, cycle_from, peel, subtree_runs

    children = np.array([[1, 2], [-1, -1], [-1, -1]], dtype=np.int64)
    breadth_first(children, 0)
    peel(children, np.bincount(children[children >= 0], minlength=3))
    subtree_runs(np.array([1, 0, 0], dtype=np.int64), children[:, 0] < 0,
                 np.array([0, 1, 1], dtype=np.int64))
    cycle_from(np.array([1, 0, -1], dtype=np.int64), 0)


@dataclass(frozen=True)
class WarmStep:
    """One unit of the warm-up.

    Attributes
    ----------
    key : str
        Stable name, also what the app asks about (``bv-obb``, ``partition-grid``, ...).
    words : str
        What it compiles, for people.
    run : callable
        ``run(mesh_a, mesh_b, pose)`` calls the kernels on tiny inputs.
    """

    key: str
    words: str
    run: Callable


_PARTITION_WORDS = {"grid": "the uniform grid", "octree": "the octree", "kdtree": "the k-d tree",
                    "bsp": "the BSP tree"}


@functools.lru_cache(maxsize=1)
def _steps() -> tuple[WarmStep, ...]:
    from core.bv import BV_KINDS
    from core.partition import PARTITION_KINDS

    # The first frame's kernels are most of the compile (measured, under load: the triangle
    # tests 108 s, the traced traversal 104 s, the tree build 34 s), so they go first, split
    # so that both workers share them and the app's frames switch to machine code early: one
    # worker compiles the triangle tests while the other builds trees and then runs the
    # frame, whose triangle tests by then load from the cache. Kinds and partitions follow.
    def kind_step(name: str) -> WarmStep:
        return WarmStep(f"bv-{name}", f"{BV_KINDS[name].people_name} volumes", _warm_kind(name))

    steps = [
        WarmStep("triangle-tests", "the exact triangle-triangle test", _warm_triangle_tests),
        WarmStep("trees", "the tree build and refit", _warm_trees),
        WarmStep("frame", "the first frame: traversal with its record, distance, inside tests",
                 _warm_frame),
        # A kind with a fit choice (the OBB: four fit methods) is the longest step after the
        # first frame's: queued with the other kinds it finished alone, last (measured: 23rd
        # of 23); started early, it runs beside the short ones (longest job first).
        *(kind_step(name) for name in BV_KINDS if BV_KINDS[name].has_fit_choice),
        WarmStep("traversal", "the traversal's variants (descend rules, serial and parallel)",
                 _warm_traversal),
        WarmStep("splits", "every split rule", _warm_splits),
        WarmStep("near", "near contacts and distances", _warm_near),
        WarmStep("deformers", "every deformer and the sculpting brush", _warm_deformers),
    ]
    steps += [kind_step(name) for name in BV_KINDS if not BV_KINDS[name].has_fit_choice]
    steps += [WarmStep(f"partition-{name}", _PARTITION_WORDS.get(name, name),
                       _warm_partition(name)) for name in PARTITION_KINDS]
    steps += [
        WarmStep("overlap-region", "the overlap region (Yu et al. 2018)", _warm_overlap_region),
        WarmStep("quality", "the tree-quality measures", _warm_quality),
        WarmStep("tree-files", "reading tree files", _warm_tree_files),
    ]
    return tuple(steps)


def is_cache_complete() -> bool:
    """Whether a complete warm-up filled the kernel cache of the current sources."""
    from core.jit import numba_cache

    return numba_cache.is_complete()


@functools.lru_cache(maxsize=1)
def _steps_by_key() -> dict[str, WarmStep]:
    """:func:`_steps` by key (read-only by convention: one table per process)."""
    return {step.key: step for step in _steps()}


def step_keys() -> tuple[str, ...]:
    """The keys of every warm-up step, in order."""
    return tuple(step.key for step in _steps())


def _inputs():
    from core.pose import Pose

    a, b = _tiny_meshes()
    return a, b, Pose.from_axis_angle((1, 2, 3), 0.6, (0.1, 0.0, 0.0))


def _run_on_all_threads(step: WarmStep, inputs) -> None:
    """Run one step with numba's full thread count whatever the load: the two-thread kernels
    compile only when they run on two threads, and the warm-up's own workers keep the cores
    busy (a worker that chose one thread left the triangle pairs' parallel screen and the
    two-thread refit to be compiled at their first use, in every test worker and in the
    app's first big frame). Every way of running steps goes through here."""
    from core.jit.busy_cores import kept_threads

    with kept_threads():
        step.run(*inputs)


def run_step(key: str) -> None:
    """Compile (or load) the kernels of one step in this process."""
    steps = _steps_by_key()
    if key not in steps:
        raise ValueError(f"warm-up step must be one of {', '.join(steps)}, got {key!r}")
    _run_on_all_threads(steps[key], _inputs())


def warm_in_process(keys: tuple[str, ...] | None = None) -> float:
    """Run warm-up steps in this process (on a complete cache this loads their kernels).

    Parameters
    ----------
    keys : tuple of str, optional
        The steps to run (default every step), keys of :func:`step_keys`.

    Returns
    -------
    float
        Seconds taken.
    """
    t0 = time.perf_counter()
    inputs = _inputs()
    steps = _steps_by_key()
    for key in steps if keys is None else keys:
        _run_on_all_threads(steps[key], inputs)
    return time.perf_counter() - t0


#: The steps of the app's first frame with its default choices.
FIRST_FRAME_STEPS = ("triangle-tests", "trees", "frame")


def run_worker(lines=None, out=None) -> int:
    """Worker loop: read one step key per line, run it, answer ``done KEY`` (or ``failed KEY:
    reason``) and flush. Returns the exit status (1 after a failure)."""
    lines = sys.stdin if lines is None else lines
    out = sys.stdout if out is None else out
    inputs = None
    for line in lines:
        key = line.strip()
        if not key:
            continue
        try:
            if inputs is None:
                inputs = _inputs()
            _run_on_all_threads(_steps_by_key()[key], inputs)
        except Exception as exc:  # noqa: BLE001 - reported to the coordinator in one line
            message = f"{type(exc).__name__}: {exc}".replace("\n", " ")
            print(f"failed {key}: {message}", file=out, flush=True)
            return 1
        print(f"done {key}", file=out, flush=True)
    return 0


#: ``compiled 3 of 24 [traversal] the traversal's variants``: an interface the app reads.
_PROGRESS = re.compile(r"^compiled (\d+) of (\d+) \[([^\]]+)\] (.*)$")


def progress_line(n: int, m: int, key: str, words: str) -> str:
    """One progress line of ``python -m core warmup --progress``."""
    return f"compiled {n} of {m} [{key}] {words}"


def parse_progress(line: str) -> tuple[int, int, str, str] | None:
    """``(n, m, key, words)`` from a :func:`progress_line`, or None for any other line."""
    match = _PROGRESS.match(line.strip())
    if match is None:
        return None
    return int(match[1]), int(match[2]), match[3], match[4]


def default_jobs() -> int:
    """Processes for the warm-up: one per core."""
    return max(1, os.cpu_count() or 1)


def die_with_parent(nice: int = 0) -> Callable[[], None]:
    """A ``preexec_fn`` that lowers the child's priority by ``nice`` and, on Linux, has the
    kernel end the child when its parent ends (``PR_SET_PDEATHSIG``): a warm-up whose app or
    coordinator was killed must not go on compiling for minutes."""

    def setup() -> None:
        if nice:
            os.nice(nice)
        try:
            import ctypes
            import signal

            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
        except (OSError, AttributeError):  # not Linux: the child outlives a killed parent
            pass

    return setup


def _start_worker(nice: int) -> subprocess.Popen:
    # stderr goes to a file, not a pipe: numba's warnings could fill a pipe nobody reads
    # and stop the worker; the file is read back if the worker fails.
    errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed by _close_worker
    worker = subprocess.Popen(
        [sys.executable, "-m", "core", "warmup", "--worker"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True,
        bufsize=1, preexec_fn=die_with_parent(nice),
    )
    worker.errors = errors
    return worker


def _last_error_line(worker: subprocess.Popen) -> str:
    worker.errors.seek(0)
    lines = [line.strip() for line in worker.errors.read().splitlines() if line.strip()]
    return lines[-1] if lines else f"the worker ended with exit status {worker.poll()}"


def _compile_in_workers(jobs: int, nice: int, on_step: Callable[[WarmStep], None]) -> None:
    """Hand :data:`STEPS` to ``jobs`` worker processes one at a time, in order."""
    pending = list(_steps())
    by_key = _steps_by_key()
    workers = [_start_worker(nice) for _ in range(min(jobs, len(pending)))]
    selector = selectors.DefaultSelector()
    try:
        for worker in workers:
            selector.register(worker.stdout, selectors.EVENT_READ, worker)
            worker.stdin.write(pending.pop(0).key + "\n")
        busy = len(workers)
        while busy:
            for event, _ in selector.select():
                worker = event.data
                line = worker.stdout.readline()
                if line.startswith("done "):
                    on_step(by_key[line[5:].strip()])
                    if pending:
                        worker.stdin.write(pending.pop(0).key + "\n")
                        continue
                    worker.stdin.close()
                else:
                    worker.wait()
                    detail = line.strip() or _last_error_line(worker)
                    raise RuntimeError(f"kernel warm-up failed: {detail}")
                selector.unregister(worker.stdout)
                busy -= 1
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
            worker.wait()
            worker.errors.close()
        selector.close()


def warm_up(verbose: bool = True, jobs: int | None = None, progress: bool = False,
            nice: int = 0) -> float:
    """Compile every kernel into the on-disk cache; return the seconds it took.

    Parameters
    ----------
    verbose : bool
        Print one line with the time.
    jobs : int, optional
        Worker processes (default: one per core). numba compiles in the calling thread
        only, so a second process halves a cold warm-up on two cores; saves into the cache
        are locked (:func:`core.jit.numba_cache.install_save_lock`).
    progress : bool
        Print a :func:`progress_line` as each step finishes.
    nice : int
        Lower the workers' priority by this much (the app's background compile: its window
        and frames come first).
    """
    from core.jit import numba_cache

    t0 = time.perf_counter()
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    m = len(_steps())
    done = []

    def on_step(step: WarmStep) -> None:
        done.append(step.key)
        if progress:
            print(progress_line(len(done), m, step.key, step.words), flush=True)

    _compile_in_workers(jobs, nice, on_step)
    numba_cache.mark_complete()
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"numba kernels ready in {seconds:.1f} s", flush=True)
    return seconds
