"""Rankings ("runs"): the release's JSONL format, TREC import/export, and tie rules.

JSONL run (``runs/<run_id>.jsonl.gz``, gzip with mtime 0): one line per query
``{"qid", "docs": [...], "scores": [...]}``, best first, depth up to 100; a page-scored run may add
``"pages": {docid: [[page, score], ...]}``.

TREC run: whitespace-separated ``qid Q0 docid rank score tag`` lines. As trec_eval does, text after
the tag (a seventh field and on, e.g. trec_eval's own ``test/results.trunc``) is ignored, and a
line with fewer than six fields is refused. TREC qrels: ``qid 0 docid grade``.

Tie rules (a ranking is always re-sorted by descending score, then ties are broken):

- ``input`` (default; the n-Clue paper, supplement 2: "stable input order resolves score ties"):
  equal scores keep the order in which the documents appear in the file (JSONL list order, or
  TREC line order; the TREC rank column is ignored).
- ``trec_eval``: equal scores are ordered by docid descending (strcmp), as trec_eval does.
- ``expected``: no order is chosen; the ranking is stored in stable input order and every measure
  is the exact expectation over uniformly random orders within tie groups (:mod:`nclue.ties`).

A ranking that repeats a document, or holds a non-finite score, is rejected.

Reading: a run file is streamed once (:func:`nclue.formats.iter_lines`): the format is detected
from its first non-blank line and the same line stream is then parsed, so memory follows the
rankings, not the file. A file with no ranking at all (empty, or only blank lines) is refused:
scored, it would silently count as an empty ranking for every query (pass ``allow_empty=True``
to read one on purpose). Values echoed in error lines are cut to 80 characters
(:func:`nclue.errors.clip`).
"""

import itertools
import math
import operator
from array import array
from collections.abc import Mapping as _Mapping, Sequence as _Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from .errors import InputError, clip
from .formats import (PathLike, field, finite_number, iter_lines, jsonl_objects,
                      no_cycle_collection, write_jsonl_atomic, write_text_atomic)
from .release import Release

Lines = Iterator[Tuple[int, str]]

TIE_RULES = ("input", "trec_eval", "expected")
ORDER_RULES = ("input", "trec_eval")  # the rules that choose one order (``expected`` chooses none)
#: What each tie rule means, in the words every output and table prints (:func:`tie_sentence`).
RULE_TEXT = {
    "input": "stable file order inside tied scores, the paper's rule",
    "trec_eval": "docid descending inside tied scores, trec_eval's rule",
    "expected": "exact expectation over uniformly random orders inside tied scores",
}


def tie_sentence(ties: str) -> str:
    """The sentence an output or table carries about its tie rule: one rule (``input``), or
    several joined by commas (one column each, as the tie-sensitivity table has them)."""
    rules = ties.split(",")
    if len(rules) == 1:
        return f"Score ties: {ties} ({RULE_TEXT[ties]})."
    return f"Score ties: one column per rule ({', '.join(rules)})."
_STR = frozenset((str,))
_NUMBER = frozenset((float, int))
_INT = frozenset((int,))
_LIST = frozenset((list,))
_TWO = frozenset((2,))

PageScores = Tuple[Tuple[int, float], ...]


class RankedDocs(_Sequence):
    """A ranking's documents, best first, held as 2- or 4-byte indices into its run's table of
    docids (where a tuple holds an 8-byte pointer a document: issue 23). It reads as the tuple
    it stands for: equal to it (and hashed alike), same items, slices and order."""

    __slots__ = ("_names", "_ids")

    def __init__(self, names: Tuple[str, ...], ids: "array") -> None:
        self._names = names
        self._ids = ids

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[str]:
        return map(self._names.__getitem__, self._ids)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return tuple(map(self._names.__getitem__, self._ids[index]))
        return self._names[self._ids[index]]

    def __contains__(self, docid: object) -> bool:
        return docid in tuple(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RankedDocs):
            return tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


