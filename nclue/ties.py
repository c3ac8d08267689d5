"""Score ties: tie groups, which outcomes a tie decides, and the tie rule ``expected``.

A ranking is re-sorted by descending score (:mod:`nclue.runs`); documents with *equal* scores form
a **tie group** (a maximal run of equal scores). The tie rules ``input`` and ``trec_eval`` pick one
order inside every group. The rule ``expected`` picks none: every per-query measure is replaced by
its exact expectation over the uniformly random orders of every tie group, drawn independently
(McSherry & Najork, "Computing Information Retrieval Performance Measures Efficiently in the
Presence of Tied Scores", ECIR 2008, for NDCG; the closed forms for the n-Clue measures are derived
below). The set of retrieved documents is the run's: ties are never broken across the depth cut
of the file, and documents the run does not retrieve keep the shared rank infinity of the
deterministic definitions (:mod:`nclue.metrics`; n-Clue paper, arXiv 2607.24165, sec. 3.1).

Notation for one query: a group occupies ranks ``p .. p + m - 1`` (``m`` documents); ``c =
clamp(k - p + 1, 0, m)`` of its positions lie within the top k. A uniformly random order of the
group puts a uniformly random ``c``-subset of its documents in those positions, so for ``x`` marked
documents of the group

    P(none of the x in the top k)   =  C(m - x, c) / C(m, c)                                (H)

(the hypergeometric zero term; ``C(n, r) = 0`` for ``r > n``).

Closed forms (each function below states its own and is tested against brute-force enumeration
of all tie orders in ``tests/test_ties.py``):

- **Gold Hit@k**: only the first group holding a gold can matter (earlier groups hold none; a
  later one only counts when this one misses, and then every later group starts after rank k, since
  this group must straddle the cut to miss). With ``g`` golds there: ``1 - C(m-g, c)/C(m, c)``.
- **n-Clue Score@k** (success: ``r_G <= k`` and ``r_G < r_S``): the first *judged* document
  decides it. Let the first group holding a judged document hold ``g`` golds and ``s`` judged
  subsets (``j = g + s``). Success means: that group's first judged document is a gold and lies in
  the top k. Which judged document comes first is independent of the positions the judged
  documents occupy, so ``P = g/j * (1 - C(m-j, c)/C(m, c))``.
- **Outcomes** (Table 4): complete first = n-Clue success; subset first = ``P(hit) - P(success)``
  (success implies a hit); no top-k gold = ``1 - P(hit)``.
- **Gold-NDCG@k / graded NDCG@k** (McSherry & Najork, eq. for DCG with ties): the expected gain at
  every position of a group is the group's mean gain, so ``E[DCG@k] = sum over groups of
  mean gain * sum of the discounts 1/log2(r + 1) of its ranks r <= k``. The ideal DCG does not
  depend on the order, so ``E[NDCG@k] = E[DCG@k] / IDCG@k``.
- **HC@k** (Multi³IR, eq. 5): the mean over perspectives of the probability that some supporting
  document reaches the top k (the Gold Hit form with that perspective's documents).
- **AUC**: a (gold, subset) pair in two different groups is ordered by the groups; a pair inside one
  group is ordered either way with probability 1/2, the same as two unretrieved documents.
- **Gold+Support@k / condition and full page coverage** (Table S5b): which golds reach the top k is
  random only in the group that straddles the cut. The page evidence of each gold (its three best
  pages, stable order breaking page-score ties) does not depend on document ties. Gold+Support@k is
  ``P(some top-k gold covers every condition)``; the two conditional measures are their exact
  expectations *given a gold hit* (``E[X * hit] / P(hit)``), defined for queries with
  ``P(hit) > 0``. They enumerate how many golds of each coverage pattern (at most 2^3 patterns) the
  straddling group puts in the top k (multivariate hypergeometric weights).

The 0/1 fields of :class:`nclue.metrics.QueryOutcome` hold probabilities under ``expected``; its
first ranks are random, so the record holds none (``ranks`` is None): a measure of the ranks of
the first gold and the first subset (Gold RR, say) is summed over their exact joint law
(:func:`first_rank_law`, with :func:`outcome_at_ranks`). Which measure is computed how under each
tie rule is declared once per measure and dispatched by :mod:`nclue.tie_contract`. All
probabilities are computed as exact fractions and rounded to float once.

A tie **decides** a query's outcome when its n-Clue success or its gold hit has a probability
strictly between 0 and 1 over the tie orders: then the input order, trec_eval's docid rule or any
other convention chooses the outcome (:func:`tie_decides`).
"""

