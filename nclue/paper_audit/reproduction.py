"""Reproduction from release data: recompute the table values a transcription maps to runs.

``release_map`` entries name a value, a run id, a measure of :mod:`nclue.metrics` and an optional
slice of the n-Clue paper's Table 6 (arXiv 2607.24165); a value is *reproduced* when the
recomputed aggregate lies in the rounding interval of the printed value.
"""

from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..errors import InputError
from ..formats import PathLike, dumps_canonical
from ..layout import ReleaseLayout
from ..run_index import RunIndex
from ..slices import AUDIT_NAMES, query_slices, slice_by_name
from .printed import fmt
from .transcription import Transcription

#: Slice names a release_map entry may use (the paper's Table 6 cut points; :mod:`nclue.slices`).
SLICES = tuple(AUDIT_NAMES)


def slice_qids(release: Any, name: Optional[str]) -> Optional[List[str]]:
    """Query ids of a named slice (n-Clue paper, arXiv 2607.24165, Table 6; defined once in
    :mod:`nclue.slices`); None means all queries."""
    if name in (None, "all"):
        return None
    try:
        wanted = slice_by_name(name).name
    except KeyError:
        raise ValueError(f"unknown slice {name!r}") from None
    return query_slices(release).get(wanted, [])


def resolve_release_folder(path: PathLike) -> Path:
    """Our layout (``queries.jsonl`` in PATH) or the original n-Clue release (``PATH/data/v1``).

    Supplement 13 of the n-Clue paper (arXiv 2607.24165) places CrossPage under ``data/v1/``
    (queries, compact qrels, corpus metadata, top-10 rankings); that folder is read with the nclue
    release format.
    """
    folder = Path(path)
    for candidate in (folder, folder / "data" / "v1"):
        if ReleaseLayout(candidate).is_release():
            return candidate
    raise InputError(folder, "no release here (expected queries.jsonl, or data/v1/queries.jsonl)")


def _find_run(folder: Path, run_id: str) -> Optional[Path]:
    """The run's file through ``runs/index.json`` (sha256 checked) when the release has one,
    else ``runs/<id>.<ext>`` (the original n-Clue release ships no index)."""
    layout = ReleaseLayout.of(folder)
    if layout.run_index.exists():
        index = RunIndex.load(layout)
        return index.path(run_id) if run_id in index else None
    for suffix in (".jsonl.gz", ".jsonl", ".trec.gz", ".trec", ".txt"):
        candidate = layout.run_file(f"{run_id}{suffix}")
        if candidate.exists():
            return candidate
    return None


def reproduce_from_release(tr: Transcription, release_path: PathLike) -> List[Dict[str, Any]]:
    """Recompute every ``release_map`` entry for which the release holds the run.

    Each entry is ``{"value": id, "run": run_id, "measure": name, "slice": optional}``; the value is
    reproduced when the recomputed aggregate (percentage points, :func:`nclue.metrics.evaluate`)
    lies in the rounding interval of the printed value.
    """
    from ..metrics import aggregate, per_query  # imported lazily: the audit itself needs no release
    from ..release import load_release
    from ..runs import load_run

    folder = resolve_release_folder(release_path)
    release = load_release(folder)
    cache: Dict[str, Any] = {}
    out: List[Dict[str, Any]] = []
    for entry in tr.release_map:
        vid, run_id, measure = entry.get("value"), entry.get("run"), entry.get("measure")
        if (not isinstance(vid, str) or vid not in tr.values or not isinstance(run_id, str)
                or not isinstance(measure, str)):
            raise InputError(tr.path, f"release_map entry {dumps_canonical(entry)[:80]} is malformed")
        if entry.get("slice") is not None and entry.get("slice") not in SLICES:
            raise InputError(tr.path, f"release_map entry for {vid}: unknown slice {entry.get('slice')!r} "
                                      f"(known: {', '.join(SLICES)})")
        scale = entry.get("scale", 1)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise InputError(tr.path, f"release_map entry for {vid}: scale must be a number")
        printed = tr.values[vid]
        item: Dict[str, Any] = {"value": vid, "printed": printed.text, "run": run_id,
                                "measure": measure, "slice": entry.get("slice")}
        run_path = _find_run(folder, run_id)
        if run_path is None:
            item["status"] = "no_input"
            out.append(item)
            continue
        if run_id not in cache:
            cache[run_id] = per_query(release, load_run(run_path, release))
        qids = slice_qids(release, entry.get("slice"))
        aggregated = aggregate(cache[run_id], qids)
        if measure not in aggregated:
            item["status"] = "no_input"
            out.append(item)
            continue
        value = Fraction(aggregated[measure]) * Fraction(repr(scale))
        item["recomputed"] = fmt(value, printed.decimals + 3)
        item["status"] = "reproduced" if printed.lo <= value <= printed.hi else "not_reproduced"
        out.append(item)
    return out


def reproduction_counts(items: Sequence[Mapping[str, Any]]) -> Dict[str, int]:
    """How many mapped values were reproduced, not reproduced, or had no input in the release."""
    counts = {"reproduced": 0, "not_reproduced": 0, "no_input": 0}
    for item in items:
        counts[item["status"]] += 1
    return counts
