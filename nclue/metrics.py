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
from typing import Dict, Mapping, Optional, Sequence, Tuple

from .measures import DEFAULT_K, REGISTRY, Measure, MeasureRegistry, count_key
# the per-query definitions, re-exported: callers import them from here or from query_outcomes
from .query_outcomes import (PAGES_PER_GOLD, QueryFacts, QueryOutcome, first_ranks,  # noqa: F401
                             gold_ndcg, graded_ndcg, is_page_scored, page_coverage,
                             pairwise_auc, query_facts, query_outcome, surfaced_pages)
from .release import Release
from .runs import Run
from .tie_contract import outcome_records, outcome_vectors


def outcomes(release: Release, run: Run, k: int = DEFAULT_K,
             facts: Optional[Mapping[str, QueryFacts]] = None) -> Dict[str, QueryOutcome]:
    """Per-query outcome records for every query of the release (sorted by qid), under the run's
    tie rule (:func:`nclue.tie_contract.outcome_records`)."""
    return outcome_records(facts if facts is not None else query_facts(release), run, k)


def outcome_measures(k: int = DEFAULT_K, registry: MeasureRegistry = REGISTRY) -> Tuple[Measure, ...]:
    """The per-query outcome measures at cutoff ``k``, in report order (the registry's)."""
    return registry.outcome_measures(k)



def per_query_from_outcomes(results: Mapping[str, QueryOutcome], k: int,
                            registry: MeasureRegistry = REGISTRY) -> Dict[str, Dict[str, float]]:
    """Per-query vectors keyed by measure name, one per outcome measure of ``registry`` that the
    records' tie rule computes from the records alone (:func:`nclue.tie_contract.outcome_vectors`;
    the records of ``expected`` hold no first ranks).

    A query for which a measure's function returns None is outside its denominator (e.g. AUC
    without a subset, page coverage without a top-k gold); measures no query has are dropped.
    """
    rule = "expected" if any(o.ranks is None for o in results.values()) else "input"
    return outcome_vectors(results, rule, k, registry)


def per_query(release: Release, run: Run, k: int = DEFAULT_K,
              facts: Optional[Mapping[str, QueryFacts]] = None) -> Dict[str, Dict[str, float]]:
    """Per-query outcome vectors ``{measure: {qid: value}}`` (values in [0, 1]) under the run's
    tie rule."""
    facts = facts if facts is not None else query_facts(release)
    return outcome_vectors(outcome_records(facts, run, k), run.tie_rule, k, REGISTRY, facts,
                           run.rankings)


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
