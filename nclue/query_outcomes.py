"""Per-query outcomes of one ranking: the n-Clue paper's per-query definitions (arXiv
2607.24165, sec. 3.1, Table 4, Table 8, Table S5b), computed from precomputed query facts.

:mod:`nclue.metrics` turns these outcomes into per-query vectors and aggregates (and, under the
``expected`` tie rule, :mod:`nclue.ties` computes their exact expectations over tie orders).
Every :class:`QueryOutcome` record, of one order or of the expectations, is made by
:func:`build_outcome`; :mod:`nclue.tie_contract` says which record each measure reads under each
tie rule.
"""

import itertools
import math
import operator
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

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
    clues: Mapping[str, int]  # every judged document (golds and subsets) -> its clue count
    support: Mapping[str, Tuple[FrozenSet[int], ...]]  # gold docid -> support pages per condition
    #: the clue counts, largest first: the ideal ranking's gains (graded NDCG), derived once
    ideal_gains: Tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ideal_gains", tuple(sorted(self.clues.values(), reverse=True)))


def query_facts(release: Release) -> Dict[str, QueryFacts]:
    """Precompute per-query judgment facts (sorted by qid)."""
    facts = {}
    for qid in sorted(release.queries):
        judged = release.judgments.get(qid, {})
        golds = frozenset([d for d, j in judged.items() if j.label == "gold"])
        support = {}
        for docid in golds:
            pages = release.evidence.get((qid, docid))
            if pages is not None:
                support[docid] = tuple(frozenset(p) for p in pages)
        facts[qid] = QueryFacts(
            qid=qid,
            n_conditions=len(release.queries[qid].conditions),
            golds=golds,
            subsets=frozenset(judged.keys() - golds),
            clues={d: j.clues for d, j in judged.items()},
            support=support,
        )
    return facts


def judged_ranks(facts: QueryFacts, docs: Sequence[str]) -> List[Tuple[int, str]]:
    """(1-based rank, docid) of every judged document (gold or subset) in ranking order: all
    that the first ranks and the AUC read of a ranking (one pass over it for both)."""
    return list(itertools.compress(enumerate(docs, start=1), map(facts.clues.__contains__, docs)))


def first_ranks(facts: QueryFacts, docs: Sequence[str],
                judged: Optional[Sequence[Tuple[int, str]]] = None) -> Tuple[Optional[int], Optional[int]]:
    """(r_G, r_S): 1-based ranks of the first gold and first judged subset, None if absent.
    ``judged``: :func:`judged_ranks` of ``docs``, when already known."""
    first_gold = first_subset = None
    if judged is None:
        judged = itertools.compress(enumerate(docs, start=1), map(facts.clues.__contains__, docs))
    for rank, docid in judged:  # golds and subsets only (facts.clues holds exactly them)
        if docid in facts.golds:
            if first_gold is None:
                first_gold = rank
        elif first_subset is None:
            first_subset = rank
        if first_gold is not None and first_subset is not None:
            break
    return first_gold, first_subset


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


#: the log2 discounts of ranks 1..1000, computed once (a constant: the same values _discount gives)
_DISCOUNTS = tuple(map(_discount, range(1, 1001)))


def _discounts(k: int) -> Sequence[float]:
    """The discounts of ranks 1..k."""
    return _DISCOUNTS[:k] if k <= len(_DISCOUNTS) else tuple(map(_discount, range(1, k + 1)))


#: the ideal DCG of n golds (binary gains) for n = 0..1000: fsums of the discounts' prefixes
_GOLD_IDEALS = tuple(math.fsum(_DISCOUNTS[:n]) for n in range(len(_DISCOUNTS) + 1))


def gold_ndcg(facts: QueryFacts, docs: Sequence[str], k: int) -> float:
    """Gold-NDCG@k: binary gain on golds, log2 discount, ideal from the gold count."""
    n = min(k, len(facts.golds))
    ideal = _GOLD_IDEALS[n] if n < len(_GOLD_IDEALS) else math.fsum(_discounts(n))
    if ideal == 0.0:
        return 0.0
    dcg = math.fsum(itertools.compress(_discounts(k), map(facts.golds.__contains__, docs[:k])))
    return dcg / ideal


def graded_ndcg(facts: QueryFacts, docs: Sequence[str], k: int) -> float:
    """Graded NDCG@k with gain = clue count (linear gain, log2 discount)."""
    discounts = _discounts(k)
    gains = facts.ideal_gains[:k]
    ideal = math.fsum(map(operator.mul, gains, discounts))
    if ideal == 0.0:
        return 0.0
    dcg = math.fsum(map(operator.mul, map(facts.clues.get, docs[:k], itertools.repeat(0)), discounts))
    return dcg / ideal


def pairwise_auc(facts: QueryFacts, docs: Sequence[str],
                 judged: Optional[Sequence[Tuple[int, str]]] = None) -> Optional[float]:
    """Gold-over-subset AUC over the whole supplied ranking; None without a gold or a subset.
    ``judged``: :func:`judged_ranks` of ``docs``, when already known."""
    n_gold, n_subset = len(facts.golds), len(facts.subsets)
    if n_gold == 0 or n_subset == 0:
        return None
    wins = 0
    subsets_seen = golds_seen = 0
    ordered = (itertools.compress(docs, map(facts.clues.__contains__, docs)) if judged is None
               else (docid for _, docid in judged))
    for docid in ordered:  # judged only
        if docid in facts.golds:
            wins += n_subset - subsets_seen  # beats every subset ranked later or not at all
            golds_seen += 1
        else:
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


