"""Kind ``instrument``: the Table 1 analogue, recomputed from the released files.

Queries by condition count, documents and pages, qrels by label and grade, gate failures, judged
pools and golds per query, gold-document reuse, exact-gold-set families and conditions used
(n-Clue paper, sec. 3.2-3.4, Table 1). Single-page-solvable and distinct-page-valid golds are
re-checked from ``evidence.jsonl`` with the gate functions of :mod:`nclue.instrument.gates`.
"""

import statistics
from dataclasses import dataclass
from typing import Dict, Optional, Sequence

from ..context import ReleaseContext
from ..instrument.gates import distinct_page_assignment, single_page_solvable
from ..table import Column, Table, with_row_decimals
from .spec import SpecKind, setting, spec_title

#: Printed decimals of the non-count rows (every other row is a count).
DECIMALS = {"pages_mean": 1, "shortest_gold_mean": 1, "pages_median": 1, "shortest_gold_median": 1,
            "judged_pool_mean": 1, "judged_pool_median": 1, "golds_per_query_mean": 2,
            "golds_per_query_median": 1}


@dataclass(frozen=True)
class InstrumentSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`instrument`")
    title: Optional[str] = setting("text", "printed title", None)


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def instrument_values(ctx: ReleaseContext) -> Dict[str, Optional[float]]:
    """Every Table 1 statistic of the release, by row key (None where undefined)."""
    r = ctx.release
    n2 = sum(1 for q in r.queries.values() if len(q.conditions) == 2)
    pages = [d.pages for d in r.corpus.values()]
    judged = [j for per in r.judgments.values() for j in per.values()]
    golds = [j for j in judged if j.is_gold]
    subsets = [j for j in judged if not j.is_gold]
    shortest = [min(r.corpus[d].pages for d in r.golds(q)) for q in sorted(r.queries) if r.golds(q)]
    with_evidence = [r.evidence[(j.qid, j.docid)] for j in golds if (j.qid, j.docid) in r.evidence]
    values: Dict[str, Optional[float]] = {
        "queries": len(r.queries), "queries_2": n2, "queries_3": len(r.queries) - n2,
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
        "gold_families": len(set(ctx.families.values())),
        "conditions_used": len({c for q in r.queries.values() for c in q.conditions}),
    })
    return values


def build(spec: InstrumentSpec, ctx: ReleaseContext) -> Table:
    rows = [(key, key.replace("_", " "), {"value": float(value)})
            for key, value in instrument_values(ctx).items() if value is not None]
    table = Table(spec.id, spec_title(spec, "The instrument"), (Column("value", "Value", 0),),
                  tuple(rows))
    return with_row_decimals(table, DECIMALS)


KIND = SpecKind("instrument", InstrumentSpec, build,
                 "Table 1 analogue: the instrument's composition, recomputed from its files.")