class _DocTable:
    """The docids of one run file as it is parsed: each new docid gets the next index."""

    def __init__(self) -> None:
        self.index: Dict[str, int] = {}
        self.names: List[str] = []

    def ids(self, docs: Sequence[str]) -> "array":
        index = self.index
        for docid in docs:
            if docid not in index:
                index[docid] = len(self.names)
                self.names.append(docid)
        return array("I", map(index.__getitem__, docs))

    def finish(self, pending: Dict[str, Tuple["array", Sequence[float], Optional[Mapping[str, PageScores]]]]
               ) -> Dict[str, "Ranking"]:
        """The rankings, their documents as :class:`RankedDocs` over one shared table (indices
        of 2 bytes when the run names fewer than 65,536 documents)."""
        names = tuple(self.names)
        small = len(names) <= 0xFFFF
        return {qid: Ranking(qid, RankedDocs(names, array("H", ids) if small else ids), scores, pages)
                for qid, (ids, scores, pages) in pending.items()}


@dataclass(frozen=True)
class Ranking:
    """One query's ranked documents, best first, with scores (and optional page scores).

    A run file's rankings hold their documents as :class:`RankedDocs` and their scores as an
    ``array('d')`` (8 bytes a score, where a tuple holds a pointer and a float object): sequences
    of the same docids and floats, -0.0 included."""

    qid: str
    docs: Sequence[str]
    scores: Sequence[float]
    pages: Optional[Mapping[str, PageScores]] = None


@dataclass(frozen=True)
class Run:
    """A system's rankings for a set of queries."""

    run_id: str
    rankings: Mapping[str, Ranking]
    tie_rule: str = "input"


def order_by_score(docs: List[str], scores: List[float], ties: str) -> Tuple[List[str], List[float]]:
    """Sort by descending score with the named tie rule (see module docstring)."""
    if ties not in TIE_RULES:
        raise ValueError(f"unknown tie rule {ties!r}; expected one of {', '.join(TIE_RULES)}")
    stable = ties != "trec_eval"  # input and expected keep the input order among equal scores
    if all(map(operator.ge if stable else operator.gt, scores, scores[1:])):
        return list(docs), list(scores)  # already in order: nothing to break
    indices = list(range(len(docs)))
    if stable:
        indices.sort(key=lambda i: -scores[i])  # list.sort is stable: input order breaks ties
    else:
        indices.sort(key=lambda i: docs[i], reverse=True)
        indices.sort(key=lambda i: -scores[i])
    return [docs[i] for i in indices], [scores[i] for i in indices]


def _check_docs(path: PathLike, line: int, qid: str, docs: List[str],
                release: Optional[Release]) -> None:
    unique = set(docs)
    if len(unique) == len(docs) and (release is None or unique <= release.corpus.keys()):
        return  # fast path; the loop below names the first offending document
    seen = set()
    for docid in docs:
        if docid in seen:
            raise InputError(path, f"query {clip(qid)} ranks document {clip(docid)} twice", line)
        seen.add(docid)
        if release is not None and docid not in release.corpus:
            raise InputError(path, f"unknown docid {clip(docid)}", line)


def _page_columns(items: List[object]) -> Optional[Tuple[Tuple[int, ...], List[float]]]:
    """``(page numbers, float scores)`` when every entry is ``[page, score]`` with an integer
    page >= 1 and a finite number as score (no bool), checked a column at a time; else None
    (the caller then names the first bad entry)."""
    if not items:
        return (), []
    if not (set(map(type, items)) <= _LIST and set(map(len, items)) == _TWO):
        return None
    page_numbers, scores = zip(*items)
    if not (set(map(type, page_numbers)) <= _INT and min(page_numbers) >= 1
            and set(map(type, scores)) <= _NUMBER and all(map(math.isfinite, scores))):
        return None
    return page_numbers, list(map(float, scores))


def _page_entries(items: List[object]) -> Optional[PageScores]:
    """``((page, float score), ...)`` of well-formed entries (:func:`_page_columns`), else None."""
    columns = _page_columns(items)
    return None if columns is None else tuple(zip(*columns))


_MAX_ARRAY_PAGE = 2 ** 64 - 1  # the largest page number an unsigned 64-bit array holds


def _unsigned(largest: int) -> str:
    """The smallest unsigned array type code that holds ``0..largest`` (at most 2**64 - 1)."""
    return "H" if largest <= 0xFFFF else "I" if largest <= 0xFFFFFFFF else "Q"


