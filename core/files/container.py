"""The zip container of BVH Lab's own files (``.bvhrec``, ``.bvhsession``).

A zip archive that ``numpy.load`` opens like any ``np.savez_compressed`` file: one compressed
``.npy`` member per array (``a0.npy``, ``a1.npy`` ...) plus ``manifest.json``, which names the
format and its version and refers to the arrays by member name. Each file format keeps its
own manifest; this module writes and reads the container and turns every way a file can be
damaged into one line naming the file.

Writing goes through :func:`core.files.safe_write.replace_file` (a temporary file beside the
target, renamed at the end), so a failed or cancelled save leaves an existing file as it was.
Reading never unpickles, and every array's header is compared with the bytes its member holds
before anything is allocated.

Reading is budgeted (see :data:`MAX_MEMBER_BYTES`, :data:`MAX_FILE_BYTES`,
:data:`MAX_MEMBERS`, :data:`MAX_NPY_HEADER_BYTES`, :data:`MAX_MANIFEST_BYTES`,
:data:`MAX_MANIFEST_CONTAINERS`): before any member is read, the archive's directory is
checked (no encrypted member, no compression method other than stored or deflate, no member
name twice, sizes declared within the caps), and every member is then inflated in chunks of
:data:`READ_CHUNK_BYTES`, the inflated bytes counted as they come against the caps of the
member and of the file, so a zip bomb stops at a cap however its sizes are declared. Each
refusal is one line naming the file and the member.
"""

from __future__ import annotations

import io
import json
import math
import os
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from core.files.safe_write import replace_file
from core.text import MAX_NESTING, nests_deeper_than, printable

MANIFEST = "manifest.json"

MAX_MEMBER_BYTES = 256 * 2**20
"""Most bytes one member inflates to (256 MiB: an array of 11 million float64 points; the
largest array of a bunny x bunny frame is 7 MB). Counted on the inflated bytes as they come."""

MAX_FILE_BYTES = 2**30
"""Most bytes all the members of one file inflate to together (1 GiB, twice a recording's
default memory cap). Saving refuses arrays that add up to more, so what the app writes it
reads back."""

MAX_MEMBERS = 200_000
"""Most members in one archive (a recording stores each distinct array once: 3000 frames of a
deforming scene hold about 30,000)."""

MAX_NPY_HEADER_BYTES = 4096
"""Most bytes of one ``.npy`` member's header (what numpy writes is 128 bytes; its own
reader refuses past 10,000 with a three-line message)."""

MAX_MANIFEST_BYTES = 64 * 2**20
"""Most bytes of ``manifest.json`` inflated (64 MiB; a recorded frame's entry takes about
5.4 kB with every extra on, so 10,000 such frames take 54 MB)."""

MAX_MANIFEST_CONTAINERS = 2_000_000
"""Most JSON objects and lists in ``manifest.json``, counted on its text before it is parsed
(each costs a hundred bytes or more once parsed: the count, not the text, bounds memory; a
recorded frame holds about 150)."""

READ_CHUNK_BYTES = 1 << 20
"""Inflated bytes asked of a member at a time (the inflater never works past this before the
caps are checked)."""

_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


class ContainerLimitError(Exception):
    """A member or a file past a reading cap, or an archive this app does not read (encrypted
    members, another compression method, a name twice): one line, naming the member. Not a
    ValueError, so a format's reader does not take it for a damaged value."""

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