import math
import operator
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import compress, product
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .query_outcomes import (PageOutcome, QueryFacts, QueryOutcome, build_outcome, rank_outcomes,
                             surfaced_pages)
from .runs import Ranking, Run

ZERO = Fraction(0)
ONE = Fraction(1)


@dataclass(frozen=True)
class TieGroup:
    """A maximal run of equal scores: ranks ``start .. start + len(docs) - 1`` (1-based)."""

    start: int
    docs: Tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.docs)

    def in_top(self, k: int) -> int:
        """How many of the group's positions lie within the top ``k`` (``c`` in the docstring)."""
        return max(0, min(self.size, k - self.start + 1))


def tie_groups(docs: Sequence[str], scores: Sequence[float]) -> Tuple[TieGroup, ...]:
    """Split a score-sorted ranking into its tie groups (maximal runs of equal scores).

    Refuses scores that are not non-increasing (a ranking must be sorted first, see
    :func:`nclue.runs.order_by_score`).
    """
    n = len(docs)
    if n != len(scores):
        raise ValueError(f"{n} docs but {len(scores)} scores")
    if not n:
        return ()
    following = scores[1:]
    if any(map(operator.gt, following, scores)):
        raise ValueError("scores must be sorted in descending order")
    docs = tuple(docs)
    # a group ends where the next score differs (-0.0 and 0.0 are one score)
    bounds = [0, *compress(range(1, n), map(operator.ne, following, scores)), n]
    return tuple(TieGroup(begin + 1, docs[begin:end]) for begin, end in zip(bounds, bounds[1:]))


def none_in_top(size: int, marked: int, slots: int) -> Fraction:
    """(H): probability that none of ``marked`` documents of a group of ``size`` lands in its
    ``slots`` top-k positions under a uniformly random order: ``C(size-marked, slots) / C(size, slots)``."""
    return Fraction(math.comb(size - marked, slots), math.comb(size, slots))


def expected_gold_hit(golds: Iterable[str], groups: Sequence[TieGroup], k: int) -> Fraction:
    """P(a gold within the top k) = ``1 - C(m-g, c)/C(m, c)`` for the first group with a gold
    (any document set can stand for the golds: HC@k uses a perspective's documents)."""
    gold_set = set(golds)
    for group in groups:
        g = sum(1 for d in group.docs if d in gold_set)
        if g:
            return ONE - none_in_top(group.size, g, group.in_top(k))
    return ZERO


def expected_hard_coverage(supports: Sequence[Iterable[str]], groups: Sequence[TieGroup],
                           k: int) -> Fraction:
    """E[HC@k] (Multi3IR, eq. 5): HC@k is the mean over perspectives of
    1[some supporting document in the top k], so its expectation is the mean of those
    probabilities, each the hit probability of :func:`expected_gold_hit` with the perspective's
    supporting documents in place of the golds."""
    if not supports:
        raise ValueError("a query needs at least one perspective")
    return sum((expected_gold_hit(docs, groups, k) for docs in supports), ZERO) / len(supports)


def expected_nclue(golds: Iterable[str], subsets: Iterable[str], groups: Sequence[TieGroup],
                   k: int) -> Fraction:
    """P(r_G <= k and r_G < r_S) = ``g/j * (1 - C(m-j, c)/C(m, c))`` for the first group holding
    a judged document (``g`` golds, ``j`` judged documents); 0 when nothing judged is retrieved.

    n-Clue paper, sec. 3.1: the first judged document decides success, and it must be a gold.
    """
    gold_set, subset_set = set(golds), set(subsets)
    for group in groups:
        g = sum(1 for d in group.docs if d in gold_set)
        j = g + sum(1 for d in group.docs if d in subset_set)
        if j:
            return Fraction(g, j) * (ONE - none_in_top(group.size, j, group.in_top(k)))
    return ZERO


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def expected_dcg(gains: Mapping[str, float], groups: Sequence[TieGroup], k: int) -> float:
    """E[DCG@k] (McSherry & Najork 2008): each top-k rank of a group gets the group's mean gain."""
    terms = []
    for group in groups:
        c = group.in_top(k)
        if c == 0:
            break
        mean_gain = math.fsum(gains.get(d, 0) for d in group.docs) / group.size
        terms.extend(mean_gain * _discount(r) for r in range(group.start, group.start + c))
    return math.fsum(terms)


