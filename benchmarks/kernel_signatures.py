"""Which numba signatures the tests compile beyond the warm-up (issue 27, ``make test`` time).

A kernel compiled for a signature the warm-up did not compile costs the test that meets it
seconds (tens of seconds for the traversal or the exact triangle test), and every test
process pays it again. Two usual causes: a read-only array where the warm-up passed a
writable one (numba types them apart: ``readonly array(float64, 2d, C)``), or another dtype
or layout (``int64`` ids, a non-contiguous slice).

numba keeps one index file per kernel in the cache directory (``<module>.<name>-<line>.pyXY.nbi``:
a pickled version stamp, then the pickled ``(source stamp, {(signature, target, code hashes):
data file})``, see ``numba.core.caching.IndexDataCacheFile``). Comparing the indexes of a
cache filled by the warm-up alone with the same cache after the tests ran lists the extra
signatures::

    export XDG_CACHE_HOME=/tmp/sig-check            # a new, empty cache
    python -m core warmup
    python -m benchmarks.kernel_signatures snapshot > /tmp/warmup.json
    python -m pytest -p benchmarks.kernel_signatures tests/core   # or the whole suite, in parts
    python -m benchmarks.kernel_signatures compare /tmp/warmup.json

``compare`` prints every signature the cache holds that the snapshot does not, per kernel,
with a count per kernel and the total, and exits 1 when there is any (``--quiet``: the
counts only). Either side may be a snapshot file or a cache: ``compare BEFORE [AFTER]``,
where a cache is an ``XDG_CACHE_HOME`` (its current sources' folder is read) or a numba cache
folder; AFTER defaults to the current ``XDG_CACHE_HOME``.

Loaded as a pytest plugin (``-p benchmarks.kernel_signatures``) the module also records which
test compiled what: every signature numba compiles and saves to the cache (not one it loads)
is appended as a JSON line ``{"test", "kernel", "signature"}`` to the file named by
``KERNEL_SIGNATURES_LOG`` (default ``kernel-signatures.jsonl`` in the current folder);
``python -m benchmarks.kernel_signatures tests LOG`` prints them per test. Signatures are
compared as numba prints them; the target and code hashes of the key are left out (one
machine, one version of the sources).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from collections import defaultdict
from pathlib import Path

#: Where the plugin appends its records unless ``KERNEL_SIGNATURES_LOG`` names a file.
DEFAULT_LOG = "kernel-signatures.jsonl"


def kernel_name(index_path: Path) -> str:
    """The kernel of an index file: ``collide/tritri.tri_tri_batch`` from
    ``.../collide_<hash>/tritri.tri_tri_batch-40.py311.nbi`` (the source folder, the module
    and the function; the line number and Python tag dropped)."""
    folder = index_path.parent.name.rsplit("_", 1)[0]
    stem = index_path.name.split(".py")[0]  # "tritri.tri_tri_batch-40"
    return f"{folder}/{stem.rsplit('-', 1)[0]}"


def read_index(index_path: Path) -> list[str]:
    """The signatures (as numba prints them) one ``.nbi`` index file lists, sorted.

    The file is numba's: ``pickle(version)`` then ``pickle((source stamp, overloads))``
    whose keys are ``(signature, target magic tuple, code hashes)``. Unpickling the
    signatures needs numba importable (they are numba type objects).
    """
    import numba  # noqa: F401 - the pickled signatures are numba types

    with open(index_path, "rb") as f:
        pickle.load(f)  # numba's version stamp
        _stamp, overloads = pickle.loads(f.read())
    return sorted(str(key[0]) for key in overloads)


def cache_folder(path: Path) -> Path:
    """The numba cache folder of ``path``: itself when it holds kernel folders, else (an
    ``XDG_CACHE_HOME``) ``bvh-lab/numba/<digest of the current core sources>``."""
    if any(path.glob("*/*.nbi")):
        return path
    from core.jit import numba_cache

    return path / "bvh-lab" / "numba" / numba_cache.sources_digest()


def snapshot(folder: Path) -> dict[str, list[str]]:
    """``{kernel: [signature, ...]}`` of every index file in a numba cache folder."""
    table: dict[str, list[str]] = defaultdict(list)
    for index_path in sorted(folder.glob("*/*.nbi")):
        table[kernel_name(index_path)].extend(read_index(index_path))
    return {k: sorted(v) for k, v in sorted(table.items())}


def load_side(arg: str | None) -> dict[str, list[str]]:
    """A snapshot from a JSON file, a cache folder, or (None) the current ``XDG_CACHE_HOME``."""
    if arg is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return snapshot(cache_folder(Path(base)))
    path = Path(arg)
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return snapshot(cache_folder(path))


def extra_signatures(before: dict[str, list[str]],
                     after: dict[str, list[str]]) -> dict[str, list[str]]:
    """``{kernel: [signature, ...]}`` that ``after`` holds and ``before`` does not."""
    extra = {}
    for kernel, sigs in after.items():
        new = sorted(set(sigs) - set(before.get(kernel, ())))
        if new:
            extra[kernel] = new
    return extra


def split_signature(sig: str) -> list[str]:
    """The argument types of a printed signature ``(A, B, ...)``, split at its top-level
    commas (``Array(float64, 2, 'C', True, aligned=True)`` is one argument)."""
    body = sig.strip()[1:-1]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    if body[start:].strip():
        parts.append(body[start:].strip())
    return parts


def closest_difference(sig: str, known: list[str]) -> str:
    """How ``sig`` differs from the nearest of the ``known`` signatures of its kernel:
    ``arg 3: <known type> -> <this type>; ...`` (``no warmed signature`` when there is none
    of the same length). Array types are printed by numba as ``Array(dtype, ndim, layout,
    readonly, ...)``: a readonly flag that differs is the usual cause."""
    args = split_signature(sig)
    best = None
    for other in known:
        other_args = split_signature(other)
        if len(other_args) != len(args):
            continue
        diff = [i for i, (x, y) in enumerate(zip(other_args, args)) if x != y]
        if best is None or len(diff) < len(best[0]):
            best = (diff, other_args)
    if best is None:
        return "no warmed signature of this kernel"
    diff, other_args = best
    return "; ".join(f"arg {i}: {other_args[i]} -> {args[i]}" for i in diff)


def print_extra(extra: dict[str, list[str]], quiet: bool = False, out=None,
                before: dict[str, list[str]] | None = None) -> None:
    """One line per kernel (count and name), its signatures below unless ``quiet`` (each
    with its difference from the nearest signature in ``before`` when given), and the
    totals last."""
    out = sys.stdout if out is None else out
    for kernel, sigs in sorted(extra.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{len(sigs):3d}  {kernel}", file=out)
        if not quiet:
            for sig in sigs:
                print(f"       {sig}", file=out)
                if before is not None:
                    known = before.get(kernel, [])
                    print(f"         differs: {closest_difference(sig, known)}", file=out)
    total = sum(len(s) for s in extra.values())
    print(f"{total} signatures of {len(extra)} kernels beyond the warm-up", file=out)


def print_tests(log: Path, out=None) -> None:
    """The plugin's records per test: the test, then each kernel and signature it compiled."""
    out = sys.stdout if out is None else out
    per_test: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in log.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            per_test[rec["test"]].append((rec["kernel"], rec["signature"]))
    for test, rows in sorted(per_test.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(rows):3d}  {test}", file=out)
        for kernel, sig in rows:
            print(f"       {kernel} {sig}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.kernel_signatures",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot", help="print the signatures of a cache as JSON")
    snap.add_argument("cache", nargs="?", help="XDG_CACHE_HOME or numba cache folder "
                      "(default: the current XDG_CACHE_HOME)")
    comp = sub.add_parser("compare", help="signatures AFTER holds beyond BEFORE")
    comp.add_argument("before", help="snapshot JSON or cache")
    comp.add_argument("after", nargs="?", help="snapshot JSON or cache (default: the current "
                      "XDG_CACHE_HOME)")
    comp.add_argument("--quiet", action="store_true", help="counts per kernel only")
    tests = sub.add_parser("tests", help="the plugin's log, per test")
    tests.add_argument("log", nargs="?", default=DEFAULT_LOG)
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        json.dump(load_side(args.cache), sys.stdout, indent=1)
        print()
        return 0
    if args.command == "tests":
        print_tests(Path(args.log))
        return 0
    before = load_side(args.before)
    extra = extra_signatures(before, load_side(args.after))
    print_extra(extra, quiet=args.quiet, before=before)
    return 1 if extra else 0


# --- pytest plugin: ``-p benchmarks.kernel_signatures`` --------------------------------------

_current_test = {"id": "(collection)"}


def pytest_configure(config) -> None:
    """Wrap numba's cache save so each compiled signature is logged with the running test."""
    from numba.core.caching import Cache

    save = Cache.save_overload
    if getattr(save, "logs_signatures", False):
        return
    log = Path(os.environ.get("KERNEL_SIGNATURES_LOG", DEFAULT_LOG)).resolve()

    def logged_save(self, sig, data):
        index = Path(self._cache_file._index_path)
        record = {"test": _current_test["id"], "kernel": kernel_name(index),
                  "signature": str(sig)}
        with open(log, "a", encoding="utf-8") as f:  # one short line: appends do not interleave
            f.write(json.dumps(record) + "\n")
        return save(self, sig, data)

    logged_save.logs_signatures = True
    Cache.save_overload = logged_save


def pytest_runtest_logstart(nodeid, location) -> None:
    """The test about to run (before its fixtures: a fixture's compile counts as its test's)."""
    _current_test["id"] = nodeid


if __name__ == "__main__":
    sys.exit(main())