def app_version() -> str:
    """The installed ``bvh-lab`` version, written into every file's manifest."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bvh-lab")
    except PackageNotFoundError:
        return "unknown"


def write_container(path: Path, arrays: dict, manifest_text: str, error: type[Exception],
                    cancelled: type[Exception], progress: Progress | None = None,
                    cancel: Cancel | None = None) -> None:  # fmt: skip
    """Write ``arrays`` and the manifest to ``path``, atomically.

    Parameters
    ----------
    path : pathlib.Path
    arrays : dict[str, numpy.ndarray]
        Member name (without ``.npy``) -> array; no object arrays.
    manifest_text : str
        The JSON text of ``manifest.json``.
    error : exception class
        Raised (one line naming ``path``) when the file cannot be written.
    cancelled : exception class
        Raised when ``cancel()`` says stop; nothing is left behind.
    progress : callable, optional
        ``progress(done, total)`` after each array; ``total`` is ``len(arrays) + 1``.
    cancel : callable, optional
        ``cancel() -> bool``, asked between arrays.
    """
    total = len(arrays) + 1
    sizes = [np.asanyarray(array).nbytes for array in arrays.values()]
    text = manifest_text.encode("utf-8")
    if len(text) > MAX_MANIFEST_BYTES or (
            text.count(b"{") + text.count(b"[") > MAX_MANIFEST_CONTAINERS):
        raise error(f"{path}: too large to save ({MANIFEST} would take {_mib(len(text))}; "
                    f"at most {_mib(MAX_MANIFEST_BYTES)} and {MAX_MANIFEST_CONTAINERS:,} "
                    f"objects and lists)")  # fmt: skip
    if sizes and max(sizes) + MAX_NPY_HEADER_BYTES > MAX_MEMBER_BYTES or (
            sum(sizes) + len(text) + MAX_NPY_HEADER_BYTES * len(sizes) > MAX_FILE_BYTES):
        raise error(f"{path}: too large to save ({sum(sizes) / 2**20:,.0f} MiB of arrays, the "
                    f"largest {max(sizes) / 2**20:,.0f} MiB; a file holds at most "
                    f"{_mib(MAX_FILE_BYTES)}, one array at most {_mib(MAX_MEMBER_BYTES)})")

    def write(raw: BinaryIO) -> None:
        with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED,
                             allowZip64=True) as archive:  # fmt: skip
            for done, (name, array) in enumerate(arrays.items()):
                if cancel is not None and cancel():
                    raise cancelled(f"saving {path} was cancelled")
                with archive.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
                if progress is not None:
                    progress(done + 1, total)
            archive.writestr(MANIFEST, manifest_text)

    try:
        replace_file(path, write)
    except OSError as exc:
        raise error(f"{path}: cannot write: {exc.strerror or exc}") from None


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


class CappedZipFile(zipfile.ZipFile):
    """A zip archive read within the caps: its directory checked when it is opened
    (:meth:`check_directory`), every member inflated in chunks and counted.

    Attributes
    ----------
    inflated : int
        Bytes inflated so far from all members (checked against :data:`MAX_FILE_BYTES`).
    """

    inflated = 0

    def check_directory(self) -> None:
        """Refuse encrypted members, compression methods other than stored and deflate, a
        member name twice, too many members, and sizes declared past the caps.

        Raises
        ------
        ContainerLimitError
        """
        infos = self.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ContainerLimitError(f"{len(infos):,} members (at most {MAX_MEMBERS:,})")
        seen: set[str] = set()
        declared = 0
        for info in infos:
            member = _member_words(info.filename)
            if info.filename in seen:
                raise ContainerLimitError(f"member {member} is in the archive twice (which "
                                          f"one is meant cannot be told)")  # fmt: skip
            seen.add(info.filename)
            if info.flag_bits & 0x1:
                raise ContainerLimitError(f"member {member} is encrypted (these files are "
                                          f"never encrypted)")  # fmt: skip
            if info.compress_type not in _METHODS:
                raise ContainerLimitError(
                    f"member {member} uses compression method {info.compress_type} (these "
                    f"files use stored or deflate only)")
            cap = MAX_MANIFEST_BYTES if info.filename == MANIFEST else MAX_MEMBER_BYTES
            if info.file_size > cap:
                raise ContainerLimitError(f"too large: member {member} declares "
                                          f"{_mib(info.file_size)} inflated, at most "
                                          f"{_mib(cap)} a member")  # fmt: skip
            declared += info.file_size
        if declared > MAX_FILE_BYTES:
            raise ContainerLimitError(f"too large: its members declare {_mib(declared)} "
                                      f"inflated, at most {_mib(MAX_FILE_BYTES)} a file")

    def read(self, name, pwd=None) -> bytes:
        """The whole member ``name``, inflated within :data:`MAX_MEMBER_BYTES` (or
        :data:`MAX_MANIFEST_BYTES` for the manifest) and the file's budget."""
        member = name.filename if isinstance(name, zipfile.ZipInfo) else name
        cap = MAX_MANIFEST_BYTES if member == MANIFEST else MAX_MEMBER_BYTES
        with self.open(name, pwd=pwd) as stream:
            return read_capped(self, stream, _member_words(member), cap)


