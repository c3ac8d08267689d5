"""Perspective coverage of a ranked set of documents (Multi3IR paper, sec. 5.1, 6.3, 6.4).

The n-Clue score asks whether *one* document covers every condition of a request; the Multi3IR
paper (*Multi³IR: A Benchmark for Multi-perspective Multi-domain Multi-modal Information
Retrieval*; it gives no arXiv id) asks whether the top-k *set* covers every perspective. This module implements its evaluation measures over plain data:

- hard coverage HC@k (eq. 5): ``HC@k = 1/|P| * sum_i 1[D*(k) ∩ D_i != ∅]`` where ``D*(k)`` is the
  set of the top-k retrieved documents and ``D_i`` the annotated supporting documents of
  perspective ``p_i``;
- soft coverage SC@k (eq. 6): ``SC@k = 1/|P| * sum_i max_{d in D*(k)} Judge(p_i, d)`` with
  ``Judge`` in {0, 1}; only a "fully supported" verdict counts as 1 (appendix C.1: partially and
  not supported are both 0). Judges are not run here: verdicts come from a judgments file;
- knowledge-source coverage (Table 6): the fraction of the distinct sources (modalities or
  domains) of a query's gold documents that the top-k covers;
- the dispersion-quartile breakdown (Table 7): queries grouped into four quartiles of how
  dispersed their positive documents are in an embedding space, with the mean coverage per group;
- per-perspective Hit@k and its rank profile (sec. 4.1, Figure 4): whether each perspective has a
  supporting document in the top k, and, with each query's perspectives ranked by that hit, the
  mean hit at perspective rank 1, 2, ... ("single-perspective bias").

Every per-query value lies in [0, 1]; aggregates (:func:`evaluate_coverage`) are means over the
evaluated queries in percentage points, like :func:`nclue.metrics.evaluate`.

Input formats (JSON Lines, gzip allowed; every problem is one :class:`InputError` naming file and
line; see also ``docs/coverage.md``):

- perspectives (Multi3IR/PIR style), one query per line::

      {"qid": "q1", "query": "Why are so few foods blue?",
       "perspectives": [{"id": "p1", "text": "Why are blue pigments rare?", "docs": ["d1", "d7"]},
                        {"id": "p2", "docs": ["d3"]}]}

  ``qid`` unique non-empty string; ``query`` a string; ``perspectives`` a non-empty list; each
  perspective has an ``id`` (non-empty, unique within its query), an optional ``text`` and
  ``docs``, a non-empty list of distinct non-empty document ids (the paper discards perspectives
  without a supporting document, appendix B.4).
- judgments (for SC@k), one verdict per line::

      {"qid": "q1", "perspective": "p1", "docid": "d9", "verdict": "fully"}

  ``verdict`` is one of ``fully``, ``partially``, ``not`` (or the long forms ``fully supported``,
  ``partially supported``, ``not supported``); qid and perspective must exist in the perspective
  set; a (qid, perspective, docid) triple appears at most once.
- document sources (for knowledge-source coverage), one document per line::

      {"docid": "d1", "modality": "image", "domain": "biology"}

  the attribute named by ``field`` must be a non-empty string on every line; docids are unique.
- document vectors (for the dispersion quartiles), one document per line::

      {"docid": "d1", "vector": [0.1, -0.3, ...]}

  finite numbers, the same dimension on every line, not the zero vector; docids unique.

Rules where the paper is silent (written down so the numbers are reproducible):

- ``D*(k)`` is the first ``min(k, len(ranking))`` documents of the ranking; a query of the
  perspective set that the run does not rank has an empty ``D*(k)`` (coverage 0) and is counted
  in ``missing_queries``; rankings of queries outside the perspective set are ignored.
- SC@k: a (perspective, top-k document) pair without a verdict counts as not supported
  (``Judge = 0``) and is counted in ``unjudged@k``, so a lower bound is never silent.
- Knowledge-source coverage: a source ``s`` of the query is covered when a top-k document that is
  one of the query's gold (positive) documents has source ``s``. A retrieved non-gold document of
  the same modality does *not* count: otherwise any non-empty top-k would cover at least one of a
  query's sources and, with 1.91 modalities per query on average (Table 1), modality coverage
  could not fall below about 50%, while Table 6 reports 26.9% for the naive retriever at k = 5.
- The positive (gold) documents of a query are the union of its perspectives' supporting
  documents.
- Dispersion (Table 7 caption): the average pairwise cosine distance ``1 - cos(u, v)`` over all
  unordered pairs of distinct positive documents. It is undefined for a query with fewer than two
  positive documents; such queries are left out of the quartiles and counted as ``undefined``.
- Quartile rule: sort the queries with a defined dispersion by (dispersion ascending, qid
  ascending); the query at 0-based position ``i`` of ``n`` falls in quartile ``floor(4 i / n)``
  (0 = least dispersed, "<25%"; 3 = most dispersed, ">75%"). Group sizes differ by at most one,
  and equal dispersions on a boundary are split by qid.
- Figure 4 rank profile: the paper ranks "each perspective" by its Hit@20; perspectives belong to
  one query, so the ranking is within a query: its hits sorted descending (the order among equal
  hits does not change the sorted values). The value at rank r is the mean of the r-th sorted hit
  over the queries with at least r perspectives (percentage points), so rank 1 is the share of
  queries with any covered perspective and the profile never increases. Queries with fewer
  perspectives simply have no rank-r value (their count is reported with each rank).
- Dispersion facts file (a committed per-query fact when document vectors are too large to ship):
  one line per query ``{"qid": str, "dispersion": number, ...}``; other fields are ignored;
  ``dispersion`` finite and in [0, 2] (a cosine distance); qids unique.
"""

