"""Every table kind a release's ``report.json`` may declare, and the builder of a release's tables.

Each kind module (one per kind) exposes ``KIND``, a :class:`nclue.tables.spec.SpecKind`; the
list below is the registry (explicit, so that reading it shows every kind there is).
"""

from dataclasses import replace
from typing import List, Mapping, Sequence

from ..context import ReleaseContext
from ..errors import InputError
from . import (contrasts, coverage, findings, forms, instrument, label_audit, membership, outcomes,
               page_evidence, paired_tests, scorecard, sensitivity, slices)
from . import (adaptation, dispersion_quartiles, knowledge_sources, layer_grid,
               perspective_contrasts, perspective_coverage, perspective_hits)
from . import (coverage_by_n, density_matched, difficulty_regression,
               length_matched, masking, metric_agreement, observations, ranked_matrix,
               source_breakdown, source_shift, tie_sensitivity, worked_example)
from . import heldout_split, random_controls, scoped, validation_selection, verdict_changes
from ..table import Table
from .spec import SpecKind, SpecScope, parse_spec

TABLE_KINDS: Mapping[str, SpecKind] = {kind.name: kind for kind in (
    instrument.KIND, scorecard.KIND, outcomes.KIND, page_evidence.KIND, slices.KIND, forms.KIND,
    coverage.KIND, contrasts.KIND, sensitivity.KIND, membership.KIND, paired_tests.KIND,
    findings.KIND, label_audit.STATUS, label_audit.QUOTE_AUDIT, label_audit.IMPACT_RUNS,
    label_audit.IMPACT_SUMMARY, label_audit.TRANSITIONS, label_audit.AUDIT_SAMPLE,
    # the Multi³IR section (issues 15, 25): Tables 2, 2 contrasts, 4, 5, 6, 7, Figure 4's numbers
    perspective_coverage.KIND, perspective_contrasts.KIND, layer_grid.KIND, adaptation.KIND,
    knowledge_sources.KIND, dispersion_quartiles.KIND, perspective_hits.KIND,
    # construct validity and uncertainty (issue 14)
    length_matched.KIND, density_matched.KIND, difficulty_regression.KIND, metric_agreement.KIND,
    coverage_by_n.KIND, worked_example.KIND, masking.KIND, source_shift.KIND,
    source_breakdown.KIND, ranked_matrix.KIND, tie_sensitivity.KIND, observations.KIND,
    # held-out perspectives and label versions (issues 24, 25)
    scoped.KIND, heldout_split.KIND, random_controls.KIND, validation_selection.KIND,
    verdict_changes.KIND,
)}


def build_table(spec, ctx: ReleaseContext, kinds: Mapping[str, SpecKind] = TABLE_KINDS) -> Table:
    """Build one parsed table spec; a table that reports no number is an InputError. A table
    whose numbers were scored from run rankings carries the context's tie rule (``Table.ties``,
    printed under it), unless its kind names the rules itself."""
    before = ctx.ranking_reads
    table = kinds[spec.kind].build(spec, ctx)
    if table.ties is None and ctx.ranking_reads > before:
        table = replace(table, ties=ctx.ties)
    if not table.cells():
        raise InputError(ctx.layout.report_spec,
                         f"table {spec.id!r}: reports no number (so no claim); check its runs")
    return table


def build_tables(specs: Sequence, ctx: ReleaseContext,
                 kinds: Mapping[str, SpecKind] = TABLE_KINDS) -> List[Table]:
    """Build every parsed table spec of a report, in order."""
    return [build_table(spec, ctx, kinds) for spec in specs]


def scope_of(ctx: ReleaseContext) -> SpecScope:
    """What a spec is checked against, for a loaded release."""
    return SpecScope(ctx.layout.report_spec, tuple(ctx.index.ids()), tuple(ctx.fair_runs()),
                     ctx.registry, ctx.k, tuple(ctx.complete_runs()))


def table_from_dict(obj: Mapping, ctx: ReleaseContext,
                    kinds: Mapping[str, SpecKind] = TABLE_KINDS) -> Table:
    """Parse one ``report.json`` table entry (a dict) against ``ctx`` and build it."""
    if not isinstance(obj, dict) or obj.get("kind") not in kinds:
        raise InputError(ctx.layout.report_spec,
                         f"table: needs a 'kind' among {', '.join(sorted(kinds))}")
    spec = parse_spec(kinds[obj["kind"]].spec, obj, scope_of(ctx), f"table {obj.get('id')!r}")
    return build_table(spec, ctx, kinds)
