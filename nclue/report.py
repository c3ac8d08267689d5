"""Release report: tables regenerated from a release's data, rendered as Markdown and JSON.

A release declares its tables in ``report.json``::

    {"k": 10, "tables": [{"id": "scorecard", "kind": "scorecard", "title": "...",
                          "runs": ["bm25_or", ...]}, ...]}

Each ``kind`` names a builder in :data:`TABLE_BUILDERS`. A builder returns a :class:`Table`
whose cells are unrounded numbers; rendering rounds them to the column's printed decimals, and
every printed cell is a claim (:mod:`nclue.claims`).
"""

import math
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .claims import format_fixed
from .coverage import coverage_report_table
from .errors import InputError
from .findings import findings_table
from .formats import PathLike, read_json, sha256_file
from .inference_report import TABLE_BUILDERS as INFERENCE_TABLE_BUILDERS
from .metrics import DEFAULT_K, aggregate, outcomes, per_query_from_outcomes, query_facts
from .release import Release, gold_families, load_release
from .tables import Column, RowDecimalsTable, Table, with_row_decimals
from .runs import Run, checked_against, load_run


@dataclass(frozen=True)
class RunEntry:
    """One row of ``runs/index.json``."""

    run_id: str
    file: str
    sha256: str
    info: Mapping[str, Any]


def load_run_index(release_dir: PathLike) -> Dict[str, RunEntry]:
    """Read ``runs/index.json`` and check that each run file exists with the recorded sha256."""
    folder = Path(release_dir) / "runs"
    path = folder / "index.json"
    if not path.exists():
        return {}
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise InputError(path, "expected an object with a 'runs' list")
    entries: Dict[str, RunEntry] = {}
    for number, item in enumerate(data["runs"], start=1):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str)
                                                 for k in ("id", "file", "sha256")):
            raise InputError(path, f"run entry {number}: needs string fields id, file, sha256")
        run_id, name = item["id"], item["file"]
        if run_id in entries:
            raise InputError(path, f"run entry {number}: duplicate id {run_id!r}")
        if "/" in name or "\\" in name or name.startswith("."):
            raise InputError(path, f"run entry {number}: file {name!r} must be a plain name")
        run_path = folder / name
        if not run_path.exists():
            raise InputError(run_path, "run file listed in index.json is missing")
        actual = sha256_file(run_path)
        if actual != item["sha256"]:
            raise InputError(run_path, f"sha256 {actual} differs from index.json ({item['sha256']})")
        entries[run_id] = RunEntry(run_id, name, item["sha256"], item)
    return entries