import math
from dataclasses import dataclass
from typing import (Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple)

from .errors import InputError
from .formats import PathLike, field, finite_number, iter_jsonl
from .measures import REGISTRY, source_coverage_name

DEFAULT_KS = (5, 10, 20, 100)
QUARTILE_LABELS = ("<25%", "25-50%", "50-75%", ">75%")
VERDICTS = {"fully": True, "fully supported": True,
            "partially": False, "partially supported": False,
            "not": False, "not supported": False}


@dataclass(frozen=True)
class Perspective:
    """One perspective ``p_i`` of a query with its supporting documents ``D_i``."""

    pid: str
    docs: FrozenSet[str]
    text: str = ""


@dataclass(frozen=True)
class PerspectiveQuery:
    """A query with its perspectives ``P`` (Multi3IR paper, sec. 3)."""

    qid: str
    query: str
    perspectives: Tuple[Perspective, ...]

    @property
    def positives(self) -> FrozenSet[str]:
        """The query's gold (positive) documents: the union of every ``D_i``."""
        docs: set = set()
        for perspective in self.perspectives:
            docs.update(perspective.docs)
        return frozenset(docs)


# ---------------------------------------------------------------------------------------------
# Per-query measures (pure functions over plain data)


def top_k(ranking: Sequence[str], k: int) -> FrozenSet[str]:
    """``D*(k)``: the set of the first ``min(k, len(ranking))`` documents."""
    if k < 1:
        raise ValueError("k must be a positive integer")
    return frozenset(ranking[:k])


def hard_coverage(supports: Sequence[Iterable[str]], ranking: Sequence[str], k: int) -> float:
    """HC@k of one query (Multi3IR paper, eq. 5).

    ``supports`` holds ``D_i`` for each perspective; a perspective counts as covered when at least
    one of its supporting documents is among the top k.
    """
    if not supports:
        raise ValueError("a query needs at least one perspective")
    retrieved = top_k(ranking, k)
    covered = sum(1 for docs in supports if not retrieved.isdisjoint(docs))
    return covered / len(supports)


