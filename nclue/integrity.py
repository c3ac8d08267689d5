"""Integrity layer: ``SHA256SUMS`` (``sha256sum -c --strict`` compatible) and ``MANIFEST.json``.

``SHA256SUMS`` lines are ``<64 lowercase hex><two spaces><relative path>``. Verification refuses
any path that could leave the repository (absolute, ``..`` components, backslashes, or a path that
resolves outside the root through a symbolic link) before touching the file.
"""

from pathlib import Path, PurePosixPath
from typing import Dict, Iterable, List, Tuple

from .errors import InputError
from .formats import PathLike, read_text, sha256_file, write_json_atomic, write_text_atomic

# Folders whose files are release artefacts covered by SHA256SUMS and MANIFEST.json.
RELEASE_FOLDERS = ("data", "reference_metrics", "audit", "provenance", "claims")
HEX = set("0123456789abcdef")


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
    sums = root_path / sums_name
    problems = []
    entries = parse_sha256sums(sums, root_path)
    for digest, name in entries:
        target = root_path / name
        if not target.is_file():
            problems.append(f"{name}: listed in {sums_name} but missing")
            continue
        actual = sha256_file(target)
        if actual != digest:
            problems.append(f"{name}: sha256 {actual} differs from {sums_name} ({digest})")
    return len(entries), problems


def release_files(root: PathLike, folders: Iterable[str] = RELEASE_FOLDERS) -> List[str]:
    """Sorted relative paths of every regular file under the release folders (no hidden files)."""
    root_path = Path(root)
    names = []
    for folder in folders:
        base = root_path / folder
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            rel = path.relative_to(root_path)
            if path.is_file() and not path.is_symlink() and not any(p.startswith(".") or p == "__pycache__" for p in rel.parts):
                names.append(rel.as_posix())
    return sorted(names)


def write_integrity_files(root: PathLike) -> Dict[str, int]:
    """Rewrite ``MANIFEST.json`` (BagIt-style inventory) and ``SHA256SUMS`` for the release files.

    SHA256SUMS also covers MANIFEST.json itself.
    """
    root_path = Path(root)
    names = release_files(root_path)
    files = []
    for name in names:
        path = root_path / name
        files.append({"path": name, "bytes": path.stat().st_size, "sha256": sha256_file(path)})
    manifest = {"name": "nclue release artefacts", "algorithm": "sha256", "files": files,
                "file_count": len(files), "total_bytes": sum(f["bytes"] for f in files)}
    write_json_atomic(root_path / "MANIFEST.json", manifest)
    lines = [f"{f['sha256']}  {f['path']}\n" for f in files]
    lines.append(f"{sha256_file(root_path / 'MANIFEST.json')}  MANIFEST.json\n")
    lines.sort(key=lambda line: line[66:])
    write_text_atomic(root_path / "SHA256SUMS", "".join(lines))
    return {"files": len(files) + 1}


def verify_manifest_coverage(root: PathLike) -> List[str]:
    """Release files present on disk but absent from SHA256SUMS (untracked artefacts)."""
    root_path = Path(root)
    listed = {name for _, name in parse_sha256sums(root_path / "SHA256SUMS", root_path)}
    return [f"{name}: present but not listed in SHA256SUMS" for name in release_files(root_path) if name not in listed]
