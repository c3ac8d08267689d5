"""Kind ``contrasts``: the Table 5 / Table S1e analogue, controlled contrasts with selection.

Per controlled block (one row, in spec order): the displayed base -> variant contrast with its
family-bootstrap interval (exact-gold-set families), the Gold Hit and Gold-NDCG deltas, the
displayed endpoint's own family sign-flip p, the max-|T| p over every tried endpoint of the
block (the displayed endpoint is the best of its block, so the block p accounts for that
selection), and Holm across blocks (n-Clue paper, sec. 3.4, Table 5, supplement 2).
Beside the plain interval: the simultaneous max-|T| interval that accounts for the displayed
endpoint being the best of its block (:mod:`nclue.inference.simultaneous`); beside each
p-value and bound its Monte Carlo SE, and a fragility flag (1 when a verdict could flip within
two Monte Carlo SE; :mod:`nclue.inference.montecarlo`). One pass over the sign draws gives the
p-values and the simultaneous interval, with the numbers of :func:`inference.selection_table`.
Randomness is recorded in the spec (``seed``, ``replicates``, ``draws``; the paper's defaults
11 / 1,000 / 10,000), so every printed number is regenerated exactly.
"""

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..inference.montecarlo import (holm_with_terms, interval_fragile, p_fragile, p_value_se,
                                    paired_bounds_error)
from ..inference.simultaneous import block_analysis
from ..measures import Measure
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class Endpoint:
    id: str = setting("text", "endpoint id within its block")
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")


@dataclass(frozen=True)
class Block:
    id: str = setting("text", "row id")
    label: Optional[str] = setting("text", "printed block label (default: the id)", None)
    shown: str = setting("text", "the displayed endpoint's id")
    endpoints: Tuple[Endpoint, ...] = setting(Endpoint, "every endpoint tried in the block")