class ReleaseContext:
    """A loaded release with its runs and a cache of per-query vectors (computed once per run)."""

    def __init__(self, release_dir: PathLike, ties: str = "input") -> None:
        self.path = Path(release_dir)
        self.release: Release = load_release(release_dir)
        self.index = load_run_index(release_dir)
        self.ties = ties
        self.spec = read_json(self.path / "report.json") if (self.path / "report.json").exists() else {"tables": []}
        self.k = int(self.spec.get("k", DEFAULT_K))
        self._facts = query_facts(self.release)
        self._runs: Dict[str, Run] = {}
        self._parsed: Dict[str, Run] = {}  # by file sha256: identical files are parsed once
        self._vectors: Dict[Tuple[str, int], Dict[str, Dict[str, float]]] = {}
        self._outcomes: Dict[Tuple[str, int], Mapping] = {}

    def run(self, run_id: str) -> Run:
        if run_id not in self._runs:
            if run_id not in self.index:
                raise InputError(self.path / "report.json", f"unknown run id {run_id!r}")
            entry = self.index[run_id]
            if entry.sha256 not in self._parsed:
                self._parsed[entry.sha256] = load_run(self.path / "runs" / entry.file,
                                                      self.release, self.ties, run_id=run_id)
            self._runs[run_id] = replace(self._parsed[entry.sha256], run_id=run_id)
        return self._runs[run_id]

    def preload(self, jobs: int = 1) -> None:
        """Parse every indexed run file now, in ``jobs`` worker processes when ``jobs > 1``.

        Workers parse and validate each file without the release (which they do not have);
        this process then checks queries and documents against the release
        (:func:`nclue.runs.checked_against`), so the runs, and any error, are those of
        :meth:`run`. Falls back to this process where no process pool can be made.
        """
        pending: Dict[str, Path] = {}
        for run_id in sorted(self.index):
            entry = self.index[run_id]
            if entry.sha256 not in self._parsed:
                pending.setdefault(entry.sha256, self.path / "runs" / entry.file)
        if jobs > 1 and len(pending) > 1:
            try:
                pool = ProcessPoolExecutor(max_workers=jobs)
            except (OSError, NotImplementedError, ImportError):  # e.g. no working semaphores
                pool = None
            if pool is not None:
                shas = list(pending)
                paths = [pending[sha] for sha in shas]
                with pool:
                    parsed = pool.map(load_run, paths, [None] * len(paths),
                                      [self.ties] * len(paths), chunksize=2)
                    for sha, path, run in zip(shas, paths, parsed):
                        self._parsed[sha] = checked_against(run, self.release, path)
        for run_id in sorted(self.index):
            self.run(run_id)

    def _content_key(self, run_id: str, k: Optional[int]) -> Tuple[str, int]:
        """Cache key of per-query results: runs with identical files share them."""
        self.run(run_id)  # unknown ids are refused here
        return (self.index[run_id].sha256, k or self.k)

    def outcomes(self, run_id: str, k: Optional[int] = None):
        key = self._content_key(run_id, k)
        if key not in self._outcomes:
            self._outcomes[key] = outcomes(self.release, self.run(run_id), key[1], self._facts)
        return self._outcomes[key]

    def vectors(self, run_id: str, k: Optional[int] = None) -> Dict[str, Dict[str, float]]:
        key = self._content_key(run_id, k)
        if key not in self._vectors:
            self._vectors[key] = per_query_from_outcomes(self.outcomes(run_id, key[1]), key[1])
        return self._vectors[key]

    def scores(self, run_id: str, qids: Optional[Sequence[str]] = None) -> Dict[str, float]:
        return aggregate(self.vectors(run_id), qids)

    def label(self, run_id: str) -> str:
        info = self.index[run_id].info if run_id in self.index else {}
        return str(info.get("label") or run_id)


def _run_list(spec: Mapping[str, Any], ctx: ReleaseContext) -> List[str]:
    runs = spec.get("runs")
    if runs == "all":
        return sorted(ctx.index)
    if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
        raise InputError(ctx.path / "report.json", f"table {spec.get('id')!r}: 'runs' must be a list of run ids or \"all\"")
    return runs


def scorecard_table(spec: Mapping[str, Any], ctx: ReleaseContext) -> Table:
    """Table 3 analogue: n-Clue Score@k, Gold Hit@k, Gold-NDCG@k, graded NDCG@k, AUC."""
    k = ctx.k
    columns = (Column(f"nclue_score@{k}", f"n-Clue Score@{k}", 1), Column(f"gold_hit@{k}", f"Gold Hit@{k}", 1),
               Column(f"gold_ndcg@{k}", f"Gold-NDCG@{k}", 1), Column(f"graded_ndcg@{k}", f"graded NDCG@{k}", 1),
               Column("auc", "AUC", 1))
    rows = []
    for run_id in _run_list(spec, ctx):
        scores = ctx.scores(run_id)
        rows.append((run_id, ctx.label(run_id), {c.key: scores.get(c.key) for c in columns}))
    return Table(spec["id"], spec.get("title", "Scorecard"), columns, tuple(rows),
                 "Percentage points; AUC is the gold-over-subset pairwise AUC x 100.")