class RandomRankError(ValueError):
    """A measure read ``first_gold`` / ``first_subset`` of an outcome record of the tie rule
    ``expected``, where those ranks are random (their law is :func:`nclue.ties.first_rank_law`;
    a measure that reads them declares ``expectation="first_ranks"``)."""


@dataclass(frozen=True)
class QueryOutcome:
    """All per-query outcomes of one ranking at one cutoff.

    Under an order rule (``input``, ``trec_eval``) every field is the outcome of the scored
    order: ``ranks`` holds (r_G, r_S) and the 0/1 fields are integers. Under ``expected`` the
    numeric fields hold exact expectations over tie orders (probabilities for the 0/1 ones; the
    two conditional page measures their expectations given a gold hit) and ``ranks`` is None:
    the first ranks are random, and reading :attr:`first_gold` raises :class:`RandomRankError`.
    Every record is made by :func:`build_outcome`.
    """

    # one record per query, run, cutoff and label version (hundreds of thousands in a
    # verification): slots, not a __dict__ each (no field has a default, as slots require)
    __slots__ = ("qid", "k", "ranks", "nclue", "gold_hit", "subset_first", "gold_ndcg", "graded_ndcg",
                 "auc", "gold_support", "condition_coverage", "full_coverage")

    qid: str
    k: int
    ranks: Optional[Tuple[Optional[int], Optional[int]]]
    nclue: float
    gold_hit: float
    subset_first: float
    gold_ndcg: float
    graded_ndcg: float
    auc: Optional[float]
    gold_support: Optional[float]
    condition_coverage: Optional[float]
    full_coverage: Optional[float]

    @property
    def first_gold(self) -> Optional[int]:
        """r_G: the 1-based rank of the first gold, None if no gold is retrieved."""
        return self._rank(0)

    @property
    def first_subset(self) -> Optional[int]:
        """r_S: the 1-based rank of the first judged subset, None if none is retrieved."""
        return self._rank(1)

    def _rank(self, i: int) -> Optional[int]:
        if self.ranks is None:
            raise RandomRankError(f"query {self.qid!r}: the first ranks are random under the tie "
                                  "rule 'expected'; a measure that reads them declares "
                                  "expectation='first_ranks'")
        return self.ranks[i]


@dataclass(frozen=True)
class PageOutcome:
    """The page measures of one query (Table S5b), or their expectations: Gold+Support, and the
    condition and full coverage given a gold hit (None without a possible gold hit)."""

    gold_support: float
    condition_coverage: Optional[float]
    full_coverage: Optional[float]


def build_outcome(qid: str, k: int, ranks: Optional[Tuple[Optional[int], Optional[int]]],
                  hit: Any, success: Any, gold_ndcg_value: float, graded_ndcg_value: float,
                  auc: Optional[Any], pages: Optional[PageOutcome]) -> QueryOutcome:
    """The one builder of :class:`QueryOutcome` records, for every tie rule.

    ``hit`` / ``success``: Gold Hit@k and n-Clue success, 0/1 under an order rule or exact
    probabilities (Fractions) under ``expected``; subset first is ``hit - success`` (success
    implies a hit, n-Clue paper Table 4). Probabilities are rounded to float once, here.
    """
    def number(value: Any) -> float:
        return value if isinstance(value, int) else float(value)

    return QueryOutcome(
        qid=qid, k=k, ranks=ranks,
        nclue=number(success), gold_hit=number(hit), subset_first=number(hit - success),
        gold_ndcg=gold_ndcg_value, graded_ndcg=graded_ndcg_value,
        auc=None if auc is None else float(auc),
        gold_support=None if pages is None else number(pages.gold_support),
        condition_coverage=None if pages is None or pages.condition_coverage is None
        else float(pages.condition_coverage),
        full_coverage=None if pages is None or pages.full_coverage is None
        else number(pages.full_coverage),
    )


def rank_outcomes(first_gold: Optional[int], first_subset: Optional[int],
                  k: int) -> Tuple[int, int]:
    """(Gold Hit@k, n-Clue success) of the first ranks (n-Clue paper, sec. 3.1)."""
    hit = first_gold is not None and first_gold <= k
    complete = hit and (first_subset is None or first_gold < first_subset)
    return int(hit), int(complete)


def query_outcome(facts: QueryFacts, ranking: Optional[Ranking], k: int,
                  page_scored: bool = False) -> QueryOutcome:
    """Score one query on the order of its ranking (an absent ranking is an empty one).

    ``page_scored``: the run carries page scores, so the page measures are computed (a query
    without page scores then surfaces no pages).
    """
    docs = tuple(ranking.docs) if ranking is not None else ()  # decoded once (runs.RankedDocs)
    judged = judged_ranks(facts, docs)
    first_gold, first_subset = first_ranks(facts, docs, judged)
    hit, complete = rank_outcomes(first_gold, first_subset, k)
    pages = None
    if page_scored:
        full, fraction = page_coverage(facts, ranking or Ranking(facts.qid, (), ()), k)
        pages = PageOutcome(int(full), fraction if hit else None, int(full) if hit else None)
    return build_outcome(facts.qid, k, (first_gold, first_subset), hit, complete,
                         gold_ndcg(facts, docs, k), graded_ndcg(facts, docs, k),
                         pairwise_auc(facts, docs, judged), pages)


def is_page_scored(run: Run) -> bool:
    """A run is page-scored when any of its rankings carries page scores."""
    return any(r.pages is not None for r in run.rankings.values())
