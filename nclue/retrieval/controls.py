"""Construct-validity controls (n-Clue paper, sec. 5; supplement Table S5b).

- :func:`fact_oracle` -- **PRIVILEGED, not a retriever.** Reads the release's qrels (the
  construction facts) and ranks every gold first, then subsets by clue count. It bounds the
  instrument from above (the paper's "privileged construction-fact counter reaches 100").
- :func:`single_page_floor` -- a document scores only if one single page matches every condition
  (all analyzed terms of each condition on that page); its score is that page's BM25 for the query
  text (the best such page). It bounds the cross-page requirement from below.
- :func:`single_page_fact_floor` -- **PRIVILEGED.** The same floor on the construction facts:
  a document scores only if one stored evidence page supports every condition (release
  ``evidence.jsonl``). By the gold definition no gold can score, so its n-Clue Score is 0 by
  construction; the lexical floor above measures how far page-level token co-occurrence departs
  from the facts (tables of contents, indexes and running text can hold every condition's words).
- :func:`condition_frequency_prior` -- query-independent: a document's score is the number of
  distinct conditions of the released query set that match it (all of a condition's analyzed terms
  occur in the document). Every query gets the same ranking. It uses public inputs only (query
  texts and document text), never qrels.
- :func:`mask_condition` -- drop condition ``c_j`` (1-based) from a query; the masked query is
  rendered again and run through an unchanged system.
"""

from typing import Dict, Iterable, List, Mapping, Sequence, Tuple

from .bm25 import Hit, LexicalIndex, best_pages


def fact_oracle(judged: Mapping[str, Tuple[int, bool]], depth: int = 100) -> List[Hit]:
    """PRIVILEGED. ``judged = {docid: (clues, is_gold)}`` from the qrels of one query.

    Score = clues + 1 for a gold, clues for a subset; ties by docid ascending.
    """
    scored = [(docid, float(clues + (1 if gold else 0))) for docid, (clues, gold) in judged.items()]
    scored.sort(key=lambda item: (-item[1], item[0]))
    return [Hit(docid, score) for docid, score in scored[:depth]]


def single_page_floor(index: LexicalIndex, text: str, conditions: Sequence[str],
                      depth: int = 100, keep_pages: int = 3) -> List[Hit]:
    """Rank documents by their best page that matches every condition (see module docstring)."""
    allowed = None
    for condition in conditions:
        found = index.pages_matching(condition)
        allowed = found if allowed is None else allowed & found
        if not allowed:
            return []
    scores = index.page_scores(text)
    page_table = {unit: scores.get(unit, 0.0) for unit in allowed}
    grouped = index.group_pages(page_table)
    doc_scores = {}
    kept = {}
    for doc, items in grouped.items():
        best = best_pages(items, keep_pages)
        doc_scores[doc] = best[0][1]
        kept[doc] = best
    return index.rank_docs(doc_scores, depth, kept)


def single_page_fact_floor(evidence: Mapping[str, Sequence[Sequence[int]]],
                           depth: int = 100) -> List[Hit]:
    """PRIVILEGED. ``evidence = {docid: [pages for c1], [pages for c2], ...}`` of one query.

    Score = number of pages in the all-condition intersection; documents with an empty
    intersection are not ranked; ties by docid ascending. Pages: the intersection (score 1 each).
    """
    scored = []
    for docid, per_condition in evidence.items():
        if not per_condition:
            continue
        common = set(per_condition[0])
        for pages in per_condition[1:]:
            common &= set(pages)
        if common:
            scored.append((docid, float(len(common)), tuple((p, 1.0) for p in sorted(common))))
    scored.sort(key=lambda item: (-item[1], item[0]))
    return [Hit(docid, score, pages[:3]) for docid, score, pages in scored[:depth]]


def condition_frequency_prior(index: LexicalIndex, conditions: Iterable[str]) -> Dict[int, float]:
    """Query-independent prior: number of distinct released conditions a document matches."""
    counts: Dict[int, float] = {}
    for condition in sorted(set(conditions)):
        for doc in index.docs_matching(condition):
            counts[doc] = counts.get(doc, 0.0) + 1.0
    return counts


def prior_ranking(index: LexicalIndex, prior: Dict[int, float], depth: int = 100) -> List[Hit]:
    return index.rank_docs(prior, depth)


def mask_condition(conditions: Sequence[str], drop: int) -> Tuple[str, ...]:
    """The conditions without ``c_drop`` (1-based). A query with fewer than ``drop`` conditions
    is returned unchanged (e.g. drop c3 on a two-condition query)."""
    if drop < 1:
        raise ValueError(f"drop must be >= 1, got {drop}")
    if drop > len(conditions):
        return tuple(conditions)
    return tuple(c for i, c in enumerate(conditions, start=1) if i != drop)
