"""Kind ``page_evidence``: the Table 8 analogue, page-evidence delivery of page-scored runs.

Condition and full page coverage are conditional on a top-k gold; Gold+Support@k has every
query in its denominator (n-Clue paper, sec. 4.4, Table 8 and Table S5b).
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..measures import count_key
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class PageEvidenceSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`page_evidence`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs", "page-scored runs (rows), in this order")


def build(spec: PageEvidenceSpec, ctx: ReleaseContext) -> Table:
    condition, full, support = (ctx.registry.measure(key, ctx.k) for key in
                                ("condition_coverage", "full_coverage", "gold_support"))
    columns = (Column(condition.name, "Cond. coverage", 1), Column(full.name, "Full coverage", 1),
               Column(support.name, "Gold+Support", 1),
               Column(count_key(condition), "Queries with a gold", 0))
    rows = []
    for run_id in spec.runs:
        scores = ctx.scores(run_id)
        if support.name not in scores:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: run {run_id!r} has no "
                                                     "page scores")
        rows.append((run_id, ctx.label(run_id), {c.key: scores.get(c.key) for c in columns}))
    return Table(spec.id, spec_title(spec, "Page-evidence delivery"), columns, tuple(rows),
                 "Coverage columns are conditional on a top-k gold; Gold+Support uses all queries.")


KIND = SpecKind("page_evidence", PageEvidenceSpec, build,
                 "Table 8 analogue: conditional condition / full page coverage and Gold+Support@k.")
