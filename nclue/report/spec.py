"""``report.json``: which tables and figures a release reports, parsed into typed specs.

The top level holds the report's settings (:class:`ReportSpec`); each entry of ``tables`` and
``figures`` is parsed by the spec class of its ``kind`` (:data:`nclue.tables.kinds.TABLE_KINDS`,
:data:`nclue.report.figures.FIGURE_KINDS`). Every problem is one :class:`nclue.errors.InputError`
naming ``report.json``, the entry and the key.
"""

from dataclasses import dataclass, replace
from typing import Any, Mapping, Optional, Tuple

from ..errors import InputError
from ..formats import read_json
from ..layout import ReleaseLayout
from ..measures import DEFAULT_K, REGISTRY, MeasureRegistry
from ..tables.kinds import TABLE_KINDS
from ..tables.spec import SpecKind, SpecScope, parse_spec, reference_markdown, setting
from ..tables.statements import Statement, paragraph_problems, problems as statement_problems
from .figures import FIGURE_KINDS


@dataclass(frozen=True)
class ReportSpec:
    k: int = setting("count", "rank cutoff of every @k measure of the report", DEFAULT_K)
    title: Optional[str] = setting("text", "report title; REPORT.md/.html are written when a "
                                           "title or a figure is given", None)
    intro: Optional[Tuple[Statement, ...]] = setting(
        Statement, "introduction paragraphs, each a checked statement (nclue.tables.statements: "
                   "numbers and release facts generated, comparatives checked)", None)
    tables: Tuple[Any, ...] = setting("table_specs", "the tables, in report order")
    figures: Tuple[Any, ...] = setting("figure_specs", "the figures, in report order", [])


def _entries(raw: Any, kinds: Mapping[str, SpecKind], what: str, scope: SpecScope) -> Tuple[Any, ...]:
    if not isinstance(raw, list):
        raise scope.fail(f"key {what!r}", f"must be a list of {what[:-1]} objects")
    out = []
    seen = set()
    for number, obj in enumerate(raw, start=1):
        label = f"{what[:-1]} {number}"
        if isinstance(obj, dict) and isinstance(obj.get("id"), str):
            label = f"{what[:-1]} {obj['id']!r}"
        if not isinstance(obj, dict) or obj.get("kind") not in kinds:
            raise scope.fail(label, f"needs a 'kind' among {', '.join(sorted(kinds))}")
        spec = parse_spec(kinds[obj["kind"]].spec, obj, scope, label)
        if spec.id in seen:
            raise scope.fail(label, f"duplicate id {spec.id!r}")
        seen.add(spec.id)
        out.append(spec)
    return tuple(out)


def parse_report_spec(data: Any, layout: ReleaseLayout, run_ids: Tuple[str, ...],
                      fair_run_ids: Tuple[str, ...], registry: MeasureRegistry = REGISTRY,
                      table_kinds: Mapping[str, SpecKind] = TABLE_KINDS,
                      all_run_ids: Optional[Tuple[str, ...]] = None) -> ReportSpec:
    """Parse ``report.json`` of a release whose run index lists ``run_ids``."""
    where = layout.report_spec
    if not isinstance(data, dict):
        raise InputError(where, "expected an object with a 'tables' list")
    known = ("k", "title", "intro", "tables", "figures")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise InputError(where, f"unknown key {unknown[0]!r} (known: {', '.join(known)})")
    if "tables" not in data:
        raise InputError(where, "missing key 'tables'")
    bare = {key: data[key] for key in ("k", "title", "intro") if key in data}
    scope = SpecScope(where, run_ids, fair_run_ids, registry, DEFAULT_K, all_run_ids)
    top = parse_spec(_Settings, bare, scope, "report")
    scope = replace(scope, k=top.k)
    for number, paragraph in enumerate(top.intro or (), start=1):
        found = statement_problems(paragraph)
        if found:
            raise InputError(where, f"intro paragraph {number}: {found[0]}")
    figures = _entries(data.get("figures", []), FIGURE_KINDS, "figures", scope)
    for figure in figures:
        found = paragraph_problems(figure.caption) if figure.caption else []
        if found:
            raise InputError(where, f"figure {figure.id!r}, key 'caption': {found[0]}")
    return ReportSpec(k=top.k, title=top.title, intro=top.intro,
                      tables=_entries(data["tables"], table_kinds, "tables", scope),
                      figures=figures)


@dataclass(frozen=True)
class _Settings:
    k: int = setting("count", "", DEFAULT_K)
    title: Optional[str] = setting("text", "", None)
    intro: Optional[Tuple[Statement, ...]] = setting(Statement, "", None)


def load_report_spec(layout: ReleaseLayout, run_ids: Tuple[str, ...], fair_run_ids: Tuple[str, ...],
                     registry: MeasureRegistry = REGISTRY,
                     all_run_ids: Optional[Tuple[str, ...]] = None) -> ReportSpec:
    """The release's ``report.json`` (a release without one reports no table)."""
    if not layout.report_spec.exists():
        return ReportSpec(k=DEFAULT_K, title=None, intro=None, tables=(), figures=())
    return parse_report_spec(read_json(layout.report_spec), layout, run_ids, fair_run_ids, registry,
                             all_run_ids=all_run_ids)


def spec_reference() -> str:
    """The text of ``docs/REPORT_SPEC.md``."""
    return reference_markdown(list(TABLE_KINDS.values()), list(FIGURE_KINDS.values()), ReportSpec)
