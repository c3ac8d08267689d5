"""Directional findings of the n-Clue paper, re-tested on a release (report kind ``findings``).

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
from typing import Any, Dict, List, Mapping

from . import inference
from .claims import format_fixed
from .coverage import per_query_coverage, perspectives_from_release, rankings_of
from .errors import InputError
from .release import gold_families
from .tables import Column, Table

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


def _vector(ctx: Any, run_id: str, key: str):
    """Per-query vector of a scorer measure, or of hard coverage ``hc@k`` (Multi3IR eq. 5 with
    the release's conditions as perspectives)."""
    if key.startswith("hc@"):
        try:
            k = int(key[3:])
        except ValueError:
            return None
        perspectives = perspectives_from_release(ctx.release)
        return per_query_coverage(perspectives, rankings_of(ctx.run(run_id)), (k,))[key]
    return ctx.vectors(run_id).get(key)


def findings_table(spec: Mapping[str, Any], ctx: Any) -> Table:
    """Builder for kind ``findings``; see the module docstring."""
    where = ctx.path / "report.json"
    items = spec.get("findings")
    if not isinstance(items, list) or not items:
        raise InputError(where, f"table {spec.get('id')!r}: 'findings' must be a non-empty list")
    seed = spec.get("seed", inference.DEFAULT_SEED)
    replicates = spec.get("replicates", inference.DEFAULT_REPLICATES)
    families = gold_families(ctx.release)
    columns = (Column("base", "Base", 1), Column("variant", "Variant", 1), Column("delta", "Delta", 1),
               Column("ci_lo", "95% CI low", 1), Column("ci_hi", "95% CI high", 1),
               Column("verdict", "Verdict (1 / 0 / -1 / -2)", 0))
    rows = []
    resamplers: Dict[frozenset, inference.Resampler] = {}
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("id", "statement", "base", "variant")):
            raise InputError(where, f"finding {number}: needs string fields id, statement, base, variant")
        direction = item.get("direction", "+")
        if direction not in ("+", "-", "0"):
            raise InputError(where, f"finding {number}: direction must be '+', '-' or '0'")
        measure = item.get("measure", "nclue_score")
        key = measure if "@" in measure or measure == "auc" else f"{measure}@{ctx.k}"
        base = _vector(ctx, item["base"], key)
        variant = _vector(ctx, item["variant"], key)
        if base is None or variant is None:
            raise InputError(where, f"finding {number}: measure {key!r} is not available for both runs")
        interval = inference.shared_resampler(resamplers, base, families, seed).paired_bootstrap(
            base, variant, replicates=replicates)
        cells = {"base": 100.0 * math.fsum(base.values()) / len(base),
                 "variant": 100.0 * math.fsum(variant.values()) / len(variant),
                 "delta": 100.0 * interval.estimate, "ci_lo": 100.0 * interval.lo, "ci_hi": 100.0 * interval.hi}
        cells["verdict"] = float(verdict(direction, cells["delta"], cells["ci_lo"], cells["ci_hi"]))
        label = f"{item['statement']} [{key}: {item['base']} -> {item['variant']}, paper: {direction}]"
        rows.append((item["id"], label, cells))
    note = ("Percentage points; variant minus base; 95% family-clustered percentile bootstrap "
            f"({replicates} replicates, seed {seed}). Verdict: "
            + "; ".join(f"{code} = {text}" for code, text in VERDICT_TEXT.items()) + ".")
    return Table(spec["id"], spec.get("title", "Do the paper's directional findings replicate?"),
                 columns, tuple(rows), note)


def findings_sentences(table: Table) -> List[str]:
    """Plain-language lines for REPORT.md, one per finding, from a findings table."""
    lines = []
    for _, label, cells in table.rows:
        code = int(cells["verdict"])
        lines.append(f"- **{VERDICT_TEXT[code]}**: {label}: delta {_signed(cells['delta'])} points "
                     f"[{_signed(cells['ci_lo'])}, {_signed(cells['ci_hi'])}]")
    return lines


def _signed(value: float) -> str:
    text = format_fixed(value, 1)
    return text if text.startswith("-") else "+" + text


def summary_counts(table: Table) -> Dict[str, int]:
    counts = {text: 0 for text in VERDICT_TEXT.values()}
    for _, _, cells in table.rows:
        counts[VERDICT_TEXT[int(cells["verdict"])]] += 1
    return counts
