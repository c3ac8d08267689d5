"""Kind ``ranked_matrix``: the Table S1 analogue, every run ranked by n-Clue Score with per-row
intervals, in readable blocks (n-Clue paper, supplement sec. 2: "Tables S1a-S1c rank the 66 rows
that do not read construction facts in three readable blocks, while Table S1d isolates the
four privileged fact diagnostics without a system rank").

The ranking is over every listed run (ties share the best rank: 1, 2, 2, 4), by ``measure``
descending; one table prints the rows whose rank lies in ``[rank_from, rank_to]`` (so three
tables over the same run list give the three blocks). With ``ranked`` 0 the rows are printed
unranked in list order (Table S1d). Per row: the rank, the score with its family-bootstrap
interval, Gold Hit@k and Gold-NDCG@k.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import math

from .. import inference
from ..inference.montecarlo import bootstrap_distribution, quantile_se
from ..inference.resampling import percentile
from ..context import ReleaseContext
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


#: Lower tail of the 95% interval, computed as Resampler.bootstrap does (same last bits).
ALPHA = (1 - inference.DEFAULT_LEVEL) / 2


@dataclass(frozen=True)
class RankedMatrixSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`ranked_matrix`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("runs", "the runs ranked together")
    measure: Measure = setting("measure", "ranking measure", "nclue_score")
    ranked: int = setting("count0", "1: rank the runs; 0: print them unranked (Table S1d)", 1)
    rank_from: int = setting("count", "first printed rank", 1)
    rank_to: int = setting("count", "last printed rank", 1000000)
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)


def competition_ranks(scores: Dict[str, float]) -> Dict[str, int]:
    """Rank 1 = highest; equal scores share the best rank (1, 2, 2, 4)."""
    ordered = sorted(scores, key=lambda r: (-scores[r], r))
    ranks: Dict[str, int] = {}
    for position, run_id in enumerate(ordered, start=1):
        previous = ordered[position - 2] if position > 1 else None
        if previous is not None and scores[previous] == scores[run_id]:
            ranks[run_id] = ranks[previous]
        else:
            ranks[run_id] = position
    return ranks


def build(spec: RankedMatrixSpec, ctx: ReleaseContext) -> Table:
    hit = ctx.registry.measure("gold_hit", ctx.k)
    ndcg = ctx.registry.measure("gold_ndcg", ctx.k)
    scores = {r: ctx.score(r, spec.measure) for r in spec.runs}
    if spec.ranked:
        ranks = competition_ranks(scores)
        shown = [r for r in sorted(spec.runs, key=lambda r: (ranks[r], r))
                 if spec.rank_from <= ranks[r] <= spec.rank_to]
    else:
        ranks, shown = {}, list(spec.runs)
    rows = []
    for run_id in shown:
        vector = _vector(ctx, spec.id, run_id, spec.measure)
        resampler = ctx.resampler(vector, spec.seed)
        stats = bootstrap_distribution(resampler, vector, spec.replicates)
        lo, hi = percentile(stats, ALPHA), percentile(stats, 1 - ALPHA)
        se = max(quantile_se(stats, ALPHA), quantile_se(stats, 1 - ALPHA))
        cells: Dict[str, Optional[float]] = {
            "score": 100 * math.fsum(vector.values()) / len(vector), "lo": 100 * lo,
            "hi": 100 * hi, "se": 100 * se,
            "hit": ctx.score(run_id, hit), "ndcg": ctx.score(run_id, ndcg)}
        if spec.ranked:
            cells["rank"] = float(ranks[run_id])
        rows.append((run_id, ctx.label(run_id), cells))
    h = ctx.registry.header(spec.measure)
    columns = ((Column("rank", "Rank", 0),) if spec.ranked else ()) + (
        Column("score", h, 1), Column("lo", "95% CI low", 1), Column("hi", "95% CI high", 1),
        Column("se", "MC SE of the bounds (larger)", 2),
        Column("hit", ctx.registry.header(hit), 1), Column("ndcg", ctx.registry.header(ndcg), 1))
    note = (f"Percentage points. {'Ranked' if spec.ranked else 'Unranked'} over {len(spec.runs)} "
            f"runs by {h}; equal scores share the best rank. Intervals: percentile bootstrap over "
            f"exact-gold-set families ({spec.replicates} replicates, seed {spec.seed}).")
    return Table(spec.id, spec_title(spec, "Complete matrix"), columns, tuple(rows), note)


KIND = SpecKind("ranked_matrix", RankedMatrixSpec, build,
                 "Table S1 analogue: runs ranked by a measure with family-bootstrap intervals, "
                 "printed in rank blocks; or unranked (privileged controls, S1d).")
