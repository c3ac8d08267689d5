"""Sensitivity analyses of a paired contrast (n-Clue paper, arXiv 2607.24165, supplement
sec. 3-4, Tables S1e-S1i).

Shared-document dependence (connected components of the query-document membership graph,
crossed query/document weighting, leave-one-document-out ranges, removal of the highest-degree
documents), common-support ordering with the miss / subset-first / gold-first decomposition,
and the exact adversarial promotion bounds; plus adapters from a loaded release and run.
"""

from dataclasses import dataclass
from typing import (Any, Dict, FrozenSet, Hashable, Iterable, List, Mapping, Optional, Sequence,
                    Tuple)
import math
import operator
import random

from ..errors import NclueError
from .resampling import (DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED, Interval, Vector,
                         _describe, _integral, _level, _mean, _paired, _positive_int,
                         _same_queries, _sort_key, percentile)

# --------------------------------------------------------------------------------------------
# Shared-document dependence (supplement sec. 4, Table S1i)
# --------------------------------------------------------------------------------------------

Memberships = Mapping[Hashable, Iterable[Hashable]]


def _memberships(memberships: Memberships, qids: Iterable[Hashable], *,
                 require_nonempty: bool) -> Dict[Hashable, FrozenSet[Hashable]]:
    if not isinstance(memberships, Mapping):
        raise NclueError("memberships: expected a mapping qid -> iterable of document ids")
    out = {}
    missing = []
    for q in qids:
        if q not in memberships:
            missing.append(q)
            continue
        docs = memberships[q]
        if isinstance(docs, (str, bytes)):
            raise NclueError(f"memberships[{q!r}]: expected an iterable of document ids, "
                             f"got the string {docs!r}")
        try:
            docs = frozenset(docs)
        except TypeError:
            raise NclueError(f"memberships[{q!r}]: expected an iterable of hashable "
                             "document ids") from None
        if require_nonempty and not docs:
            raise NclueError(f"query {q!r} has no document memberships")
        out[q] = docs
    if missing:
        raise NclueError(f"membership map is missing {len(missing)} queries ({_describe(missing)})")
    return out


def membership_components(memberships: Memberships) -> List[Tuple[Hashable, ...]]:
    """Connected components of the query-document membership graph (Table S1i).

    Two queries are connected when they share a document (transitively). Each component is
    returned as a sorted tuple of query ids; components are ordered by size (largest first),
    then by their first query id. A query without memberships is its own component.
    """
    if not isinstance(memberships, Mapping) or not memberships:
        raise NclueError("membership_components: expected a non-empty mapping qid -> documents")
    mem = _memberships(memberships, memberships.keys(), require_nonempty=False)
    parent: Dict[Hashable, Hashable] = {q: q for q in mem}

    def find(x: Hashable) -> Hashable:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: Dict[Hashable, Hashable] = {}
    for q in sorted(mem, key=_sort_key):
        for d in mem[q]:
            if d in owner:
                a, b = find(owner[d]), find(q)
                if a != b:
                    parent[b] = a
            else:
                owner[d] = q
    groups: Dict[Hashable, List[Hashable]] = {}
    for q in mem:
        groups.setdefault(find(q), []).append(q)
    comps = [tuple(sorted(g, key=_sort_key)) for g in groups.values()]
    comps.sort(key=lambda c: (-len(c), _sort_key(c[0])))
    return comps


@dataclass(frozen=True)
class CrossedWeights:
    """Replicate weights of the crossed query/document bootstrap, drawn once and reusable for
    every contrast over the same queries and memberships (the draws do not depend on values).

    ``qids`` is the sorted query order; ``replicates[r]`` is ``(indices, weights)`` of the
    queries with a nonzero weight in replicate r.
    """

    qids: Tuple[Hashable, ...]
    replicates: Tuple[Tuple[Tuple[int, ...], Tuple[float, ...]], ...]
    seed: int


#: crossed_weights uses bitmasks when the membership lists hold more than this many entries per
#: document (building a replicate's bitmasks costs about one step per document)
BITMASK_FACTOR = 8


def _popcount_py39(value: int) -> int:
    """Number of set bits of a non-negative int (Python 3.9 has no ``int.bit_count``)."""
    return bin(value).count("1")


