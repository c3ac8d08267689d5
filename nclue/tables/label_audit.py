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
from ..label_audit.policy import load_policy
from ..label_audit.report_section import mechanical_table, status_table
from ..label_audit.verify import repair_ids
from .model import Table
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
__all__ = ["QUOTE_AUDIT", "STATUS"]
