"""Files that are derived from other shipped files, re-derived so that editing one (and its
checksum) is caught, not only hashed.

* ``data/<release>/slices.jsonl`` and ``families.jsonl``: from the release's queries, corpus
  and qrels (:func:`nclue.slices.slice_rows`, :func:`nclue.release.family_rows`).
* ``data/<release>/instrument_stats.json``: every statistic that the released files determine
  (the construction-only entries, the size of the condition inventory, the candidate
  conjunctions and the configuration, are checked by ``nclue verify-construction`` from page
  text instead).
* ``audit/quote_audit_<release>_summary.json``: from the audit rows beside it and the corpus.

Each function returns ``(path, expected text)`` pairs or problems; the caller compares.
"""

import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Tuple

from .formats import dumps_canonical, iter_jsonl, jsonl_text, read_json
from .instrument.gates import distinct_page_assignment, single_page_solvable
from .instrument.quote_audit import summarize_audit
from .layout import ReleaseLayout
from .release import Release, family_rows
from .slices import query_factors, slice_rows

#: instrument_stats.json keys that only the construction (with page text) determines.
CONSTRUCTION_ONLY_STATS = ("candidate_conjunctions", "conditions", "page_gates", "release")


def derived_jsonl(release: Release, layout: ReleaseLayout) -> List[Tuple[Path, str]]:
    """Expected text of the release's derived JSONL files that it ships."""
    out = []
    if layout.slices.exists():
        out.append((layout.slices, jsonl_text(slice_rows(release))))
    if layout.families.exists():
        out.append((layout.families, jsonl_text(family_rows(release))))
    return out


def _summary(values: List[float]) -> Dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "max": 0}
    return {"mean": round(statistics.fmean(values), 4),
            "median": round(float(statistics.median(values)), 4), "max": max(values)}


def derivable_stats(release: Release, layout: ReleaseLayout,
                    splits: Tuple[str, ...] = ()) -> Dict[str, Any]:
    """The entries of ``instrument_stats.json`` that the released files determine, computed as
    :func:`nclue.instrument.stats.instrument_stats` computes them from the construction.
    ``splits``: names of extra query splits the construction made (an empty split writes no
    file, so it counts 0)."""
    factors = query_factors(release)
    pages = [d.pages for d in release.corpus.values()]
    judged = [j for qid in sorted(release.judgments) for j in release.judgments[qid].values()]
    golds = [j for j in judged if j.is_gold]
    subsets = [j for j in judged if not j.is_gold]
    gold_use = Counter(j.docid for j in golds)
    evidence = [release.evidence[(j.qid, j.docid)] for j in golds if (j.qid, j.docid) in release.evidence]
    extra = {}
    for name, path in (("train", layout.train_queries), ("val", layout.val_queries)):
        if path.exists():
            extra[name] = sum(1 for _ in iter_jsonl(path))
        elif name in splits:
            extra[name] = 0
    return {
        "queries": len(release.queries),
        "queries_by_conditions": dict(sorted(Counter(str(f.conditions) for f in factors.values()).items())),
        "query_condition_kinds": dict(sorted(Counter(f.kinds for f in factors.values()).items())),
        "documents": len(pages),
        "pages": sum(pages),
        "pages_per_document": _summary(pages),
        "shortest_gold_pages": _summary([f.shortest_gold_pages for f in factors.values()
                                         if f.shortest_gold_pages is not None]),
        "gold_qrels": len(golds),
        "subset_qrels": len(subsets),
        "qrels": len(judged),
        "subset_grades": {str(k): v for k, v in sorted(Counter(j.clues for j in subsets).items())},
        "golds_per_query": _summary([len(release.golds(q)) for q in sorted(release.queries)]),
        "judged_pool_per_query": _summary([f.judged_pool for f in factors.values()]),
        "distinct_gold_documents": len(gold_use),
        "gold_qrels_by_source": dict(sorted(Counter(release.corpus[j.docid].source for j in golds).items())),
        "max_queries_per_gold_document": max(gold_use.values()) if gold_use else 0,
        "single_page_solvable_golds": sum(1 for p in evidence if single_page_solvable(p)),
        "distinct_page_valid_golds": sum(1 for p in evidence if distinct_page_assignment(p) is not None),
        "gate_failures": {gate: sum(1 for j in subsets if j.gate == gate)
                          for gate in ("single_page", "distinct_page")},
        "families": len(family_rows(release)),
        "conditions_used": len({c for q in release.queries.values() for c in q.condition_ids}),
        "extra_queries": extra,
    }


def stats_problems(release: Release, layout: ReleaseLayout) -> List[str]:
    """Entries of the shipped ``instrument_stats.json`` that the release files contradict."""
    if not layout.instrument_stats.exists():
        return []
    shipped = read_json(layout.instrument_stats)
    expected = derivable_stats(release, layout, tuple(shipped.get("extra_queries") or ()))
    problems = []
    for key in sorted(set(shipped) | set(expected)):
        if key in CONSTRUCTION_ONLY_STATS:
            continue
        if key not in shipped:
            problems.append(f"{key}: missing (the release files give {dumps_canonical(expected[key])})")
        elif key not in expected:
            problems.append(f"{key}: not a statistic this release's files determine")
        elif shipped[key] != expected[key]:
            problems.append(f"{key} is {dumps_canonical(shipped[key])[:80]}, the release files give "
                            f"{dumps_canonical(expected[key])[:80]}")
    return problems


def audit_summaries(root: Path) -> List[Tuple[Path, str]]:
    """Expected text of every ``audit/quote_audit_<release>_summary.json`` with its rows and
    release present."""
    out = []
    for rows_path in sorted((root / "audit").glob("quote_audit_*.jsonl")):
        release_name = rows_path.name[len("quote_audit_"):-len(".jsonl")]
        summary_path = rows_path.with_name(f"quote_audit_{release_name}_summary.json")
        layout = ReleaseLayout(root / "data" / release_name)
        if not summary_path.exists() or not layout.is_release():
            continue
        shipped = read_json(summary_path)
        rows = [obj for _, obj in iter_jsonl(rows_path)]
        source_of = {obj["docid"]: obj["source"] for _, obj in iter_jsonl(layout.corpus)}
        summary = summarize_audit(rows, source_of, shipped.get("release"), shipped.get("seed"))
        out.append((summary_path, dumps_canonical(summary, indent=2) + "\n"))
    return out