def soft_coverage(perspective_ids: Sequence[str], ranking: Sequence[str], k: int,
                  verdicts: Mapping[Tuple[str, str], bool]) -> Tuple[float, int]:
    """SC@k of one query (Multi3IR paper, eq. 6) and the number of unjudged pairs.

    ``verdicts[(pid, docid)]`` is True for "fully supported" (Judge = 1) and False otherwise.
    A perspective scores ``max_{d in D*(k)} Judge(p_i, d)``; a (perspective, top-k document) pair
    missing from ``verdicts`` counts as Judge = 0 and is counted in the second return value.
    """
    if not perspective_ids:
        raise ValueError("a query needs at least one perspective")
    retrieved = sorted(top_k(ranking, k))
    covered = 0
    unjudged = 0
    for pid in perspective_ids:
        hit = False
        for docid in retrieved:
            verdict = verdicts.get((pid, docid))
            if verdict is None:
                unjudged += 1
            elif verdict:
                hit = True
        covered += hit
    return covered / len(perspective_ids), unjudged


def source_coverage(positives: Iterable[str], ranking: Sequence[str], k: int,
                    source_of: Mapping[str, str]) -> float:
    """Knowledge-source coverage of one query (Multi3IR paper, Table 6).

    The fraction of distinct sources (modalities or domains) of the query's gold documents that
    appear among the gold documents in the top k (see the module docstring for why a retrieved
    non-gold document does not count).
    """
    gold = frozenset(positives)
    if not gold:
        raise ValueError("a query needs at least one gold document")
    sources = {source_of[d] for d in gold}
    covered = {source_of[d] for d in top_k(ranking, k) if d in gold}
    return len(covered) / len(sources)


def cosine_distance(u: Sequence[float], v: Sequence[float]) -> float:
    """``1 - cos(u, v)``; both vectors must be non-zero and of equal length."""
    if len(u) != len(v):
        raise ValueError("vectors of different dimensions")
    norm_u = math.sqrt(math.fsum(x * x for x in u))
    norm_v = math.sqrt(math.fsum(x * x for x in v))
    if norm_u == 0.0 or norm_v == 0.0:
        raise ValueError("cosine distance of a zero vector")
    return 1.0 - math.fsum(x * y for x, y in zip(u, v)) / (norm_u * norm_v)


def unit_vector(v: Sequence[float]) -> Tuple[float, ...]:
    """``v / |v|``; the zero vector is a ValueError (cosine undefined)."""
    norm = math.sqrt(math.fsum(x * x for x in v))
    if norm == 0.0:
        raise ValueError("cosine distance of a zero vector")
    return tuple(x / norm for x in v)


def dispersion(vectors: Sequence[Sequence[float]]) -> Optional[float]:
    """Average pairwise cosine distance of a query's positive documents (Table 7 caption).

    The mean of ``1 - cos(u, v)`` over the ``n (n - 1) / 2`` unordered pairs of distinct
    documents; None when fewer than two documents (undefined). Computed in O(n d) from unit
    vectors ``e_i``: ``sum_{i<j} e_i . e_j = (|sum_i e_i|^2 - sum_i |e_i|^2) / 2``, which equals
    the pairwise definition (:func:`cosine_distance`) up to rounding.
    """
    return _dispersion_of_units([unit_vector(v) for v in vectors])


def _dispersion_of_units(units: Sequence[Sequence[float]]) -> Optional[float]:
    n = len(units)
    if n < 2:
        return None
    if len({len(u) for u in units}) != 1:
        raise ValueError("vectors of different dimensions")
    total = [math.fsum(column) for column in zip(*units)]
    pair_sum = (math.fsum(x * x for x in total)
                - math.fsum(x * x for u in units for x in u)) / 2.0
    return 1.0 - pair_sum / (n * (n - 1) / 2.0)