class PageScoreTable(_Mapping):
    """One ranking's page scores, ``{docid: ((page, score), ...)}`` in the file's order, held as
    flat arrays: the documents, each one's end offset, the page numbers and the scores (about
    10 bytes an entry, where a tuple per entry took about 100: issue 23). It reads as the dict
    it stands for (equal to it, same keys, values and order)."""

    __slots__ = ("_docs", "_ends", "_pages", "_scores")

    def __init__(self, docs: Tuple[str, ...], ends: Sequence[int], pages: Sequence[int],
                 scores: Sequence[float]) -> None:
        self._docs = docs
        self._ends = array(_unsigned(ends[-1] if len(ends) else 0), ends)
        self._pages = array(_unsigned(max(pages) if len(pages) else 0), pages)
        self._scores = array("d", scores)

    def _entries(self, slot: int) -> PageScores:
        start = self._ends[slot - 1] if slot else 0
        end = self._ends[slot]
        return tuple(zip(self._pages[start:end], self._scores[start:end]))

    def __getitem__(self, docid: str) -> PageScores:
        try:
            slot = self._docs.index(docid)
        except ValueError:
            raise KeyError(docid) from None
        return self._entries(slot)

    def get(self, docid: str, default: object = None) -> object:  # type: ignore[override]
        try:
            slot = self._docs.index(docid)
        except ValueError:
            return default
        return self._entries(slot)

    def __contains__(self, docid: object) -> bool:
        return docid in self._docs

    def __iter__(self) -> Iterator[str]:
        return iter(self._docs)

    def __len__(self) -> int:
        return len(self._docs)

    def __repr__(self) -> str:
        return f"PageScoreTable({dict(self.items())!r})"


def page_table(docs: Sequence[str], ends: Sequence[int], pages: Sequence[int],
               scores: Sequence[float]) -> Mapping[str, PageScores]:
    """The :class:`PageScoreTable` of these columns; a plain dict when a page number is too
    large for an array (above 2**64 - 1: valid, if unlikely)."""
    if pages and max(pages) > _MAX_ARRAY_PAGE:
        starts = [0] + list(ends[:-1])
        return {d: tuple(zip(pages[a:b], scores[a:b])) for d, a, b in zip(docs, starts, ends)}
    return PageScoreTable(tuple(docs), ends, pages, scores)


def _parse_pages(value: object, path: PathLike, line: int, docs: Tuple[str, ...],
                 shared: Optional[Dict[str, str]] = None) -> Mapping[str, PageScores]:
    """``{docid: ((page, score), ...)}`` as a :class:`PageScoreTable`; ``shared`` maps each
    docid to one string object."""
    if not isinstance(value, dict):
        raise InputError(path, "field 'pages' must be an object", line)
    ranked = set(docs)
    lists = value.values()
    if value.keys() <= ranked and set(map(type, lists)) <= _LIST:
        # the whole ranking's entries checked as one column pair; on any problem, the loop
        # below goes document by document and names the first
        columns = _page_columns(list(itertools.chain.from_iterable(lists)))
        if columns is not None:
            keys = list(value) if shared is None else list(map(shared.setdefault, value, value))
            return page_table(keys, list(itertools.accumulate(map(len, lists))), columns[0], columns[1])
    keys: List[str] = []
    ends: List[int] = []
    numbers: List[int] = []
    scores: List[float] = []
    for docid, items in value.items():
        if docid not in ranked:
            raise InputError(path, f"page scores for unranked document {clip(docid)}", line)
        if not isinstance(items, list):
            raise InputError(path, f"pages of {clip(docid)} must be a list of [page, score]", line)
        columns = _page_columns(items)
        if columns is None:  # name the first bad entry
            for item in items:
                if (not isinstance(item, list) or len(item) != 2 or isinstance(item[0], bool)
                        or not isinstance(item[0], int) or item[0] < 1):
                    raise InputError(path, f"pages of {clip(docid)}: each entry must be "
                                           "[page>=1, score]", line)
                finite_number(item[1], f"page score of {clip(docid)}", path, line)
            raise AssertionError("unreachable: a bad page entry was not named")
        numbers.extend(columns[0])
        scores.extend(columns[1])
        ends.append(len(numbers))
        keys.append(docid if shared is None else shared.setdefault(docid, docid))
    return page_table(keys, ends, numbers, scores)


