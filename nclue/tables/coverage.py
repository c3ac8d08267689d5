"""Kind ``coverage``: perspective coverage HC@k beside n-Clue Score@K and Gold Hit@K.

HC@k (Multi³IR eq. 5, each condition a perspective supported by the judged documents whose
evidence covers it) is the share of a query's conditions that some top-k document supports;
n-Clue Score (n-Clue paper, sec. 3.1) needs one document that covers all of them, ranked above
every judged subset. The last column, HC@K minus n-Clue Score@K at the report's K (present when
K is among the ks), shows how far apart the two are.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ..context import ReleaseContext
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class CoverageSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`coverage`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs", "rows, in this order")
    ks: Tuple[int, ...] = setting("ks", "cutoffs of HC@k", [10, 100])


def build(spec: CoverageSpec, ctx: ReleaseContext) -> Table:
    big_k = ctx.k
    hc = [ctx.registry.measure("hc", k) for k in spec.ks]
    score = ctx.registry.measure("nclue_score", big_k)
    hit = ctx.registry.measure("gold_hit", big_k)
    hc_big = ctx.registry.measure("hc", big_k)
    gap_key = f"hc_minus_score@{big_k}"
    columns = [Column(m.name, ctx.registry.header(m), 1) for m in hc]
    columns += [Column(score.name, ctx.registry.header(score), 1),
                Column(hit.name, ctx.registry.header(hit), 1)]
    if big_k in spec.ks:
        columns.append(Column(gap_key, f"HC@{big_k} - Score@{big_k}", 1))
    rows = []
    for run_id in spec.runs:
        cells: Dict[str, Optional[float]] = {m.name: ctx.score(run_id, m) for m in hc}
        scores = ctx.scores(run_id)
        cells[score.name] = scores[score.name]
        cells[hit.name] = scores[hit.name]
        if big_k in spec.ks:
            cells[gap_key] = cells[hc_big.name] - cells[score.name]
        rows.append((run_id, ctx.label(run_id), cells))
    note = ("Percentage points. HC@k (Multi3IR eq. 5, each condition a perspective supported by "
            "the judged documents whose evidence covers it): the share of a query's conditions "
            "that some top-k document supports. n-Clue Score needs one document that covers all "
            "of them, ranked above every judged subset: covering the conditions across a set of "
            "documents is not the same as finding one document that covers them all.")
    return Table(spec.id, spec_title(spec, "Perspective coverage beside n-Clue Score"),
                 tuple(columns), tuple(rows), note)


KIND = SpecKind("coverage", CoverageSpec, build,
                 "Multi³IR eq. 5: HC@k of each run beside its n-Clue Score@k and Gold Hit@k.")
