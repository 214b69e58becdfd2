"""Fixtures shared by every test: where the shipped meshes are, and cached loads of them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# matplotlib's Qt backend picks its binding from QT_API; pytest-qt reads qt_api from
# pyproject.toml. Both must agree on PyQt6 before any Qt module is imported.
os.environ.setdefault("QT_API", "pyqt6")
# The kernels keep their threads whatever else runs: tests that check the two-thread paths
# must not depend on the other test worker (core.jit.busy_cores; its own tests patch it).
os.environ.setdefault("BVH_LAB_KEEP_THREADS", "1")

REPO_ROOT = Path(__file__).resolve().parent.parent
ASSETS_DIR = REPO_ROOT / "assets"

# Triangle counts of the shipped meshes after loading (Suzanne's 468 quads and 32 triangles
# become 968 triangles from 500 faces).
ASSET_TRIANGLES = {"spot": 5856, "teapot": 6320, "stanford-bunny": 69451, "suzanne": 968}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: takes more than a few seconds; deselect with -m 'not slow'"
    )


def pytest_collection_finish(session):
    """Move everything imported so far (numba, VTK, pyvista, Qt and the project: about
    220,000 objects) out of the collector's sight. Every full collection walked them again:
    170 ms every second or third test window (measured with ``gc.callbacks``), 4 ms after."""
    import gc

    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top directory."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def assets_dir() -> Path:
    """``assets/``: the meshes the app ships, with ATTRIBUTION.md."""
    return ASSETS_DIR


@pytest.fixture(scope="session")
def meshes_dir(assets_dir) -> Path:
    """The directory of the shipped mesh files (the same as :func:`assets_dir`)."""
    return assets_dir


@pytest.fixture(scope="session")
def load_asset():
    """``load_asset(stem) -> TriMesh`` for a shipped mesh, loaded once per test session.

    The meshes are read-only, so sharing one instance between tests is safe.
    """
    from core.io import load_mesh

    cache = {}

    def load(stem: str):
        if stem not in cache:
            cache[stem] = load_mesh(ASSETS_DIR / f"{stem}.obj")
        return cache[stem]

    return load
