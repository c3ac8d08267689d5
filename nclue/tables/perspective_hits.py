"""Kind ``perspective_hits``: the numbers of Multi³IR Figure 4, Hit@k by perspective rank.

"Hit@20 is measured for each perspective and perspectives are ranked accordingly" (Multi³IR sec.
4.1): per method, the mean per-perspective Hit@k at within-query rank r
(:func:`nclue.coverage.hit_rank_profile`), for r = 1 up to the most perspectives a query has,
with the number of queries that have an r-th perspective. A steep fall from rank 1 is the
paper's single-perspective bias. The figure kind of the same name
(:mod:`nclue.report.perspective_hits`) draws these numbers.
"""

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .. import coverage
from ..context import ReleaseContext
from ..coverage import rankings_of
from ..measures import Measure, MeasureRegistry
from ..table import Column, Table
from .multi3ir import MethodRow, check_row_keys, table_failure
from .spec import SpecKind, setting


@dataclass(frozen=True)
class PerspectiveHitsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`perspective_hits`")
    title: Optional[str] = setting("text", "printed title", None)
    rows: Tuple[MethodRow, ...] = setting(MethodRow, "the methods, one row each")
    k: int = setting("count", "cutoff of the per-perspective Hit@k", 20)


def hit_rank_table(table_id: str, title: str, rows: Sequence[MethodRow],
                   queries: Mapping[str, coverage.PerspectiveQuery],
                   rankings: Mapping[str, Mapping[str, Sequence[str]]], measure: Measure,
                   registry: MeasureRegistry) -> Table:
    """Figure 4 analogue as numbers: mean per-perspective Hit@k (``measure``) at within-query
    rank r; columns ``rank1`` .. ``rankR`` and ``n_rank1`` .. ``n_rankR`` (queries with at least
    r perspectives, 0 decimals)."""
    check_row_keys(rows)
    k = measure.k
    profiles = {}
    for row in rows:
        hits = coverage.per_query_perspective_hits(queries, rankings[row.run], k)
        profiles[row.key] = coverage.hit_rank_profile(hits)
    depth = max(len(p) for p in profiles.values())
    columns = tuple([Column(f"rank{r}", f"rank {r}", 1) for r in range(1, depth + 1)]
                    + [Column(f"n_rank{r}", f"queries at rank {r}", 0) for r in range(1, depth + 1)])
    out = []
    for row in rows:
        cells: Dict[str, Optional[float]] = {}
        for item in profiles[row.key]:
            cells[f"rank{item['rank']}"] = item["value"]
            cells[f"n_rank{item['rank']}"] = float(item["queries"])
        out.append((row.key, row.label, cells))
    note = (f"{registry.header(measure)} of each perspective (a supporting document in the top "
            f"{k}); within each query its perspectives are ranked by that hit, and rank r shows "
            "the mean over the queries with at least r perspectives (percentage points). A steep "
            "fall from rank 1 is the single-perspective bias of Multi3IR sec. 4.1.")
    return Table(table_id, title, columns, tuple(out), note)


def hit_rank_series(table: Table) -> List[Tuple[str, List[Tuple[int, float]]]]:
    """The (label, [(rank, value)]) series of a :func:`hit_rank_table`, for the figure."""
    series = []
    for _, label, cells in table.rows:
        points = sorted((int(key[4:]), value) for key, value in cells.items()
                        if key.startswith("rank") and value is not None)
        series.append((label, points))
    return series


def default_title(measure: Measure, registry: MeasureRegistry) -> str:
    return f"Multi3IR Figure 4 analogue: {registry.header(measure)} by perspective rank"


def perspective_hit_table(ctx: ReleaseContext, table_id: str, title: Optional[str],
                          rows: Tuple[MethodRow, ...], k: int) -> Table:
    """The table of ``rows`` at cutoff ``k`` on ``ctx`` (the table kind's and the figure kind's
    numbers; computed once per context for the same rows and cutoff)."""
    measure = ctx.registry.measure("perspective_hit", k)

    def compute() -> Table:
        rankings = {row.run: rankings_of(ctx.run(row.run)) for row in rows}
        try:
            return hit_rank_table(table_id, default_title(measure, ctx.registry), rows,
                                  ctx.perspectives, rankings, measure, ctx.registry)
        except ValueError as exc:
            raise table_failure(ctx, table_id, exc) from None
    table = ctx.derived(("perspective_hits", rows, k), compute)
    return Table(table_id, title or table.title, table.columns, table.rows, table.note)


def build(spec: PerspectiveHitsSpec, ctx: ReleaseContext) -> Table:
    return perspective_hit_table(ctx, spec.id, spec.title, spec.rows, spec.k)


KIND = SpecKind("perspective_hits", PerspectiveHitsSpec, build,
                "Multi³IR Figure 4's numbers: per-perspective Hit@k by within-query rank.")
