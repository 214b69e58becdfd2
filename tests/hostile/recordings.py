"""A hostile catalogue of ``.bvhrec`` files, made at run time from a small good recording.

:func:`catalogue` yields one :class:`HostileRecording` per kind of damage: wrong types, wrong
ranges, NaN and infinity, wrong ``version`` types, zip members encrypted, compressed with an
unknown method or named twice, a zip bomb, a huge ``.npy`` header, a million frames, huge
partition settings, a truncated file ... Each knows how to write its file from the good one
(:func:`good_recording`) and the words the one-line refusal must contain. Nothing here is
stored in the repository: bombs and deep nestings are built when a test asks for them, with
raw deflate blocks repeated (so a 0.8 GiB member costs a second, not a gigabyte).

``stage`` says where the refusal comes: ``"open"`` (``open_recording``, the command line, the
Recording > Open menu) or ``"replay"`` (the file is valid; replaying its recorded settings is
refused: the command line's ``--replay`` and ``core.recording.replay``).
"""

from __future__ import annotations

import copy
import json
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class HostileRecording:
    """One hostile file: its class of damage, how to write it, what the refusal says.

    Attributes
    ----------
    name : str
        The class of damage (also the file's stem).
    write : callable
        ``write(good: Path, folder: Path) -> Path``: the hostile file, made from the good one.
    words : str
        A regular expression the one-line message must match.
    stage : str
        ``"open"`` or ``"replay"``.
    """

    name: str
    write: Callable[[Path, Path], Path]
    words: str
    stage: str = "open"


def good_recording(path: Path) -> Path:
    """Record two frames of two touching spheres (a grid partition, the trace) to ``path``."""
    from core.pipeline import BodyInput, FramePipeline, PipelineSettings, UpdateMode
    from core.pose import Pose
    from core.recording import Recording, save_recording
    from core.request import CollisionRequest
    from tests.core.meshgen import sphere_mesh

    a, b = sphere_mesh(6), sphere_mesh(5, radius=0.6)
    pipe = FramePipeline(PipelineSettings(CollisionRequest(trace=True, partition="grid")))
    recording = Recording()
    for i, x in enumerate((1.3, 1.2)):
        frame = pipe.step([BodyInput("a", a), BodyInput("b", b, Pose(translation=(x, 0, 0)))],
                          0.1 * i)  # fmt: skip
        recording.append(frame, ("a", "b"), UpdateMode.REFIT)
    return save_recording(recording, path)


# ---- a zip written by hand: any flag, method, size or name ------------------------------------


@dataclass
class Member:
    """One member as it goes into the archive (``data`` already compressed)."""

    name: str
    data: bytes
    crc: int
    size: int
    method: int = zipfile.ZIP_DEFLATED
    flags: int = 0


def deflated(name: str, raw: bytes) -> Member:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return Member(name, packer.compress(raw) + packer.flush(), zlib.crc32(raw), len(raw))


def zeros_bomb(name: str, head: bytes, n_zeros: int) -> Member:
    """``head`` then ``n_zeros`` zero bytes, deflated by repeating one compressed block."""
    block = 1 << 20
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    one = packer.compress(bytes(block)) + packer.flush(zlib.Z_FULL_FLUSH)
    repeat = packer.compress(bytes(block)) + packer.flush(zlib.Z_FULL_FLUSH)
    assert repeat == one  # a full flush forgets the history: every block compresses the same
    n_blocks, rest = divmod(n_zeros, block)
    tail = packer.compress(bytes(rest)) + packer.flush()
    crc = zlib.crc32(head)
    zero_block = bytes(block)
    for _ in range(n_blocks):
        crc = zlib.crc32(zero_block, crc)
    crc = zlib.crc32(bytes(rest), crc)
    return Member(name, first + one * n_blocks + tail, crc, len(head) + n_zeros)


