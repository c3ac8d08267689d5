"""Kinds ``label_audit_status`` and ``quote_audit``: what the labels' audit has and has not done.

n-Clue paper (arXiv 2607.24165), sec. 5 and supplement sec. 10 (Tables S7-S14). The status table
counts the evaluator exports behind the release's repairs, the repairs in
``data/<release>/repairs/`` and the version of the pre-specified repair policy; the quote-audit
table recomputes the mechanical quote-backed audit from its rows
(:mod:`nclue.label_audit.report_section`). The report prints the section's sentences from the
same cells.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from ..context import ReleaseContext
from ..errors import InputError
from ..formats import iter_jsonl, read_json
from ..label_audit.impact import impact_tables
from ..label_audit.policy import load_policy
from ..label_audit.repair import load_label_version
from ..label_audit.report_section import mechanical_table, status_table
from ..label_audit.verify import repair_ids
from ..table import Table
from .spec import SpecKind, setting


def repository_file(ctx: ReleaseContext, name: str) -> Path:
    """A repository file named relative to the repository root (``data/<release>/../..``)."""
    return ctx.layout.folder.parent.parent / name


@dataclass(frozen=True)
class LabelAuditStatusSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`label_audit_status`")
    title: Optional[str] = setting("text", "printed title", None)
    policy: str = setting("text", "the pre-specified repair policy, relative to the repository",
                          "audit/label_audit/repair_policy_v1.json")


def _export_hashes(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "export_sha256" and isinstance(value, str):
                yield value
            else:
                yield from _export_hashes(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from _export_hashes(item)


def build_status(spec: LabelAuditStatusSpec, ctx: ReleaseContext) -> Table:
    policy = load_policy(repository_file(ctx, spec.policy))
    repairs = repair_ids(ctx.layout.folder)
    exports = set()
    for repair in repairs:
        exports.update(_export_hashes(read_json(ctx.layout.repairs_dir / f"{repair}.lineage.json")))
    table = status_table(ctx.name, len(exports), len(repairs), policy.version)
    return Table(spec.id, spec.title or table.title, table.columns, table.rows, table.note)


@dataclass(frozen=True)
class QuoteAuditSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`quote_audit`")
    title: Optional[str] = setting("text", "printed title", None)
    rows: str = setting("text", "the audit rows (JSONL), relative to the repository")


def build_quote_audit(spec: QuoteAuditSpec, ctx: ReleaseContext) -> Table:
    path = repository_file(ctx, spec.rows)
    if not path.is_file():
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {spec.rows} not found")
    table = mechanical_table(ctx.name, [obj for _, obj in iter_jsonl(path)])
    return Table(spec.id, spec.title or table.title, table.columns, table.rows, table.note)


STATUS = SpecKind("label_audit_status", LabelAuditStatusSpec, build_status,
                  "Label audit status (n-Clue sec. 5, supplement sec. 10): evaluator exports "
                  "imported, repairs applied, repair-policy version.")
QUOTE_AUDIT = SpecKind("quote_audit", QuoteAuditSpec, build_quote_audit,
                       "The mechanical quote-backed audit recomputed from its rows: condition and "
                       "grade agreement with Wilson intervals and kappas.")


@dataclass(frozen=True)
class RepairImpactSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`repair_impact_runs` or `repair_impact_summary`")
    title: Optional[str] = setting("text", "printed title", None)
    repair: str = setting("text", "id of a repair in data/<release>/repairs/ (nclue audit repair)")


def _impact(spec: RepairImpactSpec, ctx: ReleaseContext, part: int) -> Table:
    if spec.repair not in repair_ids(ctx.layout.folder):
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: no repair {spec.repair!r} in "
                                                 f"{ctx.layout.repairs_dir}")
    after, _ = load_label_version(ctx.release, spec.repair)
    runs = {run_id: ctx.run(run_id) for run_id in ctx.index}
    table = impact_tables(ctx.release, after, runs, ctx.k, spec.repair)[part]
    return Table(spec.id, spec.title or table.title, table.columns, table.rows, table.note)


def build_impact_runs(spec: RepairImpactSpec, ctx: ReleaseContext) -> Table:
    """Every frozen run's measures before and after the repair (Table S14 analogue)."""
    return _impact(spec, ctx, 0)


def build_impact_summary(spec: RepairImpactSpec, ctx: ReleaseContext) -> Table:
    """Per measure: the largest change over the runs, Spearman rho of the system ranks and the
    largest rank movement (the paper's "moves the scorecard by at most ..., rho = ..." sentence)."""
    return _impact(spec, ctx, 1)


IMPACT_RUNS = SpecKind("repair_impact_runs", RepairImpactSpec, build_impact_runs,
                       "A label repair's impact on every frozen run (Table S14 analogue).")
IMPACT_SUMMARY = SpecKind("repair_impact_summary", RepairImpactSpec, build_impact_summary,
                          "A label repair's impact per measure: largest change, Spearman rho of "
                          "system ranks, largest rank movement.")
