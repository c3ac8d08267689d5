"""Integrity layer: ``SHA256SUMS`` (``sha256sum -c --strict`` compatible) and ``MANIFEST.json``.

``SHA256SUMS`` lines are ``<64 lowercase hex><two spaces><relative path>``. Verification refuses
any path that could leave the repository (absolute, ``..`` components, backslashes, or a path that
resolves outside the root through a symbolic link) before touching the file.
"""

from pathlib import Path, PurePosixPath
from typing import Dict, Iterable, List, Mapping, Tuple

from .errors import InputError
from .formats import (PathLike, dumps_canonical, read_text, sha256_bytes, sha256_file,
                      write_text_atomic)

# Folders whose files are release artefacts covered by SHA256SUMS and MANIFEST.json.
RELEASE_FOLDERS = ("data", "reference_metrics", "audit", "provenance", "claims")
#: The code: verified like the data (an edited module or a new file fails by name). Bytecode
#: caches (``__pycache__/``) are not code; reproduce.py never reads them (``sys.pycache_prefix``).
CODE_ENTRIES = ("nclue", "producers", "reproduce.py", "tests", "tools")
#: Everything SHA256SUMS covers (every file under these, except MANIFEST.json's own line).
COVERED = RELEASE_FOLDERS + CODE_ENTRIES
HEX = set("0123456789abcdef")


def _bytecode_cache(parts: Tuple[str, ...]) -> bool:
    """A path inside a ``__pycache__`` folder (Python's own, outside what is verified)."""
    return "__pycache__" in parts[:-1] or (parts[-1] == "__pycache__")


def safe_relative_path(root: Path, text: str, where: PathLike, line: int) -> Path:
    """Resolve ``text`` under ``root`` or raise InputError when it would leave the repository."""
    if not text or "\\" in text or text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        raise InputError(where, f"path {text!r} is not a relative POSIX path inside the repository", line)
    parts = PurePosixPath(text).parts
    if any(part in ("..", "") for part in parts):
        raise InputError(where, f"path {text!r} leaves the repository", line)
    resolved = (root / text).resolve()
    try:
        resolved.relative_to(root.resolve())
    except ValueError:
        raise InputError(where, f"path {text!r} resolves outside the repository", line) from None
    return root / text


def parse_sha256sums(path: PathLike, root: PathLike) -> List[Tuple[str, str]]:
    """Parse and validate ``SHA256SUMS``; returns (digest, relative path) pairs."""
    root_path = Path(root)
    entries = []
    seen = set()
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line:
            continue
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or not set(digest) <= HEX:
            raise InputError(path, "expected '<64 hex digits><two spaces><path>'", number)
        if name.startswith("*"):
            name = name[1:]
        safe_relative_path(root_path, name, path, number)
        if name in seen:
            raise InputError(path, f"duplicate entry for {name!r}", number)
        seen.add(name)
        entries.append((digest, name))
    if not entries:
        raise InputError(path, "no entries")
    return entries


def verify_sha256sums(root: PathLike, sums_name: str = "SHA256SUMS") -> Tuple[int, List[str]]:
    """Check every listed file; returns (files checked, list of problems)."""
    root_path = Path(root)
    entries = parse_sha256sums(root_path / sums_name, root_path)
    return len(entries), verify_entries(root_path, entries, sums_name)


def verify_entries(root: PathLike, entries: Iterable[Tuple[str, str]],
                   sums_name: str = "SHA256SUMS") -> List[str]:
    """The problems of parsed ``SHA256SUMS`` entries: a listed file missing, or its digest
    different (each file hashed once per process: :func:`nclue.formats.sha256_file`)."""
    root_path = Path(root)
    problems = []
    for digest, name in entries:
        target = root_path / name
        if not target.is_file():
            problems.append(f"{name}: listed in {sums_name} but missing")
            continue
        actual = sha256_file(target)
        if actual != digest:
            problems.append(f"{name}: sha256 {actual} differs from {sums_name} ({digest})")
    return problems


def release_files(root: PathLike, folders: Iterable[str] = COVERED) -> List[str]:
    """Sorted relative paths of every regular file under the release folders and the code (no
    hidden files, no bytecode caches)."""
    root_path = Path(root)
    names = []
    for folder in folders:
        base = root_path / folder
        if base.is_file() and not base.is_symlink():
            names.append(folder)
            continue
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            rel = path.relative_to(root_path)
            if folder in CODE_ENTRIES and rel.name.endswith(".pyc"):
                continue  # bytecode is not code: a stray one is refused (unlisted_entries)
            if path.is_file() and not path.is_symlink() and not any(p.startswith(".") or p == "__pycache__" for p in rel.parts):
                names.append(rel.as_posix())
    return sorted(names)