def quartiles(values: Mapping[str, float]) -> Dict[str, int]:
    """Assign each query to a dispersion quartile 0..3 (rule in the module docstring).

    Sorted by (value, qid); position ``i`` of ``n`` goes to quartile ``floor(4 i / n)``.
    """
    order = sorted(values, key=lambda qid: (values[qid], qid))
    n = len(order)
    return {qid: (4 * i) // n for i, qid in enumerate(order)}


def perspective_hits(supports: Sequence[Iterable[str]], ranking: Sequence[str],
                     k: int) -> Tuple[int, ...]:
    """Hit@k of each perspective of one query (Multi3IR sec. 4.1, Figure 4), in input order.

    ``1`` when at least one of the perspective's supporting documents ``D_i`` is among the top
    ``k``, else ``0``. The mean of the returned values is :func:`hard_coverage`.
    """
    if not supports:
        raise ValueError("a query needs at least one perspective")
    retrieved = top_k(ranking, k)
    return tuple(0 if retrieved.isdisjoint(docs) else 1 for docs in supports)


def hit_rank_profile(hits: Mapping[str, Sequence[int]]) -> List[Dict[str, Any]]:
    """Figure 4 profile: mean Hit@k by within-query perspective rank (rule in the module docstring).

    ``hits[qid]`` = the query's per-perspective hits (:func:`perspective_hits`). Returns one row
    per rank ``r = 1 .. max perspectives``: ``{"rank": r, "queries": n_r, "value": pp}`` with
    ``n_r`` the number of queries having at least ``r`` perspectives and ``value`` the mean of
    their r-th largest hit, in percentage points.
    """
    if not hits:
        raise ValueError("no queries")
    sorted_hits = {qid: sorted(values, reverse=True) for qid, values in hits.items()}
    if any(not values for values in sorted_hits.values()):
        raise ValueError("a query needs at least one perspective")
    depth = max(len(values) for values in sorted_hits.values())
    rows = []
    for r in range(1, depth + 1):
        members = [values[r - 1] for _, values in sorted(sorted_hits.items()) if len(values) >= r]
        rows.append({"rank": r, "queries": len(members),
                     "value": 100.0 * math.fsum(members) / len(members)})
    return rows


def per_query_perspective_hits(queries: Mapping[str, "PerspectiveQuery"],
                               rankings: Mapping[str, Sequence[str]],
                               k: int) -> Dict[str, Tuple[int, ...]]:
    """``{qid: per-perspective Hit@k}`` for every query (an unranked query hits nothing)."""
    return {qid: perspective_hits([p.docs for p in queries[qid].perspectives],
                                  rankings.get(qid, ()), k)
            for qid in sorted(queries)}


# ---------------------------------------------------------------------------------------------
# Deriving perspectives from an n-Clue release


def derive_perspectives(conditions: Mapping[str, Sequence[str]],
                        judged: Mapping[str, Mapping[str, str]],
                        evidence: Mapping[Tuple[str, str], Sequence[Sequence[int]]],
                        where: str = "release") -> Dict[str, PerspectiveQuery]:
    """Perspectives of n-Clue queries: each condition is a perspective (issue 7).

    ``conditions[qid]`` lists the query's conditions; ``judged[qid][docid]`` is the qrel label
    (``"gold"`` or ``"subset"``); ``evidence[(qid, docid)][i]`` lists the pages that support
    condition ``i``. The supporting documents of condition ``i`` are the query's judged documents
    whose evidence for ``i`` is non-empty; a gold supports every condition (n-Clue paper,
    sec. 3.2), whatever its evidence. A subset without evidence cannot be assigned to conditions
    and is an InputError naming ``where``. A condition that no judged document supports keeps an
    empty ``D_i`` (it can never be covered; counted in ``unsupported_perspectives``). The
    perspective id and text are the condition itself; the query text is the conditions joined by
    ``"; "``.
    """
    result: Dict[str, PerspectiveQuery] = {}
    for qid in sorted(conditions):
        conds = tuple(conditions[qid])
        if not conds:
            raise InputError(where, f"query {qid!r} has no conditions")
        if len(set(conds)) != len(conds):
            raise InputError(where, f"query {qid!r} repeats a condition")
        supports: List[set] = [set() for _ in conds]
        for docid, label in sorted(judged.get(qid, {}).items()):
            if label == "gold":
                for docs in supports:
                    docs.add(docid)
                continue
            pages = evidence.get((qid, docid))
            if pages is None:
                raise InputError(where, f"no evidence for judged subset ({qid!r}, {docid!r}): "
                                        "per-condition support needs evidence.jsonl")
            if len(pages) != len(conds):
                raise InputError(where, f"evidence for ({qid!r}, {docid!r}) has {len(pages)} "
                                        f"page lists for {len(conds)} conditions")
            for docs, page_list in zip(supports, pages):
                if page_list:
                    docs.add(docid)
        perspectives = tuple(Perspective(c, frozenset(docs), c) for c, docs in zip(conds, supports))
        result[qid] = PerspectiveQuery(qid, "; ".join(conds), perspectives)
    return result


def perspectives_from_release(release: Any) -> Dict[str, PerspectiveQuery]:
    """:func:`derive_perspectives` over a loaded :class:`nclue.release.Release`."""
    conditions = {qid: q.conditions for qid, q in release.queries.items()}
    judged = {qid: {docid: j.label for docid, j in docs.items()}
              for qid, docs in release.judgments.items()}
    return derive_perspectives(conditions, judged, release.evidence, where=str(release.path))


def sources_from_release(release: Any, name: str = "source") -> Dict[str, str]:
    """Each corpus document's knowledge source: ``Document.source`` or ``Document.extra[name]``."""
    sources: Dict[str, str] = {}
    for docid, doc in sorted(release.corpus.items()):
        if name == "source":
            value = doc.source
        else:
            value = doc.extra.get(name)
        if not isinstance(value, str) or not value:
            raise InputError(release.path, f"corpus document {docid!r} has no string "
                                           f"field {name!r}")
        sources[docid] = value
    return sources


def rankings_of(run: Any) -> Dict[str, Tuple[str, ...]]:
    """``{qid: docs best first}`` of a :class:`nclue.runs.Run`."""
    return {qid: tuple(ranking.docs) for qid, ranking in run.rankings.items()}


# ---------------------------------------------------------------------------------------------
# Readers


def _nonempty_str(obj: Dict[str, Any], name: str, path: PathLike, line: int) -> str:
    value = field(obj, name, str, path, line)
    if not value:
        raise InputError(path, f"field {name!r} must not be empty", line)
    return value


def load_perspectives(path: PathLike) -> Dict[str, PerspectiveQuery]:
    """Read a perspective JSONL file (format in the module docstring)."""
    queries: Dict[str, PerspectiveQuery] = {}
    first_line: Dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        qid = _nonempty_str(obj, "qid", path, line)
        if qid in queries:
            raise InputError(path, f"duplicate qid {qid!r} (first on line {first_line[qid]})", line)
        query = field(obj, "query", str, path, line)
        items = field(obj, "perspectives", list, path, line)
        if not items:
            raise InputError(path, "field 'perspectives' must not be empty", line)
        perspectives: List[Perspective] = []
        seen: set = set()
        for position, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise InputError(path, f"perspective {position} must be an object", line)
            pid = item.get("id")
            if not isinstance(pid, str) or not pid:
                raise InputError(path, f"perspective {position}: 'id' must be a non-empty string",
                                 line)
            if pid in seen:
                raise InputError(path, f"perspective {position}: duplicate id {pid!r}", line)
            seen.add(pid)
            text = item.get("text", "")
            if not isinstance(text, str):
                raise InputError(path, f"perspective {pid!r}: 'text' must be a string", line)
            docs = item.get("docs")
            if not isinstance(docs, list) or not all(isinstance(d, str) and d for d in docs):
                raise InputError(path, f"perspective {pid!r}: 'docs' must be a list of non-empty "
                                       "strings", line)
            if not docs:
                raise InputError(path, f"perspective {pid!r} has no supporting document", line)
            if len(set(docs)) != len(docs):
                raise InputError(path, f"perspective {pid!r} lists a document twice", line)
            perspectives.append(Perspective(pid, frozenset(docs), text))
        queries[qid] = PerspectiveQuery(qid, query, tuple(perspectives))
        first_line[qid] = line
    if not queries:
        raise InputError(path, "no queries")
    return queries


def load_judgments(path: PathLike, queries: Mapping[str, PerspectiveQuery]
                   ) -> Dict[str, Dict[Tuple[str, str], bool]]:
    """Read a judgments JSONL file: ``{qid: {(perspective id, docid): fully supported?}}``."""
    judgments: Dict[str, Dict[Tuple[str, str], bool]] = {}
    first_line: Dict[Tuple[str, str, str], int] = {}
    for line, obj in iter_jsonl(path):
        qid = _nonempty_str(obj, "qid", path, line)
        pid = _nonempty_str(obj, "perspective", path, line)
        docid = _nonempty_str(obj, "docid", path, line)
        verdict = field(obj, "verdict", str, path, line)
        if qid not in queries:
            raise InputError(path, f"unknown qid {qid!r}", line)
        if pid not in {p.pid for p in queries[qid].perspectives}:
            raise InputError(path, f"query {qid!r} has no perspective {pid!r}", line)
        if verdict not in VERDICTS:
            raise InputError(path, f"verdict must be one of {', '.join(sorted(VERDICTS))}; "
                                   f"got {verdict!r}", line)
        key = (qid, pid, docid)
        if key in first_line:
            raise InputError(path, f"duplicate judgment for ({qid!r}, {pid!r}, {docid!r}) "
                                   f"(first on line {first_line[key]})", line)
        first_line[key] = line
        judgments.setdefault(qid, {})[(pid, docid)] = VERDICTS[verdict]
    if not first_line:
        raise InputError(path, "no judgments")
    return judgments


def load_sources(path: PathLike, name: str) -> Dict[str, str]:
    """Read a document-source JSONL file: ``{docid: value of field name}``."""
    sources: Dict[str, str] = {}
    first_line: Dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        docid = _nonempty_str(obj, "docid", path, line)
        if docid in sources:
            raise InputError(path, f"duplicate docid {docid!r} (first on line "
                                   f"{first_line[docid]})", line)
        sources[docid] = _nonempty_str(obj, name, path, line)
        first_line[docid] = line
    if not sources:
        raise InputError(path, "no documents")
    return sources


def load_vectors(path: PathLike) -> Dict[str, Tuple[float, ...]]:
    """Read a document-vector JSONL file: ``{docid: vector}``."""
    vectors: Dict[str, Tuple[float, ...]] = {}
    first_line: Dict[str, int] = {}
    dimension: Optional[int] = None
    for line, obj in iter_jsonl(path):
        docid = _nonempty_str(obj, "docid", path, line)
        if docid in vectors:
            raise InputError(path, f"duplicate docid {docid!r} (first on line "
                                   f"{first_line[docid]})", line)
        raw = field(obj, "vector", list, path, line)
        if not raw:
            raise InputError(path, "field 'vector' must not be empty", line)
        vector = tuple(finite_number(x, "vector component", path, line) for x in raw)
        if dimension is None:
            dimension = len(vector)
        elif len(vector) != dimension:
            raise InputError(path, f"vector has {len(vector)} dimensions, line "
                                   f"{min(first_line.values())} has {dimension}", line)
        if all(x == 0.0 for x in vector):
            raise InputError(path, "zero vector (cosine distance undefined)", line)
        vectors[docid] = vector
        first_line[docid] = line
    if not vectors:
        raise InputError(path, "no vectors")
    return vectors


def load_dispersions(path: PathLike) -> Dict[str, float]:
    """Read a dispersion facts file (format in the module docstring): ``{qid: dispersion}``."""
    values: Dict[str, float] = {}
    first_line: Dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        qid = _nonempty_str(obj, "qid", path, line)
        if qid in values:
            raise InputError(path, f"duplicate qid {qid!r} (first on line {first_line[qid]})", line)
        value = finite_number(obj.get("dispersion"), "dispersion", path, line)
        if not 0.0 <= value <= 2.0:
            raise InputError(path, f"dispersion {value!r} is not a cosine distance in [0, 2]", line)
        values[qid] = float(value)
        first_line[qid] = line
    if not values:
        raise InputError(path, "no dispersions")
    return values


# ---------------------------------------------------------------------------------------------
# Aggregation


def check_ks(ks: Iterable[int]) -> Tuple[int, ...]:
    """Distinct positive cut-offs, ascending."""
    values = tuple(sorted(set(ks)))
    if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in values):
        raise ValueError("cut-offs must be positive integers")
    return values


