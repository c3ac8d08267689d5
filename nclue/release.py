"""The release format: validated records for queries, qrels, corpus and evidence.

A release is one folder (``data/<name>/``) holding:

- ``queries.jsonl``: ``{"qid", "conditions": [2 or 3 strings], "forms": {"raw", "clean", "natural"}}``.
- ``qrels.jsonl`` (or ``qrels.jsonl.gz``): compact, nonzero rows only:
  ``{"qid", "docid", "clues": k, "label": "gold"|"subset"}``, plus ``"gate"`` on an all-condition
  document that failed a page gate (``"single_page"`` or ``"distinct_page"``), which is a subset.
  Every (query, document) pair absent from the file has grade 0 (n-Clue paper, supplement 11).
- ``corpus.jsonl``: ``{"docid", "pages", "source", "sha256", ...}`` (metadata only, no text).
- ``evidence.jsonl`` (optional): ``{"qid", "docid", "pages": [[pages for c1], [pages for c2], ...]}``.
- ``runs/`` with ``index.json`` and ``<run_id>.jsonl.gz`` (see :mod:`nclue.runs`).
- ``claims.json`` (see :mod:`nclue.claims`).
"""

import operator
import re
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Tuple

from .errors import InputError, clip
from .formats import (PathLike, field, iter_jsonl, iter_line_blocks, jsonl_objects, list_of_str,
                      loads_strict)
from .layout import ReleaseLayout

FORMS = ("raw", "clean", "natural")
_INT = frozenset((int,))
LABELS = ("gold", "subset")
GATES = ("single_page", "distinct_page")


@dataclass(frozen=True)
class Query:
    """One conjunctive request: 2 or 3 explicit conditions and its three renderings."""

    qid: str
    conditions: Tuple[str, ...]
    forms: Mapping[str, str]
    condition_ids: Tuple[str, ...] = ()  # "<kind>:<name>" per condition, where recorded


class Judgment(NamedTuple):
    """A nonzero qrel. ``clues`` is the exact number of conditions the document supports.

    A gold supports every condition on distinct pages (n-Clue paper, sec. 3.2); a subset supports
    at least one but not all of them, or all of them while failing a page gate (``gate`` set).
    (An immutable named tuple rather than a dataclass: a release holds one per judged pair, 138,305
    in v1, and a tuple is built several times faster and is a third of the size.)
    """

    qid: str
    docid: str
    clues: int
    label: str
    gate: Optional[str] = None

    @property
    def is_gold(self) -> bool:
        return self.label == "gold"


@dataclass(frozen=True)
class Document:
    """Corpus metadata for one document (no text)."""

    docid: str
    pages: int
    source: str
    sha256: str
    extra: Mapping[str, Any] = dataclass_field(default_factory=dict)


@dataclass(frozen=True)
class Release:
    """A loaded, cross-validated release."""

    path: str
    queries: Mapping[str, Query]
    judgments: Mapping[str, Mapping[str, Judgment]]
    corpus: Mapping[str, Document]
    evidence: Mapping[Tuple[str, str], Tuple[Tuple[int, ...], ...]]
    #: optional files the folder lacks (e.g. ``("evidence.jsonl",)``); see :func:`release_notes`
    missing: Tuple[str, ...] = ()
    #: False when the caller asked not to read ``evidence.jsonl`` (nothing it computes needs it)
    evidence_loaded: bool = True

    @property
    def name(self) -> str:
        return Path(self.path).name

    def golds(self, qid: str) -> Tuple[str, ...]:
        """The query's gold document ids, sorted."""
        return tuple(sorted(d for d, j in self.judgments.get(qid, {}).items() if j.is_gold))


def quote_condition(condition: str) -> str:
    return f'"{condition}"'


def render_forms(conditions: Tuple[str, ...], raw: Optional[str] = None) -> Dict[str, str]:
    """The three deterministic query renderings.

    clean: each condition quoted, joined by ``"; "`` (the paper's released clean semicolon query,
    sec. 3.3). natural: ``Find the document that discusses "X", "Y", and "Z".`` (two conditions:
    ``"X" and "Y"``). raw: the original text when given, else the conditions joined by ``", "``.
    """
    if len(conditions) not in (2, 3):
        raise ValueError("a query has 2 or 3 conditions")
    quoted = [quote_condition(c) for c in conditions]
    clean = "; ".join(quoted)
    if len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = f"{quoted[0]}, {quoted[1]}, and {quoted[2]}"
    natural = f"Find the document that discusses {listed}."
    return {"raw": raw if raw is not None else ", ".join(conditions), "clean": clean,
            "natural": natural}


