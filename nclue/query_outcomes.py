"""Per-query outcomes of one ranking: the n-Clue paper's per-query definitions (arXiv
2607.24165, sec. 3.1, Table 4, Table 8, Table S5b), computed from precomputed query facts.

:mod:`nclue.metrics` turns these outcomes into per-query vectors and aggregates (and, under the
``expected`` tie rule, :mod:`nclue.ties` computes their exact expectations over tie orders).
"""

import math
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from .release import Release
from .runs import Ranking, Run

PAGES_PER_GOLD = 3  # Table S5b: the three highest-scoring distinct surfaced pages


@dataclass(frozen=True)
class QueryFacts:
    """What the scorer needs to know about one query, precomputed once from the release."""

    qid: str
    n_conditions: int
    golds: FrozenSet[str]
    subsets: FrozenSet[str]
    clues: Mapping[str, int]
    support: Mapping[str, Tuple[FrozenSet[int], ...]]  # gold docid -> support pages per condition


def query_facts(release: Release) -> Dict[str, QueryFacts]:
    """Precompute per-query judgment facts (sorted by qid)."""
    facts = {}
    for qid in sorted(release.queries):
        judged = release.judgments.get(qid, {})
        golds = frozenset(d for d, j in judged.items() if j.is_gold)
        support = {}
        for docid in golds:
            pages = release.evidence.get((qid, docid))
            if pages is not None:
                support[docid] = tuple(frozenset(p) for p in pages)
        facts[qid] = QueryFacts(
            qid=qid,
            n_conditions=len(release.queries[qid].conditions),
            golds=golds,
            subsets=frozenset(d for d, j in judged.items() if not j.is_gold),
            clues={d: j.clues for d, j in judged.items()},
            support=support,
        )
    return facts


def first_ranks(facts: QueryFacts, docs: Sequence[str]) -> Tuple[Optional[int], Optional[int]]:
    """(r_G, r_S): 1-based ranks of the first gold and first judged subset, None if absent."""
    first_gold = first_subset = None
    for rank, docid in enumerate(docs, start=1):
        if first_gold is None and docid in facts.golds:
            first_gold = rank
        elif first_subset is None and docid in facts.subsets:
            first_subset = rank
        if first_gold is not None and first_subset is not None:
            break
    return first_gold, first_subset


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def gold_ndcg(facts: QueryFacts, docs: Sequence[str], k: int) -> float:
    """Gold-NDCG@k: binary gain on golds, log2 discount, ideal from the gold count."""
    ideal = math.fsum(_discount(r) for r in range(1, min(k, len(facts.golds)) + 1))
    if ideal == 0.0:
        return 0.0
    dcg = math.fsum(_discount(r) for r, d in enumerate(docs[:k], start=1) if d in facts.golds)
    return dcg / ideal


def graded_ndcg(facts: QueryFacts, docs: Sequence[str], k: int) -> float:
    """Graded NDCG@k with gain = clue count (linear gain, log2 discount)."""
    gains = sorted(facts.clues.values(), reverse=True)[:k]
    ideal = math.fsum(g * _discount(r) for r, g in enumerate(gains, start=1))
    if ideal == 0.0:
        return 0.0
    dcg = math.fsum(facts.clues.get(d, 0) * _discount(r) for r, d in enumerate(docs[:k], start=1))
    return dcg / ideal


def pairwise_auc(facts: QueryFacts, docs: Sequence[str]) -> Optional[float]:
    """Gold-over-subset AUC over the whole supplied ranking; None without a gold or a subset."""
    n_gold, n_subset = len(facts.golds), len(facts.subsets)
    if n_gold == 0 or n_subset == 0:
        return None
    wins = 0
    subsets_seen = golds_seen = 0
    for docid in docs:
        if docid in facts.golds:
            wins += n_subset - subsets_seen  # beats every subset ranked later or not at all
            golds_seen += 1
        elif docid in facts.subsets:
            subsets_seen += 1
    ties = (n_gold - golds_seen) * (n_subset - subsets_seen)
    return (wins + 0.5 * ties) / (n_gold * n_subset)


def surfaced_pages(page_scores: Sequence[Tuple[int, float]], limit: int = PAGES_PER_GOLD) -> FrozenSet[int]:
    """The ``limit`` highest-scoring distinct pages; stable order breaks score ties (Table S5b)."""
    ordered = sorted(range(len(page_scores)), key=lambda i: -page_scores[i][1])
    chosen: List[int] = []
    for i in ordered:
        page = page_scores[i][0]
        if page not in chosen:
            chosen.append(page)
            if len(chosen) == limit:
                break
    return frozenset(chosen)


def page_coverage(facts: QueryFacts, ranking: Ranking, k: int) -> Tuple[bool, float]:
    """(full, condition fraction) over the top-k golds of a page-scored ranking.

    full: some single top-k gold's surfaced pages intersect the support of every condition.
    condition fraction: share of conditions whose support some top-k gold's pages intersect.
    """
    pages = ranking.pages or {}
    covered = [False] * facts.n_conditions
    full = False
    for docid in ranking.docs[:k]:
        if docid not in facts.golds:
            continue
        support = facts.support.get(docid)
        if support is None:
            continue
        shown = surfaced_pages(pages.get(docid, ()))
        hits = [bool(shown & pages_i) for pages_i in support]
        full = full or all(hits)
        covered = [a or b for a, b in zip(covered, hits)]
    return full, sum(covered) / facts.n_conditions


@dataclass(frozen=True)
class QueryOutcome:
    """All per-query outcomes of one ranking at one cutoff."""

    qid: str
    first_gold: Optional[int]
    first_subset: Optional[int]
    nclue: int
    gold_hit: int
    subset_first: int
    gold_ndcg: float
    graded_ndcg: float
    auc: Optional[float]
    gold_support: Optional[int]
    condition_coverage: Optional[float]
    full_coverage: Optional[int]


def query_outcome(facts: QueryFacts, ranking: Optional[Ranking], k: int,
                  page_scored: bool = False) -> QueryOutcome:
    """Score one query (an absent ranking is an empty one).

    ``page_scored``: the run carries page scores, so the page measures are computed (a query
    without page scores then surfaces no pages).
    """
    docs = ranking.docs if ranking is not None else ()
    first_gold, first_subset = first_ranks(facts, docs)
    hit = first_gold is not None and first_gold <= k
    complete = hit and (first_subset is None or first_gold < first_subset)
    gold_support = condition_cov = full_cov = None
    if page_scored:
        full, fraction = page_coverage(facts, ranking or Ranking(facts.qid, (), ()), k)
        gold_support = int(full)
        if hit:
            condition_cov, full_cov = fraction, int(full)
    return QueryOutcome(
        qid=facts.qid,
        first_gold=first_gold,
        first_subset=first_subset,
        nclue=int(complete),
        gold_hit=int(hit),
        subset_first=int(hit and not complete),
        gold_ndcg=gold_ndcg(facts, docs, k),
        graded_ndcg=graded_ndcg(facts, docs, k),
        auc=pairwise_auc(facts, docs),
        gold_support=gold_support,
        condition_coverage=condition_cov,
        full_coverage=full_cov,
    )


def is_page_scored(run: Run) -> bool:
    """A run is page-scored when any of its rankings carries page scores."""
    return any(r.pages is not None for r in run.rankings.values())
