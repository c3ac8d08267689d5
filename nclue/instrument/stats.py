"""Construction statistics: the analogue of the n-Clue paper's Table 1 (sec. 3.2).

Every figure is computed from the construction's records; the two gate counts are re-checked
with the gate functions on the stored gold page sets (the independent verifier re-derives them
again from page text)."""

import statistics
from collections import Counter, defaultdict
from typing import Any, Dict, List

from . import gates
from .construction import Construction
from .inputs import BuildInput


def _summary(values: List[float]) -> Dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "max": 0}
    return {"mean": round(statistics.fmean(values), 4), "median": round(float(statistics.median(values)), 4),
            "max": max(values)}


def instrument_stats(construction: Construction, inputs: BuildInput) -> Dict[str, Any]:
    """Table 1 analogue plus the composition figures a reader needs to judge the instrument."""
    pages = [doc.pages for doc in inputs.documents.values()]
    kinds = {c.cid: c.kind for c in construction.inventory.conditions}
    golds = [r for r in construction.qrels if r.label == "gold"]
    subsets = [r for r in construction.qrels if r.label == "subset"]
    by_query_gold: Dict[str, List[str]] = defaultdict(list)
    pool: Counter = Counter()
    for row in construction.qrels:
        pool[row.qid] += 1
        if row.label == "gold":
            by_query_gold[row.qid].append(row.docid)
    shortest = [min(inputs.documents[d].pages for d in by_query_gold[q.qid])
                for q in construction.queries if by_query_gold[q.qid]]
    gold_use = Counter(r.docid for r in golds)
    query_kinds: Counter = Counter()
    for query in construction.queries:
        mix = {kinds[c] for c in query.cids}
        query_kinds["mixed" if len(mix) > 1 else mix.pop()] += 1
    n_by = Counter(str(len(q.cids)) for q in construction.queries)
    single = sum(1 for r in golds if gates.single_page_solvable(r.pages))
    distinct = sum(1 for r in golds if gates.distinct_page_assignment(r.pages) is not None)
    cond_kinds = Counter(c.kind for c in construction.inventory.conditions)
    return {
        "release": construction.config.release,
        "page_gates": construction.config.page_gates,
        "queries": len(construction.queries),
        "queries_by_conditions": dict(sorted(n_by.items())),
        "query_condition_kinds": dict(sorted(query_kinds.items())),
        "documents": len(pages),
        "pages": sum(pages),
        "pages_per_document": _summary(pages),
        "shortest_gold_pages": _summary(shortest),
        "gold_qrels": len(golds),
        "subset_qrels": len(subsets),
        "qrels": len(construction.qrels),
        "subset_grades": {str(k): v for k, v in sorted(Counter(r.clues for r in subsets).items())},
        "golds_per_query": _summary([len(by_query_gold[q.qid]) for q in construction.queries]),
        "judged_pool_per_query": _summary([pool[q.qid] for q in construction.queries]),
        "distinct_gold_documents": len(gold_use),
        "gold_qrels_by_source": dict(sorted(Counter(inputs.documents[r.docid].source for r in golds).items())),
        "max_queries_per_gold_document": max(gold_use.values()) if gold_use else 0,
        "single_page_solvable_golds": single,
        "distinct_page_valid_golds": distinct,
        "gate_failures": {gate: sum(1 for r in subsets if r.gate == gate)
                          for gate in (gates.GATE_SINGLE_PAGE, gates.GATE_DISTINCT_PAGE)},
        "families": len(construction.families),
        "conditions": {"section": cond_kinds.get("section", 0), "entity": cond_kinds.get("entity", 0)},
        "conditions_used": len({c for q in construction.queries for c in q.cids}),
        "candidate_conjunctions": dict(construction.candidates),
        "extra_queries": {name: len(qs) for name, qs in sorted(construction.extra.items())},
    }
