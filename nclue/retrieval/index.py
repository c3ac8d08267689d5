"""The page collection and an inverted index with precomputed per-posting BM25 impacts.

A *document* is the ordered set of its pages (n-Clue paper, sec. 3.2: "document = its pages").
One pass over the page text builds two indexes that share the analyzer of
:mod:`nclue.retrieval.tokenize`:

- the **page index**: one retrieval unit per page;
- the **document index**: one unit per document, its term frequencies summed over its pages and its
  length the sum of its page lengths (a document is the concatenation of its pages).

Each posting stores the unit's integer id (``array('i')``) and its full Lucene BM25 contribution
(``array('d')``, see :func:`bm25_impact`), so a query is a sum of precomputed impacts followed by
heap top-k selection; no per-query arithmetic on term frequencies is needed.

Collection statistics follow Lucene (``BM25Similarity``): ``N`` (``docCount``) counts the units
that hold at least one term, and ``avgdl = sumTotalTermFreq / docCount``. Empty pages are kept in
the collection (they are pages of their document) but do not enter ``N`` or ``avgdl``. Unlike
Lucene, document lengths are exact (Lucene stores them lossily in one byte).

Page text input (``pages.jsonl`` or ``.jsonl.gz``): one JSON object per line, either one page
``{"docid": str, "page": int >= 1, "text": str}`` or one document ``{"docid": str, "pages":
[text of page 1, text of page 2, ...]}``. A repeated (docid, page) is an input error.
"""

import heapq
import math
from array import array
from collections import Counter
from itertools import repeat
from operator import add, mul
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..formats import PathLike, field, iter_jsonl
from .tokenize import tokenize

#: Default BM25 parameters: Anserini's Lucene defaults (k1 = 0.9, b = 0.4).
DEFAULT_K1 = 0.9
DEFAULT_B = 0.4


def lucene_idf(n_units: int, df: int) -> float:
    """Lucene's BM25 idf: ``ln(1 + (N - n + 0.5) / (n + 0.5))`` (always positive)."""
    return math.log(1.0 + (n_units - df + 0.5) / (df + 0.5))


def bm25_length_norm(length: int, avgdl: float, k1: float, b: float) -> float:
    """The length part of Lucene BM25's tf saturation, ``k1 * (1 - b + b * dl / avgdl)``
    (one value per unit, computed once when the index is built)."""
    return k1 * (1.0 - b + b * length / avgdl)


def bm25_tf_impact(idf: float, tf: int, norm: float) -> float:
    """One posting's contribution given its unit's :func:`bm25_length_norm`: ``idf * tf / (tf +
    norm)``."""
    return idf * tf / (tf + norm)


def bm25_impact(idf: float, tf: int, length: int, avgdl: float, k1: float, b: float) -> float:
    """One term's Lucene BM25 contribution (Lucene >= 8, ``BM25Similarity``):

    ``idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))``.

    Lucene 8 dropped the constant ``(k1 + 1)`` numerator factor of Robertson's formula; it does not
    change any ranking. bm25s's ``method="lucene"`` computes the same quantity. The index computes
    it in two parts (:func:`bm25_length_norm` once per unit, :func:`bm25_tf_impact` per posting),
    which gives the same floating-point value.
    """
    return bm25_tf_impact(idf, tf, bm25_length_norm(length, avgdl, k1, b))


class Collection:
    """Documents and their pages, with integer ids.

    ``docids[d]`` is document ``d``'s id; ``unit_doc[u]`` and ``unit_page[u]`` give page unit
    ``u``'s document and 1-based page number; ``doc_units[d]`` lists the document's page units in
    page order; ``doc_rank[d]`` is the position of ``docids[d]`` in sorted order (the tie rule).
    """

    def __init__(self, docids: List[str], unit_doc: array, unit_page: array) -> None:
        self.docids = docids
        self.unit_doc = unit_doc
        self.unit_page = unit_page
        self.doc_index = {docid: number for number, docid in enumerate(docids)}
        units: List[List[int]] = [[] for _ in docids]
        for unit, doc in enumerate(unit_doc):
            units[doc].append(unit)
        for members in units:
            members.sort(key=unit_page.__getitem__)
        self.doc_units = units
        order = sorted(range(len(docids)), key=docids.__getitem__)
        self.doc_rank = array("i", [0] * len(docids))
        for rank, doc in enumerate(order):
            self.doc_rank[doc] = rank
        self.unit_rank = array("i", [0] * len(unit_doc))
        ranked_units = sorted(range(len(unit_doc)),
                              key=lambda u: (self.doc_rank[unit_doc[u]], unit_page[u]))
        for rank, unit in enumerate(ranked_units):
            self.unit_rank[unit] = rank

    @property
    def n_docs(self) -> int:
        return len(self.docids)

    @property
    def n_pages(self) -> int:
        return len(self.unit_doc)


