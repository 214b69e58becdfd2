"""Mutation fuzz of every format ``load_mesh`` reads.

A small valid file of each format is mutated with a seeded generator (truncation, flipped
and inserted bytes, duplicated and swapped lines, numbers replaced by huge ones, deleted
tokens), and each mutant must either load as a valid mesh or raise the project's load error
(:class:`core.errors.MeshError`) with one line naming the file: never another exception type.
The counts fit in about 20 s on a 2-core machine (the VTK formats start a child process per
load, about 0.5 s each, so they get fewer mutants); ``BVH_LAB_FUZZ_SCALE=10`` runs ten
times more of each.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import numpy as np
import pytest

from core.errors import MeshError
from core.io import load_mesh
from core.mesh import TriMesh

SCALE = int(os.environ.get("BVH_LAB_FUZZ_SCALE", "1"))

OCTA_V = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
OCTA_F = [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]


def _obj() -> bytes:
    lines = [f"v {x} {y} {z}" for x, y, z in OCTA_V]
    lines += ["f " + " ".join(f"{i + 1}/{i + 1}" for i in f) for f in OCTA_F]
    return ("# octahedron\n" + "\n".join(lines) + "\n").encode()


def _off() -> bytes:
    lines = ["OFF", f"{len(OCTA_V)} {len(OCTA_F)} 0"]
    lines += [f"{x} {y} {z}" for x, y, z in OCTA_V] + [f"3 {a} {b} {c}" for a, b, c in OCTA_F]
    return ("\n".join(lines) + "\n").encode()


def _ply_header(fmt: str) -> bytes:
    return (
        f"ply\nformat {fmt} 1.0\nelement vertex {len(OCTA_V)}\nproperty float x\n"
        f"property float y\nproperty float z\nelement face {len(OCTA_F)}\n"
        "property list uchar int vertex_indices\nend_header\n"
    ).encode()


def _ply_ascii() -> bytes:
    body = [f"{x} {y} {z}" for x, y, z in OCTA_V] + [f"3 {a} {b} {c}" for a, b, c in OCTA_F]
    return _ply_header("ascii") + ("\n".join(body) + "\n").encode()


def _ply_binary() -> bytes:
    body = b"".join(struct.pack("<3f", *v) for v in OCTA_V)
    body += b"".join(struct.pack("<B3i", 3, *f) for f in OCTA_F)
    return _ply_header("binary_little_endian") + body


def _stl_ascii() -> bytes:
    lines = ["solid octa"]
    for f in OCTA_F:
        lines += ["facet normal 0 0 0", " outer loop"]
        lines += [f"  vertex {x} {y} {z}" for x, y, z in (OCTA_V[i] for i in f)]
        lines += [" endloop", "endfacet"]
    return ("\n".join([*lines, "endsolid octa"]) + "\n").encode()


def _stl_binary() -> bytes:
    records = b"".join(
        struct.pack("<12fH", 0, 0, 0, *np.ravel([OCTA_V[i] for i in f]).tolist(), 0)
        for f in OCTA_F
    )
    return b"solid octa".ljust(80, b"\0") + struct.pack("<I", len(OCTA_F)) + records


def _vtk_legacy() -> bytes:
    lines = ["# vtk DataFile Version 3.0", "octa", "ASCII", "DATASET POLYDATA",
             f"POINTS {len(OCTA_V)} float"]  # fmt: skip
    lines += [f"{x} {y} {z}" for x, y, z in OCTA_V]
    lines += [f"POLYGONS {len(OCTA_F)} {4 * len(OCTA_F)}"]
    lines += [f"3 {a} {b} {c}" for a, b, c in OCTA_F]
    return ("\n".join(lines) + "\n").encode()


def _vtp(tmp: Path) -> bytes:
    from tests.hostile.meshes import vtp_bytes

    return vtp_bytes(tmp, compressed=True)


def _glb() -> bytes:
    import trimesh

    mesh = trimesh.Trimesh(np.array(OCTA_V, float), np.array(OCTA_F), process=False)
    return mesh.export(file_type="glb")


# (extension, builder, mutants per run): the VTK formats cost a child process per load.
FORMATS = {
    "obj": (".obj", _obj, 400),
    "off": (".off", _off, 400),
    "ply-ascii": (".ply", _ply_ascii, 400),
    "ply-binary": (".ply", _ply_binary, 400),
    "stl-ascii": (".stl", _stl_ascii, 400),
    "stl-binary": (".stl", _stl_binary, 400),
    "glb": (".glb", _glb, 150),
    "vtk": (".vtk", _vtk_legacy, 6),
    "vtp": (".vtp", _vtp, 6),
}

HUGE_TOKENS = [b"1e400", b"-1e308", b"1" + b"0" * 39, b"nan", b"-inf", b"1_0", b"0x10",
               b"4294967296", b"-2147483649", b"1.5", b"", b"9" * 400]  # fmt: skip


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random edits of ``data``."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(7)
        if kind == 0 and out:  # truncate
            del out[rng.randrange(len(out)) :]
        elif kind == 1 and out:  # flip bytes
            for _ in range(rng.randint(1, 8)):
                out[rng.randrange(len(out))] = rng.randrange(256)
        elif kind == 2:  # insert random bytes
            at = rng.randrange(len(out) + 1)
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif kind in (3, 4):  # duplicate or swap lines
            lines = bytes(out).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == 3:
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            out = bytearray(b"\n".join(lines))
        else:  # replace or delete a token
            tokens = [t for t in bytes(out).split(b" ") if t]
            if not tokens:
                continue
            i = rng.randrange(len(tokens))
            pieces = bytes(out).split(b" ")
            k = [n for n, p in enumerate(pieces) if p][i]
            pieces[k] = rng.choice(HUGE_TOKENS) if kind == 5 else b""
            out = bytearray(b" ".join(pieces))
    return bytes(out)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_mutants_load_or_fail_with_one_line_naming_the_file(fmt, tmp_path):
    ext, build, count = FORMATS[fmt]
    original = build(tmp_path) if fmt == "vtp" else build()
    source = tmp_path / f"valid{ext}"
    source.write_bytes(original)
    assert load_mesh(source).n_faces == (64 if fmt == "vtp" else len(OCTA_F))  # seed is valid
    rng = random.Random(f"bvh-lab-{fmt}")
    outcomes = {"loaded": 0, "refused": 0}
    for n in range(count * SCALE):
        path = tmp_path / f"mutant-{n}{ext}"
        path.write_bytes(mutate(original, rng))
        try:
            mesh = load_mesh(path)
        except MeshError as exc:
            message = str(exc)
            assert str(path) in message and "\n" not in message, (n, message)
            outcomes["refused"] += 1
        else:
            assert isinstance(mesh, TriMesh) and mesh.n_faces > 0
            assert np.isfinite(mesh.vertices).all()
            assert mesh.faces.min() >= 0 and mesh.faces.max() < mesh.n_vertices
            outcomes["loaded"] += 1
        path.unlink()
    assert outcomes["refused"] > 0  # the mutations do reach the parsers' checks
