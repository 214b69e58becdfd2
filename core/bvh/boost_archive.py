"""Sequential readers of the three boost serialization archives coal writes.

A boost archive holds no schema: the reader must ask for the values in the order the writer
wrote them (:mod:`core.bvh.coal_tree` walks coal's ``BVHModel``). The three encodings give the
same values:

text (``saveToText``)
    Starts ``22 serialization::archive V``: the signature's length, the signature, the
    library version ``V``; then values as whitespace-separated words.
XML (``saveToXML``)
    ``<boost_serialization signature="serialization::archive" version="V">``; every value is
    an element named as the writer named it (``<num_vertices>6</num_vertices>``); what the
    text archive writes as class words (tracking level, version, object id) are attributes.
binary (``saveToBinary``)
    The signature's length as an 8-byte integer, the signature, the library version as 2
    bytes, the sizes of ``int``, ``long``, ``float``, ``double`` and an ``int`` 1 (the byte
    order); then values in the writer's own sizes and byte order.

Boost writes a class's tracking level and version (and the class id of a pointer) the first
time the class appears in the archive only; the caller says which values to expect. Bulk
arrays (vertices, triangles, the node bytes) are read with NumPy, their length checked
against what is left of the file before anything is allocated, so a crafted count costs
nothing. Every problem raises :class:`ArchiveError` with the place in the file.
"""

from __future__ import annotations

import re
import struct
import warnings

import numpy as np

SIGNATURE = b"serialization::archive"

#: The newest boost archive library version read (what Boost 1.90 writes; 1.76 to 1.89 wrote
#: 19 or 20, with the same layout for what coal saves). Older ones from 17 on are read too.
NEWEST_VERSION = 20
OLDEST_VERSION = 17

TEXT_START = b"22 " + SIGNATURE
BINARY_START = b"\x16\x00\x00\x00\x00\x00\x00\x00" + SIGNATURE
XML_MARK = b"<boost_serialization"


class ArchiveError(Exception):
    """A boost archive that does not hold what was asked for; ``args[0]`` is the reason."""


def check_version(version: int) -> None:
    if version > NEWEST_VERSION:
        raise ArchiveError(f"boost archive version {version} is newer than this reader knows "
                           f"(it reads versions {OLDEST_VERSION} to {NEWEST_VERSION})")
    if version < OLDEST_VERSION:
        raise ArchiveError(f"boost archive version {version} is older than this reader reads "
                           f"(versions {OLDEST_VERSION} to {NEWEST_VERSION})")


class TextArchive:
    """Words of a text archive, read in order."""

    kind = "text"

    def __init__(self, data: bytes):
        self.data = data
        self.words = re.finditer(rb"\S+", data)
        self.pos = 0
        self.n_read = 0
        if not data.startswith(TEXT_START):
            raise ArchiveError("not a boost text archive (no '22 serialization::archive')")
        for _ in range(2):
            self._word("the signature")
        self.version = self.int("the archive version")
        check_version(self.version)

    def _word(self, what: str) -> bytes:
        match = next(self.words, None)
        if match is None:
            raise ArchiveError(f"the file ends before {what} (after {self.n_read:,} values)")
        self.pos = match.end()
        self.n_read += 1
        return match.group(0)

    def int(self, what: str, name: str | None = None) -> int:
        word = self._word(what)
        if not re.fullmatch(rb"-?\d{1,20}", word):
            raise ArchiveError(f"{what}: {word[:40]!r} is not a whole number")
        return int(word)

    def float(self, what: str, name: str | None = None) -> float:
        word = self._word(what)
        try:
            return float(word)
        except ValueError:
            raise ArchiveError(f"{what}: {word[:40]!r} is not a number") from None

    def class_info(self, what: str, tracked: bool = False) -> int:
        """A class's first appearance: its tracking level and version (returned)."""
        self.int(f"the class tracking of {what}")
        return self.int(f"the class version of {what}")

    def object_id(self, what: str) -> None:
        self.int(f"the object id of {what}")

    def pointer(self, what: str, new_class: bool) -> bool:
        """A pointer: False if null; else its class words and object id are read."""
        class_id = self.int(f"the class id of {what}")
        if class_id == -1:
            return False
        if new_class:
            self.class_info(what)
        self.object_id(what)
        return True

    def count(self, what: str) -> int:
        return self.int(what)

    def item_version(self, what: str) -> None:
        self.int(f"the item version of {what}")

    def uint(self, what: str, name: str | None = None) -> int:
        return self.int(what)

    def bool(self, what: str) -> bool:
        value = self.int(what)
        if value not in (0, 1):
            raise ArchiveError(f"{what}: {value} is not 0 or 1")
        return bool(value)

    def numbers(self, what: str, n: int, kind: str, names=("item",)) -> np.ndarray:
        """``n`` numbers (``kind`` "f8" floats, "u8" indices), one word each."""
        out = np.empty(n, dtype=np.float64 if kind == "f8" else np.int64)
        parse = self.float if kind == "f8" else self.int
        for i in range(n):
            out[i] = parse(what)
        return out

    def rest_bytes(self, what: str) -> np.ndarray:
        """Every word left as a byte (-128..255), ``(j,) uint8``: the last array of the file."""
        rest = self.data[self.pos:]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                values = np.fromstring(rest, dtype=np.int64, sep=" ")  # noqa: NPY201
            except (DeprecationWarning, ValueError):
                raise ArchiveError(f"{what}: a word that is not a whole number") from None
        if values.size and (values.min() < -128 or values.max() > 255):
            bad = values[(values < -128) | (values > 255)][0]
            raise ArchiveError(f"{what}: {int(bad)} is not a byte")
        return (values & 0xFF).astype(np.uint8)


