"""Reproduction from release data: recompute the table values a transcription maps to runs.

``release_map`` entries name a value, a run id, a measure of :mod:`nclue.metrics` and an optional
slice of the n-Clue paper's Table 6 (arXiv 2607.24165); a value is *reproduced* when the
recomputed aggregate lies in the rounding interval of the printed value.
"""

from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..errors import InputError
from ..formats import PathLike, dumps_canonical, read_json
from .printed import fmt
from .transcription import Transcription

SLICES = ("all", "n=2", "n=3", "lmin<=30", "lmin>100", "dplus<=25", "dplus>50")


def slice_qids(release: Any, name: Optional[str]) -> Optional[List[str]]:
    """Query ids of a named slice (n-Clue paper, arXiv 2607.24165, Table 6); None means all queries.

    n=2 / n=3: condition count. lmin: page count of the query's shortest gold (queries without a
    gold belong to no length slice). dplus: number of nonzero qrels of the query.
    """
    if name in (None, "all"):
        return None
    out = []
    for qid in sorted(release.queries):
        query = release.queries[qid]
        judged = release.judgments.get(qid, {})
        golds = [d for d, j in judged.items() if j.is_gold]
        lmin = min(release.corpus[d].pages for d in golds) if golds else None
        dplus = len(judged)
        keep = {
            "n=2": len(query.conditions) == 2,
            "n=3": len(query.conditions) == 3,
            "lmin<=30": lmin is not None and lmin <= 30,
            "lmin>100": lmin is not None and lmin > 100,
            "dplus<=25": dplus <= 25,
            "dplus>50": dplus > 50,
        }
        if name not in keep:
            raise ValueError(f"unknown slice {name!r}")
        if keep[name]:
            out.append(qid)
    return out


def resolve_release_folder(path: PathLike) -> Path:
    """Our layout (``queries.jsonl`` in PATH) or the original n-Clue release (``PATH/data/v1``).

    Supplement 13 of the n-Clue paper (arXiv 2607.24165) places CrossPage under ``data/v1/``
    (queries, compact qrels, corpus metadata, top-10 rankings); that folder is read with the nclue
    release format.
    """
    folder = Path(path)
    for candidate in (folder, folder / "data" / "v1"):
        if any((candidate / n).exists() for n in ("queries.jsonl", "queries.jsonl.gz")):
            return candidate
    raise InputError(folder, "no release here (expected queries.jsonl, or data/v1/queries.jsonl)")


def _find_run(folder: Path, run_id: str) -> Optional[Path]:
    """``runs/index.json``'s file for the id when listed there, else ``runs/<id>.<ext>``."""
    index = folder / "runs" / "index.json"
    if index.exists():
        listed = read_json(index)
        entries = listed.get("runs", []) if isinstance(listed, dict) else []
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") == run_id and isinstance(entry.get("file"), str):
                candidate = folder / "runs" / entry["file"]
                if candidate.exists():
                    return candidate
    for suffix in (".jsonl.gz", ".jsonl", ".trec.gz", ".trec", ".txt"):
        candidate = folder / "runs" / f"{run_id}{suffix}"
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
