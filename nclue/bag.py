"""BagIt bags (RFC 8493) of a repository's release, written deterministically and verified.

A bag is a folder (or a tar of one) holding::

    <name>/bagit.txt                 BagIt-Version 1.0, UTF-8 tag files (RFC 8493 sec. 2.1.1)
    <name>/bag-info.txt              Payload-Oxum, Bag-Software-Agent, ... (sec. 2.2.2)
    <name>/manifest-sha256.txt       sha256 of every payload file (sec. 2.1.3)
    <name>/tagmanifest-sha256.txt    sha256 of the three tag files above (sec. 2.2.1)
    <name>/data/...                  the payload: everything ``python reproduce.py`` needs

The payload is :data:`PAYLOAD` of the repository root (code, releases, regenerated tables,
audits, provenance, paper transcriptions, the prose whose numbers are checked, and the integrity
files), without hidden files, ``__pycache__`` folders and ``*.pyc``; a symbolic link in it is
refused (an archive must hold files, not pointers). ``cd <name>/data && python reproduce.py``
works inside an extracted bag.

Deterministic: the same repository files give the same bytes. Entries are sorted by path; in a
tar every member has mtime 0, uid/gid 0, empty owner names, mode 0644 (folders 0755), PAX
format; ``.tar.gz`` is gzip with mtime 0 and no stored name; ``bag-info.txt`` carries no date
(set ``SOURCE_DATE_EPOCH`` to record a ``Bagging-Date``).

Verification (:func:`verify_bag`): bagit.txt well formed; every payload file listed in every
payload manifest and every listed file present with its checksum (complete and valid, sec. 3);
tag manifests checked; Payload-Oxum checked; paths that would leave the bag refused. Python's
own bytecode caches (``__pycache__``), which the interpreter writes when code runs inside a bag,
are not payload and are ignored.
"""

import datetime
import gzip
import hashlib
import os
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Dict, Iterable, List, Optional, Tuple

from . import __version__
from .errors import InputError, NclueError
from .outputs import check_output, check_output_dir, open_output

BAGIT_VERSION = "1.0"
ALGORITHM = "sha256"
#: what a release archive holds (relative to the repository root); folders are taken whole
PAYLOAD = ("CITATION.cff", "DATASHEET.md", "LICENSE", "MANIFEST.json", "README.md", "SHA256SUMS",
           "audit", "claims", "data", "docs", "nclue", "producers", "provenance", "pyproject.toml",
           "reference_metrics", "reproduce.py", "tests", "tools")  # tools/build_backend: pip install . in the bag
#: payload entries without which ``reproduce.py`` cannot run at all
REQUIRED = ("reproduce.py", "nclue", "data", "SHA256SUMS")
TAG_FILES = ("bagit.txt", "bag-info.txt", f"manifest-{ALGORITHM}.txt")
HASHES = {"md5": hashlib.md5, "sha1": hashlib.sha1, "sha256": hashlib.sha256,
          "sha512": hashlib.sha512}
_BLOCK = 1 << 20


class BagError(NclueError):
    """A bag that cannot be read at all (missing bagit.txt, unreadable manifest)."""


@dataclass(frozen=True)
class PayloadFile:
    """One payload file: its path inside ``data/`` (POSIX), source, size and sha256."""

    path: str
    source: Path
    size: int
    sha256: str


@dataclass(frozen=True)
class BagCheck:
    """Result of :func:`verify_bag`: files whose checksums were compared, and problems."""

    bag: str
    checked: int
    problems: Tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _skipped(name: str) -> bool:
    return name.startswith(".") or name == "__pycache__" or name.endswith(".pyc")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def payload_files(root: Path, entries: Iterable[str] = PAYLOAD) -> List[PayloadFile]:
    """The payload, sorted by path: regular files under ``entries`` of ``root`` (hidden files,
    ``__pycache__`` and ``*.pyc`` left out). A symbolic link, or a missing required entry, is
    an InputError."""
    root = Path(root)
    for name in REQUIRED:
        if name in entries and not (root / name).exists():
            raise InputError(root / name, "missing: not a repository root with a release")
    found: List[PayloadFile] = []
    for name in entries:
        top = root / name
        if not os.path.lexists(top):
            continue
        for path in _walk(top):
            info = path.stat()
            rel = path.relative_to(root).as_posix()
            found.append(PayloadFile(rel, path, info.st_size, _sha256(path)))
    found.sort(key=lambda f: f.path)
    return found