def outcomes_table(spec: Mapping[str, Any], ctx: ReleaseContext) -> Table:
    """Table 4 analogue: complete first / subset first / no top-k gold (sums to 100)."""
    k = ctx.k
    columns = (Column(f"complete_first@{k}", "Complete first", 1), Column(f"subset_first@{k}", "Subset first", 1),
               Column(f"no_gold@{k}", f"No top-{k} gold", 1))
    rows = []
    for run_id in _run_list(spec, ctx):
        scores = ctx.scores(run_id)
        rows.append((run_id, ctx.label(run_id), {c.key: scores[c.key] for c in columns}))
    return Table(spec["id"], spec.get("title", "Outcome decomposition"), columns, tuple(rows),
                 "% of queries; the three columns sum to 100.")


def page_evidence_table(spec: Mapping[str, Any], ctx: ReleaseContext) -> Table:
    """Table 8 analogue: conditional condition/full page coverage and Gold+Support@k."""
    k = ctx.k
    columns = (Column(f"condition_coverage@{k}", "Cond. coverage", 1), Column(f"full_coverage@{k}", "Full coverage", 1),
               Column(f"gold_support@{k}", "Gold+Support", 1), Column(f"condition_coverage@{k}_queries", "Queries with a gold", 0))
    rows = []
    for run_id in _run_list(spec, ctx):
        scores = ctx.scores(run_id)
        if f"gold_support@{k}" not in scores:
            raise InputError(ctx.path / "report.json", f"run {run_id!r} has no page scores")
        rows.append((run_id, ctx.label(run_id), {c.key: scores.get(c.key) for c in columns}))
    return Table(spec["id"], spec.get("title", "Page-evidence delivery"), columns, tuple(rows),
                 "Coverage columns are conditional on a top-k gold; Gold+Support uses all queries.")


def query_slices(release: Release) -> Dict[str, List[str]]:
    """Task-factor slices (Table 6 / S1j): condition count, shortest-gold length, judged pool.

    L_min is the smallest page count among the query's golds; |D+| the number of nonzero qrels.
    Cut points follow the paper (<=30 and >100 pages; <=25 and >50 judged documents) with the
    middle bins added so every query falls in exactly one bin of each factor.
    """
    slices: Dict[str, List[str]] = {}

    def add(name: str, qid: str) -> None:
        slices.setdefault(name, []).append(qid)

    for qid in sorted(release.queries):
        add("all", qid)
        add(f"n={len(release.queries[qid].conditions)}", qid)
        golds = release.golds(qid)
        if golds:
            shortest = min(release.corpus[d].pages for d in golds)
            add("Lmin<=30" if shortest <= 30 else "Lmin>100" if shortest > 100 else "Lmin31-100", qid)
        else:
            add("no gold", qid)
        pool = len(release.judgments.get(qid, {}))
        add("D+<=25" if pool <= 25 else "D+>50" if pool > 50 else "D+26-50", qid)
    return slices


SLICE_ORDER = ("all", "n=2", "n=3", "Lmin<=30", "Lmin31-100", "Lmin>100", "no gold", "D+<=25", "D+26-50", "D+>50")


def slices_table(spec: Mapping[str, Any], ctx: ReleaseContext) -> Table:
    """Table 6 analogue: n-Clue Score@k and Gold Hit@k per task-factor slice."""
    k = ctx.k
    slices = query_slices(ctx.release)
    names = [s for s in SLICE_ORDER if s in slices]
    columns = []
    for name in names:
        columns.append(Column(f"{name}:nclue_score@{k}", f"{name} ({len(slices[name])}) Score", 1))
        columns.append(Column(f"{name}:gold_hit@{k}", f"{name} Hit", 1))
    rows = [("queries", "queries per slice", {f"{n}:nclue_score@{k}": float(len(slices[n])) for n in names})]
    for run_id in _run_list(spec, ctx):
        cells = {}
        for name in names:
            scores = ctx.scores(run_id, slices[name])
            cells[f"{name}:nclue_score@{k}"] = scores[f"nclue_score@{k}"]
            cells[f"{name}:gold_hit@{k}"] = scores[f"gold_hit@{k}"]
        rows.append((run_id, ctx.label(run_id), cells))
    table = Table(spec["id"], spec.get("title", "Task-factor slices"), tuple(columns), tuple(rows),
                  "n-Clue Score@k and Gold Hit@k in points per slice; the 'queries' row counts queries.")
    return table