def _member_words(name: str) -> str:
    """A member's name as printed: quoted, control characters escaped, at most 80 characters."""
    text = name if len(name) <= 80 else name[:77] + "..."
    return printable(repr(text))


def _charge_inflated(archive: zipfile.ZipFile, n: int, member: str) -> None:
    """Add ``n`` inflated bytes to the file's budget (an archive opened by
    :func:`open_container` has one)."""
    if isinstance(archive, CappedZipFile):
        archive.inflated += n
        if archive.inflated > MAX_FILE_BYTES:
            raise ContainerLimitError(f"too large: member {member} takes the file past "
                                      f"{_mib(MAX_FILE_BYTES)} inflated, at most a file")


def read_capped(archive: zipfile.ZipFile, stream, member: str, cap: int,
                size: int | None = None) -> bytes:  # fmt: skip
    """Inflate ``stream`` (an open member) in chunks, counting the bytes as they come.

    Parameters
    ----------
    archive : zipfile.ZipFile
        Whose budget is charged (when it is a :class:`CappedZipFile`).
    stream : file object
        The member, as ``archive.open`` gives it (inflates at most what each read asks).
    member : str
        The member's name as printed.
    cap : int
        Most bytes; one more stops the read.
    size : int, optional
        Read exactly this many bytes (fewer is an ``EOFError``); None: to the end.

    Raises
    ------
    ContainerLimitError
        Past ``cap`` or the file's budget.
    EOFError
        ``size`` given and the member ends before.
    """
    data = bytearray()
    want = cap + 1 if size is None else size
    while len(data) < want:
        chunk = stream.read(min(READ_CHUNK_BYTES, want - len(data)))
        if not chunk:
            break
        data += chunk
        _charge_inflated(archive, len(chunk), member)
        if len(data) > cap:
            raise ContainerLimitError(f"too large: member {member} inflates past "
                                      f"{_mib(cap)}, at most a member")  # fmt: skip
    if size is not None and len(data) < size:
        raise EOFError(f"member {member} ends after {len(data):,} of {size:,} bytes")
    return bytes(data) if size is None else data


