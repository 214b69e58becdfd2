"""glTF 2.0, binary (``.glb``) or JSON (``.gltf``), read with trimesh.

trimesh is a maintained pure-Python + numpy reader, so a bad file raises a Python exception
(never a crash); every exception it raises becomes one :class:`CorruptMeshFileError` line.
Before trimesh sees anything, the file passes the same checks as every format (regular file,
size limit, read bounded), and the buffers a file names by URI are checked the same way:
they must be regular files next to it (relative paths), within the size limit together with
the file. Only those buffers are handed to trimesh; any other file the glTF names (images) is
never opened.

Every mesh primitive of the default scene is taken, with its node's transform applied, in
scene order; triangles are numbered in that order. Points and lines are not faces.
"""

from __future__ import annotations

import io
import json
import os
import struct
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from core.errors import CorruptMeshFileError, MeshFileError, NoTrianglesError
from core.io.common import check_regular_file, read_regular_file

_GLB_MAGIC = b"glTF"
_GLB_JSON = 0x4E4F534A


def read_gltf(file: Path, max_bytes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (n, 3) float64, offsets (f + 1,) int64, corners (3f,) int64)`` of a glTF."""
    data = read_regular_file(file, max_bytes)
    if not data.strip():
        raise CorruptMeshFileError(file, "the file is empty")
    is_binary = file.suffix.lower() == ".glb"
    document = _json_of(file, data, is_binary)
    buffers = _external_buffers(file, document, max_bytes - len(data))
    try:
        import trimesh

        scene = trimesh.load(
            io.BytesIO(data),
            file_type="glb" if is_binary else "gltf",
            resolver=_Buffers(file, buffers),
            force="scene",
            process=False,
        )
        meshes = [g for g in scene.dump(concatenate=False) if isinstance(g, trimesh.Trimesh)]
    except MeshFileError:
        raise
    except Exception as exc:  # a third-party parser: any exception type means a bad file
        reason = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise CorruptMeshFileError(file, f"not a valid glTF 2.0 file ({reason})") from None
    meshes = [m for m in meshes if len(m.faces)]
    if not meshes:
        raise NoTrianglesError(file, "no triangle primitives in the glTF scene")
    points, corners, base = [], [], 0
    for mesh in meshes:
        vertices = np.asarray(mesh.vertices, dtype=np.float64).reshape(-1, 3)
        points.append(vertices)
        corners.append(np.asarray(mesh.faces, dtype=np.int64).reshape(-1) + base)
        base += len(vertices)
    all_corners = np.concatenate(corners)
    offsets = np.arange(0, len(all_corners) + 1, 3, dtype=np.int64)
    return np.concatenate(points), offsets, all_corners


def _json_of(file: Path, data: bytes, is_binary: bool) -> dict:
    """The glTF JSON document (the first chunk of a GLB container)."""
    if is_binary:
        if len(data) < 20 or data[:4] != _GLB_MAGIC:
            raise CorruptMeshFileError(file, "not a GLB file (no 'glTF' header)")
        version, total = struct.unpack_from("<II", data, 4)
        if version != 2:
            raise CorruptMeshFileError(file, f"GLB version {version}; only glTF 2.0 is read")
        if total > len(data):
            raise CorruptMeshFileError(
                file, f"truncated: the GLB header declares {total} bytes, the file has {len(data)}"
            )
        chunk_length, chunk_type = struct.unpack_from("<II", data, 12)
        if chunk_type != _GLB_JSON or 20 + chunk_length > len(data):
            raise CorruptMeshFileError(file, "the GLB file has no complete JSON chunk")
        text = data[20 : 20 + chunk_length]
    else:
        text = data
    try:
        document = json.loads(text.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptMeshFileError(file, "the glTF JSON is not valid JSON") from None
    if not isinstance(document, dict) or not isinstance(document.get("asset"), dict):
        raise CorruptMeshFileError(file, "not a glTF document (no 'asset' object)")
    version = str(document["asset"].get("version", ""))
    if not version.startswith("2."):
        raise CorruptMeshFileError(file, f"glTF version {version[:20]!r}; only 2.0 is read")
    return document


def _external_buffers(file: Path, document: dict, budget: int) -> dict[str, bytes]:
    """The bytes of every buffer the document names by a relative file URI, checked."""
    found: dict[str, bytes] = {}
    buffers = document.get("buffers", [])
    if not isinstance(buffers, list):
        raise CorruptMeshFileError(file, "'buffers' is not a list")
    for buffer in buffers:
        uri = buffer.get("uri") if isinstance(buffer, dict) else None
        if not isinstance(uri, str) or uri.startswith("data:"):
            continue
        relative = unquote(uri)
        if "://" in relative or os.path.isabs(relative):
            raise CorruptMeshFileError(
                file, f"buffer {uri[:60]!r} is not a file next to it (only relative paths)"
            )
        path = file.parent / relative
        try:
            size = check_regular_file(path, max(budget, 0))
            found[uri] = read_regular_file(path, max(budget, 0))
        except MeshFileError as exc:
            raise CorruptMeshFileError(file, f"buffer {uri[:60]!r}: {exc.reason}") from None
        budget -= size
    return found


class _Buffers:
    """A trimesh resolver that serves only the checked buffers (never opens a file)."""

    def __init__(self, file: Path, buffers: dict[str, bytes]):
        self.file = file
        self.buffers = buffers

    def get(self, name: str) -> bytes:
        for key in (name, unquote(name)):
            if key in self.buffers:
                return self.buffers[key]
        raise CorruptMeshFileError(self.file, f"refers to {name[:60]!r}, which is not read")

    __getitem__ = get

    def __contains__(self, name: str) -> bool:
        return name in self.buffers or unquote(name) in self.buffers

    def get_base(self):  # trimesh asks for the base location of relative names
        return str(self.file.parent)

    def namespaced(self, namespace):
        return self

    def keys(self):
        return self.buffers.keys()

    def write(self, name, data):
        raise CorruptMeshFileError(self.file, "reading a glTF never writes files")
