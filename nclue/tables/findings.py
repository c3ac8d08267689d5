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
- ``-2`` contradicted: the sign is opposite and the interval excludes zero;
- ``-3`` not testable: the release has no analogue runs (the row states why).

A "0" (no effect) finding needs an equivalence margin m (points, stated in the spec) and is
judged by two one-sided tests (:mod:`nclue.inference.equivalence`): ``1`` when the 90%
interval lies inside (-m, m) (equivalence shown), ``-2`` when it lies entirely outside [-m, m]
(an effect beyond the margin), ``0`` otherwise (inconclusive: equivalence not shown).
"The interval covers zero" alone is never read as "no effect".

A finding with ``dispersion_quartiles`` tests an interaction instead (Multi3IR Table 7: "gains
are largest on dispersed queries"): its delta is the variant-minus-base gain among the most
dispersed quarter of the queries minus the gain among the most clustered quarter, with the same
family bootstrap (:func:`nclue.inference.groups.group_difference_distribution`); its Base and
Variant cells are empty.

Every row also gives the Monte Carlo SE of the bound that decides its verdict and a fragility flag
(1 when that bound lies within two Monte Carlo SE of the point where the verdict would change):
the 95% bound nearest 0, or on a no-effect row the 90% bound nearest -margin or +margin
(:func:`row_decision`, :mod:`nclue.inference.montecarlo`).

The verdict is a number so that it is a verified claim like every other cell; the report prints
its sentence.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

from .. import inference
from ..claims import format_fixed
from ..inference.equivalence import EQUIVALENT, NOT_EQUIVALENT, equivalence_verdict
from ..coverage import load_dispersions, quartiles
from ..inference.groups import group_difference_distribution
from ..inference.montecarlo import (Deciding, bootstrap_distribution, directional_decision,
                                    equivalence_decision, quantile_se)
from ..inference.resampling import _paired, percentile
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..measures import Measure
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title

VERDICT_TEXT = {1: "replicates", 0: "same direction, not significant",
                -1: "opposite direction, not significant", -2: "contradicted", -3: "not testable"}
EQUIVALENCE_LEVEL = 0.90  # two one-sided tests at alpha = .05
#: Lower tail of the 95% interval, computed as Resampler.bootstrap does (same last bits).
ALPHA = (1 - inference.DEFAULT_LEVEL) / 2


def verdict(direction: str, delta: float, lo: float, hi: float,
            margin: Optional[float] = None, lo90: Optional[float] = None,
            hi90: Optional[float] = None) -> int:
    """Verdict code for a paired difference and its interval (see module docstring); a "0"
    finding is judged by equivalence of its 90% interval ``[lo90, hi90]`` within ``margin``."""
    excludes_zero = lo > 0 or hi < 0
    if direction == "0":
        if margin is None or lo90 is None or hi90 is None:
            raise ValueError("a no-effect finding needs a margin and its 90% interval")
        code = equivalence_verdict(lo90, hi90, margin)
        return {EQUIVALENT: 1, NOT_EQUIVALENT: -2}.get(code, 0)
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
    base: Optional[str] = setting("run", "base run (none: not testable here)", None)
    variant: Optional[str] = setting("run", "variant run (none: not testable here)", None)
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    direction: str = setting("direction", "the paper's direction of variant - base", "+")
    margin: Optional[float] = setting("points", "equivalence margin in points (required for "
                                                "direction \"0\")", None)
    untestable: Optional[str] = setting("text", "why the release cannot test it (no runs)", None)
    explanation: Optional[str] = setting("text", "what the data show (printed after the verdict)",
                                         None)
    dispersion_quartiles: Optional[str] = setting(
        "text", "a per-query dispersion facts file, relative to the release folder (format: "
        "nclue.coverage.load_dispersions); the delta is then the variant-minus-base gain in the "
        "most dispersed quartile minus the gain in the most clustered one (Multi3IR Table 7)",
        None)


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
               Column("margin", "Equivalence margin", 1), Column("lo90", "90% CI low", 1),
               Column("hi90", "90% CI high", 1), Column("se", "MC SE of the deciding bound", 2),
               Column("fragile", "Fragile", 0),
               Column("verdict", "Verdict (1 / 0 / -1 / -2 / -3)", 0))
    rows = []
    for number, item in enumerate(spec.findings, start=1):
        where = f"table {spec.id!r}, finding {number}"
        if item.untestable is not None or item.base is None or item.variant is None:
            if item.untestable is None or item.base is not None or item.variant is not None:
                raise InputError(ctx.layout.report_spec, f"{where}: give either base and "
                                 "variant runs or an 'untestable' reason, not both")
            rows.append((item.id, f"{item.statement} [not testable: {item.untestable}]",
                         {"verdict": -3.0}))
            continue
        if item.direction == "0" and item.margin is None:
            raise InputError(ctx.layout.report_spec, f"{where}: a no-effect (\"0\") finding "
                                                     "needs an equivalence 'margin'")
        base = ctx.vector(item.base, item.measure)
        variant = ctx.vector(item.variant, item.measure)
        if base is None or variant is None:
            raise InputError(ctx.layout.report_spec, f"{where}: "
                             f"measure {item.measure.name!r} is not available for both runs")
        resampler = ctx.resampler(base, spec.seed)
        diff = _paired(base, variant)
        if item.dispersion_quartiles is None:
            stats = bootstrap_distribution(resampler, diff, spec.replicates)
            cells = {"base": 100.0 * math.fsum(base.values()) / len(base),
                     "variant": 100.0 * math.fsum(variant.values()) / len(variant),
                     "delta": 100.0 * math.fsum(diff.values()) / len(diff)}
            label = (f"{item.statement} [{item.measure.name}: {item.base} -> {item.variant}, "
                     f"paper: {item.direction}]")
        else:
            path = ctx.layout.folder / item.dispersion_quartiles
            # quartiles over the queries this context scores (a held-out or label-version view
            # restates Table 7 on its own queries)
            dispersions = {q: d for q, d in load_dispersions(path).items() if q in ctx.release.queries}
            try:
                delta, stats = quartile_gap(diff, dispersions, resampler, spec.replicates)
            except (ValueError, NclueError) as exc:
                raise InputError(ctx.layout.report_spec, f"{where}: {path.name}: {exc}") from None
            cells = {"base": None, "variant": None, "delta": 100.0 * delta}
            label = (f"{item.statement} [{item.measure.name}: gain of {item.variant} over "
                     f"{item.base} in the most dispersed minus the most clustered quartile, "
                     f"paper: {item.direction}]")
        lo, hi = percentile(stats, ALPHA), percentile(stats, 1 - ALPHA)
        cells.update({"ci_lo": 100.0 * lo, "ci_hi": 100.0 * hi})
        lo90 = hi90 = None
        if item.direction == "0":
            alpha = (1 - EQUIVALENCE_LEVEL) / 2
            lo90, hi90 = 100.0 * percentile(stats, alpha), 100.0 * percentile(stats, 1 - alpha)
            cells.update({"margin": item.margin, "lo90": lo90, "hi90": hi90})
        decision = row_decision(stats, item.margin / 100.0 if item.direction == "0" else None)
        cells.update({"se": 100.0 * decision.se, "fragile": 1.0 if decision.fragile else 0.0})
        cells["verdict"] = float(verdict(item.direction, cells["delta"], cells["ci_lo"],
                                         cells["ci_hi"], item.margin, lo90, hi90))
        rows.append((item.id, label, cells))
    note = ("Percentage points; variant minus base; 95% family-clustered percentile bootstrap "
            f"({spec.replicates} replicates, seed {spec.seed}); no-effect findings: two one-sided "
            "tests, equivalence when the 90% interval lies inside (-margin, +margin). MC SE: Monte "
            "Carlo SE of the deciding bound (the 95% bound nearest 0; on rows with a margin the 90% "
            "bound nearest -margin or +margin); Fragile = 1 when that bound lies within two MC SE "
            "of where the verdict would change. Verdict: "
            + "; ".join(f"{code} = {text}" for code, text in VERDICT_TEXT.items())
            + "; rows with a margin (no-effect findings): "
            + "; ".join(f"{code} = {text}" for code, text in NULL_VERDICT_TEXT.items()) + ".")
    return Table(spec.id, spec_title(spec, "Do the paper's directional findings replicate?"),
                 columns, tuple(rows), note)