def _release_file(folder: Path, stem: str, required: bool = True) -> Optional[Path]:
    """A release's ``<stem>.jsonl`` or ``.jsonl.gz`` (:class:`nclue.layout.ReleaseLayout`)."""
    return ReleaseLayout(folder).existing_jsonl(stem, required)


def release_input_files(folder: PathLike) -> List[Path]:
    """The data files a command reads from a release folder (queries, corpus, qrels, evidence).

    Output-path checks use them as the command's inputs (never overwritten); the run files
    under ``runs/`` are not among them (a producer may replace a run file).
    """
    found = []
    for stem in ("queries", "corpus", "qrels", "evidence"):
        path = _release_file(Path(folder), stem, required=False)
        if path is not None:
            found.append(path)
    return found


def load_queries(path: PathLike) -> Dict[str, Query]:
    """Read and validate ``queries.jsonl``."""
    queries: Dict[str, Query] = {}
    for line, obj in iter_jsonl(path):
        qid = field(obj, "qid", str, path, line)
        if not qid or any(ch.isspace() for ch in qid):
            raise InputError(path, f"qid {clip(qid)} must be non-empty without whitespace", line)
        if qid in queries:
            raise InputError(path, f"duplicate qid {clip(qid)}", line)
        conditions = tuple(list_of_str(field(obj, "conditions", list, path, line),
                                       "conditions", path, line))
        if len(conditions) not in (2, 3):
            raise InputError(path, f"query {clip(qid)} has {len(conditions)} conditions; "
                                   "expected 2 or 3", line)
        if len(set(conditions)) != len(conditions) or not all(c.strip() for c in conditions):
            raise InputError(path, f"query {clip(qid)} has empty or repeated conditions", line)
        forms = field(obj, "forms", dict, path, line)
        for form in FORMS:
            if not isinstance(forms.get(form), str):
                raise InputError(path, f"query {clip(qid)} lacks the string form {form!r}", line)
        expected = render_forms(conditions, raw=forms["raw"])
        for form in ("clean", "natural"):
            if forms[form] != expected[form]:
                raise InputError(path, f"query {clip(qid)}: form {form!r} is {clip(forms[form])}, "
                                       f"expected {clip(expected[form])}", line)
        condition_ids: Tuple[str, ...] = ()
        if "condition_ids" in obj:
            condition_ids = tuple(list_of_str(obj["condition_ids"], "condition_ids", path, line))
            if len(condition_ids) != len(conditions):
                raise InputError(path, f"query {clip(qid)} has {len(condition_ids)} condition_ids "
                                       f"for {len(conditions)} conditions", line)
        queries[qid] = Query(qid, conditions, dict(forms), condition_ids)
    if not queries:
        raise InputError(path, "no queries")
    return queries


def load_corpus(path: PathLike) -> Dict[str, Document]:
    """Read and validate ``corpus.jsonl``."""
    corpus: Dict[str, Document] = {}
    for line, obj in iter_jsonl(path):
        docid = field(obj, "docid", str, path, line)
        if not docid or any(ch.isspace() for ch in docid):
            raise InputError(path, f"docid {clip(docid)} must be non-empty without whitespace", line)
        if docid in corpus:
            raise InputError(path, f"duplicate docid {clip(docid)}", line)
        pages = field(obj, "pages", int, path, line)
        if pages < 1:
            raise InputError(path, f"document {clip(docid)} has {pages} pages", line)
        source = field(obj, "source", str, path, line)
        sha = field(obj, "sha256", str, path, line)
        if len(sha) != 64 or any(ch not in "0123456789abcdef" for ch in sha):
            raise InputError(path, f"document {clip(docid)}: sha256 must be 64 lowercase hex digits",
                             line)
        extra = {k: v for k, v in obj.items() if k not in ("docid", "pages", "source", "sha256")}
        corpus[docid] = Document(docid, pages, source, sha, extra)
    if not corpus:
        raise InputError(path, "no documents")
    return corpus


