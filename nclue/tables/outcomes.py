"""Kind ``outcomes``: the Table 4 analogue, the three mutually exclusive outcomes at k.

*Complete first* (the n-Clue event), *subset first* (a top-k gold behind a judged subset) and
*no top-k gold* sum to 100 for every run (n-Clue paper, Table 4).
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from ..context import ReleaseContext
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title

OUTCOMES = ("complete_first", "subset_first", "no_gold")


@dataclass(frozen=True)
class OutcomesSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`outcomes`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs", "rows, in this order")


def build(spec: OutcomesSpec, ctx: ReleaseContext) -> Table:
    measures = [ctx.registry.measure(key, ctx.k) for key in OUTCOMES]
    headers = {"complete_first": "Complete first", "subset_first": "Subset first",
               "no_gold": f"No top-{ctx.k} gold"}
    columns = tuple(Column(m.name, headers[m.key], 1) for m in measures)
    rows = []
    for run_id in spec.runs:
        scores = ctx.scores(run_id)
        rows.append((run_id, ctx.label(run_id), {m.name: scores[m.name] for m in measures}))
    return Table(spec.id, spec_title(spec, "Outcome decomposition"), columns, tuple(rows),
                 "% of queries; the three columns sum to 100.")


KIND = SpecKind("outcomes", OutcomesSpec, build,
                 "Table 4 analogue: complete first / subset first / no top-k gold (sum to 100).")
