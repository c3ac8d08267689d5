"""File formats and deterministic I/O.

Reading: JSON Lines (plain or gzip) with one clear :class:`~nclue.errors.InputError` per problem,
naming the file and the 1-based line. Line files are streamed once (:func:`iter_lines`: gzip is
decompressed chunk by chunk, so memory follows the parsed content, not the file twice over); a
byte order mark (UTF-8 or UTF-16) is refused by name, invalid UTF-8 names its line.
Writing: canonical JSON (sorted keys, no NaN), gzip with mtime 0 and no stored file name, and
atomic replacement through :mod:`nclue.outputs` (a temporary file in the target folder, then
``os.replace``; unsafe targets refused) so that a failure never leaves half-written output.
"""

import contextlib
import gc
import gzip
import hashlib
import io
import json
import math
import os
import zlib
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from .errors import InputError
from .outputs import write_output

PathLike = Union[str, "os.PathLike[str]"]

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20  # bytes read (and at most decompressed) per step
_BOMS = ((b"\xef\xbb\xbf", "a UTF-8 byte order mark (BOM); save it as UTF-8 without BOM"),
         (b"\xff\xfe", "a UTF-16 byte order mark (little-endian); nclue reads UTF-8"),
         (b"\xfe\xff", "a UTF-16 byte order mark (big-endian); nclue reads UTF-8"))


def _reject_constant(name: str) -> float:
    raise ValueError(f"non-finite number {name}")


# A decoder is immutable configuration; building one per line dominated load time.
_STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads_strict(text: str) -> Any:
    """``json.loads`` that refuses NaN and +-Infinity (they are not JSON)."""
    return _STRICT_DECODER.decode(text)


def dumps_canonical(obj: Any, indent: Union[int, None] = None) -> str:
    """Canonical JSON text: sorted keys, UTF-8 kept, NaN refused; compact unless ``indent``."""
    if indent is None:
        return json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False, indent=indent)


def _open(path: PathLike):
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None


def _read(handle: Any, path: PathLike, size: int = _CHUNK) -> bytes:
    try:
        return handle.read(size)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None


def check_bom(data: bytes, path: PathLike) -> None:
    """Refuse text that starts with a byte order mark, naming it (line 1)."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            raise InputError(path, f"the file starts with {name}", 1)


def read_bytes(path: PathLike) -> bytes:
    """Read a file, decompressing gzip (detected by magic bytes); damage is an InputError."""
    with _open(path) as handle:
        raw = _read(handle, path, -1)
    if raw[:2] != _GZIP_MAGIC:
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(path, f"damaged gzip data ({exc})") from None


def read_text(path: PathLike) -> str:
    """Read UTF-8 text (gzip transparently); a BOM or invalid UTF-8 is an InputError."""
    data = read_bytes(path)
    check_bom(data, path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, "invalid UTF-8", line) from None


def _gunzip(first: bytes, handle: Any, path: PathLike) -> Iterator[bytes]:
    """Decompress a gzip stream (several members allowed) chunk by chunk."""
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = first
    while True:
        if decoder.eof:  # another member, zero padding, or garbage after the stream
            while len(pending) < 2:
                more = _read(handle, path)
                if not more:
                    break
                pending += more
            if not pending.strip(b"\x00"):
                if not _read(handle, path):
                    return
                raise InputError(path, "damaged gzip data (bytes after the end of the stream)")
            if pending[:2] != _GZIP_MAGIC:
                raise InputError(path, "damaged gzip data (bytes after the end of the stream)")
            decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        if not pending:
            pending = _read(handle, path)
            if not pending:
                raise InputError(path, "damaged gzip data (the file ends inside the stream)")
        try:
            out = decoder.decompress(pending, _CHUNK)
        except zlib.error as exc:
            raise InputError(path, f"damaged gzip data ({exc})") from None
        pending = decoder.unused_data if decoder.eof else decoder.unconsumed_tail
        if out:
            yield out


def _chunks(path: PathLike) -> Iterator[bytes]:
    """The file's bytes (decompressed when gzip), in chunks, read once."""
    with _open(path) as handle:
        first = _read(handle, path)
        while 0 < len(first) < 2:  # a pipe may deliver one byte first
            more = _read(handle, path)
            if not more:
                break
            first += more
        if first[:2] == _GZIP_MAGIC:
            yield from _gunzip(first, handle, path)
            return
        while first:
            yield first
            first = _read(handle, path)