def per_query_coverage(queries: Mapping[str, PerspectiveQuery],
                       rankings: Mapping[str, Sequence[str]],
                       ks: Iterable[int] = DEFAULT_KS,
                       judgments: Optional[Mapping[str, Mapping[Tuple[str, str], bool]]] = None,
                       sources: Optional[Mapping[str, Mapping[str, str]]] = None
                       ) -> Dict[str, Dict[str, float]]:
    """``{measure: {qid: value in [0, 1]}}`` for every query of ``queries``.

    Measures: ``hc@k``; ``sc@k`` when ``judgments`` is given; ``<name>_coverage@k`` for each
    ``sources[name]`` (a ``{docid: source}`` map, e.g. ``{"modality": {...}, "domain": {...}}``),
    defined only for queries with at least one gold document. A gold document without a source is
    a ValueError (callers check files first with :func:`check_sources`).
    """
    cutoffs = check_ks(ks)
    names = {(key, k): REGISTRY.measure(key, k).name for key in ("hc", "sc", "unjudged")
             for k in cutoffs}
    result: Dict[str, Dict[str, float]] = {}
    for qid in sorted(queries):
        query = queries[qid]
        ranking = rankings.get(qid, ())
        supports = [p.docs for p in query.perspectives]
        pids = [p.pid for p in query.perspectives]
        positives = query.positives if sources else frozenset()  # a union: only when needed
        for k in cutoffs:
            result.setdefault(names[("hc", k)], {})[qid] = hard_coverage(supports, ranking, k)
            if judgments is not None:
                value, unjudged = soft_coverage(pids, ranking, k, judgments.get(qid, {}))
                result.setdefault(names[("sc", k)], {})[qid] = value
                result.setdefault(names[("unjudged", k)], {})[qid] = float(unjudged)
            if not positives:
                continue  # no sources asked for, or source coverage undefined: no gold document
            for name, source_of in sorted((sources or {}).items()):
                missing = sorted(d for d in positives if d not in source_of)
                if missing:
                    raise ValueError(f"no {name} for gold document {missing[0]!r} of query {qid!r}")
                result.setdefault(source_coverage_name(name, k), {})[qid] = source_coverage(
                    positives, ranking, k, source_of)
    return result


