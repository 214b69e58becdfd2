"""Two writers of one kernel's numba cache entry at once (``python -m core warmup`` and the app)
must not leave an index that names one signature's machine code under another's key."""

from __future__ import annotations

import threading

from numba.core.caching import IndexDataCacheFile

import core  # noqa: F401  installs the save lock (core.jit.numba_cache.configure)


def test_two_saves_at_once_keep_each_signature_its_own_code(tmp_path):
    def cache_file():
        # Each writer opens the files itself, as two processes do.
        return IndexDataCacheFile(str(tmp_path), "tandem.traverse_from_roots-10", ("stamp", 1))

    first, second = cache_file(), cache_file()
    a_loaded, b_loaded = threading.Event(), threading.Event()
    a_wrote_index, b_wrote_data = threading.Event(), threading.Event()
    # The order in which two processes corrupted the cache: both read the empty index, so
    # both take data file 1; A writes its index, B its index (dropping A's entry) and its
    # data, A its data last. Each step waits at most wait_s for the other writer, which with
    # the lock is blocked until A's whole save is done: then the waits only run out.
    wait_s = 0.5

    def step(method, before=None, after=None):
        def run(*args):
            if before is not None:
                before()
            result = method(*args)
            if after is not None:
                after()
            return result
        return run

    first._load_index = step(first._load_index, after=lambda: (a_loaded.set(),
                                                               b_loaded.wait(wait_s)))
    first._save_index = step(first._save_index, after=a_wrote_index.set)
    first._save_data = step(first._save_data, before=lambda: b_wrote_data.wait(wait_s))
    second._load_index = step(second._load_index, after=b_loaded.set)
    second._save_index = step(second._save_index, before=lambda: a_wrote_index.wait(wait_s))
    second._save_data = step(second._save_data, after=b_wrote_data.set)

    writer_a = threading.Thread(target=first.save, args=("aabb signature", "code for aabb"))
    writer_b = threading.Thread(target=second.save, args=("obb signature", "code for obb"))
    writer_a.start()
    a_loaded.wait()
    writer_b.start()
    writer_a.join()
    writer_b.join()

    reader = cache_file()
    assert reader.load("obb signature") == "code for obb"
    assert reader.load("aabb signature") == "code for aabb"