def _no_rankings(path: PathLike) -> InputError:
    try:
        empty = Path(path).stat().st_size == 0
    except OSError:
        empty = False
    what = "is empty" if empty else "holds only blank lines"
    return InputError(path, f"the run file {what}: it has no ranking (scored, every query would "
                            "count as an empty ranking)")


def _parse_jsonl(lines: Lines, path: PathLike, release: Optional[Release], ties: str,
                 run_id: Optional[str], allow_empty: bool) -> Run:
    rankings: Dict[str, Tuple["array", Sequence[float], Optional[Mapping[str, PageScores]]]] = {}
    shared: Dict[str, str] = {}  # one string object per docid: a run names few documents often
    table = _DocTable()
    for line, obj in jsonl_objects(lines, path):
        qid = field(obj, "qid", str, path, line)
        if release is not None and qid not in release.queries:
            raise InputError(path, f"unknown qid {clip(qid)}", line)
        if qid in rankings:
            raise InputError(path, f"duplicate ranking for qid {clip(qid)}", line)
        docs = field(obj, "docs", list, path, line)
        scores = field(obj, "scores", list, path, line)
        if not (set(map(type, docs)) <= _STR and "" not in docs):
            raise InputError(path, "field 'docs' must be a list of non-empty strings", line)
        if len(scores) != len(docs):
            raise InputError(path, f"{len(docs)} docs but {len(scores)} scores", line)
        if set(map(type, scores)) <= _NUMBER and all(map(math.isfinite, scores)):
            numbers = list(map(float, scores))
        else:
            numbers = [finite_number(s, "score", path, line) for s in scores]
        _check_docs(path, line, qid, docs, release)
        docs = list(map(shared.setdefault, docs, docs))
        ordered_docs, ordered_scores = order_by_score(docs, numbers, ties)
        pages = None
        if "pages" in obj:
            pages = _parse_pages(obj["pages"], path, line, tuple(docs), shared)
        rankings[qid] = (table.ids(ordered_docs), array("d", ordered_scores), pages)
    if not rankings and not allow_empty:
        raise _no_rankings(path)
    return Run(run_id or run_id_from_path(path), table.finish(rankings), ties)


def read_jsonl_run(path: PathLike, release: Optional[Release] = None, ties: str = "input",
                   run_id: Optional[str] = None, allow_empty: bool = False) -> Run:
    """Read a JSONL run (gzip allowed) and validate it (against ``release`` when given)."""
    return _parse_jsonl(iter_lines(path), path, release, ties, run_id, allow_empty)


def _mapped_qid(qid: str, qid_map: Mapping[str, str], path: PathLike, number: int) -> str:
    """The release qid of a run's TREC topic number (``qid_map``: canonical decimal -> qid)."""
    key = str(int(qid)) if qid.isascii() and qid.isdigit() else None
    if key not in qid_map:
        raise InputError(path, f"qid {clip(qid)} is not a topic number of the release "
                               f"(its TREC topics are numbered {min(qid_map, key=int)}.."
                               f"{max(qid_map, key=int)}; nclue export topics --format numbers)",
                         number)
    return qid_map[key]