#: Qrels lines exactly as nclue writes them (sorted keys, no spaces, strings without escapes or
#: control characters), matched a block of lines at a time; a block with any other line is read
#: line by line, each line by this pattern or else the JSON parser. Both give the same values, so
#: validation and its messages are the same.
_CANONICAL_QRELS = re.compile(r'^\{"clues":([1-9][0-9]*),"docid":"([^"\\\x00-\x1f]*)",'
                              r'(?:"gate":"(single_page|distinct_page)",)?'
                              r'"label":"(gold|subset)","qid":"([^"\\\x00-\x1f]*)"\}$', re.M)


def load_qrels(path: PathLike, queries: Mapping[str, Query],
               corpus: Mapping[str, Document]) -> Dict[str, Dict[str, Judgment]]:
    """Read and validate compact ``qrels.jsonl`` against the queries and the corpus.

    Rules (n-Clue paper, sec. 3.2 and supplement 1.1): clues is between 1 and the query's
    condition count; a gold has every condition (clues = n) and no gate; a subset with clues = n
    must name the gate it failed; a subset with clues < n has no gate.
    """
    judgments: Dict[str, Dict[str, Judgment]] = {}
    conditions = {qid: len(query.conditions) for qid, query in queries.items()}
    own_qid = {qid: query.qid for qid, query in queries.items()}  # one string object per id
    new_judgment = tuple.__new__  # Judgment's own constructor, without its argument handling
    for first, lines in iter_line_blocks(path):
        rows = _CANONICAL_QRELS.findall("\n".join(lines))
        if len(rows) != len(lines):  # a blank or non-canonical line: line by line
            for line, obj in _qrel_objects(lines, first, path):
                _add_judgment(judgments, obj, path, line, queries, corpus)
            continue
        for line, (clues, docid, gate, label, qid) in enumerate(rows, first):
            n = conditions.get(qid)
            count = int(clues)
            document = corpus.get(docid)
            per_query = judgments.get(qid)
            if (n is None or document is None or count > n
                    or (not (label == "subset" and count == n) if gate
                        else (label == "gold") != (count == n))
                    or per_query is not None and docid in per_query):
                # a rule is broken: the general path names it
                _add_judgment(judgments, _qrel_object(clues, docid, gate, label, qid), path, line,
                              queries, corpus)
                continue
            qid = own_qid[qid]
            if per_query is None:
                per_query = judgments[qid] = {}
            docid = document.docid
            per_query[docid] = new_judgment(Judgment, (qid, docid, count, label, gate or None))
    return judgments


def _qrel_object(clues: str, docid: str, gate: str, label: str, qid: str) -> Dict[str, Any]:
    """The JSON object of a line :data:`_CANONICAL_QRELS` matched (its groups)."""
    obj: Dict[str, Any] = {"clues": int(clues), "docid": docid, "label": label, "qid": qid}
    if gate:
        obj["gate"] = gate
    return obj


def _qrel_objects(lines: List[str], first: int, path: PathLike) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """``(line number, object)`` of each non-blank line: by the pattern, else the JSON parser."""
    for number, line in enumerate(lines, first):
        match = _CANONICAL_QRELS.fullmatch(line)
        if match is None:
            yield from jsonl_objects(((number, line),), path)
        else:
            yield number, _qrel_object(*match.groups(default=""))


def _add_judgment(judgments: Dict[str, Dict[str, Judgment]], obj: Mapping[str, Any],
                  path: PathLike, line: int, queries: Mapping[str, Query],
                  corpus: Mapping[str, Document]) -> None:
    """Validate one qrels object (the rules of :func:`load_qrels`) and add it."""
    qid = field(obj, "qid", str, path, line)
    docid = field(obj, "docid", str, path, line)
    clues = field(obj, "clues", int, path, line)
    label = field(obj, "label", str, path, line)
    if qid not in queries:
        raise InputError(path, f"unknown qid {clip(qid)}", line)
    if docid not in corpus:
        raise InputError(path, f"unknown docid {clip(docid)}", line)
    qid, docid = queries[qid].qid, corpus[docid].docid  # one string object per id
    gate = obj.get("gate")
    n = len(queries[qid].conditions)
    if label not in LABELS:
        raise InputError(path, f"label must be 'gold' or 'subset', got {clip(label)}", line)
    if not 1 <= clues <= n:
        raise InputError(path, f"clues={clues} outside 1..{n} for query {clip(qid)}", line)
    if gate is not None and gate not in GATES:
        raise InputError(path, f"gate must be one of {', '.join(GATES)}, got {clip(gate)}", line)
    if label == "gold" and (clues != n or gate is not None):
        raise InputError(path, f"a gold must have clues={n} and no gate", line)
    if label == "subset" and clues == n and gate is None:
        raise InputError(path, "an all-condition subset must name the page gate it failed", line)
    if label == "subset" and clues < n and gate is not None:
        raise InputError(path, "only an all-condition subset can carry a gate", line)
    per_query = judgments.setdefault(qid, {})
    if docid in per_query:
        raise InputError(path, f"duplicate qrel for ({clip(qid)}, {clip(docid)})", line)
    per_query[docid] = Judgment(qid, docid, clues, label, gate)


