"""Matching rules for the construct-validity controls (n-Clue paper, arXiv 2607.24165, sec. 5
and supplement sec. 9, Table S5b: length-matched gold-subset AUC; the density-matched
comparison of 2- and 3-condition queries).

Both rules compare positive sizes by their ratio: ``a`` and ``b`` are *matched at ratio r*
when ``max(a, b) <= r * min(a, b)`` (so r = 1.25 allows the longer to be at most 25% longer).

Length matching (pairs within a query): a (gold, judged subset) pair is kept when the two
documents' page counts are matched at ratio r. The length-matched AUC of a query is the
pairwise AUC over its kept pairs only (gold ranked above subset 1, below 0, both unretrieved
1/2); queries without a kept pair are outside its denominator.

Density matching (queries across groups): each *treated* query (here: 3 conditions) is paired
with at most one *control* query (2 conditions), without replacement, by greedy nearest-neighbour
matching on the size (here: the judged pool |D+|): treated queries are taken in ascending
(size, id) order; each takes the unused control whose size is closest, ties to the smaller
size and then the smaller id, provided the two sizes are matched at ratio r; otherwise it
stays unmatched.
"""

from bisect import bisect_left
from typing import Dict, Hashable, List, Mapping, Optional, Sequence, Tuple

from ..errors import NclueError


def ratio_matched(a: float, b: float, ratio: float) -> bool:
    """Whether two positive sizes are within ``ratio`` of each other (module docstring)."""
    if ratio < 1:
        raise NclueError(f"matching ratio must be >= 1, got {ratio!r}")
    if a <= 0 or b <= 0:
        raise NclueError(f"matching needs positive sizes, got {a!r} and {b!r}")
    return max(a, b) <= ratio * min(a, b)


def pair_win(rank_gold: Optional[int], rank_subset: Optional[int]) -> float:
    """1 if the gold ranks above the subset, 0 below, 1/2 when neither is retrieved."""
    if rank_gold is None and rank_subset is None:
        return 0.5
    if rank_subset is None:
        return 1.0
    if rank_gold is None:
        return 0.0
    return 1.0 if rank_gold < rank_subset else 0.0


def matched_pairs(golds: Sequence[str], subsets: Sequence[str], pages: Mapping[str, int],
                  ratio: float) -> List[Tuple[str, str]]:
    """The (gold, subset) pairs of one query whose page counts are matched at ``ratio``."""
    return [(g, s) for g in sorted(golds) for s in sorted(subsets)
            if ratio_matched(pages[g], pages[s], ratio)]


def pairs_auc(pairs: Sequence[Tuple[str, str]], docs: Sequence[str]) -> Optional[float]:
    """AUC over the given pairs for one ranking (None without a pair)."""
    if not pairs:
        return None
    rank = {d: i for i, d in enumerate(docs, start=1)}
    wins = [pair_win(rank.get(g), rank.get(s)) for g, s in pairs]
    return sum(wins) / len(wins)  # halves and ones: exact in binary floating point sums


def greedy_match(treated: Mapping[Hashable, float], controls: Mapping[Hashable, float],
                 ratio: float) -> Dict[Hashable, Hashable]:
    """Greedy 1:1 nearest-neighbour matching without replacement (module docstring).

    Only controls whose size lies in ``[size / ratio, size * ratio]`` can match, so each treated
    query scans that window of the size-sorted controls (found by bisection)."""
    if ratio < 1:
        raise NclueError(f"matching ratio must be >= 1, got {ratio!r}")
    pool = sorted(controls.items(), key=lambda kv: (kv[1], str(kv[0])))
    sizes = [size for _, size in pool]
    used = set()
    out: Dict[Hashable, Hashable] = {}
    for tid, size in sorted(treated.items(), key=lambda kv: (kv[1], str(kv[0]))):
        best = None
        start = bisect_left(sizes, size / ratio)
        for position in range(start, len(pool)):
            cid, csize = pool[position]
            if csize > size * ratio:
                break
            if cid in used or not ratio_matched(size, csize, ratio):
                continue
            key = (abs(csize - size), csize, str(cid))
            if best is None or key < best[0]:
                best = (key, cid)
        if best is not None:
            used.add(best[1])
            out[tid] = best[1]
    return out