def _walk(top: Path) -> Iterable[Path]:
    info = os.lstat(top)
    if stat.S_ISLNK(info.st_mode):
        raise InputError(top, "is a symbolic link: an archive holds files, not links")
    if stat.S_ISREG(info.st_mode):
        yield top
        return
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(top, "is not a regular file or folder")
    for entry in sorted(os.scandir(top), key=lambda e: e.name):
        if _skipped(entry.name):
            continue
        yield from _walk(Path(entry.path))


def _escape(path: str) -> str:
    """Manifest path encoding (RFC 8493 sec. 2.1.3): %, CR and LF percent-encoded."""
    return path.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _unescape(path: str) -> str:
    return path.replace("%0A", "\n").replace("%0a", "\n").replace("%0D", "\r") \
        .replace("%0d", "\r").replace("%25", "%")


def _human(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def tag_files(name: str, payload: List[PayloadFile], root: Path) -> Dict[str, bytes]:
    """The four tag files of a bag of ``payload`` (bytes, UTF-8, LF line endings)."""
    total = sum(f.size for f in payload)
    sums = root / "SHA256SUMS"
    info = [
        ("Bag-Software-Agent", f"nclue {__version__} (nclue archive)"),
        ("External-Identifier", name),
        ("External-Description", "nclue release: code, releases, regenerated tables, audits and "
                                 "provenance; run `python reproduce.py` inside data/ to "
                                 "regenerate and verify every reported number (standard "
                                 "library only, offline)"),
    ]
    if sums.is_file():
        info.append(("Internal-Sender-Identifier", f"SHA256SUMS sha256:{_sha256(sums)}"))
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        day = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date()
        info.append(("Bagging-Date", day.isoformat()))
    info += [("Bag-Size", _human(total)), ("Payload-Oxum", f"{total}.{len(payload)}")]
    files = {
        "bagit.txt": f"BagIt-Version: {BAGIT_VERSION}\nTag-File-Character-Encoding: UTF-8\n",
        "bag-info.txt": "".join(f"{label}: {value}\n" for label, value in info),
        f"manifest-{ALGORITHM}.txt": "".join(f"{f.sha256}  data/{_escape(f.path)}\n"
                                             for f in payload),
    }
    encoded = {k: v.encode("utf-8") for k, v in files.items()}
    encoded[f"tagmanifest-{ALGORITHM}.txt"] = "".join(
        f"{hashlib.sha256(encoded[k]).hexdigest()}  {k}\n" for k in sorted(encoded)).encode("utf-8")
    return encoded


def bag_name_for(out: str) -> str:
    """The bag's folder name: the output's name without ``.tar``/``.tar.gz``/``.tgz``."""
    name = Path(out).name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or "bag"
    return name


def is_tar_name(out: str) -> bool:
    return str(out).endswith((".tar", ".tar.gz", ".tgz"))


class _HashingReader:
    """Reads a payload file for the tar while re-hashing it (a file changed since it was
    hashed for the manifest would make an invalid bag)."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.digest.update(data)
        return data


def _tarinfo(name: str, size: int = 0, folder: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if folder:
        info.type = tarfile.DIRTYPE
        info.mode = 0o755
    else:
        info.size = size
        info.mode = 0o644
    return info


def _folders(paths: Iterable[str]) -> List[str]:
    found = set()
    for path in paths:
        parts = PurePosixPath(path).parts[:-1]
        for i in range(1, len(parts) + 1):
            found.add("/".join(parts[:i]))
    return sorted(found)


def write_tar(out: BinaryIO, name: str, payload: List[PayloadFile], tags: Dict[str, bytes]
              ) -> None:
    """Write the bag as a deterministic tar stream to ``out``."""
    members: List[Tuple[str, Optional[PayloadFile], Optional[bytes]]] = []
    members += [(f"{name}/{k}", None, v) for k, v in tags.items()]
    members += [(f"{name}/data/{f.path}", f, None) for f in payload]
    folders = [name, f"{name}/data"] + [f"{name}/{d}" for d in _folders(m[0][len(name) + 1:]
                                                                         for m in members)]
    entries = [(d, None, None) for d in sorted(set(folders))] + members
    entries.sort(key=lambda m: m[0])
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, item, data in entries:
            if item is None and data is None:
                tar.addfile(_tarinfo(path, folder=True))
            elif data is not None:
                tar.addfile(_tarinfo(path, len(data)), _BytesReader(data))
            else:
                with open(item.source, "rb") as handle:
                    reader = _HashingReader(handle)
                    tar.addfile(_tarinfo(path, item.size), reader)
                    if reader.digest.hexdigest() != item.sha256:
                        raise InputError(item.source, "changed while it was being archived")


class _BytesReader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def read(self, size: int = -1) -> bytes:
        end = len(self.data) if size < 0 else self.pos + size
        chunk = self.data[self.pos:end]
        self.pos += len(chunk)
        return chunk


def write_folder(target: Path, name: str, payload: List[PayloadFile], tags: Dict[str, bytes]
                 ) -> None:
    """Write the bag as a folder ``target`` (built beside it under a temporary name, then
    renamed: an interrupted run leaves no half-made bag under the real name)."""
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{target.name[:120]}.nclue-{os.getpid()}-",
                                 suffix=".tmp", dir=str(parent)))
    try:
        for key, data in tags.items():
            (temp / key).write_bytes(data)
        for item in payload:
            dest = temp / "data" / item.path
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item.source, dest, follow_symlinks=False)
            if _sha256(dest) != item.sha256:
                raise InputError(item.source, "changed while it was being archived")
        for folder, dirs, files in os.walk(temp):
            os.chmod(folder, 0o755)
            for file_name in files:
                os.chmod(os.path.join(folder, file_name), 0o644)
        if target.exists():
            target.rmdir()  # an empty folder (checked before) is replaced
        os.rename(temp, target)
    except OSError as exc:
        shutil.rmtree(temp, ignore_errors=True)
        raise InputError(target, f"cannot write the bag: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def check_target(root: Path, out: str) -> None:
    """Refuse an unusable bag target before any work: an unsafe file (:mod:`nclue.outputs`), a
    folder that is not empty, or a place inside the payload being archived."""
    root = Path(root)
    if is_tar_name(out):
        check_output(out, [root], allow_stdout=False, what="archive")
    else:
        check_output_dir(out, [root], what="bag folder")
        if Path(out).exists() and any(Path(out).iterdir()):
            raise InputError(out, "refusing to write a bag into a folder that is not empty")
    resolved = Path(out).resolve()
    for entry in PAYLOAD:
        source = (root / entry).resolve()
        if os.path.lexists(root / entry) and (resolved == source or
                                              resolved.is_relative_to(source)):
            raise InputError(out, f"refusing to write the bag inside its own payload ({entry})")


def make_bag(root: Path, out: str) -> Dict[str, object]:
    """Write a bag of ``root``'s release to ``out`` (``.tar``, ``.tar.gz``/``.tgz``, else a
    folder that must not exist or be empty). Returns a summary (name, files, bytes, sha256 of
    the tar). The caller verifies the repository first (see ``nclue archive``)."""
    root = Path(root)
    check_target(root, out)
    tar = is_tar_name(out)
    name = bag_name_for(out)
    payload = payload_files(root)
    tags = tag_files(name, payload, root)
    summary: Dict[str, object] = {"bag": name, "out": str(out), "payload_files": len(payload),
                                  "payload_bytes": sum(f.size for f in payload)}
    if tar:
        with open_output(out, [root], what="archive") as handle:
            if str(out).endswith(".tar"):
                write_tar(handle, name, payload, tags)
            else:
                with gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=0,
                                   compresslevel=9) as gz:
                    write_tar(gz, name, payload, tags)
        summary["sha256"] = _sha256(Path(out))
    else:
        write_folder(Path(out), name, payload, tags)
    return summary


# -- verification -------------------------------------------------------------------------------

def _read_tag_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise BagError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BagError(f"{path}: unreadable ({exc})") from None


def _manifest(path: Path, bag: Path, problems: List[str]) -> Dict[str, str]:
    """``{relative path: checksum}`` of one manifest; malformed lines are problems."""
    entries: Dict[str, str] = {}
    for number, line in enumerate(_read_tag_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split(None, 1)
        if len(parts) != 2:
            problems.append(f"{path.name}:{number}: expected '<checksum> <path>'")
            continue
        digest, rel = parts[0].lower(), _unescape(parts[1].lstrip("*").strip())
        pure = PurePosixPath(rel)
        if pure.is_absolute() or ".." in pure.parts or "\\" in rel or not rel:
            problems.append(f"{path.name}:{number}: path {rel!r} leaves the bag")
            continue
        if rel in entries:
            problems.append(f"{path.name}:{number}: {rel} listed twice")
        entries[rel] = digest
    return entries


def _digest(path: Path, algorithm: str) -> str:
    digest = HASHES[algorithm]()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def _payload_on_disk(bag: Path) -> Tuple[List[str], List[str]]:
    """(payload files as ``data/...`` paths, problems such as links) under ``bag/data``."""
    files, problems = [], []
    base = bag / "data"
    for folder, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for entry in dirs + names:
            full = os.path.join(folder, entry)
            if os.path.islink(full):
                problems.append(f"{Path(full).relative_to(bag).as_posix()}: a symbolic link in "
                                "the payload")
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for entry in sorted(names):
            full = os.path.join(folder, entry)
            if not os.path.islink(full):
                files.append(Path(full).relative_to(bag).as_posix())
    return files, problems


def verify_bag(bag: Path) -> BagCheck:
    """Check a bag folder (RFC 8493 sec. 3: complete and valid); see the module docstring."""
    bag = Path(bag)
    problems: List[str] = []
    declaration = _read_tag_text(bag / "bagit.txt").splitlines()
    fields = dict(line.split(": ", 1) for line in declaration if ": " in line)
    if len(declaration) != 2 or "BagIt-Version" not in fields or \
            fields.get("Tag-File-Character-Encoding", "").upper() != "UTF-8":
        problems.append("bagit.txt: expected the two lines 'BagIt-Version: M.N' and "
                        "'Tag-File-Character-Encoding: UTF-8'")
    if (bag / "fetch.txt").exists():
        problems.append("fetch.txt: the bag lists files to fetch; it is not complete")
    manifests = sorted(p for p in bag.glob("manifest-*.txt"))
    if not manifests:
        problems.append("no payload manifest (manifest-<algorithm>.txt)")
    on_disk, link_problems = _payload_on_disk(bag)
    problems += link_problems
    present = set(on_disk)
    checked = 0
    for manifest in manifests:
        algorithm = manifest.name[len("manifest-"):-len(".txt")]
        if algorithm not in HASHES:
            problems.append(f"{manifest.name}: unsupported algorithm {algorithm!r}")
            continue
        entries = _manifest(manifest, bag, problems)
        for rel in sorted(present - set(entries)):
            problems.append(f"{rel}: in the payload but not in {manifest.name}")
        for rel, digest in sorted(entries.items()):
            if not rel.startswith("data/"):
                problems.append(f"{manifest.name}: {rel} is not under data/")
            elif rel not in present:
                problems.append(f"{rel}: listed in {manifest.name} but missing")
            else:
                checked += 1
                if _digest(bag / rel, algorithm) != digest:
                    problems.append(f"{rel}: {algorithm} differs from {manifest.name}")
    for tagmanifest in sorted(bag.glob("tagmanifest-*.txt")):
        algorithm = tagmanifest.name[len("tagmanifest-"):-len(".txt")]
        if algorithm not in HASHES:
            problems.append(f"{tagmanifest.name}: unsupported algorithm {algorithm!r}")
            continue
        for rel, digest in sorted(_manifest(tagmanifest, bag, problems).items()):
            if rel.startswith("data/"):
                problems.append(f"{tagmanifest.name}: lists payload file {rel}")
            elif not (bag / rel).is_file():
                problems.append(f"{rel}: listed in {tagmanifest.name} but missing")
            else:
                checked += 1
                if _digest(bag / rel, algorithm) != digest:
                    problems.append(f"{rel}: {algorithm} differs from {tagmanifest.name}")
    info_path = bag / "bag-info.txt"
    if info_path.is_file():
        oxum = [line.split(":", 1)[1].strip() for line in _read_tag_text(info_path).splitlines()
                if line.startswith("Payload-Oxum:")]
        if oxum:
            octets = sum((bag / rel).stat().st_size for rel in on_disk)
            if oxum[0] != f"{octets}.{len(on_disk)}":
                problems.append(f"bag-info.txt: Payload-Oxum {oxum[0]} but the payload holds "
                                f"{octets} bytes in {len(on_disk)} files")
    return BagCheck(str(bag), checked, tuple(problems))


def enclosing_bag(root: Path) -> Optional[Path]:
    """The bag whose payload folder is ``root`` (``<bag>/data`` with ``<bag>/bagit.txt``)."""
    root = Path(root).resolve()
    if root.name == "data" and (root.parent / "bagit.txt").is_file():
        return root.parent
    return None


def verify_enclosing_bag(root: Path) -> Optional[BagCheck]:
    """For ``reproduce.py``: None outside a bag; inside one (``root`` is its ``data/``), the
    result of :func:`verify_bag` (a failure to read the bag is one problem, not an exception)."""
    bag = enclosing_bag(root)
    if bag is None:
        return None
    try:
        return verify_bag(bag)
    except BagError as exc:
        return BagCheck(str(bag), 0, (str(exc),))