_popcount = getattr(int, "bit_count", _popcount_py39)


def _bitmask(indices: Iterable[int]) -> int:
    mask = 0
    for i in indices:
        mask |= 1 << i
    return mask


def _level_masks(counts: Sequence[int]) -> List[int]:
    """``[L_top, ..., L_1]``: L_j has bit i set when ``counts[i] >= j``."""
    top = max(counts, default=0)
    exact = [0] * (top + 1)  # exact[c]: the indices counted exactly c times
    for i, c in enumerate(counts):
        if c:
            exact[c] |= 1 << i
    levels = []
    running = 0
    for c in range(top, 0, -1):
        running |= exact[c]
        levels.append(running)
    return levels


def crossed_weights(qids: Iterable[Hashable], memberships: Memberships, *,
                    replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED) -> CrossedWeights:
    """Draw the crossed query/document weights (see :func:`crossed_bootstrap`)."""
    replicates = _positive_int(replicates, "replicates")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise NclueError(f"seed must be an integer, got {seed!r}")
    order = sorted(qids, key=_sort_key)
    mem = _memberships(memberships, order, require_nonempty=True)
    docs = sorted(set().union(*mem.values()), key=_sort_key)
    doc_index = {d: i for i, d in enumerate(docs)}
    doc_lists = [sorted(doc_index[d] for d in mem[q]) for q in order]
    sizes = [len(lst) for lst in doc_lists]
    nq, nd = len(order), len(docs)
    # long membership lists (judged pools): popcounts of bitmasks; short ones (golds): sums
    masks = ([_bitmask(lst) for lst in doc_lists] if sum(sizes) > BITMASK_FACTOR * nd
             else None)
    rng = random.Random(seed)
    qpop, dpop = range(nq), range(nd)
    drawn = []
    attempts = 0
    while len(drawn) < replicates:
        attempts += 1
        if attempts > 100 * replicates + 1000:
            raise NclueError("crossed_bootstrap: weights keep vanishing; too few queries/documents")
        qcount = [0] * nq
        for i in rng.choices(qpop, k=nq):
            qcount[i] += 1
        dcount = [0] * nd
        for i in rng.choices(dpop, k=nd):
            dcount[i] += 1
        # the sum of dcount over a query's documents equals the sum over j >= 1 of how many of
        # them were drawn at least j times: popcounts of bitmask intersections, same integers
        levels = _level_masks(dcount) if masks is not None else None
        indices, weights = [], []
        for i in range(nq):
            c = qcount[i]
            if c:
                if levels is None:
                    drawn_docs = sum(map(dcount.__getitem__, doc_lists[i]))
                else:
                    mask = masks[i]
                    drawn_docs = sum([_popcount(mask & level) for level in levels])
                w = c * drawn_docs / sizes[i]
                if w:
                    indices.append(i)
                    weights.append(w)
        if weights:
            drawn.append((tuple(indices), tuple(weights)))
    return CrossedWeights(tuple(order), tuple(drawn), seed)


def crossed_bootstrap(base: Vector, variant: Vector, memberships: Memberships, *,
                      replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                      level: float = DEFAULT_LEVEL,
                      weights: Optional[CrossedWeights] = None) -> Interval:
    """Crossed query/document weighting interval for ``mean(variant - base)`` (Table S1i).

    A stress model for nonidentical queries that share documents (a pigeonhole bootstrap,
    Owen 2007): each replicate draws independent multinomial resampling counts for the Q queries
    (``rng.choices(range(Q), k=Q)``) and then for the D documents (``rng.choices(range(D), k=D)``),
    queries and documents in sorted id order. Query q gets weight
    ``W_q = c_q * mean_{d in M_q} c_d`` over its memberships ``M_q`` (gold memberships, or every
    judged gold/subset membership), and the replicate statistic is
    ``sum_q W_q (variant_q - base_q) / sum_q W_q``. A replicate whose weights are all zero is
    redrawn (from the same stream). Every query needs at least one membership.

    ``weights``: draws from :func:`crossed_weights` for the same queries, memberships, seed and
    replicate count, reused across contrasts (the result is identical to drawing them here).
    """
    level = _level(level)
    estimate, stats = crossed_distribution(base, variant, memberships, replicates=replicates,
                                           seed=seed, weights=weights)
    alpha = (1 - level) / 2
    return Interval(estimate=estimate, lo=percentile(stats, alpha),
                    hi=percentile(stats, 1 - alpha), level=level, replicates=len(stats),
                    units=len(_paired(base, variant)))


