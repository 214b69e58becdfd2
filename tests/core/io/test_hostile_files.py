"""The loader's hostile-file catalogue through ``load_mesh`` and through the CLI.

Every class of bad file gets one line naming the file (and exit status 2 from the CLI), and
the process that asked lives on: the VTP files here aborted the whole Python process inside
VTK 9.7 before VTK reads moved to a child process. The valid oddities (a BOM, upper-case STL,
a binary STL whose header starts with "solid") load. The viewer's File > Open path is in
``tests/viewer/qt/menus/test_open_hostile_meshes.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import CorruptMeshFileError, MeshFileError
from core.io import load_mesh
from core.io.vtkfile import _read_in_child
from tests.cli_batch import run_batch
from tests.hostile.meshes import CATALOGUE, corrupt_zlib_vtp_unchecked, vtp_bytes

REPO = Path(__file__).resolve().parents[3]
GOOD = REPO / "assets" / "suzanne.obj"


def _one_line_naming(message: str, path: Path) -> None:
    assert str(path) in message, message
    assert "\n" not in message, message
    assert "Traceback" not in message


@pytest.mark.parametrize("case", CATALOGUE, ids=[c.name for c in CATALOGUE])
def test_load_mesh(case, tmp_path):
    path = case.write(tmp_path)
    if case.must_load:
        assert load_mesh(path).n_faces == case.n_faces
        return
    with pytest.raises(case.error) as info:
        load_mesh(path)
    assert isinstance(info.value, MeshFileError) or str(path) in str(info.value)
    _one_line_naming(str(info.value), path)
    for word in case.words:
        assert word in str(info.value), str(info.value)


REFUSED = [c for c in CATALOGUE if not c.must_load]


@pytest.fixture(scope="module")
def contacts_run(tmp_path_factory):
    """``python -m core contacts FILE suzanne.obj`` on every refused file, in one child
    process (:func:`tests.cli_batch.run_batch`): ``{name: (path, Ran)}``."""
    folder = tmp_path_factory.mktemp("hostile-meshes")
    paths = {}
    for case in REFUSED:
        (folder / case.name).mkdir()
        paths[case.name] = case.write(folder / case.name)
    ran = run_batch("core", [["contacts", str(paths[c.name]), str(GOOD)] for c in REFUSED])
    return {c.name: (paths[c.name], done) for c, done in zip(REFUSED, ran)}


@pytest.mark.parametrize("case", REFUSED, ids=[c.name for c in REFUSED])
def test_cli_exit_status_2_and_one_line(case, contacts_run):
    path, done = contacts_run[case.name]
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    _one_line_naming(lines[0], path)
    assert done.stdout == ""


def test_catalogue_covers_every_class():
    names = {c.name for c in CATALOGUE}
    for needed in ("vtp_points_10_to_12", "vtp_corrupt_zlib_block", "vtp_raw_appended_truncated",
                   "vtp_raw_block_declares_2gb", "named_pipe", "link_to_dev_zero",
                   "obj_40_digit_index", "obj_coordinates_1e308", "ply_float_index",
                   "obj_underscore_number", "stl_facet_with_4_vertices",
                   "stl_facet_with_2_vertices", "obj_with_utf8_bom", "stl_ascii_upper_case",
                   "stl_binary_solid_header_trailing_bytes"):  # fmt: skip
        assert needed in names


# ---------------------------------------------------------------------------------------------
# The child process itself, without the VTP pre-check in front of it


def test_a_vtk_abort_in_the_child_becomes_one_line(tmp_path):
    # Without the pre-check, this file makes VTK throw std::bad_alloc and abort (SIGABRT).
    path = tmp_path / "many-points.vtp"
    path.write_bytes(
        vtp_bytes(tmp_path, compressed=True).replace(
            b'NumberOfPoints="34"', b'NumberOfPoints="1000000000000"'
        )
    )
    with pytest.raises(CorruptMeshFileError) as info:
        _read_in_child(path, memory_bytes=2 * 2**30, timeout_s=60)
    _one_line_naming(str(info.value), path)
    assert "VTK's reader" in str(info.value)


def test_a_corrupt_zlib_block_in_the_child_becomes_one_line(tmp_path):
    path = corrupt_zlib_vtp_unchecked(tmp_path)
    with pytest.raises(CorruptMeshFileError) as info:
        _read_in_child(path, memory_bytes=2 * 2**30, timeout_s=60)
    _one_line_naming(str(info.value), path)


def test_a_reader_that_never_finishes_is_stopped(tmp_path):
    # A FIFO with no writer blocks the child's open(); the parent stops it at the timeout.
    # (load_mesh refuses a FIFO before starting the child: this is the race it guards.)
    import os

    path = tmp_path / "pipe.vtp"
    os.mkfifo(path)
    with pytest.raises(CorruptMeshFileError) as info:
        _read_in_child(path, memory_bytes=2 * 2**30, timeout_s=1.0)
    _one_line_naming(str(info.value), path)
    assert "did not finish within 1 s" in str(info.value)


def test_a_normal_vtp_goes_through_the_child(tmp_path):
    path = tmp_path / "sphere.vtp"
    path.write_bytes(vtp_bytes(tmp_path, compressed=True))
    mesh = load_mesh(path)
    assert (mesh.n_vertices, mesh.n_faces) == (34, 64)


# ---------------------------------------------------------------------------------------------
# Size limit


def test_size_limit_is_checked_before_reading(tmp_path):
    path = tmp_path / "big.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n" + "# padding\n" * 200)
    with pytest.raises(MeshFileError) as info:
        load_mesh(path, max_bytes=1000)
    _one_line_naming(str(info.value), path)
    assert "limit is" in str(info.value) and "max_bytes" in str(info.value)
    assert load_mesh(path, max_bytes=10_000).n_faces == 1
