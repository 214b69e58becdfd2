"""One entry for every tree file BVH Lab reads, told apart by its first bytes, whatever its
suffix.

=====================================  ==============================================
first bytes                            read by
=====================================  ==============================================
``{`` ... ``"format": "bvh-lab-tree"``  :func:`core.bvh.treefile_read.read_tree` (JSON)
``PK\\x03\\x04`` (a zip)                 :func:`core.bvh.treefile_read.read_tree` (npz)
``22 serialization::archive``          :func:`core.bvh.coal_tree.read_coal_tree` (text)
``<?xml`` ... ``<boost_serialization``  :func:`core.bvh.coal_tree.read_coal_tree` (XML)
``\\x16\\0\\0\\0\\0\\0\\0\\0serialization::archive``  coal (binary)
any of the three, model untracked       :func:`core.bvh.hpp_fcl_tree.read_hpp_fcl_tree` (hpp-fcl)
``{`` ... ``"roots"``                    :func:`core.bvh.three_mesh_bvh.read_three_mesh_bvh`
``3MBVH\0``                           three-mesh-bvh (binary: the buffers as they are)
=====================================  ==============================================

Our own files keep :func:`~core.bvh.treefile_read.read_tree`'s behaviour and messages; a file
named ``.json`` or ``.npz`` that matches nothing goes to it too (it says what is wrong with
it). Anything else: "not a tree file BVH Lab reads: starts with ...".
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from core.bvh.boost_archive import BINARY_START, TEXT_START, XML_MARK
from core.bvh.treefile import ImportedTree, TreeFileError, max_tree_bytes
from core.bvh.treefile_read import _file_bytes, read_tree
from core.io.common import MAX_FILE_BYTES
from core.mesh import TriMesh

#: Bytes looked at to tell a file's format.
SNIFF_BYTES = 4096

XML_BYTES_PER_TRIANGLE = 24 * 2**10
"""A coal XML archive writes every byte of its node records as an ``<item>`` line (about 17
bytes each; an OBBRSS node is 256 bytes, two nodes a triangle): its limit is 1 MiB + 24 KiB
a triangle instead of :func:`core.bvh.treefile.max_tree_bytes`' 2 KiB (still at most
:data:`core.io.common.MAX_FILE_BYTES`)."""

TEXT_BYTES_PER_TRIANGLE = 3 * 2**10
"""A coal text archive writes every byte of its node records as a number of up to 4 characters
and a space (an OBBRSS node is 256 bytes, two nodes a triangle: up to 2.5 KiB a triangle;
1.8 KiB measured on a 100k-triangle sphere): its limit is 1 MiB + 3 KiB a triangle."""

WHAT_IS_READ = ("BVH Lab's .json or .npz, a coal or hpp-fcl BVHModel saved as text, XML or "
                "binary, or three-mesh-bvh's serialize() as JSON or 3MBVH binary")  # fmt: skip


def sniff(head: bytes) -> str | None:
    """The format of a file from its first bytes: ``"ours-json"``, ``"ours-npz"``,
    ``"coal"``, ``"three"`` or None."""
    if head.startswith((TEXT_START, BINARY_START)):
        return "coal"
    if head.lstrip().startswith(b"<?xml") and XML_MARK in head:
        return "coal"
    if head.startswith(b"PK\x03\x04"):
        return "ours-npz"
    if head.startswith(b"3MBVH\0"):
        return "three"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        if re.search(rb'"format"\s*:\s*"bvh-lab-tree"', head):
            return "ours-json"
        if re.search(rb'"roots"\s*:|"format"\s*:\s*"three-mesh-bvh"', head):
            return "three"
        return "ours-json"
    return None


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(SNIFF_BYTES)
    except FileNotFoundError:
        raise TreeFileError(path, "no such file") from None
    except IsADirectoryError:
        raise TreeFileError(path, "is a directory, not a tree file") from None
    except OSError as exc:
        raise TreeFileError(path, f"cannot be read ({exc.strerror or exc})") from None


def read_any_tree(path, mesh: TriMesh, max_bytes: int = MAX_FILE_BYTES) -> ImportedTree:
    """Read any tree file BVH Lab reads (see the module's table) over ``mesh``.

    Parameters
    ----------
    path : str or os.PathLike
    mesh : TriMesh
        The mesh the tree was built on.
    max_bytes : int
        Largest file read; the mesh sets a lower limit (:func:`core.bvh.treefile.
        max_tree_bytes`, 1 MiB + 2 KiB a triangle; a coal XML archive
        :data:`XML_BYTES_PER_TRIANGLE`).

    Returns
    -------
    ImportedTree
        ``source`` names the engine (``"coal OBBRSS file m.bin, 199,999 nodes"``).

    Raises
    ------
    TreeFileError
        One line naming the file (and the file's node where one is at fault).
    """
    if not isinstance(mesh, TriMesh):
        raise TypeError(f"mesh must be a TriMesh, got {type(mesh).__name__}")
    path = Path(os.fspath(path))
    try:
        info = os.stat(path)
    except OSError:
        info = None  # missing or unreadable: read_tree's own words below
    if info is not None and not stat.S_ISREG(info.st_mode):
        # A directory, pipe, device or socket: named before a byte is read (a pipe's first
        # bytes would wait for a writer).
        _file_bytes(path, MAX_FILE_BYTES)
    head = _head(path) if info is not None else b""
    kind = sniff(head) if head else None
    suffix = path.suffix.lower()
    if kind in ("ours-json", "ours-npz"):
        return read_tree(path, mesh, max_bytes, encoding=kind[5:])
    if info is None:
        _file_bytes(path, MAX_FILE_BYTES)  # "no such file" or "cannot be read", whatever suffix
    if kind is None and suffix in (".json", ".npz"):
        return read_tree(path, mesh, max_bytes)
    if kind is None:
        shown = head[:24].decode("latin-1")
        raise TreeFileError(path, f"not a tree file BVH Lab reads: starts with {shown!r} "
                                  f"({WHAT_IS_READ})")  # fmt: skip
    limit = min(int(max_bytes), max_tree_bytes(mesh.n_faces))
    why = f" (1 MiB + 2 KiB a triangle of the mesh's {mesh.n_faces:,})"
    if kind == "coal" and not head.startswith(BINARY_START):
        per, what = ((XML_BYTES_PER_TRIANGLE, "XML") if XML_MARK in head
                     else (TEXT_BYTES_PER_TRIANGLE, "text"))  # fmt: skip
        limit = min(int(max_bytes), MAX_FILE_BYTES, 2**20 + per * mesh.n_faces)
        why = (f" (1 MiB + {per // 2**10} KiB a triangle of the mesh's {mesh.n_faces:,}, "
               f"for a coal {what} archive)")
    data = _file_bytes(path, limit, why if limit < int(max_bytes) else "")
    if kind == "coal":
        from core.bvh.coal_tree import read_coal_tree
        from core.bvh.hpp_fcl_tree import is_hpp_fcl, read_hpp_fcl_tree

        if is_hpp_fcl(head):
            return read_hpp_fcl_tree(path, mesh, data)

        return read_coal_tree(path, mesh, data)
    from core.bvh.three_mesh_bvh import read_three_mesh_bvh

    return read_three_mesh_bvh(path, mesh, data)