def crossed_distribution(base: Vector, variant: Vector, memberships: Memberships, *,
                         replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                         weights: Optional[CrossedWeights] = None) -> Tuple[float, List[float]]:
    """The observed ``mean(variant - base)`` and the sorted replicate statistics of
    :func:`crossed_bootstrap` (same draws, same numbers; for their Monte Carlo error)."""
    diff = _paired(base, variant)
    if weights is None:
        weights = crossed_weights(diff.keys(), memberships, replicates=replicates, seed=seed)
    elif set(weights.qids) != set(diff) or len(weights.replicates) != replicates or weights.seed != seed:
        raise NclueError("crossed_bootstrap: the precomputed weights were drawn for other "
                         "queries, replicates or seed")
    values = [diff[q] for q in weights.qids]
    pick = values.__getitem__
    # fsum: correctly rounded, so the same on every Python version
    stats = [math.fsum(map(operator.mul, ws, map(pick, indices))) / math.fsum(ws)
             for indices, ws in weights.replicates]
    stats.sort()
    return _mean(values), stats


@dataclass(frozen=True)
class LeaveOneOut:
    """Range of ``mean(variant - base)`` after dropping, in turn, every query of one document."""

    observed: float
    lo: float
    hi: float
    lo_document: Hashable
    hi_document: Hashable
    per_document: Dict[Hashable, Optional[float]]


def leave_one_document_out(base: Vector, variant: Vector,
                           memberships: Memberships) -> LeaveOneOut:
    """Leave-one-(gold-)document ranges (Table S1i).

    For every document d appearing in the memberships, the mean difference over the queries
    whose memberships do not contain d. Documents whose removal leaves no query get ``None`` and
    do not enter the range. Ties for lo/hi go to the first document in sorted id order.
    """
    diff = _paired(base, variant)
    qids = sorted(diff, key=_sort_key)
    mem = _memberships(memberships, qids, require_nonempty=False)
    integral = _integral(diff.values())
    vals = {q: (int(diff[q]) if integral else diff[q]) for q in qids}
    total = sum(vals.values()) if integral else math.fsum(vals.values())
    by_doc: Dict[Hashable, List[Hashable]] = {}
    for q in qids:
        for d in mem[q]:
            by_doc.setdefault(d, []).append(q)
    if not by_doc:
        raise NclueError("leave_one_document_out: the memberships name no documents")
    per_doc: Dict[Hashable, Optional[float]] = {}
    for d in sorted(by_doc, key=_sort_key):
        removed = by_doc[d]
        left = len(qids) - len(removed)
        if left == 0:
            per_doc[d] = None
            continue
        if integral:
            per_doc[d] = (total - sum(vals[q] for q in removed)) / left
        else:
            keep = set(qids) - set(removed)
            per_doc[d] = math.fsum(vals[q] for q in keep) / left
    defined = [(v, d) for d, v in per_doc.items() if v is not None]
    if not defined:
        raise NclueError("leave_one_document_out: every document is shared by all queries")
    lo_v, lo_d = min(defined, key=lambda x: x[0])
    hi_v, hi_d = max(defined, key=lambda x: x[0])
    return LeaveOneOut(observed=_mean(diff.values()), lo=lo_v, hi=hi_v, lo_document=lo_d,
                       hi_document=hi_d, per_document=per_doc)


@dataclass(frozen=True)
class Removal:
    """``mean(variant - base)`` on the queries left after removing the top-degree documents."""

    delta: float
    queries_left: int
    removed: Tuple[Hashable, ...]