#: the longest line read (bytes, without its newline): a longer one is refused by name, so that
#: memory stays bounded on any input (a 1 GiB file without a newline, /dev/zero). A run line of
#: 100 documents with page scores is a few kB; a qrels line a few dozen bytes.
MAX_LINE_BYTES = 64 << 20


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Hold the cyclic garbage collector while a loader builds records (restored after).

    Loaders build millions of small containers (qrels, evidence, rankings) that form no
    reference cycles; the collector, triggered by their allocation, would otherwise re-scan
    every live container again and again: about half of ``load_release`` on v1 (1.03 s against
    0.51 s measured). Nothing a loader builds waits for the collector: without cycles, every
    object is freed by its reference count as usual."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def iter_line_blocks(path: PathLike, limit: Optional[int] = None) -> Iterator[Tuple[int, List[str]]]:
    """Yield ``(first_line_number, lines)``: the file's lines (UTF-8, gzip allowed) a chunk at a
    time, streamed, each chunk's complete lines decoded in one step.

    Lines are split on ``\\n`` (the ``\\n`` is not part of the text; a final line without it
    counts). A BOM on line 1, invalid UTF-8 and a line longer than ``limit`` bytes (default
    :data:`MAX_LINE_BYTES`) are InputErrors naming the line; at most ``limit`` bytes of a line
    are held before it is refused. Readers of large files (qrels, evidence, runs) take whole
    blocks so that per-line work stays in C where the lines are canonical.
    """
    limit = MAX_LINE_BYTES if limit is None else limit
    number = 0
    pieces: List[bytes] = []  # the current, unfinished line
    pending = 0  # its length so far
    for chunk in _chunks(path):
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending += len(chunk)
            if pending > limit:
                raise InputError(path, f"line longer than {_size(limit)} (the longest line nclue reads); "
                                       "is this a line file?", number + 1)
            pieces.append(chunk)
            continue
        head, tail = chunk[:cut], chunk[cut + 1:]
        if pieces:
            pieces.append(head)
            head = b"".join(pieces)
            pieces = []
        lines = head.split(b"\n")
        if max(map(len, lines)) > limit:  # lines[0] includes the pieces before this chunk
            over = next(i for i, raw in enumerate(lines) if len(raw) > limit)
            raise InputError(path, f"line longer than {_size(limit)} (the longest line nclue reads); "
                                   "is this a line file?", number + 1 + over)
        yield number + 1, _decode_block(head, lines, path, number + 1)
        number += len(lines)
        pending = 0
        if tail:
            pieces.append(tail)
            pending = len(tail)
    if pieces:
        if pending > limit:
            raise InputError(path, f"line longer than {_size(limit)} (the longest line nclue reads); "
                                   "is this a line file?", number + 1)
        yield number + 1, [_decode(b"".join(pieces), path, number + 1)]


def _decode_block(block: bytes, lines: List[bytes], path: PathLike, first: int) -> List[str]:
    """The text lines of ``block`` (its ``lines`` joined by newlines), decoded at once; on
    invalid UTF-8 (or a BOM on line 1) line by line, so the error names its line."""
    if first == 1:
        check_bom(block, path)
    try:
        return block.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return [_decode(raw, path, first + i) for i, raw in enumerate(lines)]