def forms_table(spec: Mapping[str, Any], ctx: ReleaseContext) -> Table:
    """Table S2b analogue: n-Clue Score@k of each system under raw / clean / natural forms."""
    k = ctx.k
    columns = tuple(Column(f"{form}:nclue_score@{k}", form, 1) for form in ("raw", "clean", "natural"))
    rows = []
    for system in spec.get("systems", []):
        cells = {}
        for form in ("raw", "clean", "natural"):
            run_id = system.get(form)
            if run_id:
                cells[f"{form}:nclue_score@{k}"] = ctx.scores(run_id)[f"nclue_score@{k}"]
        rows.append((system["id"], system.get("label", system["id"]), cells))
    return Table(spec["id"], spec.get("title", "Query-form robustness"), columns, tuple(rows))


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def instrument_table(spec: Mapping[str, Any], ctx: ReleaseContext) -> Table:
    """Table 1 analogue, recomputed from the released queries, qrels, corpus and evidence.

    Single-page-solvable and distinct-page-valid golds are re-checked from ``evidence.jsonl``
    with the gate functions of :mod:`nclue.instrument.gates`.
    """
    from .instrument.gates import distinct_page_assignment, single_page_solvable

    r = ctx.release
    n2 = sum(1 for q in r.queries.values() if len(q.conditions) == 2)
    n3 = len(r.queries) - n2
    pages = [d.pages for d in r.corpus.values()]
    judged = [j for per in r.judgments.values() for j in per.values()]
    golds = [j for j in judged if j.is_gold]
    subsets = [j for j in judged if not j.is_gold]
    shortest = [min(r.corpus[d].pages for d in r.golds(q)) for q in sorted(r.queries) if r.golds(q)]
    with_evidence = [r.evidence[(j.qid, j.docid)] for j in golds if (j.qid, j.docid) in r.evidence]
    values = {
        "queries": len(r.queries), "queries_2": n2, "queries_3": n3,
        "documents": len(r.corpus), "pages": sum(pages),
        "pages_mean": sum(pages) / len(pages), "pages_median": _median(pages), "pages_max": max(pages),
        "shortest_gold_mean": sum(shortest) / len(shortest) if shortest else None,
        "shortest_gold_median": _median(shortest) if shortest else None,
        "gold_qrels": len(golds), "subset_qrels": len(subsets),
        "distinct_gold_documents": len({j.docid for j in golds}),
        "golds_with_evidence": len(with_evidence),
        "single_page_solvable_golds": sum(1 for p in with_evidence if single_page_solvable(p)),
        "distinct_page_valid_golds": sum(1 for p in with_evidence if distinct_page_assignment(p) is not None),
        "subset_gate_single_page": sum(1 for j in subsets if j.gate == "single_page"),
        "subset_gate_distinct_page": sum(1 for j in subsets if j.gate == "distinct_page"),
        "queries_without_gold": sum(1 for q in r.queries if not r.golds(q)),
    }
    for grade in sorted({j.clues for j in subsets}):
        values[f"subset_grade_{grade}"] = sum(1 for j in subsets if j.clues == grade)
    # Per-query pool sizes and gold counts, gold-document reuse, families and conditions
    # (DATASHEET section 2 quotes these; sec. 3.2 / 3.4 of the paper).
    judged_per_query = [len(r.judgments.get(q, {})) for q in sorted(r.queries)]
    golds_per_query = [len(r.golds(q)) for q in sorted(r.queries)]
    queries_per_gold: Dict[str, int] = {}
    for j in golds:
        queries_per_gold[j.docid] = queries_per_gold.get(j.docid, 0) + 1
    values.update({
        "judged_pool_mean": sum(judged_per_query) / len(judged_per_query),
        "judged_pool_median": _median(judged_per_query), "judged_pool_max": max(judged_per_query),
        "golds_per_query_mean": sum(golds_per_query) / len(golds_per_query),
        "golds_per_query_median": _median(golds_per_query), "golds_per_query_max": max(golds_per_query),
        "max_queries_per_gold_document": max(queries_per_gold.values()) if queries_per_gold else None,
        "gold_families": len(set(gold_families(r).values())),
        "conditions_used": len({c for q in r.queries.values() for c in q.conditions}),
    })
    decimals = {"pages_mean": 1, "shortest_gold_mean": 1, "pages_median": 1, "shortest_gold_median": 1,
                "judged_pool_mean": 1, "judged_pool_median": 1, "golds_per_query_mean": 2,
                "golds_per_query_median": 1}
    columns = (Column("value", "Value", 0),)
    rows = []
    for key, value in values.items():
        if value is None:
            continue
        rows.append((key, key.replace("_", " "), {"value": float(value)}))
    table = Table(spec["id"], spec.get("title", "The instrument"), columns, tuple(rows))
    return with_row_decimals(table, decimals)


