"""Rank fusion: equal-weight reciprocal rank fusion and round-robin interleaving.

**RRF** (Cormack, Clarke and Buettcher, SIGIR 2009; n-Clue paper, supplement 2: "equal-weight
RRF (k = 60, depth 100)"): every input list is cut to its first ``depth`` documents and

    RRF(d) = sum over lists L containing d of 1 / (k + rank_L(d)),   rank 1-based.

Sums use :func:`math.fsum` (correctly rounded), so two documents with the same multiset of ranks
get bit-identical scores. The fused list keeps the ``depth`` best. **Tie rule** (stable input
order, the paper's rule): equal fused scores keep the order in which documents are first met when
reading list 1 from rank 1 down, then list 2, and so on.

**Round robin** (Multi3IR/SPIN paper, eq. 4): at round ``r = 1, 2, ...`` visit the lists in order
and append each list's rank-``r`` document unless it is already in the output; stop at ``depth``
documents or when every list is exhausted. The fused scores are ``1 / position`` (strictly
decreasing, so the order survives any tie rule).
"""

import math
from typing import Dict, List, Sequence, Tuple

RRF_K = 60
DEPTH = 100


def rrf(rankings: Sequence[Sequence[str]], k: float = RRF_K,
        depth: int = DEPTH) -> List[Tuple[str, float]]:
    """Equal-weight reciprocal rank fusion of ranked docid lists (best first)."""
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    parts: Dict[str, List[float]] = {}
    for ranking in rankings:
        seen = set()
        for rank, docid in enumerate(ranking[:depth], start=1):
            if docid in seen:
                raise ValueError(f"document {docid!r} appears twice in one input list")
            seen.add(docid)
            parts.setdefault(docid, []).append(1.0 / (k + rank))
    fused = [(docid, math.fsum(values)) for docid, values in parts.items()]
    fused.sort(key=lambda item: -item[1])  # stable: first-met order breaks ties
    return fused[:depth]


def round_robin(rankings: Sequence[Sequence[str]], depth: int = DEPTH) -> List[Tuple[str, float]]:
    """Round-robin interleaving (Multi3IR eq. 4), skipping duplicates."""
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    out: List[str] = []
    seen = set()
    longest = max((len(r) for r in rankings), default=0)
    for position in range(longest):
        for ranking in rankings:
            if position < len(ranking):
                docid = ranking[position]
                if docid not in seen:
                    seen.add(docid)
                    out.append(docid)
                    if len(out) == depth:
                        return [(d, 1.0 / i) for i, d in enumerate(out, start=1)]
    return [(d, 1.0 / i) for i, d in enumerate(out, start=1)]
