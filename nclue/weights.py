"""Frozen weight files: array shapes from ``.npy``/``.npz`` headers, their digests, and the
provenance records that name them (standard library only).

Multi³IR Table 5 compares steering methods by their trainable parameters (Multi³IR sec. 6.2).
Here every such count is the number of elements of the trained arrays, read from the headers of
the committed weight files, after each file's sha256 has been checked against the provenance
record the producer wrote (``provenance/spin/*.json``, ``provenance/spin/adapt/*.json``).

The ``.npy`` format (NumPy's ``numpy.lib.format``, versions 1.0, 2.0 and 3.0): the magic bytes
``\\x93NUMPY``, a major and a minor version byte, the header length (little-endian ``uint16`` in
version 1, ``uint32`` in versions 2 and 3), then the header, a Python dict literal with exactly the
keys ``descr`` (the dtype, e.g. ``'<f4'``), ``fortran_order`` and ``shape`` (a tuple of
non-negative integers), padded with spaces and ended by a newline; the array data follows. An
``.npz`` file is a zip archive of such files, one per array, named ``<array>.npy``. The header is
read with :func:`ast.literal_eval` (literals only, never code); structured dtypes are refused,
since weights are plain arrays.

Digest rules a provenance record may state:

* :data:`FILE_RULE` -- the sha256 of the file's bytes (SPIN's ``vectors_sha256``,
  ``producers/spin/train_spin.py``);
* :data:`ARRAYS_RULE` -- the record's ``weights_sha256_rule``, as
  ``producers/spin/adapt_runs.py`` (``arrays_sha256``) computes it: for each array in sorted
  name order, ``name``, a NUL byte, the JSON list of its shape (``[5, 10, 384]``), a NUL byte,
  then its little-endian float32 bytes in C order. It is independent of the zip container.

Every problem is one :class:`nclue.errors.InputError` naming the file.
"""

import ast
import hashlib
import json
import re
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Dict, Optional, Tuple

from .errors import InputError
from .formats import PathLike, read_json, sha256_file

MAGIC = b"\x93NUMPY"
FILE_RULE = "sha256 of the file"
ARRAYS_RULE = "sha256 over (name, shape, float32 bytes), names sorted"
#: how a producer marks a weight file it kept out of the repository (``build/`` is git-ignored)
NOT_COMMITTED = " (not committed)"
#: the mark as producers write it, with or without a reason (``" (not committed: a trial)"``)
NOT_COMMITTED_MARK = r" \(not committed(?:: [^()]*)?\)$"
_DESCR = re.compile(r"^[<>|=]?([fiucb])([0-9]+)$")  # plain numeric dtypes
_HEADER_LENGTH = {1: "<H", 2: "<I", 3: "<I"}
_LONGEST_HEADER = 1 << 20   # a weight array's header is a few dozen bytes


@dataclass(frozen=True)
class ArrayHeader:
    """One array's header: its name (``""`` for a bare ``.npy``), dtype, order and shape."""

    name: str
    descr: str
    fortran_order: bool
    shape: Tuple[int, ...]
    data_offset: int   # bytes before the array data (magic, version, length, header)

    @property
    def count(self) -> int:
        """Number of elements: the product of the shape (1 for a 0-d array)."""
        n = 1
        for size in self.shape:
            n *= size
        return n

    @property
    def itemsize(self) -> int:
        return int(_DESCR.match(self.descr).group(2))  # checked when the header was parsed


