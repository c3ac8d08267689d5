"""Where everything of a release lives: one object knows every path, nobody joins them by hand.

A release folder (``data/<name>/``) holds the instrument files (``queries``, ``corpus``,
``qrels``, ``evidence``, each ``.jsonl`` or ``.jsonl.gz``), the derived construction files
(``families.jsonl``, ``slices.jsonl``, ``instrument_stats.json``), the report declaration
(``report.json``), the frozen claims (``claims.json``) and the frozen runs (``runs/`` with
``runs/index.json``, read and written only through :class:`nclue.run_index.RunIndex`).
The repository keeps the regenerated tables of each release in ``reference_metrics/<name>/``
(:class:`RepositoryLayout`).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from .errors import InputError
from .formats import PathLike

#: Instrument files, by stem, each stored as ``<stem>.jsonl`` or ``<stem>.jsonl.gz``.
INSTRUMENT_STEMS = ("queries", "corpus", "qrels", "evidence")


def plain_name(name: str) -> bool:
    """A file name with no folder part and no leading dot (run files in ``runs/``)."""
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")


@dataclass(frozen=True)
class ReleaseLayout:
    """The paths of one release folder."""

    folder: Path

    @classmethod
    def of(cls, folder: PathLike) -> "ReleaseLayout":
        return cls(Path(folder))

    @property
    def name(self) -> str:
        return self.folder.name

    def jsonl(self, stem: str) -> Path:
        """``<stem>.jsonl``, or ``<stem>.jsonl.gz`` where only that exists (the default name
        when neither does, so that errors name the expected file)."""
        plain = self.folder / f"{stem}.jsonl"
        packed = self.folder / f"{stem}.jsonl.gz"
        return packed if packed.exists() and not plain.exists() else plain

    def existing_jsonl(self, stem: str, required: bool = True) -> Optional[Path]:
        """The stored ``<stem>`` file; an InputError (or None) when there is none."""
        path = self.jsonl(stem)
        if path.exists():
            return path
        if required:
            raise InputError(path, "file not found")
        return None

    @property
    def queries(self) -> Path:
        return self.jsonl("queries")

    @property
    def corpus(self) -> Path:
        return self.jsonl("corpus")

    @property
    def qrels(self) -> Path:
        return self.jsonl("qrels")

    @property
    def evidence(self) -> Path:
        return self.jsonl("evidence")

    @property
    def families(self) -> Path:
        return self.folder / "families.jsonl"

    @property
    def slices(self) -> Path:
        return self.folder / "slices.jsonl"

    @property
    def instrument_stats(self) -> Path:
        return self.folder / "instrument_stats.json"

    @property
    def train_queries(self) -> Path:
        return self.folder / "train_queries.jsonl"

    @property
    def val_queries(self) -> Path:
        return self.folder / "val_queries.jsonl"

    @property
    def report_spec(self) -> Path:
        return self.folder / "report.json"

    @property
    def claims(self) -> Path:
        return self.folder / "claims.json"

    @property
    def runs_dir(self) -> Path:
        return self.folder / "runs"

    @property
    def run_index(self) -> Path:
        return self.runs_dir / "index.json"

    @property
    def repairs_dir(self) -> Path:
        return self.folder / "repairs"

    def run_file(self, name: str) -> Path:
        """A file in ``runs/``; the name must be a plain file name."""
        if not plain_name(name):
            raise InputError(self.run_index, f"run file {name!r} must be a plain name")
        return self.runs_dir / name

    def is_release(self) -> bool:
        """A release folder is one that holds a queries file."""
        return self.folder.is_dir() and self.queries.exists()


@dataclass(frozen=True)
class RepositoryLayout:
    """The top-level paths of the repository that ships the releases."""

    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def sha256sums(self) -> Path:
        return self.root / "SHA256SUMS"

    @property
    def manifest(self) -> Path:
        return self.root / "MANIFEST.json"

    def release(self, name: str) -> ReleaseLayout:
        return ReleaseLayout(self.data / name)

    def reference_metrics(self, name: str) -> Path:
        """Where the regenerated tables of release ``name`` are shipped."""
        return self.root / "reference_metrics" / name

    def releases(self, only: Optional[List[str]] = None) -> List[ReleaseLayout]:
        """Release folders under ``data/`` (those holding a queries file), sorted by name;
        ``only`` restricts to these names (an unknown name is an InputError)."""
        found = (sorted((ReleaseLayout(p) for p in self.data.iterdir()), key=lambda r: r.name)
                 if self.data.is_dir() else [])
        found = [r for r in found if r.is_release()]
        if only:
            names = {r.name for r in found}
            for name in only:
                if name not in names:
                    raise InputError(self.data / name, "no such release")
            found = [r for r in found if r.name in only]
        return found
