"""Kind ``knowledge_sources``: the Multi³IR Table 6 analogue, knowledge-source coverage.

Per grouping of the corpus (Multi³IR's modality and domain; here e.g. the corpus ``source``
field, the Debian package a document came from) and method: the share of the distinct sources
among a query's positive documents that a positive document in the top k covers
(:func:`nclue.coverage.source_coverage`), averaged over the queries with a positive document. A
grouping may be a corpus field (``source`` or a key of a document's extra fields) or a constant
(every document the same value, e.g. the modality of a text-only corpus); a single-valued
grouping makes coverage equal to "some positive in the top k", and the note says so.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import coverage
from ..context import ReleaseContext
from ..coverage import rankings_of
from ..measures import MeasureRegistry, cutoff_key, source_coverage_name
from ..table import Column, Table
from .multi3ir import MethodRow, check_row_keys, mean_points, table_failure
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class Grouping:
    key: str = setting("text", "grouping key: lower-case letters, digits, '_' (row keys "
                               "key:row, measure key_coverage@k)")
    label: str = setting("text", "printed grouping label")
    field: Optional[str] = setting("text", "corpus field giving each document's value (`source` "
                                           "or a key of the document's extra fields)", None)
    constant: Optional[str] = setting("text", "one value for every document (instead of a field)",
                                      None)


@dataclass(frozen=True)
class KnowledgeSourcesSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`knowledge_sources`")
    title: Optional[str] = setting("text", "printed title", None)
    rows: Tuple[MethodRow, ...] = setting(MethodRow, "the methods (one row per grouping each)")
    groupings: Tuple[Grouping, ...] = setting(Grouping, "the groupings of the corpus")
    ks: Tuple[int, ...] = setting("ks", "cutoffs", [5, 10, 20, 100])


def grouping_values(grouping: Grouping, corpus: Mapping[str, Any]) -> Dict[str, str]:
    """``{docid: value}`` of one grouping over ``corpus`` (:attr:`nclue.release.Release.corpus`);
    ValueError when the grouping is not exactly one of a field or a constant, or a document has
    no string value for the field."""
    if (grouping.field is None) == (grouping.constant is None):
        raise ValueError(f"grouping {grouping.key!r}: needs exactly one of 'field' and 'constant'")
    if grouping.constant is not None:
        return dict.fromkeys(sorted(corpus), grouping.constant)
    values = {}
    for docid in sorted(corpus):
        doc = corpus[docid]
        value = doc.source if grouping.field == "source" else doc.extra.get(grouping.field)
        if not isinstance(value, str) or not value:
            raise ValueError(f"grouping {grouping.key!r}: document {docid!r} has no string "
                             f"{grouping.field!r}")
        values[docid] = value
    return values


def source_coverage_table(table_id: str, title: str, rows: Sequence[MethodRow],
                          queries: Mapping[str, coverage.PerspectiveQuery],
                          rankings: Mapping[str, Mapping[str, Sequence[str]]],
                          groupings: Sequence[Tuple[str, str, Mapping[str, str]]],
                          ks: Sequence[int], registry: MeasureRegistry) -> Table:
    """Table 6 analogue: knowledge-source coverage @k per (grouping, method).

    ``groupings`` = [(key, label, {docid: source})]; ``rankings`` = {run: {qid: docs}}. Row keys
    ``grouping:row``; columns ``@k``. The note names each grouping's number of distinct values
    over the queries' positives, and the single-valued ones.
    """
    check_row_keys(rows)
    cutoffs = [registry.measure("source_coverage", k) for k in ks]
    columns = tuple(Column(cutoff_key("", m), cutoff_key("", m), 1) for m in cutoffs)
    out = []
    notes = []
    for gkey, glabel, source_of in groupings:
        values = {source_of[d] for q in queries.values() for d in q.positives if d in source_of}
        notes.append(f"{glabel}: {len(values)} distinct value{'s' if len(values) != 1 else ''}"
                     + (" (single-valued: coverage = some positive in the top k)"
                        if len(values) == 1 else ""))
        for row in rows:
            per = coverage.per_query_coverage(queries, rankings[row.run], ks,
                                              sources={gkey: source_of})
            cells: Dict[str, Optional[float]] = {
                cutoff_key("", m): mean_points(per[source_coverage_name(gkey, m.k)])
                for m in cutoffs}
            out.append((f"{gkey}:{row.key}", f"{glabel}: {row.label}", cells))
    note = ("Percentage points: per query, the share of the distinct sources among its positive "
            "documents that a positive document in the top k covers (a retrieved non-positive "
            "document never counts), averaged over queries. " + "; ".join(notes) + ".")
    return Table(table_id, title, columns, tuple(out), note)


def build(spec: KnowledgeSourcesSpec, ctx: ReleaseContext) -> Table:
    try:
        groupings: List[Tuple[str, str, Dict[str, str]]] = [
            (g.key, g.label, grouping_values(g, ctx.release.corpus)) for g in spec.groupings]
        for key, _, _ in groupings:
            source_coverage_name(key, 1)   # a grouping key names a measure: refuse a bad one
        rankings = {row.run: rankings_of(ctx.run(row.run)) for row in spec.rows}
        return source_coverage_table(
            spec.id, spec_title(spec, "Multi3IR Table 6 analogue: knowledge-source coverage"),
            spec.rows, ctx.perspectives, rankings, groupings, spec.ks, ctx.registry)
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("knowledge_sources", KnowledgeSourcesSpec, build,
                "Multi³IR Table 6 analogue: knowledge-source coverage @k per corpus grouping.")