def zip_bytes(members: list[Member]) -> bytes:
    """A zip archive (no ZIP64) of ``members`` exactly as given."""
    out, central = bytearray(), bytearray()
    for m in members:
        name = m.name.encode("utf-8")
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, m.flags, m.method, 0, 0x21,
                           m.crc, len(m.data), m.size, len(name), 0) + name + m.data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, m.flags, m.method,
                               0, 0x21, m.crc, len(m.data), m.size, len(name), 0, 0, 0, 0,
                               0, offset) + name  # fmt: skip
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central),
                      len(out), 0)  # fmt: skip
    return bytes(out + central + end)


def npy_head(shape: tuple, dtype: str = "<f8", pad_to: int = 0) -> bytes:
    """A version 1.0 ``.npy`` header (optionally padded with spaces to ``pad_to`` bytes)."""
    text = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape!r}, }}"
    length = max(len(text) + 1, pad_to)
    text = text.ljust(length - 1) + "\n"
    version = (1, 0) if length < 65536 else (2, 0)
    size = struct.pack("<H", length) if version == (1, 0) else struct.pack("<I", length)
    return b"\x93NUMPY" + bytes(version) + size + text.encode("latin1")


def members_of(good: Path) -> list[Member]:
    with zipfile.ZipFile(good) as archive:
        return [deflated(info.filename, archive.read(info.filename))
                for info in archive.infolist()]


def manifest_of(good: Path) -> dict:
    with zipfile.ZipFile(good) as archive:
        return json.loads(archive.read(MANIFEST))


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / f"{name}.bvhrec"
    path.write_bytes(data)
    return path


def with_members(name: str, change: Callable[[list[Member], dict], list[Member]]):
    """A writer that changes the good file's member list (``change(members, manifest)``)."""

    def write(good: Path, folder: Path) -> Path:
        return _write(folder, name, zip_bytes(change(members_of(good), manifest_of(good))))

    return write


def with_manifest(name: str, change: Callable[[dict], object], raw: bool = False):
    """A writer that rewrites the manifest (``change`` edits it in place, or returns the new
    one; with ``raw`` it returns the manifest's bytes)."""

    def write(good: Path, folder: Path) -> Path:
        manifest = manifest_of(good)
        result = change(manifest)
        if raw:
            text = result
        else:
            text = json.dumps(manifest if result is None else result).encode()
        members = [m for m in members_of(good) if m.name != MANIFEST]
        return _write(folder, name, zip_bytes(members + [deflated(MANIFEST, text)]))

    return write


def frame_fields(manifest: dict, i: int = 0, *path: str) -> dict:
    """The ``fields`` dict of an object inside frame ``i``: ``path`` names fields in turn."""
    fields = manifest["frames"][i]["frame"]["fields"]
    for key in path:
        fields = fields[key]["fields"]
    return fields


def member_of(manifest: dict, *path) -> str:
    """The member name (``a3.npy``) of the array at ``path`` in frame 0."""
    node = manifest["frames"][0]["frame"]
    for key in path:
        node = node["fields"][key] if isinstance(key, str) else node[key]
    return node["array"] + ".npy"


def with_array(name: str, path: tuple, array: np.ndarray):
    """A writer that replaces the array at ``path`` of frame 0 with ``array``."""
    import io

    def change(members, manifest):
        buffer = io.BytesIO()
        np.save(buffer, array)
        target = member_of(manifest, *path)
        return [deflated(m.name, buffer.getvalue()) if m.name == target else m
                for m in members]

    return with_members(name, change)


def with_array_filled(name: str, path: tuple, value):
    """A writer that replaces the array at ``path`` of frame 0 with one of its own shape and
    dtype, every entry ``value``."""
    import io

    def change(members, manifest):
        target = member_of(manifest, *path)
        with zipfile.ZipFile(io.BytesIO(zip_bytes(members))) as archive:
            array = np.load(io.BytesIO(archive.read(target)))
        buffer = io.BytesIO()
        np.save(buffer, np.full_like(array, value))
        return [deflated(m.name, buffer.getvalue()) if m.name == target else m
                for m in members]

    return with_members(name, change)