class BinaryArchive:
    """Fixed-size values of a binary archive (little-endian, as the header says)."""

    kind = "binary"

    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.pos = 0
        if not bytes(data[: len(BINARY_START)]) == BINARY_START:
            raise ArchiveError("not a boost binary archive")
        self.pos = len(BINARY_START)
        self.version = self._unpack("<H", "the archive version")
        check_version(self.version)
        sizes = tuple(self._unpack("<B", "the size of a number type") for _ in range(4))
        if sizes != (4, 8, 4, 8):
            raise ArchiveError(f"written where int, long, float and double take {sizes} bytes "
                               f"(this reader reads (4, 8, 4, 8), a 64-bit Linux or macOS "
                               f"writer)")
        if self._unpack("<i", "the byte order mark") != 1:
            raise ArchiveError("written in big-endian byte order (this reader reads little-"
                               "endian archives)")

    def _unpack(self, fmt: str, what: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ArchiveError(f"the file ends before {what} (at byte {self.pos:,})")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def class_info(self, what: str, tracked: bool = False) -> int:
        self._unpack("<B", f"the class tracking of {what}")
        return self._unpack("<I", f"the class version of {what}")

    def object_id(self, what: str) -> None:
        self._unpack("<I", f"the object id of {what}")

    def pointer(self, what: str, new_class: bool) -> bool:
        if self._unpack("<h", f"the class id of {what}") == -1:
            return False
        if new_class:
            self.class_info(what)
        self.object_id(what)
        return True

    def count(self, what: str) -> int:
        return self._unpack("<Q", what)

    def item_version(self, what: str) -> None:
        self._unpack("<I", f"the item version of {what}")

    def uint(self, what: str, name: str | None = None) -> int:
        return self._unpack("<I", what)

    def int(self, what: str, name: str | None = None) -> int:
        return self._unpack("<i", what)

    def signed64(self, what: str) -> int:
        """An 8-byte signed integer (an ``Eigen::DenseIndex``, as hpp-fcl's matrices write)."""
        return self._unpack("<q", what)

    def float(self, what: str, name: str | None = None) -> float:
        return self._unpack("<d", what)

    def bool(self, what: str) -> bool:
        value = self._unpack("<B", what)
        if value not in (0, 1):
            raise ArchiveError(f"{what}: {value} is not 0 or 1")
        return bool(value)

    def numbers(self, what: str, n: int, kind: str, names=("item",)) -> np.ndarray:
        size = 8 * n
        if self.pos + size > len(self.data):
            raise ArchiveError(f"the file ends inside {what}: {n:,} values need {size:,} "
                               f"bytes, {len(self.data) - self.pos:,} are left")
        values = np.frombuffer(self.data, dtype="<f8" if kind == "f8" else "<u8", count=n,
                               offset=self.pos)  # fmt: skip
        self.pos += size
        if kind != "f8":
            if values.size and int(values.max()) >= 2**62:
                raise ArchiveError(f"{what}: {int(values.max())} is too large an index")
            return values.astype(np.int64)
        return values.astype(np.float64)

    def rest_bytes(self, what: str) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=np.uint8, offset=self.pos).copy()
        self.pos = len(self.data)
        return out


_LEAF = re.compile(rb"<([A-Za-z_][\w.-]*)((?:\s[^<>]*)?)>([^<]*)</\1\s*>")
_ATTR = re.compile(rb'(\w+)="([^"]*)"')


