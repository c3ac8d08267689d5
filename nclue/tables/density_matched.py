"""Kind ``density_matched``: 2- vs 3-condition queries on a judged-pool-density-matched subset
(n-Clue paper, supplement sec. 9: "On a density-matched subset, three-condition items are easier
for every tested system because an additional condition can also provide an extra retrieval
anchor"; Table 6 / S1j: |D+| is the density factor).

Matching (:func:`nclue.inference.matching.greedy_match`): every 3-condition query is paired with
at most one distinct 2-condition query whose judged pool |D+| is within ``ratio`` (greedy nearest
neighbour, ascending |D+|). The first rows describe the groups (all queries of each count, then
the matched ones): queries, mean |D+|, mean golds, and mean *near-miss* subsets (judged subsets
that support all but one condition, grade n - 1: the strongest competitors of a gold) and the
near-miss share of the pool. Then per run: ``measure`` on all 2- and 3-condition queries and on
the matched pairs, the matched difference (3 - 2, paired by matched pair) with a bootstrap
interval over matched pairs.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference.matching import greedy_match
from ..inference.montecarlo import paired_bounds_error
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class DensityMatchedSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`density_matched`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("run_list", "one row per run")
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    ratio: float = setting("ratio", "larger |D+| <= ratio x smaller |D+| within a matched pair",
                           1.1)
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)


def _mean(values: List[float]) -> float:
    return math.fsum(values) / len(values)


def group_facts(ctx: ReleaseContext, qids: List[str]) -> Dict[str, float]:
    """Queries, mean |D+|, mean golds, mean near-miss subsets and their share of the pool."""
    pool, golds, near, share = [], [], [], []
    for q in qids:
        judged = ctx.release.judgments.get(q, {})
        n = len(ctx.release.queries[q].conditions)
        g = sum(1 for j in judged.values() if j.is_gold)
        m = sum(1 for j in judged.values() if not j.is_gold and j.clues == n - 1)
        pool.append(float(len(judged)))
        golds.append(float(g))
        near.append(float(m))
        share.append(100.0 * m / len(judged) if judged else 0.0)
    return {"queries": float(len(qids)), "pool": _mean(pool), "golds": _mean(golds),
            "near": _mean(near), "near_share": _mean(share)}


def matching(ctx: ReleaseContext, ratio: float) -> Dict[str, str]:
    """3-condition qid -> its matched 2-condition qid."""
    pool = {q: len(ctx.release.judgments.get(q, {})) for q in ctx.release.queries}
    n = {q: len(ctx.release.queries[q].conditions) for q in ctx.release.queries}
    treated = {q: pool[q] for q in pool if n[q] == 3 and pool[q] > 0}
    controls = {q: pool[q] for q in pool if n[q] == 2 and pool[q] > 0}
    return greedy_match(treated, controls, ratio)


def build(spec: DensityMatchedSpec, ctx: ReleaseContext) -> Table:
    pairs = matching(ctx, spec.ratio)
    qids = sorted(ctx.release.queries)
    two = [q for q in qids if len(ctx.release.queries[q].conditions) == 2]
    three = [q for q in qids if len(ctx.release.queries[q].conditions) == 3]
    m3 = sorted(pairs)
    m2 = sorted(pairs[q] for q in m3)
    rows: List[Tuple[str, str, Dict[str, Optional[float]]]] = []
    resampler = inference.Resampler(m3, {t: t for t in m3}, seed=spec.seed) if m3 else None
    for key, label, members in (("group:n2", "n=2, all queries", two),
                                ("group:n3", "n=3, all queries", three),
                                ("group:m2", "n=2, density-matched", m2),
                                ("group:m3", "n=3, density-matched", m3)):
        if members:
            rows.append((key, label, group_facts(ctx, members)))
    for run_id in spec.runs:
        vector = _vector(ctx, spec.id, run_id, spec.measure)
        cells: Dict[str, Optional[float]] = {
            "all2": 100 * _mean([vector[q] for q in two]) if two else None,
            "all3": 100 * _mean([vector[q] for q in three]) if three else None}
        if m3:
            base = {t: vector[pairs[t]] for t in m3}
            variant = {t: vector[t] for t in m3}
            bounds = paired_bounds_error(resampler, base, variant, spec.replicates,
                                         inference.DEFAULT_LEVEL)
            cells.update({"m2": 100 * _mean(list(base.values())),
                          "m3": 100 * _mean(list(variant.values())),
                          "delta": 100 * _mean([variant[t] - base[t] for t in m3]),
                          "lo": 100 * bounds.lo, "hi": 100 * bounds.hi,
                          "se": 100 * bounds.se,
                          "fragile": 1.0 if bounds.fragile else 0.0})
        rows.append((run_id, ctx.label(run_id), cells))
    columns = (Column("queries", "Queries", 0), Column("pool", "Mean |D+|", 1),
               Column("golds", "Mean golds", 2), Column("near", "Mean near-miss subsets", 1),
               Column("near_share", "Near-miss share of pool %", 1),
               Column("all2", f"n=2 {spec.measure}", 1), Column("all3", f"n=3 {spec.measure}", 1),
               Column("m2", "n=2 matched", 1), Column("m3", "n=3 matched", 1),
               Column("delta", "Delta (3 - 2, matched)", 1), Column("lo", "95% CI low", 1),
               Column("hi", "95% CI high", 1), Column("se", "MC SE of the bound nearest 0", 2),
               Column("fragile", "Fragile", 0))
    note = (f"Matching: each 3-condition query takes the unused 2-condition query with the closest "
            f"judged pool |D+| (greedy, ascending |D+|), if within a ratio of {spec.ratio:g}; "
            f"{len(m3)} of {len(three)} 3-condition queries are matched. Near-miss = a judged "
            "subset supporting all but one condition (grade n - 1). Delta: paired by matched pair; "
            f"interval: bootstrap over matched pairs ({spec.replicates} replicates, seed "
            f"{spec.seed}); MC SE: Monte Carlo SE of the bound nearest 0 (in its own SEs); Fragile = 1 "
            "when it lies within two MC SE of 0. Percentage points.")
    return Table(spec.id, spec_title(spec, "Density-matched 2- vs 3-condition queries"), columns,
                 tuple(rows), note)


KIND = SpecKind("density_matched", DensityMatchedSpec, build,
                 "Supplement sec. 9 analogue: 2- vs 3-condition queries on a judged-pool-matched "
                 "subset, with the group facts that explain the difference.")
