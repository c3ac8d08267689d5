"""Kind ``masking``: condition masking, Table S5a analogue (n-Clue paper, supplement sec. 9:
"Gold-NDCG@10 change in points after dropping one condition. c1/c2 use all 1,000 queries; c3
uses the 186 three-condition queries. * denotes a paired bootstrap interval excluding zero").

Per system: the change in ``measure`` (masked - full query) after dropping condition j, over
every query for c1 and c2 and over the queries that *have* a c3 (3-condition queries) for c3;
its paired family-bootstrap interval; a significance column (1 when the 95% interval excludes
zero: the paper's star) and the Monte Carlo SE of the bound nearest zero; and the change in
``secondary`` (Gold Hit@k by default) over the same queries.

Masking runs are named ``<system>_drop_c<j>.<form>`` (e.g. ``bm25_or_drop_c3.clean``); a system
lists whichever of its masking runs the release has, so model masking runs are added by listing
their ids (``minilm_joint_best_drop_c1.clean``, ...) in the report spec.
"""

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference.montecarlo import paired_bounds_error
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title

POSITIONS = (1, 2, 3)


@dataclass(frozen=True)
class MaskedSystem:
    id: str = setting("text", "row id")
    label: Optional[str] = setting("text", "printed label (default: the base run's)", None)
    base: str = setting("run", "the run with every condition")
    drop_c1: Optional[str] = setting("run", "the run without condition 1", None)
    drop_c2: Optional[str] = setting("run", "the run without condition 2", None)
    drop_c3: Optional[str] = setting("run", "the run without condition 3 (scored on "
                                            "3-condition queries only)", None)


@dataclass(frozen=True)
class MaskingSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`masking`")
    title: Optional[str] = setting("text", "printed title", None)
    measure: Measure = setting("measure", "measure whose change is tested", "gold_ndcg")
    secondary: Measure = setting("measure", "second measure (change only)", "gold_hit")
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    systems: Tuple[MaskedSystem, ...] = setting(MaskedSystem, "rows")


def position_queries(ctx: ReleaseContext, j: int) -> Tuple[str, ...]:
    """The queries that have a condition j (c3: the 3-condition queries)."""
    return tuple(sorted(q for q, query in ctx.release.queries.items()
                        if len(query.conditions) >= j))


def build(spec: MaskingSpec, ctx: ReleaseContext) -> Table:
    rows = []
    queries = {j: position_queries(ctx, j) for j in POSITIONS}
    for system in spec.systems:
        base = _vector(ctx, spec.id, system.base, spec.measure)
        base2 = _vector(ctx, spec.id, system.base, spec.secondary)
        cells: Dict[str, Optional[float]] = {}
        for j in POSITIONS:
            run_id = getattr(system, f"drop_c{j}")
            if run_id is None or not queries[j]:
                continue
            masked = _vector(ctx, spec.id, run_id, spec.measure)
            masked2 = _vector(ctx, spec.id, run_id, spec.secondary)
            qs = queries[j]
            b = {q: base[q] for q in qs}
            v = {q: masked[q] for q in qs}
            resampler = ctx.resampler(b, spec.seed)
            bounds = paired_bounds_error(resampler, b, v, spec.replicates, inference.DEFAULT_LEVEL)
            delta = 100 * math.fsum(v[q] - b[q] for q in qs) / len(qs)
            cells.update({
                f"c{j}:delta": delta, f"c{j}:lo": 100 * bounds.lo, f"c{j}:hi": 100 * bounds.hi,
                f"c{j}:star": 1.0 if bounds.lo > 0 or bounds.hi < 0 else 0.0,
                f"c{j}:se": 100 * bounds.se, f"c{j}:fragile": 1.0 if bounds.fragile else 0.0,
                f"c{j}:hit": 100 * math.fsum(masked2[q] - base2[q] for q in qs) / len(qs),
                f"c{j}:queries": float(len(qs))})
        rows.append((system.id, system.label or ctx.label(system.base), cells))
    h, h2 = ctx.registry.header(spec.measure), ctx.registry.header(spec.secondary)
    columns = []
    for j in POSITIONS:
        columns += [Column(f"c{j}:queries", f"c{j} queries", 0),
                    Column(f"c{j}:delta", f"drop c{j}: Delta {h}", 1),
                    Column(f"c{j}:lo", "95% CI low", 1), Column(f"c{j}:hi", "95% CI high", 1),
                    Column(f"c{j}:star", "* (CI excludes 0)", 0),
                    Column(f"c{j}:se", "MC SE of the bound nearest 0", 2),
                    Column(f"c{j}:fragile", "fragile", 0),
                    Column(f"c{j}:hit", f"Delta {h2}", 1)]
    note = ("Percentage points, masked minus full query. c1 and c2 over every query; c3 over the "
            "3-condition queries only (Table S5a). Intervals: paired percentile bootstrap over "
            f"exact-gold-set families ({spec.replicates} replicates, seed {spec.seed}); * = 1 when "
            "the interval excludes zero; fragile = 1 when that verdict could flip within two "
            "Monte Carlo SE of the bound nearest 0 (nearest in its own SEs; its SE is printed). Masking runs are named <system>_drop_c<j>.<form>.")
    return Table(spec.id, spec_title(spec, "Condition masking (Table S5a analogue)"),
                 tuple(columns), tuple(rows), note)


KIND = SpecKind("masking", MaskingSpec, build,
                 "Table S5a analogue: change after dropping each condition (c3 on 3-condition "
                 "queries only), paired intervals and stars, per system.")
