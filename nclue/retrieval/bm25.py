"""Lucene BM25 at page and document level, and the joint-query lexical systems of the matrix.

Scoring (Lucene >= 8 ``BM25Similarity``; see :func:`nclue.retrieval.index.bm25_impact`)::

    score(q, u) = sum over query terms t of  idf(t) * tf(t,u) / (tf(t,u) + k1 * (1 - b + b * |u| / avgdl))
    idf(t)      = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

with ``u`` a page (page level) or a whole document (document level: the concatenation of its
pages). Defaults k1 = 0.9, b = 0.4 (Anserini's Lucene defaults), chosen before any run was seen.

Systems (n-Clue paper, sec. 3.3, Table 2 and supplement 2):

- :meth:`LexicalIndex.bm25_or`: document-level BM25 of the joint query text (a disjunction).
- :meth:`LexicalIndex.bm25_and`: the same scores, restricted to documents in which *every*
  condition matches; a condition matches a document when all of its analyzed terms occur in the
  document (on any of its pages). With one condition list per query this is Lucene's AND over the
  condition terms; the scored text is the query form.
- :meth:`LexicalIndex.page_max`: page-level BM25 of the joint query, document score = best page
  (the lexical analogue of page MaxSim).
- :meth:`LexicalIndex.page_top3`: page-level BM25, document score = mean of its three highest
  page scores (pages without a match score 0; a document with fewer than three pages averages over
  the pages it has).

Every ranking is cut at ``depth`` documents; equal scores are ordered by docid ascending.
Page-scored systems also return each ranked document's best pages ``(page, score)``, highest first
(ties by page number).
"""

import heapq
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..formats import PathLike
from .index import (DEFAULT_B, DEFAULT_K1, Collection, InvertedIndex, build_indexes,
                    iter_page_records)
from .tokenize import tokenize

PagesOut = Tuple[Tuple[int, float], ...]


@dataclass(frozen=True)
class Hit:
    """One ranked document: its id, score, and (page-scored systems) its best pages."""

    docid: str
    score: float
    pages: Optional[PagesOut] = None