def manifest_document(root: PathLike) -> Dict[str, object]:
    """``MANIFEST.json`` (a BagIt-style inventory: path, bytes and sha256 of every release file)."""
    root_path = Path(root)
    files = []
    for name in release_files(root_path):
        path = root_path / name
        files.append({"path": name, "bytes": path.stat().st_size, "sha256": sha256_file(path)})
    return {"name": "nclue release artefacts", "algorithm": "sha256", "files": files,
            "file_count": len(files), "total_bytes": sum(f["bytes"] for f in files)}


def manifest_text(root: PathLike) -> str:
    """The exact text of ``MANIFEST.json`` for the files on disk now."""
    return dumps_canonical(manifest_document(root), indent=2) + "\n"


def manifest_from_sums(root: PathLike, entries: Iterable[Tuple[str, str]],
                       recorded_sizes: Mapping[str, int], mismatched: Iterable[str] = ()) -> str:
    """The text ``MANIFEST.json`` must have for the files SHA256SUMS lists (their digests as
    listed there; their sizes on disk, except for the ``mismatched`` files, whose digest check
    failed, which keep the size ``recorded_sizes`` holds): editing MANIFEST.json and its SHA256SUMS line together is caught,
    and a tampered data file is reported once, by its own SHA256SUMS line."""
    root_path = Path(root)
    bad = set(mismatched)
    files = []
    for digest, name in sorted(entries, key=lambda e: e[1]):
        path = root_path / name
        if name == "MANIFEST.json" or not path.is_file():
            continue
        size = path.stat().st_size
        if name in bad and name in recorded_sizes:
            size = recorded_sizes[name]
        files.append({"path": name, "bytes": size, "sha256": digest})
    document = {"name": "nclue release artefacts", "algorithm": "sha256", "files": files,
                "file_count": len(files), "total_bytes": sum(f["bytes"] for f in files)}
    return dumps_canonical(document, indent=2) + "\n"


def sha256sums_text(root: PathLike, manifest: str) -> str:
    """The exact text of ``SHA256SUMS``: every release and code file, plus ``MANIFEST.json``."""
    root_path = Path(root)
    lines = [f"{sha256_file(root_path / name)}  {name}\n" for name in release_files(root_path)]
    lines.append(f"{sha256_bytes(manifest.encode('utf-8'))}  MANIFEST.json\n")
    lines.sort(key=lambda line: line[66:])
    return "".join(lines)


def write_integrity_files(root: PathLike) -> Dict[str, int]:
    """Rewrite ``MANIFEST.json`` and ``SHA256SUMS`` for the release files (maintainers)."""
    root_path = Path(root)
    manifest = manifest_text(root_path)
    write_text_atomic(root_path / "MANIFEST.json", manifest)
    sums = sha256sums_text(root_path, manifest)
    write_text_atomic(root_path / "SHA256SUMS", sums)
    return {"files": sums.count("\n")}


def unlisted_entries(root: PathLike, listed: Iterable[str],
                     folders: Iterable[str] = COVERED) -> List[str]:
    """Every entry under the release folders and the code that SHA256SUMS does not list:
    untracked files (a new module too), hidden files, symbolic links and other non-regular files,
    and ``__pycache__`` in a release folder (folders that hold a listed file are fine; in the code
    folders, Python's ``__pycache__`` is left alone: reproduce.py does not read it)."""
    root_path = Path(root)
    listed_set = set(listed)
    parents = {PurePosixPath(n).parent.as_posix() for n in listed_set}
    parents |= {p.as_posix() for n in listed_set for p in PurePosixPath(n).parents}
    out = []
    for folder in folders:
        base = root_path / folder
        if not base.exists() and not base.is_symlink():
            continue
        code = folder in CODE_ENTRIES
        for path in sorted([base] + (list(base.rglob("*")) if base.is_dir() and not base.is_symlink() else [])):
            rel = path.relative_to(root_path).as_posix()
            if code and _bytecode_cache(PurePosixPath(rel).parts) and not path.is_symlink():
                continue
            if path.is_symlink():
                out.append(f"{rel}: a symbolic link inside a {'code' if code else 'release'} folder")
            elif path.is_dir():
                if rel not in parents:
                    out.append(f"{rel}/: a folder with no file listed in SHA256SUMS")
            elif not path.is_file():
                out.append(f"{rel}: not a regular file")
            elif rel not in listed_set:
                out.append(f"{rel}: present but not listed in SHA256SUMS")
    return out


def verify_manifest_coverage(root: PathLike) -> List[str]:
    """Entries under the release folders that SHA256SUMS does not list (see unlisted_entries)."""
    root_path = Path(root)
    listed = [name for _, name in parse_sha256sums(root_path / "SHA256SUMS", root_path)]
    return unlisted_entries(root_path, listed)
