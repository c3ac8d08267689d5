"""The n-Clue scorer: per-query outcome vectors first, aggregates second.

Definitions (n-Clue paper, arXiv 2607.24165; the registry of names, titles and denominators is
:mod:`nclue.measures`):

- r_G is the rank of the best-ranked gold and r_S that of the best-ranked *judged subset*
  (infinite when none is retrieved). **n-Clue Score@k** (sec. 3.1) is
  ``100/|Q| * sum_q 1[r_G <= k and r_G < r_S]``.
- **Gold Hit@k**: 1 when some gold is within the top k.
- **Outcome decomposition** (Table 4): *complete first* = n-Clue success; *subset first* = a gold is
  in the top k but a judged subset precedes it; *no top-k gold*. The three sum to 100.
- **Gold-NDCG@k**: binary gain on golds only, discount 1/log2(rank + 1), ideal DCG from the query's
  gold count (min(k, |G|) golds at ranks 1..). 0 when the query has no gold.
- **Graded NDCG@k**: gain = clue count of every judged document (trec_eval's linear gain), ideal from
  all judged documents sorted by clue count. 0 when nothing is judged.
- **Pairwise AUC** (sec. 3.1): over all (gold, judged subset) pairs of a query, the fraction in
  which the gold ranks above the subset; documents not in the ranking share rank infinity, and a
  pair where both are unretrieved counts 1/2. Defined only for queries with at least one gold and
  one subset; averaged over those queries.
- **Gold+Support@k** (sec. 4.4 and Table S5b): for each top-k gold take its three highest-scoring
  distinct surfaced pages (stable order breaks score ties); the query succeeds when some top-k
  gold's page set intersects the stored support of every condition. All queries are in the
  denominator. **Condition coverage** and **full coverage** are conditional on a top-k gold: the
  per-query fraction of conditions whose support some top-k gold's pages intersect, and whether one
  gold's pages cover every condition. Page measures exist only for runs with page scores.

Queries of the release that are absent from a run count as empty rankings (like trec_eval -c);
every aggregate states its denominator. Aggregates are percentage points (value x 100).
"""

import math
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from .measures import DEFAULT_K, REGISTRY, Measure, MeasureRegistry, count_key
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


def outcomes(release: Release, run: Run, k: int = DEFAULT_K,
             facts: Optional[Mapping[str, QueryFacts]] = None) -> Dict[str, QueryOutcome]:
    """Per-query outcomes for every query of the release (sorted by qid)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    facts = facts if facts is not None else query_facts(release)
    if run.tie_rule == "expected":  # exact expectations over tie orders; ties builds on this module
        from .ties import expected_outcomes
        return expected_outcomes(facts, run, k)
    page_scored = is_page_scored(run)
    return {qid: query_outcome(f, run.rankings.get(qid), k, page_scored) for qid, f in facts.items()}


def is_page_scored(run: Run) -> bool:
    """A run is page-scored when any of its rankings carries page scores."""
    return any(r.pages is not None for r in run.rankings.values())


def outcome_measures(k: int = DEFAULT_K, registry: MeasureRegistry = REGISTRY) -> Tuple[Measure, ...]:
    """The per-query outcome measures at cutoff ``k``, in report order (the registry's)."""
    return registry.outcome_measures(k)



def per_query_from_outcomes(results: Mapping[str, QueryOutcome], k: int,
                            registry: MeasureRegistry = REGISTRY) -> Dict[str, Dict[str, float]]:
    """Per-query vectors keyed by measure name, one per outcome measure of ``registry``.

    A query for which a measure's function returns None is outside its denominator (e.g. AUC
    without a subset, page coverage without a top-k gold); measures no query has are dropped.
    """
    measures = [(m.name, registry.definition(m).per_query) for m in registry.outcome_measures(k)]
    vectors: Dict[str, Dict[str, float]] = {name: {} for name, _ in measures}
    for qid, outcome in results.items():
        for name, value_of in measures:
            value = value_of(outcome)
            if value is not None:
                vectors[name][qid] = value
    return {name: v for name, v in vectors.items() if v}


def per_query(release: Release, run: Run, k: int = DEFAULT_K,
              facts: Optional[Mapping[str, QueryFacts]] = None) -> Dict[str, Dict[str, float]]:
    """Per-query outcome vectors ``{measure: {qid: value}}`` (values in [0, 1])."""
    return per_query_from_outcomes(outcomes(release, run, k, facts), k)


def mean_points(values: Mapping[str, float]) -> float:
    """Mean in percentage points (x 100) using math.fsum; empty vectors are refused."""
    if not values:
        raise ValueError("cannot average an empty vector")
    return 100.0 * math.fsum(values.values()) / len(values)


def aggregate(vectors: Mapping[str, Mapping[str, float]], qids: Optional[Sequence[str]] = None,
              registry: MeasureRegistry = REGISTRY) -> Dict[str, float]:
    """Aggregate per-query vectors into percentage points, optionally over a subset of queries.

    Adds ``queries`` (the denominator of the unconditional measures) and, for conditional
    measures (:attr:`nclue.measures.MeasureDef.conditional`), ``<name>_queries``.
    """
    selected = None if qids is None else set(qids)
    result: Dict[str, float] = {}
    for name, vector in vectors.items():
        values = vector if selected is None else {q: v for q, v in vector.items() if q in selected}
        if values:
            result[name] = mean_points(values)
        measure = registry.parse(name)
        if registry.definition(measure).conditional:
            result[count_key(measure)] = len(values)
    base = next(iter(vectors.values()))
    result["queries"] = len(base) if selected is None else len(selected & set(base))
    return result


def evaluate(release: Release, run: Run, k: int = DEFAULT_K,
             facts: Optional[Mapping[str, QueryFacts]] = None) -> Dict[str, float]:
    """Aggregate scores of a run in percentage points (unrounded); ``facts``: the release's
    :func:`query_facts`, when the caller has them already."""
    return aggregate(per_query(release, run, k, facts))
