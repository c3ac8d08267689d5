"""Exports for other engines: topics, TREC qrels with a choice of grades, and a page collection.

So that any engine (Pyserini/Anserini, Terrier, Elasticsearch, a dense index) can produce runs that
``nclue score`` reads:

- **Topics** (:func:`topics_tsv`, :func:`topics_trec`): one query form (``raw``, ``clean`` or
  ``natural``; n-Clue paper, sec. 3.3 releases the clean semicolon form). TSV is ``qid<TAB>text``
  (Anserini's ``TsvString`` reader, MS MARCO style). TREC topics are ``<top>`` blocks with the
  chosen form as ``<title>``, the natural form as ``<desc>`` and the conditions in ``<narr>``.
  A TREC topic number is an integer (Anserini's ``TrecTopicReader``, Terrier and the TREC
  tracks read ``<num>`` as one; Anserini keeps only the digits, so ``v1_0000`` would become
  ``10000``), so ``<num>`` holds the query's *topic number* (:func:`topic_numbers`): the qid
  itself when every qid of the release is a plain integer, else the qid's 1-based position in
  qid order. ``--format numbers`` writes the ``number<TAB>qid`` table, and ``nclue score`` /
  ``nclue import-trec`` with ``--topic-numbers`` read a run made from these topics.
- **Qrels** (:func:`qrels_text`), ``qid 0 docid grade``, one row per judged pair, grades:

  - ``clues``: the clue count (golds and subsets alike; a gate-failed all-condition subset gets the
    gold's grade, as the graded NDCG of :mod:`nclue.metrics` does);
  - ``gold``: 1 for a gold, 0 for a judged subset (rows kept, so every query stays in the qrels):
    trec_eval's ``ndcg_cut.k`` and ``success.k`` are then Gold-NDCG@k and Gold Hit@k;
  - ``labels``: the clue count, plus 1 for a gold, so that ``gold > all-condition subset that
    failed a page gate > subsets with fewer clues`` (a 2-condition query: gold 3, gate-failed 2,
    one clue 1).
- **Collection** (:func:`collection_rows`): Pyserini's ``JsonCollection`` shape ``{"id",
  "contents"}``, one entry per page (id ``<docid>#<page>``) and one per document (id ``<docid>``,
  its pages joined by a blank line: the document is the concatenation of its pages, sec. 3.2), from
  a locally rebuilt page-text file. The release ships no text; the exported files are local build
  outputs and must not be redistributed beyond the source licenses.
"""

import hashlib
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

from .errors import InputError
from .formats import PathLike, dumps_canonical, field, iter_jsonl
from .release import FORMS, Release

QREL_GRADES = ("clues", "gold", "labels")
TOPIC_FORMATS = ("tsv", "trec", "numbers")
_JAVA_INT_MAX = 2 ** 31 - 1  # Anserini keys TREC topics by Java int
COLLECTION_UNITS = ("pages", "documents")
PAGE_SEPARATOR = "\n\n"


def qrel_grade(clues: int, is_gold: bool, grades: str) -> int:
    """The exported grade of one judged pair under the named scheme (module docstring)."""
    if grades == "clues":
        return clues
    if grades == "gold":
        return int(is_gold)
    if grades == "labels":
        return clues + int(is_gold)
    raise ValueError(f"unknown grade scheme {grades!r}; expected one of {', '.join(QREL_GRADES)}")


def qrels_text(release: Release, grades: str = "clues") -> str:
    """TREC qrels ``qid 0 docid grade`` for every judged pair, sorted by qid then docid."""
    lines = []
    for qid in sorted(release.judgments):
        for docid in sorted(release.judgments[qid]):
            j = release.judgments[qid][docid]
            lines.append(f"{qid} 0 {docid} {qrel_grade(j.clues, j.is_gold, grades)}\n")
    return "".join(lines)


def _form_text(release: Release, qid: str, form: str) -> str:
    if form not in FORMS:
        raise ValueError(f"unknown query form {form!r}; expected one of {', '.join(FORMS)}")
    text = release.queries[qid].forms[form]
    if "\t" in text or "\n" in text or "\r" in text:
        raise InputError(release.path, f"query {qid!r}: the {form} form holds a tab or a line "
                                       "break, which TSV and TREC topics cannot carry")
    return text


def topics_tsv(release: Release, form: str = "clean") -> str:
    """``qid<TAB>text`` lines in qid order."""
    return "".join(f"{qid}\t{_form_text(release, qid, form)}\n" for qid in sorted(release.queries))


def _plain_integer(qid: str) -> bool:
    return qid.isascii() and qid.isdigit() and str(int(qid)) == qid and int(qid) <= _JAVA_INT_MAX


