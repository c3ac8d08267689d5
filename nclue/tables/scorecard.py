"""Kind ``scorecard``: the Table 3 analogue, one row per run, one column per scorecard measure.

The columns are the registry's scorecard measures (:meth:`nclue.measures.MeasureRegistry.scorecard`:
n-Clue Score@k, Gold Hit@k, Gold-NDCG@k, graded NDCG@k, AUC; n-Clue paper, sec. 3.1 and
Table 3) unless the spec lists its own ``measures``.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from ..context import ReleaseContext
from ..measures import Measure
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class ScorecardSpec:
    id: str = setting("text", "table id (the claims' table address)")
    kind: str = setting("text", "`scorecard`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs", "rows, in this order")
    measures: Optional[Tuple[Measure, ...]] = setting(
        "measures", "columns (default: the registry's scorecard measures at the report's k)", None)


def build(spec: ScorecardSpec, ctx: ReleaseContext) -> Table:
    measures = spec.measures or ctx.registry.scorecard(ctx.k)
    columns = tuple(Column(m.name, ctx.registry.header(m), 1) for m in measures)
    rows = []
    for run_id in spec.runs:
        cells = {}
        for measure in measures:
            vector = ctx.vector(run_id, measure)
            cells[measure.name] = None if vector is None else ctx.score(run_id, measure)
        rows.append((run_id, ctx.label(run_id), cells))
    return Table(spec.id, spec_title(spec, "Scorecard"), columns, tuple(rows),
                 "Percentage points; AUC is the gold-over-subset pairwise AUC x 100.")


KIND = SpecKind("scorecard", ScorecardSpec, build,
                 "Table 3 analogue: the scorecard measures of each listed run.")