def iter_lines(path: PathLike, limit: Optional[int] = None) -> Iterator[Tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line of a UTF-8 file (gzip allowed), streamed
    (:func:`iter_line_blocks` line by line; same errors)."""
    for first, lines in iter_line_blocks(path, limit):
        yield from enumerate(lines, first)


def _size(n: int) -> str:
    """``64 MiB``, ``512 bytes``: a byte count in words."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"


def _decode(raw: bytes, path: PathLike, number: int) -> str:
    if number == 1:
        check_bom(raw, path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "invalid UTF-8", number) from None


def jsonl_objects(lines: Iterable[Tuple[int, str]], path: PathLike) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """``(line_number, object)`` for each non-blank line of ``lines`` (numbered text lines of
    ``path``): every line must hold one JSON object; a malformed line, a non-object, or a
    non-finite number raises InputError naming the file and line."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            obj = loads_strict(line)
        except ValueError as exc:
            raise InputError(path, f"malformed JSON ({exc})", number) from None
        except RecursionError:
            raise InputError(path, "malformed JSON (nested too deeply)", number) from None
        if not isinstance(obj, dict):
            raise InputError(path, "expected a JSON object", number)
        yield number, obj


def iter_jsonl(path: PathLike) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file (gzip allowed),
    streamed (read once); see :func:`jsonl_objects`."""
    return jsonl_objects(iter_lines(path), path)


def read_json(path: PathLike) -> Any:
    """Read one JSON document (gzip allowed), strictly."""
    text = read_text(path)
    try:
        return loads_strict(text)
    except ValueError as exc:
        raise InputError(path, f"malformed JSON ({exc})") from None
    except RecursionError:
        raise InputError(path, "malformed JSON (nested too deeply)") from None


def field(obj: Dict[str, Any], name: str, kind: Union[type, Tuple[type, ...]],
          path: PathLike, line: int) -> Any:
    """Return ``obj[name]`` after checking presence and type (bool is not accepted as a number)."""
    if name not in obj:
        raise InputError(path, f"missing field {name!r}", line)
    value = obj[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise InputError(path, f"field {name!r} must be {_kind_name(kinds)}, got a boolean", line)
    if not isinstance(value, kinds):
        raise InputError(path, f"field {name!r} must be {_kind_name(kinds)}, "
                               f"got {type(value).__name__}", line)
    return value


def finite_number(value: Any, what: str, path: PathLike, line: int) -> float:
    """Check that ``value`` is a finite int/float (not bool) and return it as float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(path, f"{what} must be a number, got {type(value).__name__}", line)
    number = float(value)
    if not math.isfinite(number):
        raise InputError(path, f"{what} is not finite ({value})", line)
    return number


def _kind_name(kinds: Tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", list: "a list",
             dict: "an object", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def gzip_bytes(data: bytes) -> bytes:
    """Deterministic gzip: mtime 0, no file name, compression level 9."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as gz:
        gz.write(data)
    return buffer.getvalue()


def write_bytes_atomic(path: PathLike, data: bytes, inputs: Iterable[PathLike] = ()) -> None:
    """Write ``data`` to ``path`` safely and atomically (:func:`nclue.outputs.write_output`:
    temporary file in the same folder, then ``os.replace``; ``-`` is standard output; a
    directory, device, FIFO, symbolic link, read-only file or one of ``inputs`` is refused)."""
    write_output(path, data, inputs)


def write_text_atomic(path: PathLike, text: str, inputs: Iterable[PathLike] = ()) -> None:
    """Atomically write UTF-8 text with ``\\n`` line endings."""
    write_bytes_atomic(path, text.encode("utf-8"), inputs)


def jsonl_text(rows: Iterable[Any]) -> str:
    """Canonical JSONL: one canonical JSON value per line, trailing newline."""
    return "".join(dumps_canonical(row) + "\n" for row in rows)


def write_jsonl_atomic(path: PathLike, rows: Iterable[Any], inputs: Iterable[PathLike] = ()) -> None:
    """Write canonical JSONL; gzip (deterministic) when the name ends in ``.gz``."""
    data = jsonl_text(rows).encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip_bytes(data)
    write_bytes_atomic(path, data, inputs)


def write_json_atomic(path: PathLike, obj: Any, inputs: Iterable[PathLike] = ()) -> None:
    """Write canonical, indented JSON with a trailing newline."""
    write_text_atomic(path, dumps_canonical(obj, indent=2) + "\n", inputs)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: digests of the files hashed in this process, by file identity (see :func:`sha256_file`)
_DIGESTS: Dict[Tuple[int, int, int, int, int], str] = {}


def sha256_file(path: PathLike) -> str:
    """Hex SHA-256 of a file's bytes (as stored, not decompressed).

    Each distinct file is hashed once per process and its digest shared by every check that
    asks (SHA256SUMS, runs/index.json, Croissant, weights): it is kept under the file's identity
    (device, inode, size, modification and change times in ns), so a file that is written,
    replaced or touched in between is hashed again."""
    before = os.stat(path)
    key = (before.st_dev, before.st_ino, before.st_size, before.st_mtime_ns, before.st_ctime_ns)
    known = _DIGESTS.get(key)
    if known is not None:
        return known
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    value = digest.hexdigest()
    after = os.stat(path)
    if (after.st_ino, after.st_size, after.st_mtime_ns, after.st_ctime_ns) == key[1:]:
        _DIGESTS[key] = value  # unchanged while it was read
    return value


def list_of_str(value: Any, what: str, path: PathLike, line: int) -> List[str]:
    """Check a list of strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, f"{what} must be a list of strings", line)
    return value