def check_sources(queries: Mapping[str, PerspectiveQuery], source_of: Mapping[str, str],
                  name: str, where: str) -> None:
    """InputError (naming ``where``) when a gold document has no ``name`` source."""
    for qid in sorted(queries):
        missing = sorted(d for d in queries[qid].positives if d not in source_of)
        if missing:
            raise InputError(where, f"no {name!r} for document {missing[0]!r} (gold of query "
                                    f"{qid!r})")


def query_dispersions(queries: Mapping[str, PerspectiveQuery],
                      vectors: Mapping[str, Sequence[float]],
                      where: str = "vectors") -> Dict[str, float]:
    """Dispersion of each query with at least two positive documents (undefined ones omitted).

    A positive document without a vector is an InputError naming ``where``.
    """
    values: Dict[str, float] = {}
    units: Dict[str, Tuple[float, ...]] = {}  # each document normalised once
    for qid in sorted(queries):
        docs = sorted(queries[qid].positives)
        missing = [d for d in docs if d not in vectors]
        if missing:
            raise InputError(where, f"no vector for document {missing[0]!r} (query {qid!r})")
        for docid in docs:
            if docid not in units:
                try:
                    units[docid] = unit_vector(vectors[docid])
                except ValueError:
                    raise InputError(where, f"zero vector for document {docid!r}") from None
        value = _dispersion_of_units([units[d] for d in docs])
        if value is not None:
            values[qid] = value
    return values