def parse_npy_header(head: bytes, where: PathLike, name: str = "") -> ArrayHeader:
    """The header at the start of ``head`` (the first bytes of a ``.npy`` file or member)."""
    label = f"array {name!r}: " if name else ""
    if head[:6] != MAGIC:
        raise InputError(where, f"{label}not a .npy array (no \\x93NUMPY magic)")
    if len(head) < 10 or head[6] not in _HEADER_LENGTH:
        raise InputError(where, f"{label}unsupported .npy format version "
                                f"{head[6] if len(head) > 6 else '?'}")
    fmt = _HEADER_LENGTH[head[6]]
    start = 8 + struct.calcsize(fmt)
    if len(head) < start:
        raise InputError(where, f"{label}truncated .npy header")
    (length,) = struct.unpack(fmt, head[8:start])
    if length > _LONGEST_HEADER or len(head) < start + length:
        raise InputError(where, f"{label}truncated or oversized .npy header ({length} bytes)")
    text = head[start:start + length].decode("latin-1" if head[6] < 3 else "utf-8", "replace")
    try:
        header = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputError(where, f"{label}the .npy header is not a dict literal") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise InputError(where, f"{label}the .npy header needs exactly 'descr', 'fortran_order' "
                                "and 'shape'")
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(descr, str) or not _DESCR.match(descr):
        raise InputError(where, f"{label}unsupported dtype {descr!r} (a plain numeric dtype such "
                                "as '<f4' is needed)")
    if not isinstance(fortran, bool):
        raise InputError(where, f"{label}'fortran_order' must be True or False")
    if not isinstance(shape, tuple) or any(isinstance(s, bool) or not isinstance(s, int) or s < 0
                                           for s in shape):
        raise InputError(where, f"{label}'shape' must be a tuple of non-negative integers")
    return ArrayHeader(name, descr, fortran, shape, start + length)


def _read_header(handle: BinaryIO, where: PathLike, name: str) -> ArrayHeader:
    """Read just the header bytes of an open ``.npy`` stream and parse them."""
    head = handle.read(12)
    if head[:6] == MAGIC and len(head) >= 10 and head[6] in _HEADER_LENGTH:
        fmt = _HEADER_LENGTH[head[6]]
        start = 8 + struct.calcsize(fmt)
        if len(head) >= start:
            (length,) = struct.unpack(fmt, head[8:start])
            missing = start + min(length, _LONGEST_HEADER) - len(head)
            if missing > 0:
                head += handle.read(missing)
    return parse_npy_header(head, where, name)


def _check_size(header: ArrayHeader, size: int, where: PathLike) -> None:
    expected = header.data_offset + header.count * header.itemsize
    if size != expected:
        label = f"array {header.name!r}: " if header.name else ""
        raise InputError(where, f"{label}{size} bytes, but its header {header.shape} of "
                                f"{header.descr!r} needs {expected}")


def _npz_members(archive: zipfile.ZipFile, where: PathLike) -> Dict[str, zipfile.ZipInfo]:
    members: Dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        if not info.filename.endswith(".npy") or "/" in info.filename:
            raise InputError(where, f"unexpected member {info.filename!r} (an .npz holds "
                                    "<array>.npy files only)")
        members[info.filename[:-4]] = info
    if not members:
        raise InputError(where, "no arrays in the .npz archive")
    return members


def _open_npz(path: PathLike) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(path, f"not a readable .npz (zip) archive: {exc}") from None


def array_headers(path: PathLike) -> Tuple[ArrayHeader, ...]:
    """The headers of every array of a ``.npy`` (one, named ``""``) or ``.npz`` file (sorted by
    name), each checked against the stored data size."""
    path = Path(path)
    try:
        if path.suffix == ".npy":
            with open(path, "rb") as handle:
                header = _read_header(handle, path, "")
            _check_size(header, path.stat().st_size, path)
            return (header,)
        if path.suffix == ".npz":
            with _open_npz(path) as archive:
                out = []
                for name, info in sorted(_npz_members(archive, path).items()):
                    with archive.open(info) as handle:
                        header = _read_header(handle, path, name)
                    _check_size(header, info.file_size, path)
                    out.append(header)
                return tuple(out)
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"cannot read weights: {exc}") from None
    raise InputError(path, "a weight file must be .npy or .npz")


def parameter_count(headers: Tuple[ArrayHeader, ...]) -> int:
    """Trainable parameters stored in a weight file: the elements of all its arrays."""
    return sum(h.count for h in headers)


def arrays_sha256(path: PathLike) -> str:
    """:data:`ARRAYS_RULE` over the arrays of an ``.npz`` file (C-ordered little-endian float32
    only: the bytes the rule hashes are then exactly the stored ones)."""
    path = Path(path)
    if path.suffix != ".npz":
        raise InputError(path, "the arrays rule applies to .npz archives")
    digest = hashlib.sha256()
    try:
        with _open_npz(path) as archive:
            for name, info in sorted(_npz_members(archive, path).items()):
                raw = archive.read(info)
                header = parse_npy_header(raw[:_LONGEST_HEADER + 16], path, name)
                _check_size(header, len(raw), path)
                if header.descr != "<f4" or header.fortran_order:
                    raise InputError(path, f"array {name!r}: the arrays rule needs C-ordered "
                                           f"little-endian float32 ('<f4'), got {header.descr!r}"
                                           + (" in Fortran order" if header.fortran_order else ""))
                digest.update(name.encode("utf-8") + b"\0"
                              + json.dumps(list(header.shape)).encode("ascii") + b"\0")
                digest.update(raw[header.data_offset:])
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(path, f"cannot read weights: {exc}") from None
    return digest.hexdigest()


