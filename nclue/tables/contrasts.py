"""Kind ``contrasts``: the Table 5 / Table S1e analogue, controlled contrasts with selection.

Per controlled block (one row, in spec order): the displayed base -> variant contrast with its
family-bootstrap interval (exact-gold-set families), the Gold Hit and Gold-NDCG deltas, the
displayed endpoint's own family sign-flip p, the max-|T| p over every tried endpoint of the
block (the displayed endpoint is the best of its block, so the block p accounts for that
selection), and Holm across blocks (n-Clue paper, sec. 3.4, Table 5, supplement 2).
Randomness is recorded in the spec (``seed``, ``replicates``, ``draws``; the paper's defaults
11 / 1,000 / 10,000), so every printed number is regenerated exactly.
"""

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..measures import Measure
from .model import Column, Table
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
    try:
        table_rows = inference.selection_table(blocks, ctx.families, seed=spec.seed,
                                               replicates=spec.replicates, draws=spec.draws,
                                               level=spec.level)
    except NclueError as exc:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {exc}") from None
    by_block = {row.block: row for row in table_rows}
    rows = []
    for block in spec.blocks:
        row = by_block[block.id]
        base, variant = shown_runs[block.id]
        b_scores, v_scores = ctx.scores(base), ctx.scores(variant)
        cells: Dict[str, Optional[float]] = {
            "base": mean_points(blocks[block.id][1][row.endpoint][0]),
            "variant": mean_points(blocks[block.id][1][row.endpoint][1]),
            "delta": 100 * row.delta, "ci_lo": 100 * row.ci_lo, "ci_hi": 100 * row.ci_hi,
            "delta_hit": v_scores[hit.name] - b_scores[hit.name],
            "delta_ndcg": v_scores[ndcg.name] - b_scores[ndcg.name],
            "endpoints": float(row.endpoints_tried),
            "p_raw": row.p_raw, "p_block": row.p_block, "p_holm": row.p_holm,
        }
        label = f"{block.label or block.id}: {ctx.label(base)} -> {ctx.label(variant)}"
        rows.append((block.id, label, cells))
    pct = f"{100 * spec.level:g}"
    columns = (
        Column("base", f"Base {measure}", 1), Column("variant", f"Variant {measure}", 1),
        Column("delta", "Delta", 1), Column("ci_lo", f"{pct}% CI low", 1),
        Column("ci_hi", f"{pct}% CI high", 1), Column("delta_hit", f"Delta {ctx.registry.header(hit)}", 1),
        Column("delta_ndcg", f"Delta {ctx.registry.header(ndcg)}", 1),
        Column("endpoints", "Endpoints tried", 0),
        Column("p_raw", "Family-flip p", 4), Column("p_block", "Block max-T p", 4),
        Column("p_holm", "Sel.+Holm p", 3),
    )
    note = (f"Percentage points. Intervals: percentile bootstrap over {len(set(ctx.families.values()))} "
            f"exact-gold-set families ({spec.replicates} replicates, seed {spec.seed}). p-values: "
            f"two-sided family sign-flip randomization ({spec.draws} draws, seed {spec.seed}, "
            "p = (1 + #{|T*| >= |T|})/(1 + draws)); block p = max-|T| over every tried endpoint "
            "(T standardized by its sign-flip null SD); Holm across the blocks of this table.")
    return Table(spec.id, spec_title(spec, "Controlled contrasts (Table 5 analogue)"),
                 columns, tuple(rows), note)


KIND = SpecKind("contrasts", ContrastsSpec, build,
                 "Table 5 / S1e analogue: per controlled block, the displayed contrast with its "
                 "interval, its own p, the block's max-|T| p and Holm across blocks.")