TableBuilder = Callable[[Mapping[str, Any], ReleaseContext], Table]

TABLE_BUILDERS: Dict[str, TableBuilder] = {
    "scorecard": scorecard_table,
    "outcomes": outcomes_table,
    "page_evidence": page_evidence_table,
    "slices": slices_table,
    "forms": forms_table,
    "instrument": instrument_table,
    "coverage": coverage_report_table,
    "findings": findings_table,
    **INFERENCE_TABLE_BUILDERS,  # contrasts, contrast_sensitivity, membership_graph
}


def build_tables(ctx: ReleaseContext, builders: Optional[Mapping[str, TableBuilder]] = None) -> List[Table]:
    """Build every table declared in the release's ``report.json``."""
    known = dict(TABLE_BUILDERS)
    if builders:
        known.update(builders)
    tables = []
    seen = set()
    for number, spec in enumerate(ctx.spec.get("tables", []), start=1):
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str) or spec.get("kind") not in known:
            raise InputError(ctx.path / "report.json",
                             f"table {number}: needs an 'id' and a 'kind' among {', '.join(sorted(known))}")
        if spec["id"] in seen:
            raise InputError(ctx.path / "report.json", f"table {number}: duplicate id {spec['id']!r}")
        seen.add(spec["id"])
        tables.append(known[spec["kind"]](spec, ctx))
    return tables


def table_markdown(table: Table) -> str:
    """Render one table as GitHub Markdown with printed decimals."""
    decimals = table.decimals()
    header = "| | " + " | ".join(c.header for c in table.columns) + " |"
    rule = "| --- |" + " --- |" * len(table.columns)
    lines = [f"### {table.title}", "", header, rule]
    for row_key, label, values in table.rows:
        cells = []
        for column in table.columns:
            value = values.get(column.key)
            key = (table.table_id, row_key, column.key)
            cells.append("" if value is None else format_fixed(value, decimals[key]))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def tables_json(release_name: str, tables: Sequence[Table]) -> Dict[str, Any]:
    """Unrounded JSON form of the tables (for reference_metrics/)."""
    out = {"release": release_name, "tables": []}
    for table in tables:
        out["tables"].append({
            "id": table.table_id, "title": table.title,
            "columns": [{"key": c.key, "header": c.header} for c in table.columns],
            "rows": [{"row": key, "label": label,
                      "cells": {k: v for k, v in values.items() if v is not None and math.isfinite(v)}}
                     for key, label, values in table.rows],
        })
    return out