def remove_top_degree_documents(base: Vector, variant: Vector, memberships: Memberships,
                                k: int = 20) -> Removal:
    """Remove the k highest-degree documents and every query that contains one (Table S1i).

    Degree = number of queries (of the compared set) whose memberships contain the document;
    ties go to the smaller document id (sorted order). Refused when k exceeds the number of
    documents or when no query is left.
    """
    diff = _paired(base, variant)
    qids = sorted(diff, key=_sort_key)
    mem = _memberships(memberships, qids, require_nonempty=False)
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise NclueError(f"k must be an integer >= 0, got {k!r}")
    degree: Dict[Hashable, int] = {}
    for q in qids:
        for d in mem[q]:
            degree[d] = degree.get(d, 0) + 1
    if k > len(degree):
        raise NclueError(f"cannot remove {k} documents: the memberships name only {len(degree)}")
    ranked = sorted(degree, key=lambda d: (-degree[d], _sort_key(d)))
    removed = tuple(ranked[:k])
    gone = set(removed)
    left = [q for q in qids if not (mem[q] & gone)]
    if not left:
        raise NclueError(f"removing the {k} highest-degree documents leaves no query")
    return Removal(delta=_mean(diff[q] for q in left), queries_left=len(left), removed=removed)


# --------------------------------------------------------------------------------------------
# Common-support ordering and failure decomposition (Table S1f)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcomes:
    """Unconditional outcome proportions of one system (they sum to 1)."""

    miss: float
    subset_first: float
    gold_first: float


@dataclass(frozen=True)
class CommonSupport:
    """Table S1f for one contrast.

    ``support`` is the number of queries where both systems have a gold within the cutoff;
    ``d_base``/``d_variant`` are ``1 - P(subset > gold)`` on that support (``None`` when the support
    is empty) and ``delta_d`` their difference (variant - base).
    """

    queries: int
    support: int
    d_base: Optional[float]
    d_variant: Optional[float]
    delta_d: Optional[float]
    base: Outcomes
    variant: Outcomes


