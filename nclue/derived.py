"""Files that are derived from other shipped files, re-derived so that editing one (and its
checksum) is caught, not only hashed.

* ``data/<release>/slices.jsonl`` and ``families.jsonl``: from the release's queries, corpus
  and qrels (:func:`nclue.slices.slice_rows`, :func:`nclue.release.family_rows`).
* ``data/<release>/instrument_stats.json``: every statistic that the released files determine
  (the construction-only entries, the size of the condition inventory, the candidate
  conjunctions and the configuration, are checked by ``nclue verify-construction`` from page
  text instead).
* ``audit/quote_audit_<release>_summary.json``: from the audit rows beside it, the corpus, the
  release's name and the audit's fixed seed; the rows themselves against the release (the
  seeded sample of its qrels, the construction labels and evidence).

Each function returns ``(path, expected text)`` pairs or problems; the caller compares.
"""

import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Tuple

from .formats import dumps_canonical, iter_jsonl, jsonl_text, read_json
from .instrument.gates import distinct_page_assignment, single_page_solvable
from .instrument.quote_audit import QUOTE_AUDIT_SEED, sample_pairs, summarize_audit
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


def audit_summary_path(root: Path, release_name: str) -> Tuple[Path, Path]:
    """``(rows, summary)`` paths of a release's quote-backed audit under ``audit/``."""
    rows = root / "audit" / f"quote_audit_{release_name}.jsonl"
    return rows, rows.with_name(f"quote_audit_{release_name}_summary.json")


def audit_rows_problems(release: Release, rows: List[Dict[str, Any]], rows_path: Path,
                        seed: int = QUOTE_AUDIT_SEED) -> List[str]:
    """What the audit rows contradict in the release: the pairs must be the stratified sample
    that ``seed`` (the audit's fixed seed, :data:`nclue.instrument.quote_audit.QUOTE_AUDIT_SEED`,
    never a value read from the audit files) draws from the release's qrels, in the same
    strata; each row's construction side must be the released label, and its conditions the
    query's, supported where the release's evidence has pages. The re-check side (quotes found
    in page text) needs the page text: ``nclue verify-construction --check-audit``."""
    qrels = [{"qid": j.qid, "docid": j.docid, "label": j.label, "gate": j.gate}
             for qid in sorted(release.judgments) for j in release.judgments[qid].values()]
    drawn = [(stratum, r["qid"], r["docid"]) for stratum, r in sample_pairs(qrels, len(rows), seed)]
    shipped = [(r.get("stratum"), r.get("qid"), r.get("docid")) for r in rows]
    problems = []
    if drawn != shipped:
        first = next(i for i, (a, b) in enumerate(zip(drawn + [None] * len(rows), shipped)) if a != b)
        problems.append(f"{rows_path}:{first + 1}: not the pair the audit's seed {seed} draws from the "
                        f"release's qrels (expected {drawn[first] if first < len(drawn) else None})")
    for number, row in enumerate(rows, start=1):
        qid, docid = row.get("qid"), row.get("docid")
        judgment = release.judgments.get(qid, {}).get(docid)
        if judgment is None:
            continue  # reported above: not a drawn pair
        construction = row.get("construction") or {}
        if (construction.get("clues"), construction.get("label"), construction.get("gate")) != \
                (judgment.clues, judgment.label, judgment.gate):
            problems.append(f"{rows_path}:{number}: construction label differs from the release's qrels")
        conditions = [c.get("condition_id") for c in row.get("conditions") or []]
        recorded = list(release.queries[qid].condition_ids)
        if recorded and conditions != recorded:
            problems.append(f"{rows_path}:{number}: conditions differ from the query's")
        elif release.evidence_loaded and (qid, docid) in release.evidence:
            supported = [bool(pages) for pages in release.evidence[(qid, docid)]]
            if [bool(c.get("construction")) for c in row["conditions"]] != supported:
                problems.append(f"{rows_path}:{number}: construction decisions differ from the release's evidence")
    return problems


def audit_summary_text(release: Release, rows: List[Dict[str, Any]],
                       seed: int = QUOTE_AUDIT_SEED) -> str:
    """Expected text of ``audit/quote_audit_<release>_summary.json``: from the audit rows, the
    release's corpus, its name and the audit's fixed seed (nothing read from the summary)."""
    source_of = {docid: doc.source for docid, doc in release.corpus.items()}
    return dumps_canonical(summarize_audit(rows, source_of, release.name, seed), indent=2) + "\n"
