"""Where numba keeps the compiled kernels: one directory per version of the core's sources.

numba's on-disk cache checks only the source file of the function it loads, not the files of
the functions it calls. A kernel in ``selfcollide.py`` that calls one in ``tandem.py`` keeps
the old machine code after ``tandem.py`` changes, with old argument layouts: it crashed the
process (segmentation fault) when the two got out of step. Keying the whole cache on a hash of
every source file of the core makes a change anywhere recompile everything once (about 90 s
on two cores), which is the only safe rule.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sys
from pathlib import Path

# This module lives in core/jit/: the digest covers the whole core package, not this folder.
_CORE_DIR = Path(__file__).resolve().parent.parent

#: Cache directories kept (each about 20 MB): the current sources and a few recent ones.
KEEP_DIRECTORIES = 4


def sources_digest() -> str:
    """Hash of every ``.py`` file under ``core/``, the Python version and numba's version."""
    from importlib.metadata import PackageNotFoundError, version

    h = hashlib.sha256()
    try:
        h.update(version("numba").encode())
    except PackageNotFoundError:
        pass
    h.update(sys.version.encode())
    for path in sorted(_CORE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(_CORE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/bvh-lab/numba`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bvh-lab" / "numba"


def configure() -> None:
    """Point numba's cache at the directory of the current sources, unless the user chose one.

    Must run before any kernel of the core is decorated (numba fixes a function's cache
    location at decoration time). Only the few most recently used directories are kept, so
    two checkouts of different versions on one machine do not delete each other's cache.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        install_save_lock()
        return
    root = cache_root()
    target = root / sources_digest()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # read-only home: numba falls back to its default places
    os.utime(target)
    others = sorted(
        (d for d in root.iterdir() if d.is_dir() and d != target),
        key=lambda d: d.stat().st_mtime,
        reverse=True,
    )
    for old in others[KEEP_DIRECTORIES - 1 :]:
        shutil.rmtree(old, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    if "numba" in sys.modules:
        import numba

        numba.config.CACHE_DIR = str(target)
    install_save_lock()


#: The stamp ``python -m core warmup`` leaves in the cache directory when every step is done.
COMPLETE_NAME = "warm-up-complete"


def _cache_dir() -> Path | None:
    path = os.environ.get("NUMBA_CACHE_DIR")
    return Path(path) if path else None


def is_complete() -> bool:
    """Whether a full warm-up has filled the current cache directory (the app then loads
    every kernel instead of compiling in the background)."""
    folder = _cache_dir()
    return folder is not None and (folder / COMPLETE_NAME).is_file()


def mark_complete() -> None:
    """Leave the stamp of a complete warm-up (nothing if the cache folder is not writable)."""
    folder = _cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / COMPLETE_NAME).write_text("every warm-up step compiled\n")
    except OSError:
        pass


#: The lock file in each cache directory that serialises numba's saves across processes.
SAVE_LOCK_NAME = ".save.lock"


def install_save_lock() -> None:
    """Make numba's saving of a cache entry one step for every process sharing the directory.

    numba saves an entry in three steps (``IndexDataCacheFile.save``): read the kernel's index,
    take the first data-file number the index does not list, write the index, then the data
    file. Each write is atomic (a rename) but the three are not: when ``python -m core warmup``
    and the app compile one kernel for two signatures at once, both can read the index before
    either writes it and take number 1; the second index write drops the first's entry and the
    last data write wins, so the index names one signature's machine code under the other's
    key (``tests/core/jit/test_numba_cache_lock.py`` replays that order). Loading it runs code
    compiled for other argument types: the likely cause of the segmentation fault once seen in
    ``traverse_from_roots`` after such a run. An exclusive
    ``flock`` around the whole save makes the second writer read the index after the first
    wrote both files. Compiling stays unlocked (two processes may both compile a kernel; the
    second save then overwrites the same entry with equal code). Idempotent.
    """
    try:
        import fcntl
    except ImportError:  # not a POSIX system: numba's save as it is
        return
    from numba.core.caching import IndexDataCacheFile

    save = IndexDataCacheFile.save
    if getattr(save, "is_locked_save", False):
        return

    @functools.wraps(save)
    def locked_save(self, key, data):
        try:
            os.makedirs(self._cache_path, exist_ok=True)
            lock = open(os.path.join(self._cache_path, SAVE_LOCK_NAME), "a")  # noqa: SIM115
        except OSError:  # a read-only cache folder: numba's own save fails there the same way
            return save(self, key, data)
        with lock:  # closing the file releases the lock, also if the process dies
            fcntl.flock(lock, fcntl.LOCK_EX)
            return save(self, key, data)

    locked_save.is_locked_save = True
    IndexDataCacheFile.save = locked_save