DIGESTS = {FILE_RULE: sha256_file, ARRAYS_RULE: arrays_sha256}


# ---------------------------------------------------------------------------------------------
# Provenance records


@dataclass(frozen=True)
class WeightsRecord:
    """What a producer recorded about one set of trained weights.

    ``weights_file`` is relative to the repository; ``committed`` is False when the producer
    kept the file out of the repository (recorded as ``"<path> (not committed)"``), so its
    count cannot be recomputed here. ``recorded_parameters`` is the producer's own count, when
    it wrote one.
    """

    record: Path
    weights_file: str
    committed: bool
    sha256: str
    rule: str
    recorded_parameters: Optional[int]


def _text_field(obj: Dict[str, Any], name: str, where: Path) -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value:
        raise InputError(where, f"field {name!r} must be a non-empty string")
    return value


def load_weights_record(path: PathLike) -> WeightsRecord:
    """Read a provenance record: SPIN's (``vectors_file``, ``vectors_sha256``: the file's sha256)
    or an adaptation method's (``weights_file``, ``weights_sha256``, ``weights_sha256_rule``)."""
    path = Path(path)
    obj = read_json(path)
    if not isinstance(obj, dict):
        raise InputError(path, "a provenance record must be a JSON object")
    if "vectors_file" in obj:
        file, digest, rule = (_text_field(obj, "vectors_file", path),
                              _text_field(obj, "vectors_sha256", path), FILE_RULE)
    elif "weights_file" in obj:
        file, digest = _text_field(obj, "weights_file", path), _text_field(obj, "weights_sha256", path)
        rule = _text_field(obj, "weights_sha256_rule", path)
        if rule not in DIGESTS:
            raise InputError(path, f"unknown weights_sha256_rule {rule!r} (known: "
                                   f"{'; '.join(DIGESTS)})")
    else:
        raise InputError(path, "names no weights ('vectors_file' or 'weights_file')")
    if not re.match(r"^[0-9a-f]{64}$", digest):
        raise InputError(path, "the weights' sha256 must be 64 lower-case hex digits")
    marked = re.search(NOT_COMMITTED_MARK, file)
    committed = marked is None
    if not committed:
        file = file[:marked.start()]
    if file.startswith("/") or "\\" in file or ".." in file.split("/"):
        raise InputError(path, f"weights file {file!r} must be a path inside the repository")
    parameters = obj.get("parameters")
    if parameters is not None and (isinstance(parameters, bool) or not isinstance(parameters, int)
                                   or parameters < 0):
        raise InputError(path, "field 'parameters' must be a non-negative integer")
    return WeightsRecord(path, file, committed, digest, rule, parameters)


def checked_parameter_count(record: WeightsRecord, root: PathLike) -> Optional[int]:
    """The parameter count of a record's weight file (``root`` = the repository), after checking
    its sha256 against the record (and the producer's own count, when it wrote one); None when
    the weights are not committed. A recorded-as-committed file that is missing, a digest or a
    count that differs, are InputErrors naming the record."""
    if not record.committed:
        return None
    path = Path(root) / record.weights_file
    if not path.is_file():
        raise InputError(record.record, f"weights file {record.weights_file!r} is missing")
    headers = array_headers(path)
    actual = DIGESTS[record.rule](path)
    if actual != record.sha256:
        raise InputError(record.record, f"weights file {record.weights_file!r} has sha256 "
                                        f"{actual} ({record.rule}), the record says {record.sha256}")
    count = parameter_count(headers)
    if record.recorded_parameters is not None and record.recorded_parameters != count:
        raise InputError(record.record, f"records {record.recorded_parameters} parameters, but "
                                        f"{record.weights_file!r} holds {count}")
    return count
