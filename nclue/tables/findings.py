"""Kind ``findings``: directional findings of the papers, re-tested on a release.

A release's ``report.json`` may declare, per finding, the paper's statement, a base and a
variant run, a measure and the direction the paper reports::

    {"id": "findings", "kind": "findings", "seed": 11, "replicates": 1000,
     "findings": [{"id": "dense_decomposition", "statement": "Condition-wise decomposition
                   improves a dense backbone (sec. 4.2)", "base": "minilm_joint",
                   "variant": "minilm_cond_hmean", "measure": "nclue_score", "direction": "+"}]}

Each finding gets the paired difference (variant - base, points), its family-clustered 95%
percentile bootstrap interval (n-Clue paper sec. 3.4) and a verdict code:

- ``1`` replicates: the difference has the paper's sign and the interval excludes zero (for
  direction "0", a null finding: the interval includes zero);
- ``0`` same direction, not significant: the sign matches but the interval includes zero
  (a zero difference also lands here);
- ``-1`` opposite direction, not significant: the sign is opposite, the interval includes zero;
- ``-2`` contradicted: the sign is opposite and the interval excludes zero (for direction "0":
  the interval excludes zero).

A "0" finding can only be supported as far as the interval's width allows: it says no
difference was detected, not that none exists.

The verdict is a number so that it is a verified claim like every other cell; the report prints
its sentence.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import inference
from ..claims import format_fixed
from ..context import ReleaseContext
from ..errors import InputError
from ..measures import Measure
from .model import Column, Table
from .spec import SpecKind, setting, spec_title

VERDICT_TEXT = {1: "replicates", 0: "same direction, not significant",
                -1: "opposite direction, not significant", -2: "contradicted"}


def verdict(direction: str, delta: float, lo: float, hi: float) -> int:
    """Verdict code for a paired difference and its interval (see module docstring)."""
    excludes_zero = lo > 0 or hi < 0
    if direction == "0":
        return -2 if excludes_zero else 1
    sign = 1 if direction == "+" else -1
    if delta * sign > 0:
        return 1 if excludes_zero else 0
    if delta == 0:
        return 0
    return -2 if excludes_zero else -1


@dataclass(frozen=True)
class Finding:
    id: str = setting("text", "row id")
    statement: str = setting("text", "the paper's statement, with its section")
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    direction: str = setting("direction", "the paper's direction of variant - base", "+")


@dataclass(frozen=True)
class FindingsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`findings`")
    title: Optional[str] = setting("text", "printed title", None)
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    findings: Tuple[Finding, ...] = setting(Finding, "the findings, one row each")


def build(spec: FindingsSpec, ctx: ReleaseContext) -> Table:
    """Builder for kind ``findings``; see the module docstring."""
    columns = (Column("base", "Base", 1), Column("variant", "Variant", 1), Column("delta", "Delta", 1),
               Column("ci_lo", "95% CI low", 1), Column("ci_hi", "95% CI high", 1),
               Column("verdict", "Verdict (1 / 0 / -1 / -2)", 0))
    rows = []
    resamplers: Dict[frozenset, inference.Resampler] = {}
    for number, item in enumerate(spec.findings, start=1):
        base = ctx.vector(item.base, item.measure)
        variant = ctx.vector(item.variant, item.measure)
        if base is None or variant is None:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}, finding {number}: "
                             f"measure {item.measure.name!r} is not available for both runs")
        interval = inference.shared_resampler(resamplers, base, ctx.families, spec.seed).paired_bootstrap(
            base, variant, replicates=spec.replicates)
        cells = {"base": 100.0 * math.fsum(base.values()) / len(base),
                 "variant": 100.0 * math.fsum(variant.values()) / len(variant),
                 "delta": 100.0 * interval.estimate, "ci_lo": 100.0 * interval.lo, "ci_hi": 100.0 * interval.hi}
        cells["verdict"] = float(verdict(item.direction, cells["delta"], cells["ci_lo"], cells["ci_hi"]))
        label = (f"{item.statement} [{item.measure.name}: {item.base} -> {item.variant}, "
                 f"paper: {item.direction}]")
        rows.append((item.id, label, cells))
    note = ("Percentage points; variant minus base; 95% family-clustered percentile bootstrap "
            f"({spec.replicates} replicates, seed {spec.seed}). Verdict: "
            + "; ".join(f"{code} = {text}" for code, text in VERDICT_TEXT.items()) + ".")
    return Table(spec.id, spec_title(spec, "Do the paper's directional findings replicate?"),
                 columns, tuple(rows), note)


def findings_sentences(table: Table) -> List[str]:
    """Plain-language sentences for the report, one per finding, from a findings table."""
    lines = []
    for _, label, cells in table.rows:
        code = int(cells["verdict"])
        lines.append(f"**{VERDICT_TEXT[code]}**: {label}: delta {_signed(cells['delta'])} points "
                     f"[{_signed(cells['ci_lo'])}, {_signed(cells['ci_hi'])}]")
    return lines


def _signed(value: float) -> str:
    text = format_fixed(value, 1)
    return text if text.startswith("-") else "+" + text


def summary_counts(table: Table) -> Dict[str, int]:
    """How many findings of a findings table have each verdict, in :data:`VERDICT_TEXT` order."""
    counts = {text: 0 for text in VERDICT_TEXT.values()}
    for _, _, cells in table.rows:
        counts[VERDICT_TEXT[int(cells["verdict"])]] += 1
    return counts


KIND = SpecKind("findings", FindingsSpec, build,
                 "The paper's directional findings re-tested: paired difference, family-bootstrap "
                 "interval and a verdict code per finding.")
