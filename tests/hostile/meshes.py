"""Hostile mesh files, one builder per class of the loader's bad-file catalogue.

Each :class:`Hostile` writes its file into a folder and says what loading it must give: an
error class and words the one-line message must contain, or (for files that must load) the
triangle count. The core catalogue test runs every case through ``load_mesh`` and the CLI;
the viewer test opens the error cases through File > Open. The VTP cases are built from a
file VTK itself wrote, then broken the way the crash reports describe.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.errors import (
    CorruptMeshFileError,
    FaceIndexError,
    MeshFileError,
    NonFiniteVertexError,
)

TRI_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
PLY_HEAD = (
    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
    "property float z\nelement face 1\nproperty list uchar {index} vertex_indices\nend_header\n"
)


@dataclass(frozen=True)
class Hostile:
    """A file to write and what loading it must give."""

    name: str
    write: Callable[[Path], Path]
    error: type | None = None
    words: tuple[str, ...] = ()
    n_faces: int | None = None  # for files that must load

    @property
    def must_load(self) -> bool:
        return self.error is None


def _text(file_name: str, text: str | bytes) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        path = folder / file_name
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        return path

    return write


# ---------------------------------------------------------------------------------------------
# VTP files as VTK writes them, then broken


def _sphere_polydata():
    import pyvista as pv

    return pv.Sphere(theta_resolution=8, phi_resolution=6).triangulate()


def vtp_bytes(folder: Path, *, compressed: bool, appended: bool = True) -> bytes:
    """A 34-point, 64-triangle sphere as VTP: raw appended data, zlib-compressed or not."""
    from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter

    path = folder / f"source-{compressed}-{appended}.vtp"
    writer = vtkXMLPolyDataWriter()
    writer.SetInputData(_sphere_polydata())
    writer.SetFileName(str(path))
    if appended:
        writer.SetDataModeToAppended()
        writer.EncodeAppendedDataOff()
    else:
        writer.SetDataModeToBinary()
    if compressed:
        writer.SetCompressorTypeToZLib()
    else:
        writer.SetCompressorTypeToNone()
    writer.Write()
    data = path.read_bytes()
    path.unlink()
    return data


def _appended_start(data: bytes) -> int:
    return data.index(b"_", data.index(b"<AppendedData")) + 1


def _points_offset(data: bytes) -> int:
    at = data.index(b'Name="Points"')
    tag = data[at : data.index(b">", at)]
    return int(tag.split(b'offset="')[1].split(b'"')[0])


def _vtp_points_declared(count: str) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        data = vtp_bytes(folder, compressed=True)
        path = folder / "many-points.vtp"
        path.write_bytes(data.replace(b'NumberOfPoints="34"', f'NumberOfPoints="{count}"'.encode()))
        return path

    return write


def _vtp_corrupt_zlib(folder: Path) -> Path:
    data = vtp_bytes(folder, compressed=True)
    block = _appended_start(data) + _points_offset(data)
    header = 4 * (3 + 1)  # UInt32 words: blocks, block size, last size, one compressed size
    body = bytearray(data)
    body[block + header + 2 : block + header + 40] = b"\xa5" * 38  # after the zlib header
    path = folder / "corrupt-zlib.vtp"
    path.write_bytes(bytes(body))
    return path


def corrupt_zlib_vtp_unchecked(folder: Path) -> Path:
    """The corrupt-zlib VTP, for handing to VTK without the pre-check (it aborts VTK 9.7)."""
    return _vtp_corrupt_zlib(folder)


def _vtp_raw_truncated(folder: Path) -> Path:
    data = vtp_bytes(folder, compressed=False)
    path = folder / "cut-appended.vtp"
    path.write_bytes(data[: _appended_start(data) + 600])
    return path


def _vtp_raw_truncated_closed(folder: Path) -> Path:
    # Cut inside the data, but the closing tags put back: only the block sizes tell.
    data = vtp_bytes(folder, compressed=False)
    path = folder / "cut-closed.vtp"
    path.write_bytes(data[: _appended_start(data) + 600] + b"\n</AppendedData>\n</VTKFile>\n")
    return path


def _vtp_raw_declares_2gb(folder: Path) -> Path:
    data = vtp_bytes(folder, compressed=False)
    at = _appended_start(data) + _points_offset(data)
    path = folder / "two-gigabytes.vtp"
    path.write_bytes(data[:at] + struct.pack("<I", 2**31 - 4) + data[at + 4 :])
    return path


def _vtp_raw_short_points(folder: Path) -> Path:
    # The Points block header says 48 bytes (4 points) where NumberOfPoints needs 408.
    data = vtp_bytes(folder, compressed=False)
    at = _appended_start(data) + _points_offset(data)
    path = folder / "four-points.vtp"
    path.write_bytes(data[:at] + struct.pack("<I", 48) + data[at + 4 :])
    return path


def _vtp_inline_bad_base64(folder: Path) -> Path:
    data = vtp_bytes(folder, compressed=True, appended=False)
    at = data.index(b">", data.index(b'Name="Points"')) + 1
    text_at = at + len(data[at:]) - len(data[at:].lstrip())
    path = folder / "bad-base64.vtp"
    path.write_bytes(data[:text_at] + b"!!!!" + data[text_at + 4 :])
    return path


def _vtk_legacy_huge(folder: Path) -> Path:
    path = folder / "huge-points.vtk"
    path.write_text(
        "# vtk DataFile Version 3.0\nhuge\nASCII\nDATASET POLYDATA\n"
        "POINTS 1000000000000 float\n0 0 0 1 0 0 0 1 0\nPOLYGONS 1 4\n3 0 1 2\n"
    )
    return path


# ---------------------------------------------------------------------------------------------
# Special files


def _fifo(folder: Path) -> Path:
    path = folder / "pipe.obj"
    os.mkfifo(path)
    return path


def _link_to(target: str, name: str) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        path = folder / name
        path.symlink_to(target)
        return path

    return write


def _directory(folder: Path) -> Path:
    path = folder / "folder.stl"
    path.mkdir()
    return path


# ---------------------------------------------------------------------------------------------
# STL


def _stl_ascii(facets: list[list[tuple[float, float, float]]], upper: bool = False) -> str:
    lines = ["solid test"]
    for corners in facets:
        lines += ["facet normal 0 0 1", "outer loop"]
        lines += [f"vertex {x} {y} {z}" for x, y, z in corners]
        lines += ["endloop", "endfacet"]
    text = "\n".join([*lines, "endsolid test"]) + "\n"
    return text.upper() if upper else text


TRI = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]
TRI2 = [(1.0, 0.0, 0.0), (1.0, 1.0, 0.0), (0.0, 1.0, 0.0)]


def _stl_binary_solid_header(folder: Path) -> Path:
    header = b"solid exported by a CAD program".ljust(80, b" ")
    records = b"".join(
        struct.pack("<12fH", 0, 0, 1, *np.ravel(t).tolist(), 0) for t in (TRI, TRI2)
    )
    path = folder / "solid-header.stl"
    path.write_bytes(header + struct.pack("<I", 2) + records + b"\0" * 7)
    return path


def _ply_binary_float_index(folder: Path) -> Path:
    head = (
        b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
        b"property float y\nproperty float z\nelement face 1\n"
        b"property list uchar float vertex_indices\nend_header\n"
    )
    body = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + struct.pack("<B3f", 3, 0, 1.5, 2)
    path = folder / "float-index-binary.ply"
    path.write_bytes(head + body)
    return path


def _ply_binary_huge_coordinate(folder: Path) -> Path:
    head = (
        b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty double x\n"
        b"property double y\nproperty double z\nelement face 1\n"
        b"property list uchar int vertex_indices\nend_header\n"
    )
    body = struct.pack("<9d", 0, 0, 0, 1e308, 0, 0, 0, -1e308, 0) + struct.pack("<B3i", 3, 0, 1, 2)
    path = folder / "huge.ply"
    path.write_bytes(head + body)
    return path


def _glb_truncated(folder: Path) -> Path:
    import trimesh

    data = trimesh.creation.icosphere(1).export(file_type="glb")
    path = folder / "cut.glb"
    path.write_bytes(data[: len(data) // 2])
    return path


FORTY_DIGITS = "1" + "0" * 39

CATALOGUE: list[Hostile] = [
    # VTK crash classes (each aborted the whole process in VTK 9.7)
    Hostile("vtp_points_1e12_literal", _vtp_points_declared("1e12"), CorruptMeshFileError,
            ("NumberOfPoints",)),
    Hostile("vtp_points_10_to_12", _vtp_points_declared("1000000000000"), CorruptMeshFileError,
            ("NumberOfPoints=1000000000000",)),
    Hostile("vtp_corrupt_zlib_block", _vtp_corrupt_zlib, CorruptMeshFileError,
            ("corrupt compressed",)),
    Hostile("vtp_raw_appended_truncated", _vtp_raw_truncated, CorruptMeshFileError,
            ("truncated",)),
    Hostile("vtp_raw_appended_cut_inside_data", _vtp_raw_truncated_closed, CorruptMeshFileError,
            ("truncated", "'Points' needs 408 bytes")),
    Hostile("vtp_raw_block_declares_2gb", _vtp_raw_declares_2gb, CorruptMeshFileError,
            ("2147483644 bytes",)),
    Hostile("vtp_points_block_too_short", _vtp_raw_short_points, CorruptMeshFileError,
            ("Points array holds 48 bytes",)),
    Hostile("vtp_inline_bad_base64", _vtp_inline_bad_base64, CorruptMeshFileError,
            ("base64",)),
    Hostile("vtk_legacy_points_10_to_12", _vtk_legacy_huge, CorruptMeshFileError,
            ("VTK",)),
    # Not regular files: would block or never end
    Hostile("named_pipe", _fifo, MeshFileError, ("named pipe",)),
    Hostile("link_to_dev_zero", _link_to("/dev/zero", "zero.stl"), MeshFileError,
            ("character device",)),
    Hostile("link_to_dev_zero_vtp", _link_to("/dev/zero", "zero.vtp"), MeshFileError,
            ("character device",)),
    Hostile("directory", _directory, MeshFileError, ("directory",)),
    # Face indices
    Hostile("obj_40_digit_index", _text("big-index.obj", TRI_OBJ + f"f 1 2 {FORTY_DIGITS}\n"),
            CorruptMeshFileError, ("line 4", "too large")),
    Hostile("ply_40_digit_index",
            _text("big-index.ply", PLY_HEAD.format(index="int") + f"0 0 0\n1 0 0\n0 1 0\n"
                  f"3 0 1 {FORTY_DIGITS}\n"), CorruptMeshFileError, ("too large",)),
    Hostile("off_40_digit_index",
            _text("big-index.off", f"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 {FORTY_DIGITS}\n"),
            CorruptMeshFileError, ("too large",)),
    Hostile("ply_float_index", _text("float-index.ply", PLY_HEAD.format(index="int")
                                     + "0 0 0\n1 0 0\n0 1 0\n3 0 1.5 2\n"),
            CorruptMeshFileError, ("'1.5' is not a whole number",)),
    Hostile("ply_float_typed_index", _text("float-typed.ply", PLY_HEAD.format(index="float")
                                           + "0 0 0\n1 0 0\n0 1 0\n3 0 1.5 2\n"),
            CorruptMeshFileError, ("not a whole number",)),
    Hostile("ply_binary_float_index", _ply_binary_float_index, CorruptMeshFileError,
            ("1.5 is not a whole number",)),
    Hostile("obj_float_index", _text("float-index.obj", TRI_OBJ + "f 1 2.5 3\n"),
            CorruptMeshFileError, ("line 4", "not a whole number")),
    Hostile("obj_negative_index_out_of_range", _text("negative.obj", TRI_OBJ + "f -9 1 2\n"),
            FaceIndexError, ("out of range",)),
    # Coordinates
    Hostile("obj_coordinates_1e308", _text("huge.obj", "v 0 0 0\nv 1e308 0 0\nv -1e308 1 0\n"
                                           "f 1 2 3\n"), CorruptMeshFileError, ("2**240",)),
    Hostile("ply_binary_coordinates_1e308", _ply_binary_huge_coordinate, CorruptMeshFileError,
            ("2**240",)),
    Hostile("obj_underscore_number", _text("underscore.obj", "v 1_0 0 0\nv 0 1 0\nv 0 0 1\n"
                                           "f 1 2 3\n"), CorruptMeshFileError,
            ("line 1", "'1_0' is not a number")),
    Hostile("obj_nan_coordinate", _text("nan.obj", "v nan 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n"),
            NonFiniteVertexError, ("NaN or infinite",)),
    # STL facets
    Hostile("stl_facet_with_4_vertices", _text("four.stl", _stl_ascii([TRI, [*TRI2, TRI[0]]])),
            CorruptMeshFileError, ("facet 1 has 4 vertex lines",)),
    Hostile("stl_facet_with_2_vertices", _text("two.stl", _stl_ascii([TRI, TRI2[:2]])),
            CorruptMeshFileError, ("facet 1 has 2 vertex lines",)),
    Hostile("stl_facets_with_4_then_2_vertices",
            _text("four-two.stl", _stl_ascii([[*TRI, TRI2[0]], TRI2[1:]])),
            CorruptMeshFileError, ("line 2", "facet 0 has 4 vertex lines")),
    # PLY messages name the file
    Hostile("ply_vertex_x_is_a_list",
            _text("list-x.ply", "ply\nformat ascii 1.0\nelement vertex 1\n"
                  "property list uchar float x\nproperty float y\nproperty float z\n"
                  "element face 0\nproperty list uchar int vertex_indices\nend_header\n"
                  "1 0 0 0\n"), CorruptMeshFileError, ("scalar x, y, z",)),
    Hostile("ply_negative_element_count",
            _text("negative-count.ply", PLY_HEAD.format(index="int").replace("vertex 3",
                                                                              "vertex -3")),
            CorruptMeshFileError, ("bad PLY header line",)),
    Hostile("glb_truncated", _glb_truncated, CorruptMeshFileError, ("truncated",)),
    # Valid files that must load
    Hostile("obj_with_utf8_bom", _text("bom.obj", "\ufeff" + TRI_OBJ + "f 1 2 3\n"), n_faces=1),
    Hostile("stl_ascii_upper_case", _text("upper.stl", _stl_ascii([TRI, TRI2], upper=True)),
            n_faces=2),
    Hostile("stl_binary_solid_header_trailing_bytes", _stl_binary_solid_header, n_faces=2),
]  # fmt: skip
