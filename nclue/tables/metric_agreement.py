"""Kind ``metric_agreement``: do graded NDCG and Gold-NDCG rank the systems alike? (n-Clue paper,
supplement sec. 8 and Table S5b "Metric ranking": Spearman rho = .571 over 13 SourceShift raw
runs; the largest movement is eight ranks, bm25_and from twelfth to fourth).

Per run: graded NDCG@k and Gold-NDCG@k (points), its rank under each (1 = best, ties share the
mean rank, :func:`nclue.agreement.average_ranks`) and its movement (graded rank - gold rank;
positive = moves up under Gold-NDCG). A last row gives Spearman's rho between the two rankings
and the largest absolute movement.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ..agreement import average_ranks, spearman_rho
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..measures import Measure
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class MetricAgreementSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`metric_agreement`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs_or_fair", "the systems ranked")
    first: Measure = setting("measure", "first ranking measure", "graded_ndcg")
    second: Measure = setting("measure", "second ranking measure", "gold_ndcg")


def rank_desc(scores: Dict[str, float]) -> Dict[str, float]:
    """1 = highest score; ties share their mean rank."""
    keys = sorted(scores)
    ranks = average_ranks([-scores[k] for k in keys])
    return dict(zip(keys, ranks))


def build(spec: MetricAgreementSpec, ctx: ReleaseContext) -> Table:
    if len(spec.runs) < 3:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: needs at least 3 runs")
    a = {r: ctx.score(r, spec.first) for r in spec.runs}
    b = {r: ctx.score(r, spec.second) for r in spec.runs}
    ra, rb = rank_desc(a), rank_desc(b)
    try:
        rho = spearman_rho(a, b)
    except NclueError as exc:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {exc}") from None
    moves = {r: ra[r] - rb[r] for r in spec.runs}
    largest = max(abs(v) for v in moves.values())
    rows = []
    for run_id in sorted(spec.runs, key=lambda r: (rb[r], r)):
        rows.append((run_id, ctx.label(run_id),
                     {"first": a[run_id], "second": b[run_id], "rank_first": ra[run_id],
                      "rank_second": rb[run_id], "move": moves[run_id]}))
    rows.append(("agreement", f"Spearman rho over {len(spec.runs)} runs; largest movement",
                 {"rho": rho, "largest": largest}))
    h1, h2 = ctx.registry.header(spec.first), ctx.registry.header(spec.second)
    columns = (Column("first", h1, 1), Column("second", h2, 1),
               Column("rank_first", f"rank by {h1}", 1), Column("rank_second", f"rank by {h2}", 1),
               Column("move", "movement (ranks)", 1), Column("rho", "Spearman rho", 3),
               Column("largest", "largest movement", 1))
    note = ("Rows in Gold-NDCG order. Rank 1 = best; tied scores share the mean rank. Movement = "
            f"rank by {h1} minus rank by {h2} (positive: higher under {h2}).")
    return Table(spec.id, spec_title(spec, "Metric-ranking agreement"), columns, tuple(rows), note)


KIND = SpecKind("metric_agreement", MetricAgreementSpec, build,
                 "Table S5b 'metric ranking' analogue: Spearman rho between the system rankings "
                 "under two measures and the largest rank movement.")