def _npy_header(stream, member: str) -> tuple[tuple, bool, np.dtype, int]:
    """Shape, Fortran order, dtype and header length of a ``.npy`` stream (read past its
    header), the header's length capped by :data:`MAX_NPY_HEADER_BYTES`."""
    magic = stream.read(8)
    if len(magic) < 8 or magic[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy array (no NUMPY magic)")
    version = (magic[6], magic[7])
    if version == (1, 0):
        length_bytes, kind = stream.read(2), "<H"
    elif version in ((2, 0), (3, 0)):
        length_bytes, kind = stream.read(4), "<I"
    else:
        raise ValueError(f"unknown .npy version {version}")
    if len(length_bytes) != struct.calcsize(kind):
        raise EOFError("truncated .npy header")
    length = struct.unpack(kind, length_bytes)[0]
    if length > MAX_NPY_HEADER_BYTES:
        raise ContainerLimitError(f"member {member} has a .npy header of {length:,} bytes (at "
                                  f"most {MAX_NPY_HEADER_BYTES:,})")  # fmt: skip
    head = stream.read(length)
    if len(head) != length:
        raise EOFError("truncated .npy header")
    # numpy parses the header text it is given (a literal dict, never evaluated as code).
    rebuilt = io.BytesIO(magic + length_bytes + head)
    np.lib.format.read_magic(rebuilt)
    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                   else np.lib.format.read_array_header_2_0)  # fmt: skip
    try:
        shape, fortran, dtype = read_header(rebuilt, max_header_size=MAX_NPY_HEADER_BYTES + 1)
    except (ValueError, SyntaxError, TypeError) as exc:
        raise ValueError(f"bad .npy header ({str(exc).splitlines()[0] if str(exc) else exc})") \
            from None
    return shape, fortran, dtype, 8 + len(length_bytes) + length


def read_array(archive: zipfile.ZipFile, member: str) -> np.ndarray:
    """One ``.npy`` member as a read-only array, its header checked against its size.

    The header is read first (at most :data:`MAX_NPY_HEADER_BYTES`), the bytes it declares
    compared with the member's declared size and :data:`MAX_MEMBER_BYTES`, and only then is
    the data inflated, in chunks, counted against the caps.

    Raises
    ------
    ValueError
        An unknown ``.npy`` version, Python objects, or a shape the bytes do not hold.
    ContainerLimitError
        A header or a member past its cap.
    """
    info = archive.getinfo(member)
    words = _member_words(member)
    with archive.open(info) as stream:
        shape, fortran, dtype, header_bytes = _npy_header(stream, words)
        _charge_inflated(archive, header_bytes, words)
        if dtype.hasobject:
            raise ValueError("holds pickled Python objects (refused: these files hold numbers "
                             "and strings only)")
        count = math.prod(shape)  # Python ints: no overflow to a small number
        data_bytes = count * dtype.itemsize
        if data_bytes != info.file_size - header_bytes:
            raise ValueError(f"declares shape {shape} but holds "
                             f"{info.file_size - header_bytes} bytes")  # fmt: skip
        if data_bytes > MAX_MEMBER_BYTES:
            raise ContainerLimitError(f"too large: member {words} declares {_mib(data_bytes)} "
                                      f"of data, at most {_mib(MAX_MEMBER_BYTES)} a member")
        data = read_capped(archive, stream, words, MAX_MEMBER_BYTES, size=data_bytes)
        if stream.read(1):
            raise ValueError(f"declares shape {shape} but holds more bytes")
    array = np.frombuffer(data, dtype=dtype, count=count) if count else np.empty(0, dtype)
    array = array.reshape(shape, order="F" if fortran else "C")
    array.flags.writeable = False
    return array


