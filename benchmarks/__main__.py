"""``python -m benchmarks [--quick] [--sizes 10k,100k] [--repeats N]``: run, print, save JSON."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks import (
    cold_start,
    frame_rate,
    memory,
    table,
    targets,
    w1_rigid,
    w2_proximity,
    w3_deform,
)
from benchmarks.compare import PairCheck
from benchmarks.competing_load import check_processes, competing_load
from benchmarks.peers import available_peers
from benchmarks.scenes import SIZES, W3_N_FRAMES, sphere_case
from benchmarks.timing import PeerHistory, Samples

# Repeats per size for build and query phases: enough for a stable median while the full
# run stays near 15 minutes on two cores (500k builds of the peers take seconds each).
DEFAULT_REPEATS = {"10k": 7, "100k": 5, "500k": 3}
QUICK_REPEATS = {"10k": 5, "100k": 3, "500k": 1}
# --quick times every fifth W3 frame (10 of the 50), the full run all 50.
QUICK_FRAME_STRIDE = 5
# --quick limits on slow peers: skip a phase whose run is predicted above 20 s (with the x4
# safety: 5 s), give a phase 4 s and the W3 frames of one size 10 s (VTK alone would
# otherwise take a minute at 100k).
QUICK_PEER_LIMITS = {"skip_s": 20.0, "phase_budget_s": 4.0, "frames_budget_s": 10.0}
RESULTS_PATH = Path(__file__).resolve().parent / "results" / "latest.json"


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time the core against python-fcl, coal and VTK on sphere workloads.",
    )
    parser.add_argument("--sizes", help="comma-separated size labels, e.g. 10k,100k")
    parser.add_argument("--repeats", type=int, help="timed repeats per phase (after warm-up)")
    parser.add_argument(
        "--quick", action="store_true", help="10k and 100k only, few repeats, every 5th frame"
    )
    parser.add_argument("--frame-stride", type=int, help="time every k-th W3 frame")
    parser.add_argument(
        "--skip-peers", default="", help="comma-separated peer names or prefixes to leave out"
    )
    parser.add_argument(
        "--skip-frame-rate",
        action="store_true",
        help="leave out the frame-rate targets (the viewer benchmark under Xvfb at each size)",
    )
    parser.add_argument(
        "--skip-cold-start",
        action="store_true",
        help="leave out the cold-start target (two first starts of the app, empty cache)",
    )
    parser.add_argument(
        "--competing-load", type=int, default=0, metavar="N",
        help="time the targets a second time with N busy processes running (one per core "
             "stands in for the renderer; 0: idle only)",
    )
    parser.add_argument(
        "--json", type=Path, default=RESULTS_PATH, help="where to write the raw numbers"
    )
    parser.add_argument(
        "--show", type=Path, metavar="JSON", help="print the table of a saved run, run nothing"
    )
    args = parser.parse_args(argv)
    if args.sizes:
        labels = [s.strip() for s in args.sizes.split(",") if s.strip()]
        unknown = [s for s in labels if s not in SIZES]
        if unknown:
            parser.error(f"unknown sizes {unknown}; known: {', '.join(SIZES)}")
    elif args.quick:
        labels = ["10k", "100k"]
    else:
        labels = list(SIZES)
    args.labels = labels
    try:
        check_processes(args.competing_load)
    except ValueError as exc:
        parser.error(str(exc))
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    stride = args.frame_stride or (QUICK_FRAME_STRIDE if args.quick else 1)
    if not 1 <= stride <= W3_N_FRAMES:
        parser.error(f"--frame-stride must be in 1..{W3_N_FRAMES}")
    args.stride = stride
    return args


def _repeats(args, label: str) -> int:
    if args.repeats is not None:
        return args.repeats
    return (QUICK_REPEATS if args.quick else DEFAULT_REPEATS)[label]


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _jsonable(results: dict) -> dict:
    def timings(d):
        return {str(k): {c: s.as_json() for c, s in row.items()} for k, row in d.items()}

    out = {}
    for label, res in results.items():
        out[label] = {
            "info": res["info"],
            "timings": timings(res["timings"]),
            "w1": {
                "counters": res["w1"]["counters"],
                "checks": {n: c.as_json() for n, c in res["w1"]["checks"].items()},
                "kinds": {k: s.as_json() for k, s in res["w1"].get("kinds", {}).items()},
            },
            "w2": {
                "timings": timings(res["w2"]["timings"]),
                "bv_tests": {str(k): v for k, v in res["w2"]["bv_tests"].items()},
                "contacts": {str(k): v for k, v in res["w2"]["contacts"].items()},
                "kinds": {k: s.as_json() for k, s in res["w2"].get("kinds", {}).items()},
            },
            "w3": {
                "frames": res["w3"]["frames"],
                "n_contacts": res["w3"]["n_contacts"],
                "checks": {n: (c.as_json() if c else None) for n, c in res["w3"]["checks"].items()},
            },
            "memory": res.get("memory"),
        }
    return out


# Environment variables that change how numba's threads wait and which layer runs them.
ENV_KEYS = ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS")


def _threading_layer() -> str:
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return "not initialised"


def _load_results(payload: dict) -> dict:
    """Inverse of ``_jsonable``: a saved run back into the form ``table`` renders."""

    def samples(d):
        return Samples(list(d["seconds"]), d["note"], d.get("turns", ""))

    def timings(d, key=str):
        return {key(k): {c: samples(x) for c, x in row.items()} for k, row in d.items()}

    out = {}
    for label, r in payload["results"].items():
        out[label] = {
            "info": r["info"],
            "timings": timings(r["timings"]),
            "w1": {
                "counters": r["w1"]["counters"],
                "checks": {n: PairCheck(**c) for n, c in r["w1"]["checks"].items()},
                "kinds": {k: samples(x) for k, x in r["w1"].get("kinds", {}).items()},
            },
            "w2": {
                "timings": timings(r["w2"]["timings"], float),
                "bv_tests": {float(k): v for k, v in r["w2"]["bv_tests"].items()},
                "contacts": r["w2"]["contacts"],
                "kinds": {k: samples(x) for k, x in r["w2"].get("kinds", {}).items()},
            },
            "w3": {
                "frames": r["w3"]["frames"],
                "n_contacts": r["w3"]["n_contacts"],
                "checks": {n: PairCheck(**c) if c else None for n, c in r["w3"]["checks"].items()},
            },
            "memory": r.get("memory"),
        }
    return out


def _memory_lines(results: dict) -> str:
    """One line per size: peak resident memory and tree bytes against mesh bytes."""
    lines = ["memory (child process per size: build A and B, one W1 query, one W3 refit frame):"]
    for label, res in results.items():
        m = res.get("memory") or {}
        if "mesh_bytes" not in m:
            lines.append(f"  {label}: {m.get('error', 'not measured')}")
            continue
        lines.append(
            f"  {label}: peak resident {m['peak_rss_bytes'] / 2**20:.0f} MiB "
            f"(after imports {m['baseline_rss_bytes'] / 2**20:.0f} MiB); meshes A+B "
            f"{m['mesh_bytes'] / 2**20:.1f} MiB, trees + volumes "
            f"{m['structure_bytes'] / 2**20:.1f} MiB = "
            f"{m['structure_bytes'] / m['mesh_bytes']:.2f}x the meshes"
        )
    return "\n".join(lines)


def _print_tables(results: dict, peer_names: list[str], frame_rates=None,
                  start_lines=(), loaded: dict | None = None,
                  left_out: tuple[str, ...] = ()) -> None:  # fmt: skip
    print(
        "BVH Lab benchmarks: medians in ms; ours 2T/1T = numba threads; peers single-threaded;"
        " 2T/best, 1T/best = ours / fastest peer of the row"
    )
    print(table.render(results, peer_names))
    print(_memory_lines(results))
    print(table.render_targets(table.targets(results, peer_names)))
    print(targets.render(targets.evaluate(results, peer_names, loaded, left_out)))
    if frame_rates:
        print(frame_rate.render(frame_rates))
    for line in start_lines:
        print(line)


def _versions(peers) -> dict:
    import numba
    import numpy

    versions = {"python": platform.python_version(), "numpy": numpy.__version__}
    versions["numba"] = numba.__version__
    for module in ("fcl", "coal", "vtkmodules", "pyvista", "warp"):
        try:
            mod = __import__(module)
            versions[module] = str(getattr(mod, "__version__", "?"))
        except ImportError:
            pass
    return versions


def _run_size(label: str, args, peers, history: PeerHistory) -> dict:
    """W1, W2 and W3 at one size: the result dict the tables and targets read."""
    t0 = time.perf_counter()
    load_start = os.getloadavg()[0]
    case = sphere_case(label, SIZES[label])
    repeats = _repeats(args, label)
    _log(f"{label}: {case.n_tris} triangles per mesh, {repeats} repeats, load {load_start:.1f}")
    w1 = w1_rigid.run(case, peers, repeats, _log, history)
    w2 = w2_proximity.run(case, peers, repeats, _log, history, tree_a=w1.trees[0],
                          peer_models_a=dict(w1.peer_models))
    w3 = w3_deform.run(case, peers, _log, history, frame_stride=args.stride, trees=w1.trees,
                       peer_models=w1.peer_models)
    _log(f"{label} done in {time.perf_counter() - t0:.1f} s")
    return {
        "info": {
            "n_tris": case.n_tris,
            "n_vertices": case.mesh.n_vertices,
            "theta_resolution": case.theta_resolution,
            "phi_resolution": case.phi_resolution,
            "repeats": repeats,
            "seconds": time.perf_counter() - t0,
            # Other jobs share the cores: the 1-minute load average says how much.
            "load_start": load_start,
            "load_end": os.getloadavg()[0],
        },
        "timings": {**w1.timings, **w3.timings},
        "w1": {"counters": w1.counters, "checks": w1.checks, "kinds": w1.kinds},
        "w2": {"timings": w2.timings, "bv_tests": w2.bv_tests, "contacts": w2.contacts,
               "kinds": w2.kinds},
        "w3": {"frames": w3.frames, "n_contacts": w3.n_contacts, "checks": w3.checks},
    }


def _run_loaded(args, peers) -> dict:
    """The target sizes timed again with ``--competing-load`` busy processes running, against
    the target peers only (the others are not in any target; leaving them out halves the
    time)."""
    target_peers = {spec.peer for spec in targets.TARGETS}
    peers = [p for p in peers if p.name in target_peers]
    sizes = [label for label in args.labels if label in {s.size for s in targets.TARGETS}]
    history = PeerHistory(**QUICK_PEER_LIMITS) if args.quick else PeerHistory()
    loaded = {}
    _log(f"under a competing load of {args.competing_load} busy processes: sizes {sizes}")
    with competing_load(args.competing_load):
        for label in sizes:
            loaded[label] = _run_size(label, args, peers, history)
    return loaded


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.show is not None:
        payload = json.loads(args.show.read_text())
        saved = payload.get("frame_rate_targets", [])
        frame_rates = [frame_rate.outcome_from_json(entry) for entry in saved]
        under = payload.get("results_under_load")
        _print_tables(_load_results(payload), list(payload["peers"]), frame_rates,
                      payload.get("cold_start", {}).get("lines", ()),
                      _load_results({"results": under}) if under else None,
                      tuple(payload.get("left_out_peers", ())))
        return 0
    import numba

    skip = tuple(s.strip() for s in args.skip_peers.split(",") if s.strip())
    peers, missing = available_peers(skip)
    peer_names = [p.name for p in peers]
    for module, reason in missing.items():
        _log(f"peer {module} not available: {reason}")
    _log(
        f"sizes {args.labels}; peers {peer_names}; numba threads {numba.get_num_threads()} "
        f"(cpus {os.cpu_count()}); W3 frame stride {args.stride}"
    )
    started = time.perf_counter()
    results: dict = {}
    history = PeerHistory(**QUICK_PEER_LIMITS) if args.quick else PeerHistory()
    for label in args.labels:
        # Before the timings, in a child process: its peak is this size's alone.
        size_memory = memory.measure_in_child(label)
        results[label] = _run_size(label, args, peers, history)
        results[label]["memory"] = size_memory
    loaded = _run_loaded(args, peers) if args.competing_load else None

    frame_rates = [] if args.skip_frame_rate else frame_rate.measure_all(_log)
    starts = {} if args.skip_cold_start else cold_start.measure(log=_log)
    _print_tables(results, peer_names, frame_rates, starts.get("lines", ()), loaded, skip)
    env = ", ".join(f"{k}={os.environ[k]}" for k in ENV_KEYS if k in os.environ) or "defaults"
    print(
        f"total {time.perf_counter() - started:.0f} s; numba threading layer "
        f"{_threading_layer()}; env {env}"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "argv": sys.argv[1:] if argv is None else argv,
        "versions": _versions(peers),
        "peers": {p.name: {"refit": p.refit_note} for p in peers},
        "missing_peers": missing,
        "left_out_peers": list(skip),
        "cpus": os.cpu_count(),
        "numba_threading_layer": _threading_layer(),
        "env": {k: os.environ.get(k) for k in ENV_KEYS},
        "results": _jsonable(results),
        "targets": [
            {"text": t.text, "ratio": t.ratio, "limit": t.limit, "verdict": t.verdict.strip()}
            for t in table.targets(results, peer_names)
        ],
        "issue15_targets": [o.as_json()
                            for o in targets.evaluate(results, peer_names, loaded, skip)],
        "competing_load": args.competing_load,
        "results_under_load": _jsonable(loaded) if loaded else None,
        "frame_rate_targets": [o.as_json() for o in frame_rates],
        "cold_start": starts,
    }
    args.json.write_text(json.dumps(payload, indent=1))
    print(f"raw numbers: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
