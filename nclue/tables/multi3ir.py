"""Kind ``multi3ir``: the Multi³IR section on an n-Clue release (Multi³IR paper, sec. 4-6:
Tables 2, 4, 5, 6, 7 and Figure 4's numbers), each condition a perspective.

A release declares the section once, as a JSON file of run ids, rows, contrasts and groupings
(``docs/multi3ir_v1_spec.json`` for v1; :func:`nclue.multi3ir_tables.spec_from_dict`), and one
``multi3ir`` table entry per table it prints (``table``: ``m3_table2``, ``m3_contrasts``,
``m3_table4_hc10``, ...). The section is computed once per release (every table shares its
per-query vectors and resampled families) by :func:`nclue.multi3ir_tables.multi3ir_tables`.
"""

from dataclasses import dataclass, replace
from typing import Dict, Optional

from ..context import ReleaseContext
from ..coverage import load_dispersions, rankings_of
from ..errors import InputError
from ..formats import read_json
from ..multi3ir_tables import groupings_from_spec, multi3ir_tables, spec_from_dict
from .label_audit import repository_file
from ..table import Table
from .spec import SpecKind, setting


@dataclass(frozen=True)
class Multi3irSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`multi3ir`")
    title: Optional[str] = setting("text", "printed title (default: the section's)", None)
    section: str = setting("text", "the section's JSON file, relative to the repository")
    table: str = setting("text", "which table of the section (m3_table2, m3_contrasts, ...)")
    seed: int = setting("seed", "resampling seed", 11)
    replicates: int = setting("count", "bootstrap replicates", 1000)
    draws: int = setting("count", "sign-flip draws", 10000)


def section_tables(spec: Multi3irSpec, ctx: ReleaseContext) -> Dict[str, Table]:
    """Every table of the section, by table id (computed once per context and settings)."""
    def compute() -> Dict[str, Table]:
        path = repository_file(ctx, spec.section)
        data = read_json(path)
        try:
            section = spec_from_dict(data)
            groupings = groupings_from_spec(data.get("table6_groupings"), ctx.release.corpus)
        except ValueError as exc:
            raise InputError(path, str(exc)) from None
        for run_id in section.runs():
            ctx.entry(run_id)  # an unknown run id is refused, naming report.json
        dispersions = load_dispersions(repository_file(ctx, data["table7_dispersions"]))
        rankings = {run_id: rankings_of(ctx.run(run_id)) for run_id in section.runs()}
        tables = multi3ir_tables(section, ctx.perspectives, rankings, ctx.families, groupings,
                                 dispersions, replicates=spec.replicates, draws=spec.draws,
                                 seed=spec.seed)
        return {t.table_id: t for t in tables}
    return ctx.derived(("multi3ir", spec.section, spec.seed, spec.replicates, spec.draws), compute)


def build(spec: Multi3irSpec, ctx: ReleaseContext) -> Table:
    tables = section_tables(spec, ctx)
    if spec.table not in tables:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: the section has no table "
                                                 f"{spec.table!r} (has: {', '.join(tables)})")
    t = tables[spec.table]
    return replace(t, table_id=spec.id, title=spec.title or t.title)


KIND = SpecKind("multi3ir", Multi3irSpec, build,
                "Multi³IR section (Tables 2, 4, 5, 6, 7, Figure 4's numbers) from a section file.")