def row_decision(stats: List[float], margin: Optional[float] = None) -> Deciding:
    """The bound that decides a findings row from its sorted replicates ``stats``: without a
    margin the 95% bound nearest 0; with a margin (in the units of ``stats``; a no-effect row
    judged by two one-sided tests) the 90% bound nearest -margin or +margin; nearest in its own Monte Carlo
    SEs (:func:`nclue.inference.montecarlo.deciding_bound`). Its ``se`` is the row's printed
    MC SE and its ``fragile`` the row's flag, so both refer to the same bound at the same level."""
    if margin is None:
        lo, hi = percentile(stats, ALPHA), percentile(stats, 1 - ALPHA)
        return directional_decision(lo, hi, quantile_se(stats, ALPHA), quantile_se(stats, 1 - ALPHA))
    alpha = (1 - EQUIVALENCE_LEVEL) / 2
    return equivalence_decision(percentile(stats, alpha), percentile(stats, 1 - alpha),
                                quantile_se(stats, alpha), quantile_se(stats, 1 - alpha), margin)


def quartile_gap(diff: Mapping[str, float], dispersions: Mapping[str, float],
                 resampler: "inference.Resampler", replicates: int) -> Tuple[float, List[float]]:
    """Gain in the most dispersed quartile minus gain in the most clustered one (``diff`` is the
    per-query variant-minus-base vector) and its sorted family-bootstrap replicates. Quartiles
    as in Multi3IR Table 7: :func:`nclue.coverage.quartiles` over every query of
    ``dispersions`` (the caller keeps the queries of the release or view it scores), each of
    which must be in ``diff``."""
    groups = quartiles(dispersions)
    outside = sorted(q for q in groups if q not in diff)
    if outside:
        raise ValueError(f"{len(outside)} queries with a dispersion are not scored by both runs "
                         f"(first {outside[0]!r})")
    high = [q for q, g in groups.items() if g == 3]
    low = [q for q, g in groups.items() if g == 0]
    gap = math.fsum(diff[q] for q in high) / len(high) - math.fsum(diff[q] for q in low) / len(low)
    return gap, group_difference_distribution(resampler, diff, low, high, replicates)