#: Evidence lines exactly as nclue writes them (sorted keys, no spaces, ids without escapes or
#: control characters, page lists of digits), matched a block of lines at a time; their page
#: lists are then parsed by one JSON call per block. A block with any other line (or whose page
#: lists are not JSON, e.g. a leading zero) is read line by line with the JSON parser. Both give
#: the same values to the same checks, so validation and its messages are the same.
_CANONICAL_EVIDENCE = re.compile(r'^\{"docid":"([^"\\\x00-\x1f]*)",'
                                 r'"pages":(\[(?:\[[0-9,]*\](?:,\[[0-9,]*\])*)?\]),'
                                 r'"qid":"([^"\\\x00-\x1f]*)"\}$', re.M)


def load_evidence(path: PathLike, queries: Mapping[str, Query],
                  judgments: Mapping[str, Mapping[str, Judgment]],
                  corpus: Mapping[str, Document]) -> Dict[Tuple[str, str], Tuple[Tuple[int, ...], ...]]:
    """Read ``evidence.jsonl``: support pages per condition for judged pairs.

    Each judged pair's evidence must agree with its qrel: the number of nonempty page lists equals
    ``clues``, and page ids lie in 1..pages of the document.
    """
    evidence: Dict[Tuple[str, str], Tuple[Tuple[int, ...], ...]] = {}
    for first, lines in iter_line_blocks(path):
        rows = _CANONICAL_EVIDENCE.findall("\n".join(lines))
        pages = None
        if len(rows) == len(lines):
            try:
                pages = loads_strict("[" + ",".join([row[1] for row in rows]) + "]")
            except ValueError:
                pages = None
        if pages is None:  # a blank or non-canonical line: the JSON parser, line by line
            for line, obj in jsonl_objects(enumerate(lines, first), path):
                _add_evidence(evidence, field(obj, "qid", str, path, line),
                              field(obj, "docid", str, path, line), obj, path, line, queries,
                              judgments, corpus)
            continue
        for line, (docid, _, qid), page_lists in zip(range(first, first + len(rows)), rows, pages):
            judgment = judgments.get(qid, {}).get(docid)
            clean = None
            if judgment is not None and len(page_lists) == len(queries[qid].conditions):
                clean = _sorted_pages(page_lists, corpus[docid].pages, judgment.clues)
            key = None if judgment is None else (judgment.qid, judgment.docid)
            if clean is None or key in evidence:  # a rule is broken: the general path names it
                _add_evidence(evidence, qid, docid, {"pages": page_lists}, path, line, queries,
                              judgments, corpus)
            else:
                evidence[key] = clean
    return evidence


def _sorted_pages(page_lists: List[Any], limit: int, clues: int) -> Optional[Tuple[Tuple[int, ...], ...]]:
    """The page tuples of canonical page lists (each a list of integers, as the pattern and the
    JSON parser guarantee) when every list is strictly increasing within 1..limit and ``clues``
    of them are nonempty, else None (the general path then sorts or names the problem)."""
    supported = 0
    for page_list in page_lists:
        if page_list:
            if (type(page_list) is not list or type(page_list[0]) is not int
                    or page_list[0] < 1 or page_list[-1] > limit
                    or not all(map(operator.lt, page_list, page_list[1:]))):
                return None
            supported += 1
    if supported != clues:
        return None
    return tuple(map(tuple, page_lists))