class LexicalIndex:
    """A page collection with its page-level and document-level BM25 indexes."""

    def __init__(self, collection: Collection, page_index: InvertedIndex,
                 doc_index: InvertedIndex) -> None:
        self.collection = collection
        self.pages = page_index
        self.docs = doc_index

    @classmethod
    def from_records(cls, records: Iterable[Tuple[str, int, str, int]], k1: float = DEFAULT_K1,
                     b: float = DEFAULT_B, source: PathLike = "<pages>",
                     keep_docs: Optional[Iterable[str]] = None) -> "LexicalIndex":
        return cls(*build_indexes(records, k1, b, source, keep_docs))

    @classmethod
    def from_file(cls, path: PathLike, k1: float = DEFAULT_K1, b: float = DEFAULT_B,
                  keep_docs: Optional[Iterable[str]] = None) -> "LexicalIndex":
        return cls.from_records(iter_page_records(path), k1, b, path, keep_docs)

    @classmethod
    def from_pages(cls, documents: Dict[str, Sequence[str]], k1: float = DEFAULT_K1,
                   b: float = DEFAULT_B) -> "LexicalIndex":
        """Build from ``{docid: [page 1 text, page 2 text, ...]}`` (tests, small corpora)."""
        records = ((docid, number, text, 0) for docid in sorted(documents)
                   for number, text in enumerate(documents[docid], start=1))
        return cls.from_records(records, k1, b)

    # ----- per-condition score tables (inputs to decomposition, SDR and the controls) -----

    def doc_scores(self, text: str) -> Dict[int, float]:
        """Document-level BM25 of ``text`` for every matching document (int ids)."""
        return self.docs.scores(tokenize(text))

    def page_scores(self, text: str) -> Dict[int, float]:
        """Page-level BM25 of ``text`` for every matching page unit (int ids)."""
        return self.pages.scores(tokenize(text))

    def docs_matching(self, condition: str) -> set:
        """Documents holding every analyzed term of ``condition`` (empty if it has no terms)."""
        return _units_with_all(self.docs, condition)

    def pages_matching(self, condition: str) -> set:
        """Page units holding every analyzed term of ``condition``."""
        return _units_with_all(self.pages, condition)

    # ----- ranking helpers -----

    def rank_docs(self, scores: Dict[int, float], depth: int,
                  pages: Optional[Dict[int, PagesOut]] = None) -> List[Hit]:
        """Top ``depth`` documents of an int-id score table as :class:`Hit` (ties: docid)."""
        docids = self.collection.docids
        best = self.docs.top_k(scores, depth)
        return [Hit(docids[doc], score, None if pages is None else pages.get(doc, ()))
                for doc, score in best]

    def group_pages(self, page_scores: Dict[int, float]) -> Dict[int, List[Tuple[float, int]]]:
        """``{doc: [(score, page number), ...]}`` from a page-unit score table."""
        unit_doc = self.collection.unit_doc
        unit_page = self.collection.unit_page
        grouped: Dict[int, List[Tuple[float, int]]] = {}
        for unit, score in page_scores.items():
            doc = unit_doc[unit]
            entry = grouped.get(doc)
            if entry is None:
                grouped[doc] = [(score, unit_page[unit])]
            else:
                entry.append((score, unit_page[unit]))
        return grouped

    # ----- systems -----

    def bm25_or(self, text: str, depth: int = 100) -> List[Hit]:
        return self.rank_docs(self.doc_scores(text), depth)

    def bm25_and(self, text: str, conditions: Sequence[str], depth: int = 100) -> List[Hit]:
        allowed: Optional[set] = None
        for condition in conditions:
            found = self.docs_matching(condition)
            allowed = found if allowed is None else allowed & found
            if not allowed:
                return []
        scores = self.doc_scores(text)
        return self.rank_docs({d: s for d, s in scores.items() if d in allowed}, depth)

    def page_max(self, text: str, depth: int = 100, keep_pages: int = 3) -> List[Hit]:
        return self._page_aggregate(text, depth, keep_pages, top=1)

    def page_top3(self, text: str, depth: int = 100, keep_pages: int = 3) -> List[Hit]:
        return self._page_aggregate(text, depth, keep_pages, top=3)

    def _page_aggregate(self, text: str, depth: int, keep_pages: int, top: int) -> List[Hit]:
        grouped = self.group_pages(self.page_scores(text))
        doc_units = self.collection.doc_units
        scores: Dict[int, float] = {}
        kept: Dict[int, PagesOut] = {}
        for doc, items in grouped.items():
            best = best_pages(items, max(top, keep_pages))
            if top == 1:
                scores[doc] = best[0][1]
            else:
                denominator = min(top, len(doc_units[doc]))
                scores[doc] = sum(score for _, score in best[:top]) / denominator
            kept[doc] = best[:keep_pages]
        return self.rank_docs(scores, depth, kept)


def best_pages(items: List[Tuple[float, int]], n: int) -> PagesOut:
    """The ``n`` best ``(page, score)`` of ``[(score, page), ...]``: score desc, then page asc."""
    chosen = heapq.nsmallest(n, items, key=lambda item: (-item[0], item[1]))
    return tuple((page, score) for score, page in chosen)


def _units_with_all(index, condition: str) -> set:
    """Units of ``index`` holding every analyzed term of ``condition`` (empty without terms);
    intersects the shortest posting lists first."""
    terms = sorted(set(tokenize(condition)))
    if not terms:
        return set()
    lists = sorted((index.units_with(t) for t in terms), key=len)
    found = set(lists[0])
    for ids in lists[1:]:
        found.intersection_update(ids)
        if not found:
            break
    return found