class InvertedIndex:
    """Impact-ordered postings for one unit level (pages or documents).

    ``postings[term] = (unit ids, impacts)``, both ascending by unit id. ``tie_rank[u]`` orders
    equal scores: the smaller rank wins (sorted docid, then page number).
    """

    def __init__(self, level: str, lengths: array, postings: Dict[str, Tuple[array, array]],
                 n_units: int, avgdl: float, k1: float, b: float, tie_rank: array) -> None:
        self.level = level
        self.lengths = lengths
        self.postings = postings
        self.n_units = n_units
        self.avgdl = avgdl
        self.k1 = k1
        self.b = b
        self.tie_rank = tie_rank

    def df(self, term: str) -> int:
        entry = self.postings.get(term)
        return 0 if entry is None else len(entry[0])

    def idf(self, term: str) -> float:
        return lucene_idf(self.n_units, self.df(term))

    def units_with(self, term: str) -> array:
        """Unit ids whose text holds ``term`` (empty when none)."""
        entry = self.postings.get(term)
        return entry[0] if entry is not None else array("i")

    def scores(self, terms: Sequence[str]) -> Dict[int, float]:
        """BM25 score of every unit that matches at least one of ``terms`` (a disjunction).

        A term repeated in the query counts once per occurrence (Lucene sums one clause per
        occurrence). Terms absent from the index contribute nothing. Terms are accumulated in a
        fixed order (longest posting list first, then alphabetical) so sums are deterministic.
        """
        weights = Counter(term for term in terms if term in self.postings)
        if not weights:
            return {}
        postings = self.postings
        order = sorted(weights, key=lambda t: (-len(postings[t][0]), t))
        first = order[0]
        ids, impacts = postings[first]
        weight = weights[first]
        if weight == 1:
            acc = dict(zip(ids, impacts))
        else:
            acc = dict(zip(ids, map(mul, impacts, repeat(float(weight)))))
        get = acc.get
        for term in order[1:]:
            ids, impacts = postings[term]
            weight = weights[term]
            if weight != 1:
                impacts = map(mul, impacts, repeat(float(weight)))
            # acc[u] = acc.get(u, 0) + impact for every posting, iterated in C: the ids of one
            # posting list are distinct, so each key is read and then written exactly once.
            acc.update(zip(ids, map(add, map(get, ids, repeat(0.0)), impacts)))
        return acc

    def top_k(self, scores: Mapping[int, float], k: int) -> List[Tuple[int, float]]:
        """The ``k`` best (unit, score) pairs: score descending, then ``tie_rank`` ascending.

        Exact: the k-th largest score ``t`` is found first; every unit scoring ``>= t`` is then
        sorted by (score desc, tie rank asc) and cut at ``k``.
        """
        if k <= 0 or not scores:
            return []
        if len(scores) > k:
            threshold = heapq.nlargest(k, scores.values())[-1]
            items = [item for item in scores.items() if item[1] >= threshold]
        else:
            items = list(scores.items())
        rank = self.tie_rank
        items.sort(key=lambda item: (-item[1], rank[item[0]]))
        return items[:k]

    def search(self, terms: Sequence[str], k: int) -> List[Tuple[int, float]]:
        """Disjunctive BM25 top-k over this level's units."""
        return self.top_k(self.scores(terms), k)