def quartile_breakdown(per_query: Mapping[str, float], dispersions: Mapping[str, float]
                       ) -> List[Dict[str, Any]]:
    """Mean of a per-query measure in each dispersion quartile (Table 7), in percentage points.

    Returns four rows ``{"quartile": label, "queries": n, "min_dispersion", "max_dispersion",
    "value"}``; an empty quartile (fewer than four queries) has value None.
    """
    groups = quartiles(dispersions)
    rows = []
    for index, label in enumerate(QUARTILE_LABELS):
        members = sorted(q for q, g in groups.items() if g == index)
        row: Dict[str, Any] = {"quartile": label, "queries": len(members),
                               "min_dispersion": None, "max_dispersion": None, "value": None}
        if members:
            row["min_dispersion"] = min(dispersions[q] for q in members)
            row["max_dispersion"] = max(dispersions[q] for q in members)
            row["value"] = 100.0 * math.fsum(per_query[q] for q in members) / len(members)
        rows.append(row)
    return rows


def evaluate_coverage(queries: Mapping[str, PerspectiveQuery],
                      rankings: Mapping[str, Sequence[str]],
                      ks: Iterable[int] = DEFAULT_KS,
                      judgments: Optional[Mapping[str, Mapping[Tuple[str, str], bool]]] = None,
                      sources: Optional[Mapping[str, Mapping[str, str]]] = None,
                      dispersions: Optional[Mapping[str, float]] = None,
                      hard: Optional[Mapping[str, Mapping[str, float]]] = None) -> Dict[str, Any]:
    """One run's coverage report. ``hard``: per-query HC@k vectors (by measure name) to report
    instead of those of the rankings' order (the exact expectations over tie orders of
    ``--ties expected``, :func:`nclue.tie_contract.hc_vector`).

    ``{"queries": n, "missing_queries": m, "unsupported_perspectives": u, "measures": {name:
    mean in percentage points}, "unjudged@k": total count (with judgments), "quartiles": {"hc@k":
    rows of :func:`quartile_breakdown`}, "undefined_dispersion": count (with dispersions)}``.
    """
    cutoffs = check_ks(ks)
    if not queries:
        raise ValueError("no queries to evaluate")
    per_query = per_query_coverage(queries, rankings, cutoffs, judgments, sources)
    per_query.update(hard or {})
    n = len(queries)
    report: Dict[str, Any] = {
        "queries": n,
        "missing_queries": sum(1 for qid in queries if qid not in rankings),
        "unsupported_perspectives": sum(1 for q in queries.values() for p in q.perspectives
                                        if not p.docs),
        "measures": {},
    }
    unjudged = {REGISTRY.measure("unjudged", k).name for k in cutoffs}
    for name, values in sorted(per_query.items()):
        if name in unjudged:
            report[name] = int(sum(values.values()))
        else:
            # mean over the queries where the measure is defined (every query, except for
            # source coverage, which needs a gold document)
            report["measures"][name] = 100.0 * math.fsum(values.values()) / len(values)
    if dispersions is not None:
        report["undefined_dispersion"] = sum(1 for qid in queries if qid not in dispersions)
        hc = [REGISTRY.measure("hc", k).name for k in cutoffs]
        report["quartiles"] = {name: quartile_breakdown(per_query[name], dispersions) for name in hc}
    return report
