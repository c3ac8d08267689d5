"""Kind ``contrast_sensitivity``: the Tables S1f-S1i analogue for a list of contrasts.

Per contrast (row, in spec order): ``delta_d`` (variant - base of 1 - P(subset > gold) on the
common support, points) and the support size; deltas of the unconditional miss / subset-first /
gold-first shares; the crossed query/document interval over gold and over all judged
memberships; the leave-one-gold-document range; the delta after removing the ``remove``
highest-degree gold documents and the queries left; and the exact minimum n-Clue Score delta
after promoting up to p judged top-k subsets per query, for each p in ``promotions`` (n-Clue
supplement, Tables S1f-S1i). Columns other than D/M/P/G and the promotion bounds use ``measure``.
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..inference.montecarlo import bounds_error
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class Contrast:
    id: str = setting("text", "row id")
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")


@dataclass(frozen=True)
class SensitivitySpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`contrast_sensitivity`")
    title: Optional[str] = setting("text", "printed title", None)
    measure: Measure = setting("measure", "per-query measure of the sensitivity columns", "nclue_score")
    seed: int = setting("seed", "crossed-bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "crossed-bootstrap replicates", inference.DEFAULT_REPLICATES)
    level: float = setting("level", "confidence level", inference.DEFAULT_LEVEL)
    remove: int = setting("count0", "highest-degree gold documents removed", 20)
    promotions: Tuple[int, ...] = setting("counts0", "judged-subset promotions per query", [0, 1, 2, 3])
    contrasts: Tuple[Contrast, ...] = setting(Contrast, "the contrasts, one row each")


def _weights(cache: Dict[Any, Any], kind: str, memberships: Mapping[str, Tuple[str, ...]],
             vector: Mapping[str, float], replicates: int, seed: int) -> Any:
    """Crossed-bootstrap draws, made once per membership kind and query set and reused across
    contrasts (identical to drawing them per contrast; see inference.crossed_weights)."""
    key = (kind, frozenset(vector))
    if key not in cache:
        members = {q: memberships.get(q, ()) for q in vector}  # a query without one is refused later
        cache[key] = inference.crossed_weights(vector.keys(), members, replicates=replicates,
                                               seed=seed)
    return cache[key]


def build(spec: SensitivitySpec, ctx: ReleaseContext) -> Table:
    if ctx.ties == "expected":  # the common-support ordering reads one order's first ranks
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: the sensitivity kind reads "
                         "the first ranks of one order; it has no form under --ties expected")
    measure, seed, replicates, level = spec.measure, spec.seed, spec.replicates, spec.level
    k = ctx.k
    gold = inference.gold_memberships(ctx.release)
    judged = inference.judged_memberships(ctx.release)
    gold_docs = {d for docs in gold.values() for d in docs}
    weight_cache: Dict[Any, Any] = {}
    remove_k = min(spec.remove, len(gold_docs))
    rows = []
    for entry in spec.contrasts:
        base, variant = entry.base, entry.variant
        b_vec, v_vec = _vector(ctx, spec.id, base, measure), _vector(ctx, spec.id, variant, measure)
        b_ranks = {q: (o.first_gold, o.first_subset) for q, o in ctx.outcomes(base).items()}
        v_ranks = {q: (o.first_gold, o.first_subset) for q, o in ctx.outcomes(variant).items()}
        b_top = inference.top_labels(ctx.release, ctx.run(base), k)
        v_top = inference.top_labels(ctx.release, ctx.run(variant), k)
        try:
            support = inference.common_support_ordering(b_ranks, v_ranks, k)
            crossed_gold = bounds_error(inference.crossed_distribution(
                b_vec, v_vec, {}, replicates=replicates, seed=seed,
                weights=_weights(weight_cache, "gold", gold, b_vec, replicates, seed))[1], level)
            crossed_all = bounds_error(inference.crossed_distribution(
                b_vec, v_vec, {}, replicates=replicates, seed=seed,
                weights=_weights(weight_cache, "judged", judged, b_vec, replicates, seed))[1], level)
            loo = inference.leave_one_document_out(b_vec, v_vec, gold)
            try:
                removal: Optional[inference.Removal] = inference.remove_top_degree_documents(
                    b_vec, v_vec, gold, remove_k)
            except NclueError:
                removal = None  # every query touches a removed document
            bounds = {p: inference.promotion_bound(b_top, v_top, p, depth=k) for p in spec.promotions}
        except NclueError as exc:
            raise InputError(ctx.layout.report_spec,
                             f"table {spec.id!r}: contrast {entry.id!r}: {exc}") from None
        cells: Dict[str, Optional[float]] = {
            "delta": 100 * (math.fsum(v_vec.values()) - math.fsum(b_vec.values())) / len(b_vec),
            "delta_d": None if support.delta_d is None else 100 * support.delta_d,
            "support": float(support.support),
            "delta_miss": 100 * (support.variant.miss - support.base.miss),
            "delta_subset_first": 100 * (support.variant.subset_first - support.base.subset_first),
            "delta_gold_first": 100 * (support.variant.gold_first - support.base.gold_first),
            "crossed_gold_lo": 100 * crossed_gold.lo, "crossed_gold_hi": 100 * crossed_gold.hi,
            "crossed_gold_se": 100 * max(crossed_gold.se_lo, crossed_gold.se_hi),
            "crossed_judged_lo": 100 * crossed_all.lo, "crossed_judged_hi": 100 * crossed_all.hi,
            "crossed_judged_se": 100 * max(crossed_all.se_lo, crossed_all.se_hi),
            "loo_lo": 100 * loo.lo, "loo_hi": 100 * loo.hi,
            "removed_delta": None if removal is None else 100 * removal.delta,
            "removed_queries": 0.0 if removal is None else float(removal.queries_left),
        }
        for p in spec.promotions:
            cells[f"promote_{p}"] = bounds[p].minimum
        rows.append((entry.id, f"{ctx.label(base)} -> {ctx.label(variant)}", cells))
    pct = f"{100 * level:g}"
    columns = [
        Column("delta", f"Delta {measure}", 1),
        Column("delta_d", "Delta D (common support)", 1), Column("support", "Support queries", 0),
        Column("delta_miss", "Delta miss", 1), Column("delta_subset_first", "Delta subset-first", 1),
        Column("delta_gold_first", "Delta gold-first", 1),
        Column("crossed_gold_lo", f"Crossed gold {pct}% low", 1),
        Column("crossed_gold_hi", f"Crossed gold {pct}% high", 1),
        Column("crossed_gold_se", "Crossed gold MC SE", 2),
        Column("crossed_judged_lo", f"Crossed judged {pct}% low", 1),
        Column("crossed_judged_hi", f"Crossed judged {pct}% high", 1),
        Column("crossed_judged_se", "Crossed judged MC SE", 2),
        Column("loo_lo", "Leave-one-gold-doc min", 1), Column("loo_hi", "Leave-one-gold-doc max", 1),
        Column("removed_delta", f"Delta without top-{remove_k} gold docs", 1),
        Column("removed_queries", "Queries left", 0),
    ]
    columns += [Column(f"promote_{p}", f"Min delta, {p} promotion(s)/query", 1)
                for p in spec.promotions]
    note = ("Percentage points. D = 1 - P(subset > gold) on queries where both systems retrieve a "
            f"top-{k} gold; miss/subset-first/gold-first are unconditional shares. Crossed "
            f"intervals weight queries and documents independently ({replicates} replicates, seed "
            f"{seed}; MC SE: the larger Monte Carlo SE of the two bounds); these are stress models, not "
            "sampling distributions. Promotion bounds are "
            "exact minima over promoting judged top-k subsets to gold (a qrel change, applied to "
            "both systems); unjudged documents are out of scope.")
    return Table(spec.id, spec_title(spec, "Headline-contrast sensitivity (Tables S1f-S1i)"),
                 tuple(columns), tuple(rows), note)


KIND = SpecKind("contrast_sensitivity", SensitivitySpec, build,
                 "Tables S1f-S1i analogue: common-support ordering, crossed intervals, "
                 "leave-one-document-out, top-degree removal and promotion bounds per contrast.")