def expected_gold_ndcg(golds: Iterable[str], groups: Sequence[TieGroup], k: int) -> float:
    """E[Gold-NDCG@k]: binary gain on golds, ideal DCG from min(k, |G|) golds (0 without golds)."""
    gold_set = set(golds)
    ideal = math.fsum(_discount(r) for r in range(1, min(k, len(gold_set)) + 1))
    if ideal == 0.0:
        return 0.0
    return expected_dcg({d: 1 for d in gold_set}, groups, k) / ideal


def expected_graded_ndcg(clues: Mapping[str, int], groups: Sequence[TieGroup], k: int) -> float:
    """E[graded NDCG@k]: gain = clue count, ideal from the judged documents' clue counts."""
    gains = sorted(clues.values(), reverse=True)[:k]
    ideal = math.fsum(g * _discount(r) for r, g in enumerate(gains, start=1))
    if ideal == 0.0:
        return 0.0
    return expected_dcg(clues, groups, k) / ideal


def expected_auc(golds: Iterable[str], subsets: Iterable[str],
                 groups: Sequence[TieGroup]) -> Optional[Fraction]:
    """E[AUC]: pairs in different groups follow the groups, pairs in one group (or both
    unretrieved) count 1/2. None without a gold or a judged subset (n-Clue paper, sec. 3.1)."""
    gold_set, subset_set = set(golds), set(subsets)
    n_gold, n_subset = len(gold_set), len(subset_set)
    if n_gold == 0 or n_subset == 0:
        return None
    twice_wins = 0  # integers throughout (exact): one Fraction at the end
    golds_seen = subsets_seen = 0
    for group in groups:
        docs = group.docs
        g = len(gold_set.intersection(docs))
        s = len(subset_set.intersection(docs))
        if g:
            twice_wins += 2 * g * (n_subset - subsets_seen - s) + g * s
        golds_seen += g
        subsets_seen += s
    twice_wins += (n_gold - golds_seen) * (n_subset - subsets_seen)
    return Fraction(twice_wins, 2 * n_gold * n_subset)


@dataclass(frozen=True)
class PageExpectation:
    """Expected page measures of one query (Table S5b), exact fractions."""

    gold_support: Fraction                   # P(some top-k gold covers every condition)
    condition_coverage: Optional[Fraction]   # E[condition fraction | hit]; None if P(hit) = 0
    full_coverage: Optional[Fraction]        # P(full | hit); None if P(hit) = 0


