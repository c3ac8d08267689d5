"""``runs/index.json``: the frozen runs of a release, their files, hashes and configurations.

Every reader and writer of the index goes through :class:`RunIndex`: it loads and validates the
file, checks every listed run file's sha256 (always), finds runs by id, and records new entries
(written atomically, under a lock file, sorted by id, other entries kept as they are).
"""

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional

from .errors import InputError
from .formats import read_json, sha256_file, write_json_atomic
from .layout import ReleaseLayout, plain_name

LOCK_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RunEntry:
    """One row of ``runs/index.json``: id, file name, sha256 and everything else recorded."""

    run_id: str
    file: str
    sha256: str
    info: Mapping[str, Any]

    @property
    def family(self) -> str:
        return str(self.info.get("family", "other"))

    @property
    def label(self) -> str:
        return str(self.info.get("label") or self.run_id)

    @property
    def privileged(self) -> bool:
        return bool(self.info.get("privileged"))

    @property
    def query_scope(self) -> str:
        """``all`` (the run ranks every test query) or the scope of the queries it was made for
        (``heldout``: the held-out-perspective test queries); a partial run is read only by
        tables of its scope, never by ``"all"`` or ``"fair"`` selections."""
        return str(self.info.get("query_scope", "all"))

    @property
    def is_control(self) -> bool:
        """A control or privileged run (n-Clue paper, Figure 2(a) shows only fair methods)."""
        return self.family == "control" or bool(self.info.get("control")) or self.privileged


def _entries(path: Path, data: Any) -> List[RunEntry]:
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise InputError(path, "expected an object with a 'runs' list")
    entries: List[RunEntry] = []
    seen = set()
    for number, item in enumerate(data["runs"], start=1):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str)
                                                 for k in ("id", "file", "sha256")):
            raise InputError(path, f"run entry {number}: needs string fields id, file, sha256")
        if item["id"] in seen:
            raise InputError(path, f"run entry {number}: duplicate id {item['id']!r}")
        if not plain_name(item["file"]):
            raise InputError(path, f"run entry {number}: file {item['file']!r} must be a plain name")
        seen.add(item["id"])
        entries.append(RunEntry(item["id"], item["file"], item["sha256"], item))
    return entries


class RunIndex:
    """The runs of one release, as listed in its ``runs/index.json``."""

    def __init__(self, layout: ReleaseLayout, entries: Mapping[str, RunEntry]) -> None:
        self.layout = layout
        self._entries = dict(entries)

    @classmethod
    def load(cls, release: "ReleaseLayout | os.PathLike | str", verify: bool = True) -> "RunIndex":
        """Read the index (an absent index is an empty one) and, with ``verify`` (the default),
        check that every listed file exists with the recorded sha256."""
        layout = release if isinstance(release, ReleaseLayout) else ReleaseLayout.of(release)
        path = layout.run_index
        if not path.exists():
            return cls(layout, {})
        entries = _entries(path, read_json(path))
        if verify:
            for entry in entries:
                run_path = layout.run_file(entry.file)
                if not run_path.exists():
                    raise InputError(run_path, "run file listed in index.json is missing")
                actual = sha256_file(run_path)
                if actual != entry.sha256:
                    raise InputError(run_path, f"sha256 {actual} differs from index.json "
                                               f"({entry.sha256})")
        return cls(layout, {e.run_id: e for e in entries})

    def __contains__(self, run_id: object) -> bool:
        return run_id in self._entries

    def __getitem__(self, run_id: str) -> RunEntry:
        return self._entries[run_id]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, run_id: str) -> Optional[RunEntry]:
        return self._entries.get(run_id)

    def ids(self) -> List[str]:
        return sorted(self._entries)

    def entries(self) -> List[RunEntry]:
        return [self._entries[r] for r in self.ids()]

    def path(self, run_id: str) -> Path:
        """The file of a listed run."""
        return self.layout.run_file(self[run_id].file)

    def find(self, run: str) -> Path:
        """A run argument as users give it: an existing file, else a run id of this index."""
        candidate = Path(run)
        if candidate.is_file():
            return candidate
        if run in self._entries:
            return self.path(run)
        raise InputError(run, f"run file not found, nor a run id of {self.layout.run_index}")

    def distinct_files(self) -> Dict[str, Path]:
        """One path per distinct sha256 (runs with identical files share it), by sha256."""
        out: Dict[str, Path] = {}
        for entry in self.entries():
            out.setdefault(entry.sha256, self.layout.run_file(entry.file))
        return out


def _lock(path: Path, timeout: float = LOCK_TIMEOUT_S) -> int:
    lock = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(str(lock), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if time.monotonic() > deadline:
                raise InputError(lock, "index lock held for over a minute; remove it if stale")
            time.sleep(0.2)


def record_entries(layout: ReleaseLayout, entries: List[Mapping[str, Any]]) -> None:
    """Add or replace ``entries`` (keyed by id) in the release's ``runs/index.json``.

    The read-modify-write happens under ``index.json.lock`` (created exclusively), so concurrent
    producers do not lose each other's entries; the file is written atomically, sorted by id,
    and every entry must name a plain file and its sha256.
    """
    path = layout.run_index
    for number, entry in enumerate(entries, start=1):
        if not all(isinstance(entry.get(k), str) for k in ("id", "file", "sha256")):
            raise InputError(path, f"new entry {number}: needs string fields id, file, sha256")
        if not plain_name(entry["file"]):
            raise InputError(path, f"new entry {number}: file {entry['file']!r} must be a plain name")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = _lock(path)
    try:
        data: Dict[str, Any] = {"runs": []}
        if path.exists():
            data = dict(read_json(path))
            _entries(path, data)  # validates the existing file
        ids = {e["id"] for e in entries}
        runs = [r for r in data["runs"] if r.get("id") not in ids] + [dict(e) for e in entries]
        data["runs"] = sorted(runs, key=lambda r: str(r.get("id")))
        write_json_atomic(path, data)
    finally:
        os.close(handle)
        os.unlink(str(path.with_name(path.name + ".lock")))