def open_container(path, read: Callable, error: type[Exception], what: str):
    """Open ``path`` as a zip and return ``read(archive, path)``; damage becomes ``error``.

    The archive is a :class:`CappedZipFile`: its directory is checked before ``read`` runs
    and every member it reads is inflated within the caps.

    Parameters
    ----------
    path : str or os.PathLike
    read : callable
        ``read(archive: zipfile.ZipFile, path: pathlib.Path)``: the format's own reader.
    error : exception class
        The format's one-line error, naming the file.
    what : str
        The kind of file in words ("recording", "session"): "not a recording (...)".
    """
    path = Path(os.fspath(path))
    name = printable(str(path))
    if not path.is_file():
        why = "no such file" if not path.exists() else "not a regular file"
        raise error(f"{name}: {why}")
    archive = None
    try:
        archive = CappedZipFile(path)
        archive.check_directory()
        return read(archive, path)
    except ContainerLimitError as exc:
        raise error(f"{name}: refused ({exc})") from None
    except zipfile.BadZipFile as exc:
        if archive is not None or any(w in str(exc) for w in ("CRC", "Bad magic", "Truncated")):
            raise error(f"{name}: damaged file ({printable(str(exc))})") from None
        if _starts_like_a_zip(path):
            # A zip's directory is at its end: a cut-off archive still starts with a member.
            raise error(f"{name}: damaged file (truncated: the archive's directory at its "
                        f"end is missing)") from None  # fmt: skip
        raise error(f"{name}: not a {what} (not a zip archive)") from None
    except (zlib.error, EOFError) as exc:
        raise error(f"{name}: damaged file ({printable(str(exc)) or 'truncated'})") from None
    except RecursionError:
        raise error(f"{name}: damaged file ({MANIFEST} nests too deeply)") from None
    except (NotImplementedError, RuntimeError) as exc:  # zipfile's words for what it cannot read
        raise error(f"{name}: refused ({printable(str(exc))})") from None
    except MemoryError:
        raise error(f"{name}: too large to open in this machine's memory") from None
    except OSError as exc:
        raise error(f"{name}: cannot read: {exc.strerror or exc}") from None
    finally:
        if archive is not None:
            archive.close()


def _starts_like_a_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as stream:
            return stream.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def read_manifest(archive: zipfile.ZipFile, path: Path, format_name: str, version: int,
                  error: type[Exception], what: str, oldest: int | None = None) -> dict:
    """The manifest of ``archive``, checked to name ``format_name`` at ``version``.

    Its text is at most :data:`MAX_MANIFEST_BYTES` and :data:`MAX_MANIFEST_CONTAINERS`
    objects and lists; ``version`` must be the int ``version`` itself (``1.0`` and ``true``
    are not 1), or an int from ``oldest`` up when the reader still reads older versions
    (the caller maps their layout; the manifest's ``version`` says which).
    """
    name = printable(str(path))
    if MANIFEST not in set(archive.namelist()):
        raise error(f"{name}: not a {what} (no {MANIFEST} in the archive)")
    with archive.open(MANIFEST) as stream:
        text = read_capped(archive, stream, repr(MANIFEST), MAX_MANIFEST_BYTES)
    containers = text.count(b"{") + text.count(b"[")
    if containers > MAX_MANIFEST_CONTAINERS:
        raise error(f"{name}: refused ({MANIFEST} holds {containers:,} objects and lists; at "
                    f"most {MAX_MANIFEST_CONTAINERS:,})")  # fmt: skip
    # Before the parser, which recurses once a level (core.text.MAX_NESTING says why).
    if nests_deeper_than(text.decode("utf-8", errors="replace"), MAX_NESTING, "json"):
        raise error(f"{name}: damaged file ({MANIFEST} nests too deeply: more than "
                    f"{MAX_NESTING} levels)")  # fmt: skip
    try:
        manifest = json.loads(text.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise error(f"{name}: damaged file ({MANIFEST} is not valid JSON: "
                    f"{printable(str(exc).splitlines()[0])})") from None  # fmt: skip
    if not isinstance(manifest, dict) or manifest.get("format") != format_name:
        raise error(f"{name}: not a {what} ({MANIFEST} does not name the {format_name!r} "
                    f"format)")  # fmt: skip
    found = manifest.get("version")
    lowest = version if oldest is None else oldest
    if type(found) is not int or not lowest <= found <= version:
        made_by = manifest.get("app_version", "an unknown version")
        made_by = printable(made_by[:40]) if isinstance(made_by, str) else "an unknown version"
        shown = printable(json.dumps(found)[:40]) if type(found) is not int else found
        reads = f"version {version}" if lowest == version else f"versions {lowest} to {version}"
        raise error(f"{name}: made by format version {shown} (bvh-lab {made_by}); this app "
                    f"reads {reads}")
    return manifest


def _no_constant(word: str):
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON: the writers never write them."""
    raise ValueError(f"{word} is not a JSON number")
