"""Distinct-page SDR: the exact bottleneck assignment of conditions to distinct pages.

n-Clue paper, sec. 3.3::

    S_SDR(d, q) = max over injective pi of  min_i s(c_i, p_pi(i))

where ``s(c_i, p)`` is condition ``i``'s score on page ``p`` of document ``d`` and ``pi`` assigns
the ``n`` conditions to ``n`` *distinct* pages. A page that is absent from a condition's score
table cannot be assigned to that condition (for BM25: the page does not match the condition); a
document without an injective assignment over its table entries gets no SDR score.

Computation (exact, without enumerating permutations of all pages):

1. **Prune** each condition's table to its ``n`` best pages (score descending, page ascending).
   Exactness: let ``pi`` be an optimal assignment and suppose ``pi(i)`` is not among condition
   ``i``'s kept pages. Then condition ``i`` has more than ``n`` entries, so its ``n`` kept pages all
   score at least ``s(c_i, pi(i))``. The other ``n - 1`` conditions occupy at most ``n - 1`` pages,
   so at least one kept page ``p`` of condition ``i`` is free; moving ``i`` to ``p`` keeps ``pi``
   injective and does not lower ``min_i s(c_i, pi(i))``. Each move puts one condition on a kept page
   and never moves another condition, so after at most ``n`` moves an optimal assignment uses only
   kept pages. Hence the optimum over the pruned tables equals the optimum over the full tables.
2. **Bottleneck search**: for each distinct kept score ``t``, from the highest down, test whether
   the bipartite graph of (condition, page) edges with score ``>= t`` has a matching that covers
   every condition (Kuhn's augmenting paths). Feasibility only grows as ``t`` falls, so the first
   feasible ``t`` is the optimum: with ``n`` conditions there are at most ``n * n`` thresholds.

The assignment returned for the optimum is the one Kuhn's algorithm finds when each condition
tries its pages in (score descending, page ascending) order, so it is deterministic.
"""

import heapq
from typing import Dict, Hashable, List, Mapping, Optional, Sequence, Tuple

from .bm25 import Hit, LexicalIndex

Assignment = Tuple[Hashable, ...]


def _kept(row: Mapping[Hashable, float], n: int) -> List[Tuple[Hashable, float]]:
    return heapq.nsmallest(n, row.items(), key=lambda item: (-item[1], item[0]))


def _matching(edges: List[List[Hashable]]) -> Optional[List[Hashable]]:
    """A matching covering every condition, or None (Kuhn's algorithm)."""
    owner: Dict[Hashable, int] = {}

    def augment(condition: int, visited: set) -> bool:
        for page in edges[condition]:
            if page in visited:
                continue
            visited.add(page)
            holder = owner.get(page)
            if holder is None or augment(holder, visited):
                owner[page] = condition
                return True
        return False

    for condition in range(len(edges)):
        if not augment(condition, set()):
            return None
    assignment: List[Hashable] = [None] * len(edges)
    for page, condition in owner.items():
        assignment[condition] = page
    return assignment


def bottleneck_assignment(rows: Sequence[Mapping[Hashable, float]]
                          ) -> Optional[Tuple[float, Assignment]]:
    """``(S, pages)`` maximizing the minimum condition score over distinct pages, or None.

    ``rows[i]`` maps each page that may serve condition ``i`` to ``s(c_i, page)``. Returns None
    when no injective assignment exists (e.g. two conditions whose only page is the same).
    """
    n = len(rows)
    if n == 0:
        raise ValueError("SDR needs at least one condition")
    kept = [_kept(row, n) for row in rows]
    if any(not items for items in kept):
        return None
    thresholds = sorted({score for items in kept for _, score in items}, reverse=True)
    for threshold in thresholds:
        edges = [[page for page, score in items if score >= threshold] for items in kept]
        assignment = _matching(edges)
        if assignment is not None:
            return threshold, tuple(assignment)
    return None


def sdr_tables(tables: Sequence[Mapping[Hashable, Mapping[Hashable, float]]]
               ) -> Dict[Hashable, Tuple[float, Assignment]]:
    """SDR of every document present in all condition tables.

    ``tables[i][doc][page] = s(c_i, page)``; a document missing from any table has no score.
    """
    if not tables:
        raise ValueError("SDR needs at least one condition")
    common = set(tables[0])
    for table in tables[1:]:
        common &= set(table)
    result = {}
    for doc in common:
        found = bottleneck_assignment([table[doc] for table in tables])
        if found is not None:
            result[doc] = found
    return result


def bm25_sdr(index: LexicalIndex, conditions: Sequence[str], depth: int = 100) -> List[Hit]:
    """Distinct-page BM25: ``s(c_i, p)`` is page-level BM25 of condition ``i`` alone.

    Only pages that match a condition (BM25 > 0) can serve it. Each ranked document's pages are
    its assigned pages with their condition scores (score descending, then page).
    """
    tables = []
    for condition in conditions:
        grouped = index.group_pages(index.page_scores(condition))
        tables.append({doc: {page: score for score, page in items}
                       for doc, items in grouped.items()})
    found = sdr_tables(tables)
    scores = {doc: value for doc, (value, _) in found.items()}
    pages = {}
    for doc, (_, assignment) in found.items():
        items = [(page, tables[i][doc][page]) for i, page in enumerate(assignment)]
        pages[doc] = tuple(sorted(items, key=lambda item: (-item[1], item[0])))
    return index.rank_docs(scores, depth, pages)
