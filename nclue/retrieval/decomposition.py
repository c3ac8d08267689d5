"""Condition-wise decomposition: one score list per condition, combined per document.

n-Clue paper, sec. 3.3 and supplement 2 ("separate condition lists with min, product, harmonic
mean"). Generic over the per-condition scorer: each list is a mapping ``{key: score}`` (documents
here; a dense or learned-sparse scorer can pass its own tables, or page tables reduced with
:func:`doc_table_from_pages`).

Normalization (stated; chosen so that the three combiners are comparable across conditions whose
raw score scales differ):

- ``max`` (default): ``s_i(d) / max over the list of s_i``; needs non-negative scores (BM25). A
  list whose maximum is 0 normalizes to all zeros.
- ``minmax``: ``(s_i(d) - min_i) / (max_i - min_i)`` over the list, for scorers with negative
  scores (cosine similarity); a constant list normalizes to all ones.

A document missing from condition ``i``'s list gets normalized score 0 for that condition. The
candidates are the union of the lists. Combiners over the normalized ``x_1..x_n``:

- ``min``: ``min_i x_i``;
- ``product``: ``prod_i x_i``;
- ``hmean``: ``n / sum_i (1 / x_i)``, and 0 when any ``x_i`` is 0.

Documents whose combined score is 0 (they miss a condition) are not ranked.
"""

import heapq
import math
from typing import Dict, Hashable, List, Mapping, Sequence, Tuple

from .bm25 import Hit, LexicalIndex

COMBINERS = ("min", "product", "hmean")
NORMALIZATIONS = ("max", "minmax")


def normalize(scores: Mapping[Hashable, float], method: str = "max") -> Dict[Hashable, float]:
    """Normalize one condition's list (see module docstring)."""
    if not scores:
        return {}
    if method == "max":
        low = min(scores.values())
        if low < 0:
            raise ValueError("max normalization needs non-negative scores; use 'minmax'")
        top = max(scores.values())
        if top == 0:
            return {key: 0.0 for key in scores}
        return {key: value / top for key, value in scores.items()}
    if method == "minmax":
        low = min(scores.values())
        top = max(scores.values())
        if top == low:
            return {key: 1.0 for key in scores}
        span = top - low
        return {key: (value - low) / span for key, value in scores.items()}
    raise ValueError(f"unknown normalization {method!r}; expected one of {NORMALIZATIONS}")


def combine_values(values: Sequence[float], how: str) -> float:
    """Combine one document's normalized condition scores."""
    if how == "min":
        return min(values)
    if how == "product":
        return math.prod(values)
    if how == "hmean":
        if any(value <= 0 for value in values):
            return 0.0
        return len(values) / math.fsum(1.0 / value for value in values)
    raise ValueError(f"unknown combiner {how!r}; expected one of {COMBINERS}")


def combine(lists: Sequence[Mapping[Hashable, float]], how: str,
            normalization: str = "max") -> Dict[Hashable, float]:
    """Combined score of every candidate (the union of the lists)."""
    if not lists:
        raise ValueError("decomposition needs at least one condition list")
    if how not in COMBINERS:
        raise ValueError(f"unknown combiner {how!r}; expected one of {COMBINERS}")
    normalized = [normalize(scores, normalization) for scores in lists]
    candidates = set()
    for scores in normalized:
        candidates.update(scores)
    return {key: combine_values([scores.get(key, 0.0) for scores in normalized], how)
            for key in candidates}


def doc_table_from_pages(page_table: Mapping[Hashable, Mapping[Hashable, float]],
                         aggregate: str = "max") -> Dict[Hashable, float]:
    """Reduce ``{doc: {page: score}}`` to ``{doc: score}``: best page (``max``) or mean of the
    three best pages (``top3``, averaged over min(3, pages in the table))."""
    result = {}
    for doc, pages in page_table.items():
        if not pages:
            continue
        if aggregate == "max":
            result[doc] = max(pages.values())
        elif aggregate == "top3":
            best = heapq.nlargest(3, pages.values())
            result[doc] = math.fsum(best) / len(best)
        else:
            raise ValueError(f"unknown page aggregation {aggregate!r}; expected max or top3")
    return result


def truncate(scores: Mapping[Hashable, float], depth: int,
             rank: Mapping[Hashable, int]) -> Dict[Hashable, float]:
    """Keep a list's ``depth`` best entries (ties by ``rank`` ascending); ``depth <= 0``: all."""
    if depth <= 0 or len(scores) <= depth:
        return dict(scores)
    return dict(heapq.nlargest(depth, scores.items(), key=lambda item: (item[1], -rank[item[0]])))


def bm25_condition_wise(index: LexicalIndex, conditions: Sequence[str], how: str,
                        level: str = "doc", depth: int = 100, list_depth: int = 0) -> List[Hit]:
    """Lexical decomposition: condition ``i``'s list is document-level BM25 of condition ``i``
    (``level="doc"``) or its best page's BM25 (``level="page"``); ``list_depth`` > 0 cuts each
    list before combining (0: every matching document).

    At page level each ranked document also carries its best page per condition (page, that
    condition's page BM25), highest first; a page best for two conditions appears once, with the
    higher score.
    """
    lists: List[Dict[int, float]] = []
    best_page: Dict[int, Dict[int, float]] = {}
    for condition in conditions:
        if level == "doc":
            scores = index.doc_scores(condition)
        elif level == "page":
            grouped = index.group_pages(index.page_scores(condition))
            scores = {}
            for doc, items in grouped.items():
                score, page = min(items, key=lambda item: (-item[0], item[1]))
                scores[doc] = score
                pages = best_page.setdefault(doc, {})
                pages[page] = max(pages.get(page, score), score)
        else:
            raise ValueError(f"unknown level {level!r}; expected doc or page")
        lists.append(truncate(scores, list_depth, index.collection.doc_rank))
    combined = {doc: score for doc, score in combine(lists, how).items() if score > 0}
    if level == "doc":
        return index.rank_docs(combined, depth)
    pages_out = {doc: tuple(sorted(best_page[doc].items(), key=lambda item: (-item[1], item[0])))
                 for doc in combined}
    return index.rank_docs(combined, depth, pages_out)


def rank_items(scores: Mapping[Hashable, float], depth: int) -> List[Tuple[Hashable, float]]:
    """Generic ranking of a combined table: score descending, then key ascending (as strings)."""
    ordered = sorted(scores.items(), key=lambda item: (-item[1], str(item[0])))
    return ordered[:depth]
