"""Memory of one benchmark size (issue 15, item 6): peak resident set and what the trees cost.

``python -m benchmarks.memory --size 100k`` builds the size's sphere, the trees of A and B,
runs one W1 query and one W3 refit frame, and prints one JSON line. ``make bench`` runs it in
a child process per size (:func:`measure_in_child`), because a peak only ever grows: in the
benchmark's own process it would report the largest size for every size.

The target: the trees and their bounding volumes take no more bytes than the meshes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys

import numpy as np

from benchmarks.scenes import SIZES


def _arrays(obj) -> list[np.ndarray]:
    """The numpy arrays held in the fields of a dataclass instance."""
    return [
        v
        for f in dataclasses.fields(obj)
        if isinstance(v := getattr(obj, f.name), np.ndarray)
    ]


def mesh_bytes(mesh) -> int:
    """Bytes of a ``core.mesh.TriMesh``'s arrays (vertices, faces, ...)."""
    return int(sum(a.nbytes for a in _arrays(mesh)))


def tree_bytes(tree, mesh) -> int:
    """Bytes of a ``core.bvh.Tree``'s arrays (topology, triangle order, boxes).

    The arrays the tree holds (``Tree.held_arrays``): the derived ones (parent, depth, the
    runs and the level lists) count once something has read them. An array that shares
    memory with the mesh (the faces the tree keeps for its refit check) is the mesh's cost,
    not the tree's, and is left out.

    Parameters
    ----------
    tree : core.bvh.Tree
    mesh : core.mesh.TriMesh
        The mesh the tree was built on.
    """
    owned = _arrays(mesh)
    return int(
        sum(a.nbytes for a in tree.held_arrays()
            if not any(np.shares_memory(a, m) for m in owned))
    )


def _peak_rss_bytes() -> int:
    """This process's peak resident set in bytes.

    Linux's ``VmHWM`` (``/proc/self/status``) first: ``ru_maxrss`` keeps the peak of the
    process image before ``exec``, so a child started by the benchmark reported at least the
    parent's resident set (318 MiB "after imports" at 10k, against 101 MiB from a shell).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # in kB
    except OSError:
        pass
    # ru_maxrss is in KiB on Linux (bytes on macOS, where /proc does not exist either).
    scale = 1 if sys.platform == "darwin" else 1024
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * scale


def measure(label: str) -> dict:
    """Build, query and refit one size in this process and report its memory.

    Parameters
    ----------
    label : str
        A size of ``benchmarks.scenes.SIZES``.

    Returns
    -------
    dict
        ``mesh_bytes`` and ``structure_bytes`` (A and B), ``peak_rss_bytes`` after a W1
        query and a W3 refit frame, ``baseline_rss_bytes`` after the imports (interpreter,
        numpy, numba, pyvista and VTK, before any mesh; the kernels load at first use, after).
    """
    # The spheres come from pyvista (and so VTK): loaded before the baseline, so that the
    # baseline is the program without any mesh, and peak - baseline what the size costs.
    import pyvista  # noqa: F401

    from benchmarks import ours
    from benchmarks.scenes import sphere_case, w1_pose
    from benchmarks.w3_deform import frame_vertices

    baseline = _peak_rss_bytes()
    case = sphere_case(label, SIZES[label])
    mesh, pose_b = case.mesh, w1_pose()
    tree_a, tree_b = ours.build_one(mesh), ours.build_one(mesh)
    ours.query(mesh, tree_a, mesh, tree_b, pose_b)
    mesh_f = mesh.with_vertices(frame_vertices(mesh.vertices, 1))
    tree_f = ours.refit(tree_a, mesh_f, ours.leaves_of(tree_a))
    ours.query(mesh_f, tree_f, mesh, tree_b, pose_b)
    return {
        "n_tris": case.n_tris,
        "mesh_bytes": 2 * mesh_bytes(mesh),
        "structure_bytes": tree_bytes(tree_a, mesh) + tree_bytes(tree_b, mesh),
        "peak_rss_bytes": _peak_rss_bytes(),
        "baseline_rss_bytes": baseline,
    }


def measure_in_child(label: str) -> dict:
    """:func:`measure` in a fresh Python process, so its peak is this size's alone.

    Returns
    -------
    dict
        As :func:`measure`, or ``{"error": "..."}`` when the child failed.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.memory", "--size", label],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"memory child for {label} exited {proc.returncode}: {last}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.memory",
        description="Peak resident memory and tree bytes of one benchmark size (one JSON line).",
    )
    parser.add_argument("--size", required=True, choices=list(SIZES), help="size label")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.size)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