def _add_evidence(evidence: Dict[Tuple[str, str], Tuple[Tuple[int, ...], ...]], qid: str,
                  docid: str, obj: Mapping[str, Any], path: PathLike, line: int,
                  queries: Mapping[str, Query], judgments: Mapping[str, Mapping[str, Judgment]],
                  corpus: Mapping[str, Document]) -> None:
    """Validate one evidence line (the rules of :func:`load_evidence`) and add it."""
    judgment = judgments.get(qid, {}).get(docid)
    if judgment is None:
        raise InputError(path, f"evidence for unjudged pair ({clip(qid)}, {clip(docid)})", line)
    pages = field(obj, "pages", list, path, line)
    n = len(queries[qid].conditions)
    if len(pages) != n:
        raise InputError(path, f"expected {n} page lists, got {len(pages)}", line)
    limit = corpus[docid].pages
    clean: List[Tuple[int, ...]] = []
    for position, page_list in enumerate(pages, start=1):
        if not (type(page_list) is list and set(map(type, page_list)) <= _INT
                and (not page_list or (min(page_list) >= 1 and max(page_list) <= limit))):
            raise InputError(path, f"condition {position}: pages must be integers in "
                                   f"1..{limit}", line)
        clean.append(tuple(sorted(set(page_list))))
    supported = sum(1 for page_list in clean if page_list)
    if supported != judgment.clues:
        raise InputError(path, f"evidence supports {supported} conditions but the qrel says "
                               f"clues={judgment.clues}", line)
    key = (judgment.qid, judgment.docid)  # the qrels' string objects, not new copies
    if key in evidence:
        raise InputError(path, f"duplicate evidence for ({clip(qid)}, {clip(docid)})", line)
    evidence[key] = tuple(clean)


def load_release(path: PathLike, evidence: bool = True) -> Release:
    """Load and cross-validate a release folder. ``evidence=False`` skips ``evidence.jsonl``
    (only the page measures and perspective coverage read it; ``nclue score`` of a run without
    page scores does not)."""
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(folder, "release folder not found")
    queries = load_queries(_release_file(folder, "queries"))
    corpus = load_corpus(_release_file(folder, "corpus"))
    qrels_path = _release_file(folder, "qrels")
    judgments = load_qrels(qrels_path, queries, corpus)
    evidence_path = _release_file(folder, "evidence", required=False)
    pages = (load_evidence(evidence_path, queries, judgments, corpus)
             if evidence_path is not None and evidence else {})
    missing = ("evidence.jsonl",) if evidence_path is None else ()
    return Release(str(folder), queries, judgments, corpus, pages, missing,
                   evidence_loaded=evidence or evidence_path is None)


#: what each optional release file is needed for (stated when it is missing)
OPTIONAL_FILES = {
    "evidence.jsonl": "without it no judged document has support pages: the page-evidence "
                      "measures (Gold+Support@k, condition and full page coverage) find no "
                      "support and count 0, and perspective coverage cannot be derived",
}


def release_notes(release: Release) -> List[str]:
    """One line per optional file the release lacks, saying what that changes.

    Commands print these (``nclue: note: ...``) so that a release without ``evidence.jsonl``
    is never scored silently.
    """
    return [f"{release.path}: no {name} (optional): {OPTIONAL_FILES.get(name, 'not used')}"
            for name in release.missing]


def gold_families(release: Release) -> Dict[str, str]:
    """Exact-gold-set families (n-Clue paper, sec. 3.4): queries with identical gold sets.

    The family id is the sorted gold docids joined by ``"|"``; a query without a gold forms
    its own family ``"nogold:<qid>"`` (nothing links it to another query).
    """
    families: Dict[str, str] = {}
    for qid in sorted(release.queries):
        golds = release.golds(qid)
        families[qid] = "|".join(golds) if golds else f"nogold:{qid}"
    return families


def family_rows(release: Release) -> List[Dict[str, Any]]:
    """The rows of ``families.jsonl``: exact-gold-set families numbered in order of their first
    query id, as the construction writes them (queries without a gold share one row there; the
    resampling of :func:`gold_families` keeps each of them apart)."""
    groups: Dict[Tuple[str, ...], List[str]] = {}
    for qid in sorted(release.queries):
        groups.setdefault(release.golds(qid), []).append(qid)
    ordered = sorted(groups.items(), key=lambda item: item[1][0])
    width = max(4, len(str(max(len(ordered) - 1, 0))))
    first = min(release.queries) if release.queries else ""
    prefix = first.rsplit("_", 1)[0] + "_" if "_" in first else ""
    return [{"family": f"{prefix}f{i:0{width}d}", "golds": list(golds), "qids": qids}
            for i, (golds, qids) in enumerate(ordered)]