def _set(name: str, where: tuple, key: str, value, words: str) -> HostileRecording:
    def change(manifest):
        frame_fields(manifest, 0, *where)[key] = value

    return HostileRecording(name, with_manifest(name, change), words)


# ---- the catalogue ----------------------------------------------------------------------------

BOMB_BYTES = 800 * 2**20
"""What the zip bomb inflates to: 0.8 GiB from under 1 MB."""


def catalogue() -> Iterator[HostileRecording]:
    """Every hostile recording, one per class of damage."""
    # -- the container ---------------------------------------------------------------------
    yield HostileRecording("truncated", lambda good, folder: _write(
        folder, "truncated", good.read_bytes()[: good.stat().st_size // 2]),
        r"damaged file \(truncated")
    yield HostileRecording("not-a-zip", lambda good, folder: _write(
        folder, "not-a-zip", b"\x1b]0;owned\x07 not a zip\n" * 50), "not a recording")

    def bomb(members, manifest):
        target = member_of(manifest, "meshes", 0, "vertices")
        head = npy_head((BOMB_BYTES // 24, 3))
        return [zeros_bomb(m.name, head, BOMB_BYTES - BOMB_BYTES % 24) if m.name == target
                else m for m in members]

    yield HostileRecording("zip-bomb", with_members("zip-bomb", bomb),
                           r"refused \(too large: member 'a\d+\.npy' declares 800 MiB "
                           r"inflated, at most 256 MiB")

    def lying_bomb(members, manifest):
        # The directory says 100 MiB; the deflate stream holds 0.8 GiB.
        target = member_of(manifest, "meshes", 0, "vertices")
        out = []
        for m in members:
            if m.name == target:
                rows = 100 * 2**20 // 24
                head = npy_head((rows, 3))
                m = zeros_bomb(m.name, head, BOMB_BYTES)
                m.size = len(head) + 24 * rows  # what the header says: read, then the CRC fails
            out.append(m)
        return out

    yield HostileRecording("zip-bomb-lying-size", with_members("zip-bomb-lying-size",
                                                               lying_bomb),
                           r"damaged file \(Bad CRC-32")

    def many_bombs(members, manifest):
        head = npy_head((200 * 2**20 // 8,))
        return members + [zeros_bomb(f"b{i}.npy", head, 200 * 2**20) for i in range(6)]

    yield HostileRecording("zip-bomb-many-members", with_members("zip-bomb-many-members",
                                                                 many_bombs),
                           r"refused \(too large: its members declare .*at most 1,024 MiB a file")

    def manifest_bomb(manifest):
        return json.dumps(manifest).encode() + b" " * (80 * 2**20)

    yield HostileRecording("manifest-bomb", with_manifest("manifest-bomb", manifest_bomb,
                                                          raw=True),
                           r"refused \(too large: member 'manifest.json' declares")

    def flagged(flag=0, method=None):
        def change(members, manifest):
            target = member_of(manifest, "meshes", 0, "vertices")
            for m in members:
                if m.name == target:
                    m.flags |= flag
                    m.method = m.method if method is None else method
            return members

        return change

    yield HostileRecording("encrypted-member", with_members("encrypted-member", flagged(1)),
                           r"refused \(member 'a\d+\.npy' is encrypted")
    yield HostileRecording("unknown-compression", with_members(
        "unknown-compression", flagged(method=99)),
        r"refused \(member 'a\d+\.npy' uses compression method 99")
    yield HostileRecording("bzip2-compression", with_members(
        "bzip2-compression", flagged(method=zipfile.ZIP_BZIP2)),
        r"refused \(member 'a\d+\.npy' uses compression method 12")

    def duplicate_manifest(members, manifest):
        other = copy.deepcopy(manifest)
        other["frames"] = other["frames"][:1]
        other["n_frames"] = 1
        return members + [deflated(MANIFEST, json.dumps(other).encode())]

    yield HostileRecording("duplicate-manifest", with_members("duplicate-manifest",
                                                              duplicate_manifest),
                           r"refused \(member 'manifest.json' is in the archive twice")

    def duplicate_array(members, manifest):
        target = member_of(manifest, "meshes", 0, "vertices")
        original = next(m for m in members if m.name == target)
        import io

        buffer = io.BytesIO()
        np.save(buffer, np.zeros((1, 3)))
        del original
        return members + [deflated(target, buffer.getvalue())]

    yield HostileRecording("duplicate-array", with_members("duplicate-array", duplicate_array),
                           r"refused \(member 'a\d+\.npy' is in the archive twice")

    def huge_header(members, manifest):
        target = member_of(manifest, "meshes", 0, "vertices")
        return [deflated(m.name, npy_head((0, 3), pad_to=200_000)) if m.name == target else m
                for m in members]

    yield HostileRecording("huge-npy-header", with_members("huge-npy-header", huge_header),
                           r"refused \(member 'a\d+\.npy' has a \.npy header of 200,000 bytes")

    def header_shape_overflow(members, manifest):
        target = member_of(manifest, "meshes", 0, "vertices")
        return [deflated(m.name, npy_head((2**62, 2**62, 3))) if m.name == target else m
                for m in members]

    yield HostileRecording("npy-shape-overflow", with_members("npy-shape-overflow",
                                                              header_shape_overflow),
                           "declares shape")
    yield HostileRecording("pickled-objects", with_array(
        "pickled-objects", ("meshes", 0, "vertices"), np.array([{"x": 1}], dtype=object)),
        "Python objects")

    # -- the manifest ----------------------------------------------------------------------
    for name, value in (("version-float", 1.0), ("version-true", True),
                        ("version-string", "1"), ("version-3", 3)):  # fmt: skip
        yield HostileRecording(name, with_manifest(name, lambda m, v=value: m.update(version=v)),
                               "made by format version .* this app reads versions 1 to 2")

    def million_frames(manifest):
        entry = {"frame": {"ref": 0}}
        text = json.dumps({**manifest, "n_frames": 10**6,
                           "frames": [manifest["frames"][0]] + [entry] * (10**6 - 1)})
        return text.encode()

    yield HostileRecording("million-frames", with_manifest("million-frames", million_frames,
                                                           raw=True),
                           r"refused \(manifest.json holds 2,0\d\d,\d+ objects and lists")
    yield HostileRecording("million-frames-declared", with_manifest(
        "million-frames-declared", lambda m: m.update(n_frames=10**6)),
        r"n_frames is 1,000,000 \(a recording holds at most 10,000")
    yield HostileRecording("n-frames-float", with_manifest(
        "n-frames-float", lambda m: m.update(n_frames=float(m["n_frames"]))),
        "n_frames must be an integer")
    yield HostileRecording("deep-nesting", with_manifest(
        "deep-nesting", lambda m: b"[" * 100_000, raw=True), "damaged file")
    yield HostileRecording("body-keys-numbers", with_manifest(
        "body-keys-numbers", lambda m: m["frames"][0].update(body_keys=[1, 2])),
        r"frame 0 body_keys \[0\] must be a string")
    yield HostileRecording("update-unknown", with_manifest(
        "update-unknown", lambda m: m["frames"][0].update(update="SIDEWAYS")),
        "update must be one of")

    # -- the frames: types, ranges, finiteness -----------------------------------------------
    yield _set("index-bool", (), "index", True, r"frame 0\.index must be an integer, got bool")
    yield _set("index-negative", (), "index", -5, r"frame 0\.index must be >= 0")
    yield _set("time-infinite", (), "t", {"float": "inf"}, r"frame 0\.t must be finite")
    yield _set("time-string", (), "t", "soon", r"frame 0\.t must be a number, got str")
    yield _set("drift-nan", (), "drift", [{"float": "nan"}, 0.0],
               r"frame 0\.drift \[0\] must be finite")
    yield _set("drift-string", (), "drift", ["far", 0.0],
               r"frame 0\.drift \[0\] must be a number, got str")
    yield _set("rebuilt-numbers", (), "rebuilt", [1, 0], r"frame 0\.rebuilt \[0\] must be true")
    yield _set("timings-string", (), "timings", "fast", r"frame 0\.timings must be a dict")
    yield _set("counters-negative", ("result", "counters"), "n_bv_tests", -3,
               r"\.counters\.n_bv_tests must be >= 0")
    yield _set("counters-float", ("result", "counters"), "n_tri_tests", 2.5,
               r"\.counters\.n_tri_tests must be an integer, got float")
    yield _set("margin-infinite", ("result",), "margin", {"float": "inf"},
               r"\.result\.margin must be finite")
    yield HostileRecording("contact-kind-unknown", with_array(
        "contact-kind-unknown", ("result", "kinds"), np.array([], dtype=np.int8)),
        "one entry per contact")
    yield HostileRecording("vertices-nan", with_array(
        "vertices-nan", ("meshes", 0, "vertices"), np.full((38, 3), np.nan)),
        "not finite|one id per face|index outside")

    yield HostileRecording("contact-kinds-out-of-enum", with_array_filled(
        "contact-kinds-out-of-enum", ("result", "kinds"), 77), "kinds has a value that is not "
        "a contact kind")

    def pose_not_rotation(manifest):
        pose = manifest["frames"][0]["frame"]["fields"]["poses"][1]["fields"]
        pose["scale"] = {"float": "nan"}

    yield HostileRecording("pose-scale-nan", with_manifest("pose-scale-nan", pose_not_rotation),
                           r"poses\[1\]\.scale must be finite")

    def enum_escape(manifest):
        tree = manifest["frames"][0]["frame"]["fields"]["trees"][0]["fields"]
        tree["split"] = {"enum": "SplitRule", "name": "\x1b]0;owned\x07\x00"}

    yield HostileRecording("control-characters", with_manifest("control-characters",
                                                               enum_escape),
                           r"unknown value SplitRule\.\\x1b\]0;owned\\x07\\x00")

    def partition_depth(manifest):
        request = manifest["frames"][0]["frame"]["fields"]["request"]["fields"]
        request["partition"] = "octree"
        request["partition_params"] = {"tuple": [{"tuple": ["max_depth", 10**9]}]}

    yield HostileRecording("partition-depth-huge", with_manifest("partition-depth-huge",
                                                                 partition_depth),
                           r"max_depth must be in 0\.\.21")

    def partition_scale(manifest):
        request = manifest["frames"][0]["frame"]["fields"]["request"]["fields"]
        request["partition_params"] = {"tuple": [{"tuple": ["cell_scale", 1e-9]}]}

    yield HostileRecording("partition-cell-scale-tiny", with_manifest(
        "partition-cell-scale-tiny", partition_scale), "cell_scale must be a finite number")

    def partition_cell(manifest):
        for entry in manifest["frames"]:
            request = entry["frame"]["fields"].get("request")
            if isinstance(request, dict) and "fields" in request:
                request["fields"]["partition_params"] = {
                    "tuple": [{"tuple": ["cell_size", 1e-3]}]}

    yield HostileRecording("partition-cell-size-tiny", with_manifest(
        "partition-cell-size-tiny", partition_cell),
        r"cannot replay: the partition would hold [\d,]+ \(cell, triangle\) entries",
        stage="replay")

    yield HostileRecording("trace-axis-out-of-range", with_array_filled(
        "trace-axis-out-of-range", ("result", "trace", "sep_axis"), 100),
        "sep_axis must hold -1")

    def volumes_short(manifest):
        volumes = manifest["frames"][0]["frame"]["fields"]["volumes"]["fields"]
        volumes["name"] = "sphere"
        volumes["rows"] = []

    yield HostileRecording("volumes-mismatch", with_manifest("volumes-mismatch", volumes_short),
                           "volumes.rows must hold the volumes of one or two trees")