def _parse_trec(lines: Lines, path: PathLike, release: Optional[Release], ties: str,
                run_id: Optional[str], allow_empty: bool,
                qid_map: Optional[Mapping[str, str]] = None) -> Run:
    docs: Dict[str, List[str]] = {}
    scores: Dict[str, List[float]] = {}
    seen: Dict[str, set] = {}
    shared: Dict[str, str] = {}  # one string object per docid and qid
    for number, raw in lines:
        if not raw.strip():
            continue
        parts = raw.split(None, 6)  # a 7th part is text after the tag: ignored, as trec_eval
        if len(parts) < 6:
            raise InputError(path, f"expected 6 columns 'qid Q0 docid rank score tag', "
                                   f"got {len(parts)}", number)
        qid, _, docid, rank, score = parts[:5]
        if qid_map is not None:
            qid = _mapped_qid(qid, qid_map, path, number)
        try:
            int(rank)
        except ValueError:
            raise InputError(path, f"rank {clip(rank)} is not an integer", number) from None
        try:
            value = float(score)
        except ValueError:
            raise InputError(path, f"score {clip(score)} is not a number", number) from None
        finite_number(value, "score", path, number)
        if release is not None and qid not in release.queries:
            hint = (" (a TREC topic number? a run made from 'nclue export topics --format trec' "
                    "is read with --topic-numbers)" if qid_map is None and qid.isdigit() else "")
            raise InputError(path, f"unknown qid {clip(qid)}{hint}", number)
        if release is not None and docid not in release.corpus:
            raise InputError(path, f"unknown docid {clip(docid)}", number)
        if docid in seen.setdefault(qid, set()):
            raise InputError(path, f"query {clip(qid)} ranks document {clip(docid)} twice", number)
        seen[qid].add(docid)
        docs.setdefault(shared.setdefault(qid, qid), []).append(shared.setdefault(docid, docid))
        scores.setdefault(qid, []).append(value)
    if not docs and not allow_empty:
        raise _no_rankings(path)
    rankings = {}
    table = _DocTable()
    for qid in docs:
        ordered_docs, ordered_scores = order_by_score(docs[qid], scores[qid], ties)
        rankings[qid] = (table.ids(ordered_docs), array("d", ordered_scores), None)
    return Run(run_id or run_id_from_path(path), table.finish(rankings), ties)


def read_trec_run(path: PathLike, release: Optional[Release] = None, ties: str = "input",
                  run_id: Optional[str] = None, allow_empty: bool = False,
                  qid_map: Optional[Mapping[str, str]] = None) -> Run:
    """Read a TREC run file (``qid Q0 docid rank score tag``); the rank column and any text after
    the tag are ignored (as trec_eval does); fewer than six fields is an error. ``qid_map``
    (:func:`nclue.exports.qids_by_topic_number`) reads the qid column as TREC topic numbers."""
    return _parse_trec(iter_lines(path), path, release, ties, run_id, allow_empty, qid_map)


def checked_against(run: Run, release: Release, path: PathLike,
                    qid_map: Optional[Mapping[str, str]] = None) -> Run:
    """``run`` (read without a release) checked against ``release``'s queries and corpus.

    The cheap set test passes for a valid run; otherwise the file is re-read with the release,
    which raises the InputError naming the first bad line, as ``load_run(path, release)`` does.
    """
    queries, corpus = release.queries, release.corpus.keys()
    for qid, ranking in run.rankings.items():
        if qid not in queries or not corpus >= set(ranking.docs):
            return load_run(path, release, run.tie_rule, run_id=run.run_id, qid_map=qid_map)
    return run