def iter_page_records(path: PathLike) -> Iterator[Tuple[str, int, str, int]]:
    """Yield ``(docid, page, text, line)`` from a page-text JSONL file (see module docstring)."""
    for line, obj in iter_jsonl(path):
        docid = field(obj, "docid", str, path, line)
        if not docid:
            raise InputError(path, "field 'docid' is empty", line)
        if "text" in obj:
            page = field(obj, "page", int, path, line)
            if page < 1:
                raise InputError(path, f"page must be >= 1, got {page}", line)
            yield docid, page, field(obj, "text", str, path, line), line
        elif "pages" in obj:
            pages = field(obj, "pages", list, path, line)
            for number, text in enumerate(pages, start=1):
                if not isinstance(text, str):
                    raise InputError(path, f"page {number} of {docid!r} is not a string", line)
                yield docid, number, text, line
        else:
            raise InputError(path, "expected a page {'docid','page','text'} or a document "
                                   "{'docid','pages'}", line)


def build_indexes(records: Iterable[Tuple[str, int, str, int]], k1: float = DEFAULT_K1,
                  b: float = DEFAULT_B, source: PathLike = "<pages>",
                  keep_docs: Optional[Iterable[str]] = None, doc_level: bool = True
                  ) -> Tuple[Collection, InvertedIndex, Optional[InvertedIndex]]:
    """Build the collection, the page index and the document index in one pass.

    ``records`` yields ``(docid, page, text, line)`` (``line`` is used in error messages).
    ``keep_docs``, when given, restricts the collection to those document ids (others are skipped).
    ``doc_level=False`` skips the document index (returned as None), e.g. for page benchmarks.
    """
    if not (k1 >= 0.0 and 0.0 <= b <= 1.0):
        raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
    keep = set(keep_docs) if keep_docs is not None else None
    doc_of: Dict[str, int] = {}
    docids: List[str] = []
    unit_doc = array("i")
    unit_page = array("i")
    unit_len = array("i")
    seen = set()
    raw: Dict[str, Tuple[array, array]] = {}
    for docid, page, text, line in records:
        if keep is not None and docid not in keep:
            continue
        key = (docid, page)
        if key in seen:
            raise InputError(source, f"page {page} of document {docid!r} appears twice", line)
        seen.add(key)
        doc = doc_of.get(docid)
        if doc is None:
            doc = doc_of[docid] = len(docids)
            docids.append(docid)
        unit = len(unit_len)
        tokens = tokenize(text)
        unit_doc.append(doc)
        unit_page.append(page)
        unit_len.append(len(tokens))
        for term, tf in Counter(tokens).items():
            entry = raw.get(term)
            if entry is None:
                raw[term] = (array("i", (unit,)), array("i", (tf,)))
            else:
                entry[0].append(unit)
                entry[1].append(tf)
    collection = Collection(docids, unit_doc, unit_page)
    page_index = _impact_index("page", raw, unit_len, k1, b, collection.unit_rank)
    if not doc_level:
        return collection, page_index, None

    doc_len = array("q", [0] * len(docids))
    for unit, length in enumerate(unit_len):
        doc_len[unit_doc[unit]] += length
    doc_raw: Dict[str, Tuple[array, array]] = {}
    for term, (units, tfs) in raw.items():
        summed: Dict[int, int] = {}
        get = summed.get
        for unit, tf in zip(units, tfs):
            doc = unit_doc[unit]
            summed[doc] = get(doc, 0) + tf
        docs = sorted(summed)
        doc_raw[term] = (array("i", docs), array("i", [summed[d] for d in docs]))
    del raw
    doc_index = _impact_index("doc", doc_raw, doc_len, k1, b, collection.doc_rank)
    return collection, page_index, doc_index


def _impact_index(level: str, raw: Dict[str, Tuple[array, array]], lengths: array, k1: float,
                  b: float, tie_rank: array) -> InvertedIndex:
    nonempty = sum(1 for length in lengths if length > 0)
    total = sum(lengths)
    avgdl = total / nonempty if nonempty else 1.0
    norm = [bm25_length_norm(length, avgdl, k1, b) for length in lengths]
    postings: Dict[str, Tuple[array, array]] = {}
    for term in sorted(raw):
        units, tfs = raw[term]
        idf = lucene_idf(nonempty, len(units))
        postings[term] = (units, array("d", [bm25_tf_impact(idf, tf, norm[unit])
                                             for unit, tf in zip(units, tfs)]))
    return InvertedIndex(level, lengths, postings, nonempty, avgdl, k1, b, tie_rank)