@dataclass(frozen=True)
class ContrastsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`contrasts`")
    title: Optional[str] = setting("text", "printed title", None)
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    seed: int = setting("seed", "seed of both resampling streams", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    draws: int = setting("count", "sign-flip draws", inference.DEFAULT_DRAWS)
    level: float = setting("level", "confidence level of the intervals", inference.DEFAULT_LEVEL)
    blocks: Tuple[Block, ...] = setting(Block, "the controlled blocks, one row each")


def mean_points(values: Mapping[str, float]) -> float:
    return 100.0 * math.fsum(values.values()) / len(values)


def _vector(ctx: ReleaseContext, spec_id: str, run_id: str, measure: Measure) -> Dict[str, float]:
    vector = ctx.vector(run_id, measure)
    if vector is None:
        raise InputError(ctx.layout.report_spec, f"table {spec_id!r}: run {run_id!r} has no "
                                                 f"per-query measure {measure.name!r}")
    return vector


def build(spec: ContrastsSpec, ctx: ReleaseContext) -> Table:
    measure = spec.measure
    hit = ctx.registry.measure("gold_hit", ctx.k)
    ndcg = ctx.registry.measure("gold_ndcg", ctx.k)
    blocks: Dict[str, Tuple[str, Dict[str, Tuple[Dict[str, float], Dict[str, float]]]]] = {}
    shown_runs: Dict[str, Tuple[str, str]] = {}
    for block in spec.blocks:
        pairs = {e.id: (_vector(ctx, spec.id, e.base, measure), _vector(ctx, spec.id, e.variant, measure))
                 for e in block.endpoints}
        if block.shown not in pairs:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: block {block.id!r}: "
                                                     "'shown' must name one of its endpoints")
        blocks[block.id] = (block.shown, pairs)
        shown = next(e for e in block.endpoints if e.id == block.shown)
        shown_runs[block.id] = (shown.base, shown.variant)
    resampler = None
    analyses, bounds = {}, {}
    try:
        for block in spec.blocks:
            shown, pairs = blocks[block.id]
            base, variant = pairs[shown]
            if resampler is None:
                resampler = ctx.resampler(base, spec.seed)
            analyses[block.id] = block_analysis(resampler, pairs, draws=spec.draws,
                                                level=spec.level)[shown]
            bounds[block.id] = paired_bounds_error(resampler, base, variant, spec.replicates,
                                                   spec.level)
    except NclueError as exc:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {exc}") from None
    holm = holm_with_terms({b: a.p_block for b, a in analyses.items()})
    rows = []
    for block in spec.blocks:
        a, bd = analyses[block.id], bounds[block.id]
        p_holm, source, multiplier = holm[block.id]
        se_holm = 0.0 if p_holm >= 1.0 else multiplier * p_value_se(analyses[source].p_block,
                                                                    spec.draws)
        fragile = (interval_fragile(bd.lo, bd.hi, bd.se_lo, bd.se_hi)
                   or p_fragile(a.p_raw, spec.draws) or abs(p_holm - 0.05) < 2 * se_holm)
        base, variant = shown_runs[block.id]
        b_scores, v_scores = ctx.scores(base), ctx.scores(variant)
        shown = blocks[block.id][0]
        cells: Dict[str, Optional[float]] = {
            "base": mean_points(blocks[block.id][1][shown][0]),
            "variant": mean_points(blocks[block.id][1][shown][1]),
            "delta": 100 * a.delta, "ci_lo": 100 * bd.lo, "ci_hi": 100 * bd.hi,
            "se_lo": 100 * bd.se_lo, "se_hi": 100 * bd.se_hi,
            "sim_lo": 100 * a.interval.lo, "sim_hi": 100 * a.interval.hi,
            "delta_hit": v_scores[hit.name] - b_scores[hit.name],
            "delta_ndcg": v_scores[ndcg.name] - b_scores[ndcg.name],
            "endpoints": float(len(blocks[block.id][1])),
            "p_raw": a.p_raw, "se_raw": p_value_se(a.p_raw, spec.draws),
            "p_block": a.p_block, "se_block": p_value_se(a.p_block, spec.draws),
            "p_holm": p_holm, "se_holm": se_holm, "fragile": 1.0 if fragile else 0.0,
        }
        label = f"{block.label or block.id}: {ctx.label(base)} -> {ctx.label(variant)}"
        rows.append((block.id, label, cells))
    pct = f"{100 * spec.level:g}"
    columns = (
        Column("base", f"Base {measure}", 1), Column("variant", f"Variant {measure}", 1),
        Column("delta", "Delta", 1), Column("ci_lo", f"{pct}% CI low", 1),
        Column("ci_hi", f"{pct}% CI high", 1), Column("se_lo", "MC SE low", 2),
        Column("se_hi", "MC SE high", 2), Column("sim_lo", f"simult. {pct}% low", 1),
        Column("sim_hi", f"simult. {pct}% high", 1),
        Column("delta_hit", f"Delta {ctx.registry.header(hit)}", 1),
        Column("delta_ndcg", f"Delta {ctx.registry.header(ndcg)}", 1),
        Column("endpoints", "Endpoints tried", 0),
        Column("p_raw", "Family-flip p", 4), Column("se_raw", "MC SE", 4),
        Column("p_block", "Block max-T p", 4), Column("se_block", "MC SE", 4),
        Column("p_holm", "Sel.+Holm p", 3), Column("se_holm", "MC SE", 4),
        Column("fragile", "Fragile", 0),
    )
    note = (f"Percentage points. Intervals: percentile bootstrap over {len(set(ctx.families.values()))} "
            f"exact-gold-set families ({spec.replicates} replicates, seed {spec.seed}). p-values: "
            f"two-sided family sign-flip randomization ({spec.draws} draws, seed {spec.seed}, "
            "p = (1 + #{|T*| >= |T|})/(1 + draws)); block p = max-|T| over every tried endpoint "
            "(T standardized by its sign-flip null SD); Holm across the blocks of this table. "
            f"Simultaneous interval: Delta -/+ c s / N, c the {pct}% quantile of the block's "
            "max-|T*| over the same draws, s the sign-flip null SD (it accounts for displaying the "
            "block's best endpoint). MC SE: of a p, sqrt(p(1-p)/draws); of Holm p, its multiplier "
            "times the SE of the block p that sets it; of a bound, the binomial order-statistic "
            "method. Fragile = 1 when a verdict (CI excludes 0, p <= .05, Holm p <= .05) could "
            "flip within two MC SE.")
    return Table(spec.id, spec_title(spec, "Controlled contrasts (Table 5 analogue)"),
                 columns, tuple(rows), note)


KIND = SpecKind("contrasts", ContrastsSpec, build,
                 "Table 5 / S1e analogue: per controlled block, the displayed contrast with its "
                 "interval, its own p, the block's max-|T| p and Holm across blocks.")