def findings_sentences(table: Table,
                       explanations: Optional[Dict[str, str]] = None) -> List[Tuple[str, str]]:
    """Plain-language sentences for the report, one per finding, from a findings table (or an
    ``observations`` table, whose regression rows carry ``beta`` cells in log-odds per SD), as
    ``(verdict, the rest of the sentence)``: the report shows the verdict in bold, both verbatim."""
    lines = []
    explanations = explanations or {}
    for row_key, label, cells in table.rows:
        code = int(cells["verdict"])
        prefix, unit, places = ("beta_", "log-odds per SD", 2) if "beta" in cells else ("", "points", 1)
        value = cells.get("beta" if prefix else "delta")
        lo, hi = cells.get(prefix + "lo" if prefix else "ci_lo"), cells.get(prefix + "hi" if prefix else "ci_hi")
        margin = cells.get(prefix + "margin")
        if value is None:
            verdict, line = VERDICT_TEXT[code], f": {label}"
        elif margin is not None:
            verdict = NULL_VERDICT_TEXT[code]
            line = (f": {label}: {'beta' if prefix else 'delta'} "
                    f"{_signed(value, places)} {unit}, 90% interval "
                    f"[{_signed(cells[prefix + 'lo90'], places)}, "
                    f"{_signed(cells[prefix + 'hi90'], places)}] against a margin of "
                    f"+/-{format_fixed(margin, places)}")
        else:
            verdict = VERDICT_TEXT[code]
            line = (f": {label}: {'beta' if prefix else 'delta'} "
                    f"{_signed(value, places)} {unit} [{_signed(lo, places)}, {_signed(hi, places)}]")
        if cells.get("fragile"):
            line += " (fragile: within two Monte Carlo SE of flipping)"
        if row_key in explanations:
            line += f". {explanations[row_key]}"
        lines.append((verdict, line))
    return lines


def _signed(value: float, places: int = 1) -> str:
    text = format_fixed(value, places)
    return text if text.startswith("-") else "+" + text


#: How a "no effect" (direction "0") finding's verdict reads: it is judged by equivalence.
NULL_VERDICT_TEXT = {1: "equivalent", 0: "inconclusive (equivalence not shown)",
                     -2: "an effect beyond the margin"}


def verdict_text(cells: Mapping[str, Optional[float]]) -> str:
    """The verdict of one findings row in words (a row with a margin is a "no effect" finding)."""
    code = int(cells["verdict"])
    if cells.get("margin") is not None:
        return NULL_VERDICT_TEXT[code]
    return VERDICT_TEXT[code]


def summary_counts(table: Table) -> Dict[str, int]:
    """How many findings of a findings table have each verdict (directional verdicts in
    :data:`VERDICT_TEXT` order, then the equivalence verdicts of "no effect" findings)."""
    counts = {text: 0 for text in VERDICT_TEXT.values()}
    counts.update({text: 0 for text in NULL_VERDICT_TEXT.values()})
    for _, _, cells in table.rows:
        counts[verdict_text(cells)] += 1
    return {text: n for text, n in counts.items() if n or text in VERDICT_TEXT.values()}


KIND = SpecKind("findings", FindingsSpec, build,
                 "The paper's directional findings re-tested: paired difference, family-bootstrap "
                 "interval and a verdict code per finding.")
