"""Kind ``slices``: the Table 6 analogue, n-Clue Score@k and Gold Hit@k per task-factor slice.

The slices are :data:`nclue.slices.SLICES` (condition count, shortest-gold length, judged pool;
n-Clue paper, Table 6 / S1j); the first row counts each slice's queries.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from ..context import ReleaseContext
from ..slices import query_slices
from ..table import Column, Table, qualified_key
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class SlicesSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`slices`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs", "rows, in this order")


def build(spec: SlicesSpec, ctx: ReleaseContext) -> Table:
    score = ctx.registry.measure("nclue_score", ctx.k)
    hit = ctx.registry.measure("gold_hit", ctx.k)
    slices = query_slices(ctx.release)
    columns = []
    for name, qids in slices.items():
        columns.append(Column(qualified_key(name, score), f"{name} ({len(qids)}) Score", 1))
        columns.append(Column(qualified_key(name, hit), f"{name} Hit", 1))
    rows = [("queries", "queries per slice",
             {qualified_key(name, score): float(len(qids)) for name, qids in slices.items()})]
    for run_id in spec.runs:
        cells = {}
        for name, qids in slices.items():
            scores = ctx.scores(run_id, qids)
            cells[qualified_key(name, score)] = scores[score.name]
            cells[qualified_key(name, hit)] = scores[hit.name]
        rows.append((run_id, ctx.label(run_id), cells))
    return Table(spec.id, spec_title(spec, "Task-factor slices"), tuple(columns), tuple(rows),
                 "n-Clue Score@k and Gold Hit@k in points per slice; the 'queries' row counts queries.")


KIND = SpecKind("slices", SlicesSpec, build,
                 "Table 6 analogue: n-Clue Score@k and Gold Hit@k per task-factor slice.")