def expected_page_measures(n_conditions: int, gold_masks: Mapping[str, Tuple[bool, ...]],
                           groups: Sequence[TieGroup], k: int) -> PageExpectation:
    """Exact expected page measures.

    ``gold_masks`` maps every gold to the conditions its surfaced pages cover (all False for a gold
    without stored support). Golds in groups wholly inside the top k are certain; in the group that
    straddles the cut, a pattern-count vector ``(n_t)`` of golds reaches the top k with probability
    ``prod_t C(N_t, n_t) * C(m - g, c - sum n_t) / C(m, c)`` (multivariate hypergeometric).
    """
    certain: List[Tuple[bool, ...]] = []
    boundary: Optional[TieGroup] = None
    for group in groups:
        c = group.in_top(k)
        if c == 0:
            break
        if c == group.size:
            certain.extend(gold_masks[d] for d in group.docs if d in gold_masks)
        else:
            boundary = group
    outcomes: List[Tuple[Fraction, List[Tuple[bool, ...]]]] = [(ONE, [])]
    if boundary is not None:
        patterns = Counter(gold_masks[d] for d in boundary.docs if d in gold_masks)
        kinds = sorted(patterns)
        g = sum(patterns.values())
        m, c = boundary.size, boundary.in_top(k)
        total = math.comb(m, c)
        outcomes = []
        for counts in product(*(range(patterns[t] + 1) for t in kinds)):
            rest = c - sum(counts)
            if rest < 0 or rest > m - g:
                continue
            ways = math.comb(m - g, rest)
            for t, n in zip(kinds, counts):
                ways *= math.comb(patterns[t], n)
            outcomes.append((Fraction(ways, total), [t for t, n in zip(kinds, counts) if n]))
    p_hit = p_full = cov_hit = ZERO
    for weight, drawn in outcomes:
        masks = certain + drawn
        if not masks:
            continue
        covered = sum(1 for i in range(n_conditions) if any(mask[i] for mask in masks))
        p_hit += weight
        cov_hit += weight * Fraction(covered, n_conditions)
        if any(all(mask) for mask in masks):
            p_full += weight
    if p_hit == 0:
        return PageExpectation(p_full, None, None)
    return PageExpectation(p_full, cov_hit / p_hit, p_full / p_hit)


def gold_page_masks(facts: QueryFacts, ranking: Ranking) -> Dict[str, Tuple[bool, ...]]:
    """Per retrieved gold: which conditions its surfaced pages cover (as :func:`metrics.page_coverage`)."""
    pages = ranking.pages or {}
    masks = {}
    for docid in ranking.docs:
        if docid not in facts.golds:
            continue
        support = facts.support.get(docid)
        if support is None:
            masks[docid] = (False,) * facts.n_conditions
            continue
        shown = surfaced_pages(pages.get(docid, ()))
        masks[docid] = tuple(bool(shown & pages_i) for pages_i in support)
    return masks


def tie_decides(facts: QueryFacts, ranking: Optional[Ranking], k: int) -> bool:
    """True when a score tie decides the query's n-Clue success or gold hit at k
    (its probability over tie orders is strictly between 0 and 1)."""
    if ranking is None or all(map(operator.gt, ranking.scores, ranking.scores[1:])):
        return False  # no two equal scores: one order only
    groups = tie_groups(ranking.docs, ranking.scores)
    hit = expected_gold_hit(facts.golds, groups, k)
    success = expected_nclue(facts.golds, facts.subsets, groups, k)
    return 0 < hit < 1 or 0 < success < 1


def tie_decided_queries(facts: Mapping[str, QueryFacts], run: Run, k: int) -> Tuple[str, ...]:
    """The qids (sorted) whose n-Clue success or gold hit at k a score tie decides."""
    return tuple(qid for qid in sorted(facts)
                 if tie_decides(facts[qid], run.rankings.get(qid), k))


def _offset_law(size: int, marked: int) -> List[Tuple[int, int]]:
    """(count, offset): in how many of the ``C(size, marked)`` placements of ``marked``
    documents in a group of ``size`` the first of them sits at 0-based ``offset``."""
    return [(math.comb(size - 1 - a, marked - 1), a) for a in range(size - marked + 1)]


def _joint_offsets(size: int, g: int, s: int) -> List[Tuple[int, int, int]]:
    """(count, first-gold offset, first-subset offset) over the ``C(m, g) C(m-g, s)`` placements
    of ``g`` golds and ``s`` subsets in one group of ``m = size`` (both ``g, s >= 1``).

    First gold at ``a`` before first subset at ``b``: the ``a`` places before hold no judged
    document, the ``b - a - 1`` between hold ``t`` golds and no subset, and the ``m - b - 1``
    after hold the other ``g - 1 - t`` golds and ``s - 1`` subsets; the reverse order swaps the
    roles.
    """
    out = []
    for a in range(size):
        for b in range(size):
            if a == b:
                continue
            first, second = (g, s) if a < b else (s, g)  # the role of the earlier document
            lo, hi = min(a, b), max(a, b)
            after = size - hi - 1
            count = sum(math.comb(hi - lo - 1, t) * math.comb(after, first - 1 - t)
                        * math.comb(after - (first - 1 - t), second - 1)
                        for t in range(0, first) if first - 1 - t <= after)
            if count:
                out.append((count, a, b))
    return out


