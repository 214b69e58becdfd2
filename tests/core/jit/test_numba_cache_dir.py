"""The kernel cache is keyed on every source file of the core, wherever the module that
computes the key lives (it moved into core/jit/)."""

from __future__ import annotations

from pathlib import Path

import core
from core.jit import numba_cache


def test_the_digest_hashes_the_whole_core_package():
    core_dir = Path(core.__file__).resolve().parent
    assert numba_cache._CORE_DIR == core_dir
    hashed = {p.relative_to(core_dir).as_posix() for p in numba_cache._CORE_DIR.rglob("*.py")}
    # A kernel module outside core/jit/ and this module itself are both part of the key.
    assert {"collide/traversal.py", "jit/numba_cache.py", "__init__.py"} <= hashed


def test_the_cache_directory_is_named_after_the_digest(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert numba_cache.cache_root() == tmp_path / "bvh-lab" / "numba"
    assert len(numba_cache.sources_digest()) == 16
