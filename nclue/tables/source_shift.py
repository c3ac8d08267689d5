"""Kind ``source_shift``: the Table 7 analogue, each operation's variant-minus-base score on this
release and on another release side by side, with a Direction column (n-Clue paper, sec. 4.3,
Table 7: "Raw-form operation-direction stress test").

The other release is named by the spec (``other``: a sibling folder under ``data/``, e.g.
``v2``); it is loaded read-only through its own :class:`nclue.context.ReleaseContext` (its
run index, sha256-checked; shared with the rest of the run by :meth:`ReleaseContext.sibling`,
so reproduce.py loads it once), so data still flows one way: files of both releases -> per-query
vectors -> this table. An operation lists a base and a variant run id that must exist in
both releases. Per release: the mean difference (points) and its family-bootstrap interval
(each release's own exact-gold-set families). Direction: ``1`` same sign, ``-1`` flip, ``0``
when either difference is exactly zero.
"""

import math
from dataclasses import dataclass
from typing import Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..layout import ReleaseLayout
from ..errors import InputError
from ..inference.montecarlo import paired_bounds_error
from ..measures import Measure
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title

DIRECTION_TEXT = {1: "same", -1: "flip", 0: "zero on one side"}


@dataclass(frozen=True)
class Operation:
    id: str = setting("text", "row id")
    label: Optional[str] = setting("text", "printed label (default: the id)", None)
    base: str = setting("text", "base run id (in both releases)")
    variant: str = setting("text", "variant run id (in both releases)")


@dataclass(frozen=True)
class SourceShiftSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`source_shift`")
    title: Optional[str] = setting("text", "printed title", None)
    other: str = setting("release", "the other release's folder name (a sibling under data/)")
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    operations: Tuple[Operation, ...] = setting(Operation, "rows")


def direction(a: float, b: float) -> int:
    """1 when both differences have the same sign, -1 when they differ, 0 if either is 0."""
    if a == 0 or b == 0:
        return 0
    return 1 if (a > 0) == (b > 0) else -1


def other_context(ctx: ReleaseContext, name: str) -> ReleaseContext:
    folder = ctx.layout.folder.parent / name
    if name == ctx.name or not ReleaseLayout(folder).is_release():
        raise InputError(ctx.layout.report_spec, f"other release {name!r}: no release folder "
                                                 f"{folder} beside {ctx.name!r}")
    return ctx.sibling(name)


def _contrast(ctx: ReleaseContext, spec: SourceShiftSpec, op: Operation, measure: Measure):
    for run_id in (op.base, op.variant):
        if run_id not in ctx.index:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}, operation {op.id!r}: "
                                                     f"run {run_id!r} is not in release {ctx.name!r}")
    base = ctx.vector(op.base, measure)
    variant = ctx.vector(op.variant, measure)
    resampler = ctx.resampler(base, spec.seed)
    bounds = paired_bounds_error(resampler, base, variant, spec.replicates, inference.DEFAULT_LEVEL)
    delta = math.fsum(variant[q] - base[q] for q in base) / len(base)
    return (100 * delta, 100 * bounds.lo, 100 * bounds.hi,
            100 * bounds.se, bounds.fragile)


def build(spec: SourceShiftSpec, ctx: ReleaseContext) -> Table:
    other = other_context(ctx, spec.other)
    measure = spec.measure if spec.measure.k is not None else spec.measure.at(ctx.k)  # this report's k
    rows = []
    for op in spec.operations:
        d1, lo1, hi1, se1, f1 = _contrast(ctx, spec, op, measure)
        d2, lo2, hi2, se2, f2 = _contrast(other, spec, op, measure)
        cells = {"here": d1, "here_lo": lo1, "here_hi": hi1, "there": d2, "there_lo": lo2,
                 "there_hi": hi2, "here_se": se1, "there_se": se2, "fragile": 1.0 if f1 or f2 else 0.0,
                 "direction": float(direction(d1, d2))}
        rows.append((op.id, f"{op.label or op.id}: {op.base} -> {op.variant}", cells))
    a, b = ctx.name, other.name
    columns = (Column("here", f"{a} Delta", 1), Column("here_lo", f"{a} 95% low", 1),
               Column("here_hi", f"{a} 95% high", 1), Column("there", f"{b} Delta", 1),
               Column("there_lo", f"{b} 95% low", 1), Column("there_hi", f"{b} 95% high", 1),
               Column("here_se", f"{a} MC SE", 2), Column("there_se", f"{b} MC SE", 2),
               Column("fragile", "Fragile", 0),
               Column("direction", "Direction (1 same / -1 flip)", 0))
    note = (f"Variant minus base {spec.measure}, percentage points, on {a} and {b}; intervals: "
            f"family bootstrap within each release ({spec.replicates} replicates, seed "
            f"{spec.seed}); MC SE: Monte Carlo SE of each interval's bound nearest 0 (in its own SEs); "
            "Fragile = 1 when either lies within two MC SE of 0. Direction: 1 = same sign, -1 = flip, 0 = zero on one side.")
    return Table(spec.id, spec_title(spec, "Operation directions under source shift"), columns,
                 tuple(rows), note)


KIND = SpecKind("source_shift", SourceShiftSpec, build,
                 "Table 7 analogue: each operation's variant-minus-base score on this and another "
                 "release side by side, with a same/flip Direction column.")