class XmlArchive:
    """The values of an XML archive: its leaf elements (no child element) in order.

    Container elements carry only class words (attributes), which this reader does not need;
    the names of the leaves are checked against what the writer calls each value.
    """

    kind = "XML"

    def __init__(self, data: bytes):
        head = data[:1024]
        match = re.search(rb'<boost_serialization\s[^>]*version="(\d{1,6})"', head)
        if not head.lstrip().startswith(b"<?xml") or match is None:
            raise ArchiveError("not a boost XML archive (no <boost_serialization ... "
                               "version=...> element)")
        self.version = int(match.group(1))
        check_version(self.version)
        self.data = data
        self.leaves = _LEAF.finditer(data, match.end())
        self.ahead = None
        self.pos = match.end()
        self.n_read = 0

    def _peek(self, what: str):
        if self.ahead is None:
            self.ahead = next(self.leaves, None)
            if self.ahead is None:
                raise ArchiveError(f"the file ends before {what} (after {self.n_read:,} "
                                   f"values)")
        return self.ahead

    def _leaf(self, what: str, names: tuple) -> bytes:
        leaf = self._peek(what)
        self.ahead = None
        self.n_read += 1
        self.pos = leaf.end()
        name = leaf.group(1).decode("ascii", "replace")
        if name not in names:
            line = self.data.count(b"\n", 0, leaf.start()) + 1
            raise ArchiveError(f"{what}: found <{name}> where <{names[0]}> belongs (line "
                               f"{line:,})")
        return leaf.group(3).strip()

    def int(self, what: str, name: str | None = None) -> int:
        word = self._leaf(what, (name or what,))
        if not re.fullmatch(rb"-?\d{1,20}", word):
            raise ArchiveError(f"{what}: {word[:40]!r} is not a whole number")
        return int(word)

    def float(self, what: str, name: str | None = None) -> float:
        word = self._leaf(what, (name or what,))
        try:
            return float(word)
        except ValueError:
            raise ArchiveError(f"{what}: {word[:40]!r} is not a number") from None

    uint = int

    def bool(self, what: str) -> bool:
        value = self.int(what)
        if value not in (0, 1):
            raise ArchiveError(f"{what}: {value} is not 0 or 1")
        return bool(value)

    def class_info(self, what: str, tracked: bool = False) -> int:
        return 0  # attributes of a container element

    def object_id(self, what: str) -> None:
        return None

    def pointer(self, what: str, new_class: bool) -> bool:
        """A null pointer is an empty ``<px class_id="-1">`` leaf; otherwise a container."""
        leaf = self._peek(what)
        if leaf.group(1) == b"px" and not leaf.group(3).strip():
            attrs = dict(_ATTR.findall(leaf.group(2)))
            if attrs.get(b"class_id") == b"-1":
                self.ahead = None
                self.n_read += 1
                return False
            raise ArchiveError(f"{what}: an empty pointer that is not null")
        return True

    def count(self, what: str) -> int:
        return self.int(what, "count")

    def item_version(self, what: str) -> None:
        self.int(f"the item version of {what}", "item_version")

    def numbers(self, what: str, n: int, kind: str, names=("item",)) -> np.ndarray:
        out = np.empty(n, dtype=np.float64 if kind == "f8" else np.int64)
        for i in range(n):
            word = self._leaf(what, names)
            try:
                out[i] = float(word) if kind == "f8" else int(word)
            except (ValueError, OverflowError):
                raise ArchiveError(f"{what}: {word[:40]!r} is not a number") from None
        return out

    def rest_bytes(self, what: str) -> np.ndarray:
        """The ``<item>`` leaves up to the end of the enclosing array."""
        end = self.data.find(b"</bvs>", self.pos)
        if end < 0:
            raise ArchiveError(f"the file ends inside {what} (no </bvs>)")
        words = re.findall(rb"<item>\s*(-?\d{1,4})\s*</item>", self.data[self.pos:end])
        values = np.array([int(w) for w in words], dtype=np.int64)
        if values.size and (values.min() < -128 or values.max() > 255):
            bad = values[(values < -128) | (values > 255)][0]
            raise ArchiveError(f"{what}: {int(bad)} is not a byte")
        return (values & 0xFF).astype(np.uint8)


def open_archive(data: bytes):
    """The archive reader for ``data``, chosen by its first bytes; ArchiveError if none."""
    if data.startswith(TEXT_START):
        return TextArchive(data)
    if data.startswith(BINARY_START):
        return BinaryArchive(data)
    if XML_MARK in data[:1024]:
        return XmlArchive(data)
    raise ArchiveError("not a boost serialization archive")
