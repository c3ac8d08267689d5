"""Kind ``perspective_contrasts``: the paired contrasts Multi³IR Table 2's prose draws.

SPIN vs naive, fine-tuned vs zero-shot, learned vs random vectors, mid layer vs the others, the
oracle vs naive: per contrast and cutoff, delta HC@k (variant minus base, points), its 95%
paired family-clustered percentile bootstrap interval and the two-sided family sign-flip
randomization p (+1 correction), as for every contrast of this package (n-Clue paper,
sec. 3.4). No multiplicity adjustment: the note says so.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference import Resampler
from ..inference.montecarlo import bootstrap_distribution, bounds_error
from ..inference.resampling import _paired
from ..measures import Measure, MeasureRegistry, cutoff_key
from ..table import Column, Table
from .multi3ir import PerQuery, context_vectors, points, same_queries, table_failure, vector_of
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class Contrast:
    """A paired contrast ``variant - base``."""

    key: str = setting("text", "row key (its claims are keyed by it)")
    label: str = setting("text", "printed row label")
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")


@dataclass(frozen=True)
class PerspectiveContrastsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`perspective_contrasts`")
    title: Optional[str] = setting("text", "printed title", None)
    contrasts: Tuple[Contrast, ...] = setting(Contrast, "the contrasts, one row each")
    ks: Tuple[int, ...] = setting("ks", "cutoffs of HC@k", [10, 100])
    seed: int = setting("seed", "seed of both resampling streams", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    draws: int = setting("count", "sign-flip draws", inference.DEFAULT_DRAWS)


def contrast_table(table_id: str, title: str, contrasts: Sequence[Contrast], per_query: PerQuery,
                   families: Dict[str, str], hc: Sequence[Measure], registry: MeasureRegistry,
                   seed: int, replicates: int, draws: int) -> Table:
    """Paired contrasts of HC@k: ``delta@k`` (variant minus base, points), its 95% paired family
    bootstrap interval ``lo@k``/``hi@k``, the larger Monte Carlo SE of its two bounds ``se@k``
    and the two-sided family sign-flip p ``p@k``."""
    if not contrasts:
        raise ValueError("no contrasts")
    runs = sorted({c.base for c in contrasts} | {c.variant for c in contrasts})
    resampler = Resampler(same_queries(per_query, runs, hc[0]), families, seed=seed)
    columns = []
    for measure in hc:
        header = "d" + registry.header(measure)
        columns += [Column(cutoff_key("delta", measure), header, 1),
                    Column(cutoff_key("lo", measure), f"{header} lo", 1),
                    Column(cutoff_key("hi", measure), f"{header} hi", 1),
                    Column(cutoff_key("se", measure), f"{header} MC SE", 2),
                    Column(cutoff_key("p", measure), cutoff_key("p", measure), 3)]
    out = []
    for c in contrasts:
        cells: Dict[str, Optional[float]] = {}
        for measure in hc:
            base = vector_of(per_query, c.base, measure)
            variant = vector_of(per_query, c.variant, measure)
            iv = resampler.paired_bootstrap(base, variant, replicates=replicates)
            error = bounds_error(bootstrap_distribution(resampler, _paired(base, variant),
                                                        replicates), inference.DEFAULT_LEVEL)
            test = resampler.flip_test(base, variant, draws=draws)
            cells[cutoff_key("delta", measure)] = points(iv.estimate)
            cells[cutoff_key("lo", measure)] = points(iv.lo)
            cells[cutoff_key("hi", measure)] = points(iv.hi)
            cells[cutoff_key("se", measure)] = points(max(error.se_lo, error.se_hi))
            cells[cutoff_key("p", measure)] = test.p
        out.append((c.key, c.label, cells))
    note = ("Variant minus base, percentage points of HC@k. lo/hi: 95% paired family-clustered "
            f"percentile bootstrap ({replicates} replicates), MC SE the larger Monte Carlo SE of the "
            "two bounds; p: two-sided family sign-flip "
            f"randomization test ({draws} draws, +1 correction); seed {seed}; no multiplicity "
            "adjustment.")
    return Table(table_id, title, tuple(columns), tuple(out), note)


def build(spec: PerspectiveContrastsSpec, ctx: ReleaseContext) -> Table:
    hc = [ctx.registry.measure("hc", k) for k in spec.ks]
    runs = sorted({c.base for c in spec.contrasts} | {c.variant for c in spec.contrasts})
    try:
        return contrast_table(
            spec.id, spec_title(spec, "Multi3IR Table 2 contrasts: paired differences in HC@k"),
            spec.contrasts, context_vectors(ctx, spec.id, runs, hc), ctx.families, hc,
            ctx.registry, spec.seed, spec.replicates, spec.draws)
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("perspective_contrasts", PerspectiveContrastsSpec, build,
                "Multi³IR Table 2's paired contrasts: delta HC@k, paired interval, sign-flip p.")
