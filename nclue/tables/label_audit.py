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
from typing import Any, Iterator, Optional, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..formats import iter_jsonl, read_json
from ..label_audit.impact import impact_tables
from ..label_audit.policy import load_policy
from ..label_audit.repair import gold_gate_problems, load_label_version, read_repair, repair_paths
from ..label_audit.transitions import label_transition_table
from ..label_audit.report_section import mechanical_table, status_table
from ..label_audit.verify import repair_ids
from ..table import Column, Table
from .spec import SpecKind, setting


def label_version(ctx: ReleaseContext, repair_id: str):
    """(repaired release, lineage) of a repair, loaded and checked once per context."""
    return ctx.derived(("label_version", repair_id), lambda: load_label_version(ctx.release, repair_id))


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
    def compute():
        after, _ = label_version(ctx, spec.repair)
        runs = {run_id: ctx.run(run_id) for run_id in ctx.complete_runs()}
        return impact_tables(ctx.release, after, runs, ctx.k, spec.repair)
    table = ctx.derived(("repair_impact", spec.repair), compute)[part]
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


@dataclass(frozen=True)
class RepairTransitionsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`repair_transitions`")
    title: Optional[str] = setting("text", "printed title", None)
    repair: str = setting("text", "id of a repair in data/<release>/repairs/")


@dataclass(frozen=True)
class _Transition:
    before: Tuple[int, str, Optional[str]]
    after: Optional[Tuple[int, str, Optional[str]]]
    changed: bool


def build_repair_transitions(spec: RepairTransitionsSpec, ctx: ReleaseContext) -> Table:
    """Label transitions of every judged pair under a repair (Table S12 analogue), recomputed
    from the repair rows and the released qrels, with the gate re-check and the queries the
    removal policy drops."""
    if spec.repair not in repair_ids(ctx.layout.folder):
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: no repair {spec.repair!r} in "
                                                 f"{ctx.layout.repairs_dir}")
    after_release, lineage = label_version(ctx, spec.repair)
    rows_path, _ = repair_paths(ctx.layout.folder, spec.repair)
    rows = {(r["qid"], r["docid"]): r for r in read_repair(rows_path, ctx.release)}
    items = []
    for qid in sorted(ctx.release.judgments):
        for docid, j in sorted(ctx.release.judgments[qid].items()):
            before = (j.clues, j.label, j.gate)
            row = rows.get((qid, docid))
            after = before if row is None else (None if row["after"] is None else row["after"][0])
            items.append(_Transition(before, after, row is not None))
    golds = sum(1 for d in after_release.judgments.values() for x in d.values() if x.is_gold)
    removed = len(lineage.get("removed_queries") or [])
    problems = gold_gate_problems(after_release, bool((lineage.get("gates") or {}).get("page_gates", True)))
    table = label_transition_table(items, len(problems), golds, removed, spec.id)
    return Table(spec.id, spec.title or f"Label transitions under {spec.repair} (Table S12 analogue)",
                 table.columns, table.rows,
                 f"Every judged pair of the released labels (P0) under repair {spec.repair}, recomputed from "
                 f"data/{ctx.name}/repairs/; 'Queries without a gold after the repair' are removed by its "
                 "removal policy; the gate re-check covers every gold that remains.")


TRANSITIONS = SpecKind("repair_transitions", RepairTransitionsSpec, build_repair_transitions,
                       "A repair's label transitions over every judged pair, with the gate re-check "
                       "(Table S12 analogue).")


@dataclass(frozen=True)
class AuditSampleSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`audit_sample`")
    title: Optional[str] = setting("text", "printed title", None)
    sample: str = setting("text", "the pre-registered sample's folder, relative to the repository "
                                  "(spec.json, key.json, pages.jsonl.gz, documents.json)")
    repair: Optional[str] = setting("text", "a support-rule repair whose decisions on the sample's "
                                            "shown pages are re-derived offline", None)
    rule: Optional[str] = setting("text", "the support rule's parameters, relative to the repository", None)
    construction: Optional[str] = setting("text", "the construction record (condition spellings)", None)


def build_audit_sample(spec: AuditSampleSpec, ctx: ReleaseContext) -> Table:
    """The shipped air-gapped sample checked against its spec (every shown page present, hashed,
    licensed) and, with ``repair``, the support rule re-applied offline to every shown
    construction page and compared with the label version."""
    from ..label_audit.sample_pages import bundle_problems, rule_on_sample
    folder = repository_file(ctx, spec.sample)
    files = {n: folder / n for n in ("spec.json", "key.json", "pages.jsonl.gz", "documents.json")}
    for name, path in files.items():
        if not path.is_file():
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {spec.sample}/{name} not found")
    problems = bundle_problems(files["spec.json"], files["pages.jsonl.gz"], files["documents.json"])
    if problems:
        raise InputError(files["pages.jsonl.gz"], problems[0])
    key = read_json(files["key.json"])
    documents = read_json(files["documents.json"])["documents"]
    shown = sum(1 for _, o in iter_jsonl(files["pages.jsonl.gz"]) if "text" in o)
    rows = [("items", "Sampled pairs", {"count": len(key["items"])}),
            ("conditions", "Condition decisions asked", {"count": sum(len(i["conditions"]) for i in key["items"])}),
            ("pages", "Distinct pages shown (text shipped)", {"count": shown}),
            ("documents", "Source documents (license and attribution recorded)", {"count": len(documents)}),
            ("bytes", "Shipped bytes (pages.jsonl.gz + documents.json)",
             {"count": files["pages.jsonl.gz"].stat().st_size + files["documents.json"].stat().st_size})]
    note = (f"{spec.sample}: built by `python -m nclue audit sample-pages` from the rebuilt page text; "
            "every shown page is present once with the sha256 of its text, and every document has a "
            "license and attribution.")
    if spec.repair is not None:
        from ..instrument.support_rule import Establisher, condition_defs, load_rule
        if spec.rule is None or spec.construction is None:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: 'repair' needs 'rule' and 'construction'")
        rule = load_rule(repository_file(ctx, spec.rule))
        defs = condition_defs(read_json(repository_file(ctx, spec.construction)))
        version, _ = label_version(ctx, spec.repair)
        checked, disagree = rule_on_sample(files["key.json"], files["pages.jsonl.gz"], files["documents.json"],
                                           lambda inputs: Establisher(inputs, defs, rule), version)
        if disagree:
            raise InputError(files["key.json"], f"support rule {rule.id} re-applied offline: {disagree[0]} "
                                                f"({len(disagree)} disagreement(s))")
        rows.append(("rule_checked", f"Shown construction pages re-judged offline by rule {rule.id} "
                                     f"(all agree with {spec.repair})", {"count": checked}))
        note += (f" Each shown page that P0 lists as support is judged again by support rule {rule.id} from the "
                 f"shipped text alone and must agree with label version {spec.repair}.")
    return Table(spec.id, spec.title or f"Air-gapped audit sample {spec.sample}",
                 (Column("count", "count", 0),), tuple(rows), note)


AUDIT_SAMPLE = SpecKind("audit_sample", AuditSampleSpec, build_audit_sample,
                        "A shipped pre-registered audit sample checked against its spec, with the "
                        "support rule re-applied offline to its shown pages.")