def topic_numbers(qids: Iterable[str]) -> Dict[str, int]:
    """``{qid: TREC topic number}``: the qid itself when every qid is a plain integer (no sign,
    no leading zero, at most 2**31 - 1: what Anserini's ``TrecTopicReader`` reads back
    unchanged), else the 1-based position of the qid in sorted qid order. Deterministic: a
    frozen release always gets the same numbers."""
    ordered = sorted(set(qids))
    if all(map(_plain_integer, ordered)):
        return {qid: int(qid) for qid in ordered}
    return {qid: number for number, qid in enumerate(ordered, start=1)}


def qids_by_topic_number(qids: Iterable[str]) -> Dict[str, str]:
    """``{str(number): qid}``, the inverse of :func:`topic_numbers` (keys in canonical decimal)."""
    return {str(number): qid for qid, number in topic_numbers(qids).items()}


def topic_numbers_tsv(release: Release) -> str:
    """``number<TAB>qid`` lines in qid order: the key from TREC topic numbers back to qids."""
    numbers = topic_numbers(release.queries)
    return "".join(f"{numbers[qid]}\t{qid}\n" for qid in sorted(numbers))


def topics_trec(release: Release, form: str = "clean") -> str:
    """TREC topic blocks in qid order (num: the topic number, :func:`topic_numbers`; title: the
    chosen form; desc: natural; narr: conditions)."""
    numbers = topic_numbers(release.queries)
    blocks = []
    for qid in sorted(release.queries):
        query = release.queries[qid]
        narrative = ("A relevant document supports every condition, on distinct pages: "
                     + "; ".join(query.conditions) + ".")
        blocks.append(f"<top>\n<num> Number: {numbers[qid]}\n"
                      f"<title> {_form_text(release, qid, form)}\n\n"
                      f"<desc> Description:\n{_form_text(release, qid, 'natural')}\n\n"
                      f"<narr> Narrative:\n{narrative}\n</top>\n\n")
    return "".join(blocks)


def read_release_pages(path: PathLike, release: Release) -> Dict[str, List[str]]:
    """Page texts ``{docid: [page 1, page 2, ...]}`` of the release's documents, checked.

    Reads a rebuilt ``pages.jsonl(.gz)`` (``{"docid", "page", "text", ...}`` per line, the sources
    step's output). Documents outside the release are skipped. Refused: a repeated or missing page,
    a page count that differs from ``corpus.jsonl``, a missing document, and, where the corpus
    records ``text_sha256`` (sha256 of the document's canonical page lines), different text.
    """
    texts: Dict[str, Dict[int, str]] = {}
    digests: Dict[str, "hashlib._Hash"] = {}
    first_line: Dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        docid = field(obj, "docid", str, path, line)
        if docid not in release.corpus:
            continue
        page = field(obj, "page", int, path, line)
        text = field(obj, "text", str, path, line)
        pages = texts.setdefault(docid, {})
        first_line.setdefault(docid, line)
        if page in pages:
            raise InputError(path, f"document {docid!r} repeats page {page}", line)
        pages[page] = text
        digests.setdefault(docid, hashlib.sha256()).update(
            (dumps_canonical(obj) + "\n").encode("utf-8"))
    result: Dict[str, List[str]] = {}
    for docid in sorted(release.corpus):
        doc = release.corpus[docid]
        pages = texts.get(docid)
        if pages is None:
            raise InputError(path, f"no page text for document {docid!r} of release "
                                   f"{release.name!r} (rebuild the page text first)")
        if sorted(pages) != list(range(1, doc.pages + 1)):
            raise InputError(path, f"document {docid!r} has pages {min(pages)}..{max(pages)} "
                                   f"({len(pages)} in all); corpus.jsonl says 1..{doc.pages}",
                             first_line[docid])
        want = doc.extra.get("text_sha256")
        if isinstance(want, str) and digests[docid].hexdigest() != want:
            raise InputError(path, f"page text of {docid!r} differs from the release's "
                                   "text_sha256 (rebuilt from other sources?)", first_line[docid])
        result[docid] = [pages[n] for n in range(1, doc.pages + 1)]
    return result


def collection_rows(pages: Mapping[str, List[str]], unit: str) -> Iterator[Dict[str, str]]:
    """JsonCollection rows for ``unit`` ``pages`` (``<docid>#<page>``) or ``documents``."""
    if unit not in COLLECTION_UNITS:
        raise ValueError(f"unknown unit {unit!r}; expected one of {', '.join(COLLECTION_UNITS)}")
    for docid in sorted(pages):
        if unit == "documents":
            yield {"id": docid, "contents": PAGE_SEPARATOR.join(pages[docid])}
        else:
            for number, text in enumerate(pages[docid], start=1):
                yield {"id": page_id(docid, number), "contents": text}


def page_id(docid: str, page: int) -> str:
    """The collection id of a page: ``<docid>#<page>`` (page 1-based)."""
    return f"{docid}#{page}"


def split_page_id(unit_id: str) -> Tuple[str, Optional[int]]:
    """``(docid, page)`` from a collection id; page None for a document id."""
    docid, sep, page = unit_id.rpartition("#")
    if sep and page.isdigit():
        return docid, int(page)
    return unit_id, None