def _rank(value: Any, what: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise NclueError(f"{what}: a rank must be an integer >= 1 or None, got {value!r}")
    return value


def _classify(first_gold: Optional[int], first_subset: Optional[int], k: int) -> str:
    if first_gold is None or first_gold > k:
        return "miss"
    if first_subset is not None and first_subset < first_gold:
        return "subset_first"
    return "gold_first"


def outcome_class(first_ranks: Tuple[Optional[int], Optional[int]], k: int = 10) -> str:
    """``"miss"``, ``"subset_first"`` or ``"gold_first"`` for one query (Table S1f, n-Clue sec. 3.1).

    ``first_ranks = (r_G, r_S)``: 1-based rank of the first gold and of the first judged subset in
    the whole ranking, ``None`` when absent. Miss: no gold within the cutoff (``r_G`` is None or
    ``> k``); subset-first: a gold within the cutoff but ``r_S < r_G``; gold-first (= n-Clue
    success): ``r_G <= k`` and ``r_G < r_S`` (or no subset).
    """
    g, s = _check_pair(first_ranks, "first_ranks")
    return _classify(g, s, _positive_int(k, "k"))


def _check_pair(pair: Any, what: str) -> Tuple[Optional[int], Optional[int]]:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise NclueError(f"{what}: expected (first_gold_rank, first_subset_rank), got {pair!r}")
    g = _rank(pair[0], what)
    s = _rank(pair[1], what)
    if g is not None and g == s:
        raise NclueError(f"{what}: gold and subset cannot share rank {g}")
    return g, s


def common_support_ordering(base: Mapping[Hashable, Tuple[Optional[int], Optional[int]]],
                            variant: Mapping[Hashable, Tuple[Optional[int], Optional[int]]],
                            k: int = 10) -> CommonSupport:
    """Common-support ordering ``D = 1 - P(subset > gold)`` and M/P/G decomposition (Table S1f).

    Inputs map every query to ``(first_gold_rank, first_subset_rank)`` (see :func:`outcome_class`).
    The common support is the set of queries where *both* systems place a gold within rank k;
    on it, ``P(subset > gold)`` is the fraction of queries where a judged subset is ranked above
    the system's first gold, so ``D`` is the fraction that are gold-first. M/P/G are the
    unconditional proportions over all queries (fixed denominator).
    """
    k = _positive_int(k, "k")
    for name, ranks in (("base", base), ("variant", variant)):
        if not isinstance(ranks, Mapping) or not ranks:
            raise NclueError(f"{name}: expected a non-empty mapping qid -> (gold rank, subset rank)")
    _same_queries(base, variant, ("base", "variant"))
    classes = {}
    for name, ranks in (("base", base), ("variant", variant)):
        classes[name] = {q: _classify(*_check_pair(ranks[q], f"{name}[{q!r}]"), k) for q in ranks}
    qids = list(base)
    n = len(qids)
    support = [q for q in qids
               if classes["base"][q] != "miss" and classes["variant"][q] != "miss"]

    def d_of(name: str) -> Optional[float]:
        if not support:
            return None
        return sum(classes[name][q] == "gold_first" for q in support) / len(support)

    def outcomes(name: str) -> Outcomes:
        c = list(classes[name].values())
        return Outcomes(miss=c.count("miss") / n, subset_first=c.count("subset_first") / n,
                        gold_first=c.count("gold_first") / n)

    d_b, d_v = d_of("base"), d_of("variant")
    delta = None
    if d_b is not None:
        hits_b = sum(classes["base"][q] == "gold_first" for q in support)
        hits_v = sum(classes["variant"][q] == "gold_first" for q in support)
        delta = (hits_v - hits_b) / len(support)
    return CommonSupport(queries=n, support=len(support), d_base=d_b, d_variant=d_v,
                         delta_d=delta, base=outcomes("base"), variant=outcomes("variant"))


# --------------------------------------------------------------------------------------------
# Adversarial promotion bounds (Table S1h)
# --------------------------------------------------------------------------------------------

LABELS = ("gold", "subset")


@dataclass(frozen=True)
class PromotionBound:
    """Minimum variant-minus-base n-Clue Score (points) after up to k promotions per query.

    ``observed`` is the current difference (k = 0); ``promoted`` names, per query, the judged
    subsets whose promotion to gold attains ``minimum`` (queries needing none are omitted).
    """

    k: int
    observed: float
    minimum: float
    promoted: Dict[Hashable, Tuple[Hashable, ...]]
    queries: int


def _top_list(entries: Any, what: str, depth: int) -> List[Tuple[Hashable, Optional[str]]]:
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
        raise NclueError(f"{what}: expected a sequence of (docid, label) pairs")
    out = []
    seen = set()
    for pos, entry in enumerate(entries[:depth], start=1):
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise NclueError(f"{what}, rank {pos}: expected (docid, label), got {entry!r}")
        doc, label = entry
        if label is not None and label not in LABELS:
            raise NclueError(f"{what}, rank {pos}: label must be 'gold', 'subset' or None "
                             f"(unjudged), got {label!r}")
        try:
            if doc in seen:
                raise NclueError(f"{what}: document {doc!r} appears twice")
        except TypeError:
            raise NclueError(f"{what}, rank {pos}: document id is not hashable: {doc!r}") from None
        seen.add(doc)
        out.append((doc, label))
    return out


def _first_judged(top: List[Tuple[Hashable, Optional[str]]]
                  ) -> Tuple[Optional[Hashable], Optional[str]]:
    for doc, label in top:
        if label is not None:
            return doc, label
    return None, None


def success_after(top: Sequence[Tuple[Hashable, Optional[str]]],
                  promoted: Iterable[Hashable] = ()) -> int:
    """n-Clue success (0/1) of one top-k list after promoting ``promoted`` subsets to gold.

    Success iff the first judged document within the list is a gold (n-Clue sec. 3.1:
    ``r_G <= k`` and ``r_G < r_S``; a subset beyond the list cannot precede an in-list gold).
    """
    promoted = set(promoted)
    for doc, label in top:
        if label is None:
            continue
        return int(label == "gold" or doc in promoted)
    return 0


def promotion_bound(base_top: Mapping[Hashable, Sequence[Tuple[Hashable, Optional[str]]]],
                    variant_top: Mapping[Hashable, Sequence[Tuple[Hashable, Optional[str]]]],
                    k: int, *, depth: int = 10) -> PromotionBound:
    """Exact minimum of variant-minus-base n-Clue Score@depth under judged-subset promotion.

    Supplement Table S1h: each query's qrels may change by promoting up to ``k`` currently judged
    subsets that appear in either system's top-``depth`` list to gold; a promotion is a qrel change
    and so applies to both rankings. Unjudged (``None``) documents stay unjudged.

    Exact solution (proof): promotion never changes which documents are judged, so each list's
    first judged document (``b1`` for base, ``v1`` for variant) stays the same and a system
    succeeds iff that document is gold after promotion. Promotion only turns subsets into golds,
    so success can only rise. Queries are independent (promotions are per query), so the
    minimum of the sum is the sum of per-query minima. For one query, the base can only be
    made to succeed by promoting ``b1`` (when it is a subset), which costs one promotion, and
    nothing else affects either system. Hence with ``k >= 1`` and ``b1`` a subset the minimum is
    ``[v1 is gold or v1 == b1] - 1`` (promote ``b1`` unless ``v1 == b1``, where it changes
    nothing), otherwise it is the current ``s_V - s_B``. In particular every ``k >= 1`` gives the
    same bound as ``k = 1``. The tests confirm this against exhaustive search over all
    promotion sets.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise NclueError(f"k must be an integer >= 0, got {k!r}")
    depth = _positive_int(depth, "depth")
    for name, tops in (("base_top", base_top), ("variant_top", variant_top)):
        if not isinstance(tops, Mapping) or not tops:
            raise NclueError(f"{name}: expected a non-empty mapping qid -> [(docid, label), ...]")
    _same_queries(base_top, variant_top, ("base", "variant"))
    observed = 0
    minimum = 0
    promoted: Dict[Hashable, Tuple[Hashable, ...]] = {}
    for q in sorted(base_top, key=_sort_key):
        b = _top_list(base_top[q], f"base_top[{q!r}]", depth)
        v = _top_list(variant_top[q], f"variant_top[{q!r}]", depth)
        labels = dict(b)
        for doc, label in v:
            if doc in labels and labels[doc] != label:
                raise NclueError(f"query {q!r}: document {doc!r} is labelled {labels[doc]!r} for "
                                 f"base but {label!r} for variant (one qrel per document)")
        s_b, s_v = success_after(b), success_after(v)
        observed += s_v - s_b
        b1, b1_label = _first_judged(b)
        v1, v1_label = _first_judged(v)
        if k >= 1 and b1_label == "subset" and v1 != b1:
            minimum += int(v1_label == "gold") - 1
            promoted[q] = (b1,)
        else:
            minimum += s_v - s_b
    n = len(base_top)
    return PromotionBound(k=k, observed=100 * observed / n, minimum=100 * minimum / n,
                          promoted=promoted, queries=n)


# --------------------------------------------------------------------------------------------
# Adapters from a loaded release/run (duck-typed: nclue.release.Release, nclue.runs.Run)
# --------------------------------------------------------------------------------------------

def gold_memberships(release: Any) -> Dict[Hashable, Tuple[Hashable, ...]]:
    """``qid -> sorted gold docids`` for every query of a release (Table S1i gold graph)."""
    return {q: tuple(release.golds(q)) for q in sorted(release.queries)}


def judged_memberships(release: Any) -> Dict[Hashable, Tuple[Hashable, ...]]:
    """``qid -> sorted judged (gold or subset) docids`` (Table S1i all-judged graph)."""
    return {q: tuple(sorted(release.judgments.get(q, {}))) for q in sorted(release.queries)}


def top_labels(release: Any, run: Any, depth: int = 10
               ) -> Dict[Hashable, List[Tuple[Hashable, Optional[str]]]]:
    """``qid -> [(docid, "gold" | "subset" | None), ...]`` for the run's top ``depth`` documents.

    Every query of the release is present; a query the run lacks has an empty list. This is
    the input of :func:`promotion_bound`.
    """
    depth = _positive_int(depth, "depth")
    out = {}
    for q in sorted(release.queries):
        judged = release.judgments.get(q, {})
        ranking = run.rankings.get(q)
        docs = ranking.docs[:depth] if ranking is not None else ()
        out[q] = [(d, judged[d].label if d in judged else None) for d in docs]
    return out
