"""File formats and deterministic I/O.

Reading: JSON Lines (plain or gzip) with one clear :class:`~nclue.errors.InputError` per problem,
naming the file and the 1-based line. Writing: canonical JSON (sorted keys, no NaN), gzip with
mtime 0 and no stored file name, and atomic replacement (write a temporary file in the target
folder, then ``os.replace``) so that a failure never leaves half-written output.
"""

import gzip
import hashlib
import io
import json
import math
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Tuple, Union

from .errors import InputError

PathLike = Union[str, "os.PathLike[str]"]

_GZIP_MAGIC = b"\x1f\x8b"


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


def read_bytes(path: PathLike) -> bytes:
    """Read a file, decompressing gzip (detected by magic bytes); damage is an InputError."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    if raw[:2] != _GZIP_MAGIC:
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(path, f"damaged gzip data ({exc})") from None


def read_text(path: PathLike) -> str:
    """Read UTF-8 text (gzip transparently); invalid UTF-8 is an InputError."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, "invalid UTF-8", line) from None


def iter_jsonl(path: PathLike) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file (gzip allowed).

    Every line must hold one JSON object; a malformed line, a non-object, or a non-finite
    number raises InputError naming the file and line.
    """
    text = read_text(path)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = loads_strict(line)
        except ValueError as exc:
            raise InputError(path, f"malformed JSON ({exc})", number) from None
        if not isinstance(obj, dict):
            raise InputError(path, "expected a JSON object", number)
        yield number, obj


def read_json(path: PathLike) -> Any:
    """Read one JSON document (gzip allowed), strictly."""
    text = read_text(path)
    try:
        return loads_strict(text)
    except ValueError as exc:
        raise InputError(path, f"malformed JSON ({exc})") from None


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


def write_bytes_atomic(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                         dir=str(target.parent))
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temp_name, 0o644)  # mkstemp creates 0600; released files are world-readable
        os.replace(temp_name, target)
    except BaseException:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise


def write_text_atomic(path: PathLike, text: str) -> None:
    """Atomically write UTF-8 text with ``\\n`` line endings."""
    write_bytes_atomic(path, text.encode("utf-8"))


def jsonl_text(rows: Iterable[Any]) -> str:
    """Canonical JSONL: one canonical JSON value per line, trailing newline."""
    return "".join(dumps_canonical(row) + "\n" for row in rows)


def write_jsonl_atomic(path: PathLike, rows: Iterable[Any]) -> None:
    """Write canonical JSONL; gzip (deterministic) when the name ends in ``.gz``."""
    data = jsonl_text(rows).encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip_bytes(data)
    write_bytes_atomic(path, data)


def write_json_atomic(path: PathLike, obj: Any) -> None:
    """Write canonical, indented JSON with a trailing newline."""
    write_text_atomic(path, dumps_canonical(obj, indent=2) + "\n")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: PathLike) -> str:
    """Hex SHA-256 of a file's bytes (as stored, not decompressed)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def list_of_str(value: Any, what: str, path: PathLike, line: int) -> List[str]:
    """Check a list of strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, f"{what} must be a list of strings", line)
    return value
