"""Kind ``random_controls``: learned steering vectors against a *distribution* of random ones.

Multi³IR's control for "multiple query vectors alone" (Table 4) is one random draw per cell in
the seen-perspective runs. Here each cell has R independent random-direction draws (recorded
seeds, ``producers/spin/infer_heldout.py``), and the contrast is

    delta = mean_q HC@k(learned) - (1/R) sum_r mean_q HC@k(random_r).

Its interval resamples queries and draws together: replicate b draws F families with
replacement (the family bootstrap's stream, :meth:`nclue.inference.Resampler.bootstrap_draws`)
and, independently, R draws with replacement from ``random.Random(seed + 1)`` (``choices``), and
recomputes delta on both; the percentile interval therefore includes the variance over random
directions. The table also prints the random draws' mean, their standard deviation over draws
(n - 1) and their range.
"""

import math
import random
import statistics
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference import Resampler
from ..inference.montecarlo import bounds_error
from ..inference.resampling import percentile
from ..table import Column, Table
from .multi3ir import context_vectors, mean_points, points, same_queries, table_failure, vector_of
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class ControlCell:
    key: str = setting("text", "row key (its claims are keyed by it)")
    label: str = setting("text", "printed row label")
    learned: str = setting("run", "the trained run")
    random: Tuple[str, ...] = setting("run_list", "the random-direction runs, one per draw (>= 2)")


@dataclass(frozen=True)
class RandomControlsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`random_controls`")
    title: Optional[str] = setting("text", "printed title", None)
    k: int = setting("count", "cutoff of HC@k")
    cells: Tuple[ControlCell, ...] = setting(ControlCell, "the cells, one row each")
    seed: int = setting("seed", "bootstrap seed (the draws' stream uses seed + 1)", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)


def draws_bootstrap(resampler: Resampler, learned: Mapping[str, float], randoms: Sequence[Mapping[str, float]],
                    replicates: int, seed: int, level: float = 0.95) -> Tuple[float, float, float]:
    """(delta, lo, hi) as shares (module docstring): families and draws resampled together."""
    delta, stats = draws_distribution(resampler, learned, randoms, replicates, seed)
    alpha = (1 - level) / 2
    return delta, percentile(stats, alpha), percentile(stats, 1 - alpha)


def draws_distribution(resampler: Resampler, learned: Mapping[str, float],
                       randoms: Sequence[Mapping[str, float]], replicates: int,
                       seed: int) -> Tuple[float, List[float]]:
    """delta and the sorted replicate statistics of :func:`draws_bootstrap` (shares)."""
    if len(randoms) < 2:
        raise ValueError("a distribution of random controls needs at least 2 draws")
    fam_l = resampler.family_sums(learned)
    fam_r = [resampler.family_sums(r) for r in randoms]
    n = len(resampler.qids)
    delta = math.fsum(fam_l) / n - math.fsum(math.fsum(f) / n for f in fam_r) / len(fam_r)
    rng = random.Random(seed + 1)
    R = len(fam_r)
    stats: List[float] = []
    size_of, learned_of = resampler.sizes.__getitem__, fam_l.__getitem__
    random_of = [f.__getitem__ for f in fam_r]
    for idx in resampler.bootstrap_draws(replicates):
        den = sum(map(size_of, idx))
        picks = rng.choices(range(R), k=R)
        rand = math.fsum([math.fsum(map(random_of[r], idx)) for r in picks]) / (R * den)
        stats.append(math.fsum(map(learned_of, idx)) / den - rand)
    stats.sort()
    return delta, stats


def controls_table(table_id: str, title: str, cells: Sequence[ControlCell], per_query, families: Dict[str, str],
                   measure, header: str, seed: int, replicates: int) -> Table:
    runs = sorted({c.learned for c in cells} | {r for c in cells for r in c.random})
    resampler = Resampler(same_queries(per_query, runs, measure), families, seed=seed)
    columns = (Column("learned", header, 1), Column("draws", "draws", 0),
               Column("random_mean", f"random mean", 1), Column("random_sd", "random SD", 2),
               Column("random_min", "random min", 1), Column("random_max", "random max", 1),
               Column("delta", "learned - random", 1), Column("lo", "lo", 1), Column("hi", "hi", 1),
               Column("se", "MC SE", 2))
    out = []
    for c in cells:
        values = [mean_points(vector_of(per_query, r, measure)) for r in c.random]
        delta, stats = draws_distribution(resampler, vector_of(per_query, c.learned, measure),
                                          [vector_of(per_query, r, measure) for r in c.random],
                                          replicates, seed)
        error = bounds_error(stats, inference.DEFAULT_LEVEL)
        lo, hi = error.lo, error.hi
        out.append((c.key, c.label, {
            "learned": mean_points(vector_of(per_query, c.learned, measure)), "draws": float(len(values)),
            "random_mean": math.fsum(values) / len(values), "random_sd": statistics.stdev(values),
            "random_min": min(values), "random_max": max(values),
            "delta": points(delta), "lo": points(lo), "hi": points(hi),
            "se": points(max(error.se_lo, error.se_hi))}))
    note = (f"{header}, percentage points. Each cell's random-vector control is a distribution: "
            "independent Gaussian directions scaled to the learned vectors' norms, one seed per draw "
            "(provenance/spin/heldout/random_*.json). lo/hi: 95% percentile interval resampling "
            f"families and random draws together ({replicates} replicates, seed {seed}; draws from "
            f"seed {seed + 1}), so it includes the variance over random directions; MC SE: the larger "
            "Monte Carlo SE of the two bounds. random SD: "
            "standard deviation of the draws' HC (n - 1).")
    return Table(table_id, title, columns, tuple(out), note)


def build(spec: RandomControlsSpec, ctx: ReleaseContext) -> Table:
    measure = ctx.registry.measure("hc", spec.k)
    runs = sorted({c.learned for c in spec.cells} | {r for c in spec.cells for r in c.random})
    header = ctx.registry.header(measure)
    try:
        return controls_table(spec.id, spec_title(spec, f"Learned steering vectors against random-direction "
                                                         f"draws ({header})"),
                              spec.cells, context_vectors(ctx, spec.id, runs, [measure]), ctx.families,
                              measure, header, spec.seed, spec.replicates)
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("random_controls", RandomControlsSpec, build,
                "Learned steering vectors against R random-direction draws per cell, with an interval "
                "that resamples queries and draws together.")