RankLaw = Tuple[Tuple[Fraction, Optional[int], Optional[int]], ...]


def first_rank_law(golds: Iterable[str], subsets: Iterable[str],
                   groups: Sequence[TieGroup]) -> RankLaw:
    """The exact joint law of (r_G, r_S), the 1-based ranks of the first gold and the first
    judged subset (None: none retrieved), over uniformly random orders within tie groups:
    ``((probability, r_G, r_S), ...)``, sorted by ranks (n-Clue paper, sec. 3.1).

    Only the first group holding a gold and the first holding a subset matter; in one group the
    two ranks are dependent (:func:`_joint_offsets`), in two groups independent.
    """
    gold_set, subset_set = set(golds), set(subsets)
    gold_group = subset_group = None
    for group in groups:
        if gold_group is None and gold_set.intersection(group.docs):
            gold_group = group
        if subset_group is None and subset_set.intersection(group.docs):
            subset_group = group
        if gold_group is not None and subset_group is not None:
            break

    def marginal(group: Optional[TieGroup],
                 marked: Iterable[str]) -> List[Tuple[Fraction, Optional[int]]]:
        if group is None:
            return [(ONE, None)]
        n = len(set(marked).intersection(group.docs))
        total = math.comb(group.size, n)
        return [(Fraction(c, total), group.start + a) for c, a in _offset_law(group.size, n)]

    if gold_group is not None and gold_group is subset_group:
        g = len(gold_set.intersection(gold_group.docs))
        s = len(subset_set.intersection(gold_group.docs))
        total = math.comb(gold_group.size, g) * math.comb(gold_group.size - g, s)
        law = [(Fraction(c, total), gold_group.start + a, gold_group.start + b)
               for c, a, b in _joint_offsets(gold_group.size, g, s)]
    else:
        law = [(p * q, r_g, r_s) for p, r_g in marginal(gold_group, gold_set)
               for q, r_s in marginal(subset_group, subset_set)]
    return tuple(sorted(law, key=lambda item: (_rank_key(item[1]), _rank_key(item[2]))))


def _rank_key(rank: Optional[int]) -> float:
    return math.inf if rank is None else rank


def expected_outcome(facts: QueryFacts, ranking: Optional[Ranking], k: int,
                     page_scored: bool = False) -> QueryOutcome:
    """The per-query outcome record with every measure replaced by its exact expectation over
    random orders within tie groups (see the module docstring for each closed form); its first
    ranks are random (``ranks`` None: their law is :func:`first_rank_law`)."""
    ranking = ranking if ranking is not None else Ranking(facts.qid, (), ())
    groups = tie_groups(ranking.docs, ranking.scores)
    pages = None
    if page_scored:
        law = expected_page_measures(facts.n_conditions, gold_page_masks(facts, ranking),
                                     groups, k)
        pages = PageOutcome(law.gold_support, law.condition_coverage, law.full_coverage)
    return build_outcome(facts.qid, k, None, expected_gold_hit(facts.golds, groups, k),
                         expected_nclue(facts.golds, facts.subsets, groups, k),
                         expected_gold_ndcg(facts.golds, groups, k),
                         expected_graded_ndcg(facts.clues, groups, k),
                         expected_auc(facts.golds, facts.subsets, groups), pages)


def outcome_at_ranks(expected: QueryOutcome, first_gold: Optional[int],
                     first_subset: Optional[int]) -> QueryOutcome:
    """The expected record of a query with its first ranks fixed at one point of their law: the
    rank outcomes (Gold Hit, n-Clue success, subset first) of those ranks, every other field the
    expected record's (so that summing a measure affine in them over the law leaves them exact)."""
    hit, success = rank_outcomes(first_gold, first_subset, expected.k)
    pages = None if expected.gold_support is None else PageOutcome(
        expected.gold_support, expected.condition_coverage, expected.full_coverage)
    return build_outcome(expected.qid, expected.k, (first_gold, first_subset), hit, success,
                         expected.gold_ndcg, expected.graded_ndcg, expected.auc, pages)