def run_id_from_path(path: PathLike) -> str:
    name = Path(path).name
    for suffix in (".jsonl.gz", ".jsonl", ".trec.gz", ".trec", ".txt", ".gz"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _first_content(lines: Lines) -> Tuple[Optional[Tuple[int, str]], Lines]:
    """The first non-blank line (None when there is none) and the whole stream, unconsumed."""
    skipped = []
    for item in lines:
        skipped.append(item)
        if item[1].strip():
            return item, itertools.chain(skipped, lines)
    return None, iter(skipped)


def _format_of(first: Optional[Tuple[int, str]]) -> str:
    return "jsonl" if first is not None and first[1].lstrip().startswith("{") else "trec"


def detect_format(path: PathLike) -> str:
    """``jsonl`` when the first non-blank character is ``{``, else ``trec`` (reads one line)."""
    first, _ = _first_content(iter_lines(path))
    return _format_of(first)


def load_run(path: PathLike, release: Optional[Release] = None, ties: str = "input",
             fmt: str = "auto", run_id: Optional[str] = None, allow_empty: bool = False,
             qid_map: Optional[Mapping[str, str]] = None) -> Run:
    """Load a run in JSONL or TREC format (auto-detected unless ``fmt`` is given).

    The file is read once: detection looks at the first non-blank line of the same stream
    that is then parsed. An empty run is refused unless ``allow_empty``. ``qid_map`` (TREC
    runs only) maps the qid column, read as TREC topic numbers, to the release's qids.
    """
    if ties not in TIE_RULES:
        raise InputError(path, f"unknown tie rule {clip(ties)}")
    if fmt not in ("auto", "jsonl", "trec"):
        raise InputError(path, f"unknown run format {clip(fmt)}")
    with no_cycle_collection():  # a run's rankings hold no cycles (nclue.formats)
        return _load_run(path, release, ties, fmt, run_id, allow_empty, qid_map)


def _load_run(path: PathLike, release: Optional[Release], ties: str, fmt: str,
              run_id: Optional[str], allow_empty: bool, qid_map: Optional[Mapping[str, str]]) -> Run:
    lines = iter_lines(path)
    kind = fmt
    if fmt == "auto":
        first, lines = _first_content(lines)
        kind = _format_of(first)
    if kind == "jsonl":
        if qid_map is not None:
            raise InputError(path, "topic numbers apply to TREC runs; this is a JSONL run "
                                   "(its qids are the release's)")
        return _parse_jsonl(lines, path, release, ties, run_id, allow_empty)
    return _parse_trec(lines, path, release, ties, run_id, allow_empty, qid_map)


def run_rows(run: Run) -> List[dict]:
    """Rows of the JSONL run format, sorted by qid."""
    rows = []
    for qid in sorted(run.rankings):
        ranking = run.rankings[qid]
        row = {"qid": qid, "docs": list(ranking.docs), "scores": list(ranking.scores)}
        if ranking.pages is not None:
            row["pages"] = {d: [[p, s] for p, s in items] for d, items in ranking.pages.items()}
        rows.append(row)
    return rows


def write_run(path: PathLike, run: Run, inputs: Iterable[PathLike] = ()) -> None:
    """Write the JSONL run format (deterministic gzip when the name ends in ``.gz``); ``-`` is
    standard output; ``inputs`` may not be overwritten (:mod:`nclue.outputs`)."""
    write_jsonl_atomic(path, run_rows(run), inputs)


def format_score(score: float) -> str:
    return repr(float(score))


def trec_run_text(run: Run, tag: Optional[str] = None) -> str:
    """TREC run text: ranks 1..n in the run's order; scores printed with ``repr`` (round trip)."""
    label = tag or run.run_id
    lines = []
    for qid in sorted(run.rankings):
        ranking = run.rankings[qid]
        for rank, (docid, score) in enumerate(zip(ranking.docs, ranking.scores), start=1):
            lines.append(f"{qid} Q0 {docid} {rank} {format_score(score)} {label}\n")
    return "".join(lines)


def write_trec_run(path: PathLike, run: Run, tag: Optional[str] = None,
                   inputs: Iterable[PathLike] = ()) -> None:
    write_text_atomic(path, trec_run_text(run, tag), inputs)


def trec_qrels_text(release: Release) -> str:
    """TREC qrels (``qid 0 docid grade``) with grade = clue count; golds and subsets alike.

    The gold/subset distinction is not representable in plain TREC qrels: a gate-failed subset
    has the same clue count as a gold. Use :func:`read_trec_qrels` with ``gold_grade`` to import.
    """
    lines = []
    for qid in sorted(release.judgments):
        for docid in sorted(release.judgments[qid]):
            lines.append(f"{qid} 0 {docid} {release.judgments[qid][docid].clues}\n")
    return "".join(lines)


def write_trec_qrels(path: PathLike, release: Release, inputs: Iterable[PathLike] = ()) -> None:
    write_text_atomic(path, trec_qrels_text(release), inputs)


def read_trec_qrels(path: PathLike) -> Dict[str, Dict[str, int]]:
    """Read TREC qrels (``qid iter docid grade``) into ``{qid: {docid: grade}}`` (grade 0 dropped)."""
    qrels: Dict[str, Dict[str, int]] = {}
    for number, raw in iter_lines(path):
        if not raw.strip():
            continue
        parts = raw.split()
        if len(parts) != 4:
            raise InputError(path, f"expected 4 columns 'qid iter docid grade', got {len(parts)}",
                             number)
        qid, _, docid, grade_text = parts
        try:
            grade = int(grade_text)
        except ValueError:
            raise InputError(path, f"grade {clip(grade_text)} is not an integer", number) from None
        if grade < 0:
            raise InputError(path, f"negative grade {grade}", number)
        per_query = qrels.setdefault(qid, {})
        if docid in per_query:
            raise InputError(path, f"duplicate qrel for ({clip(qid)}, {clip(docid)})", number)
        if grade:
            per_query[docid] = grade
    return qrels
