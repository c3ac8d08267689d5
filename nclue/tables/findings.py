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

A finding that names a pattern across releases ("reverses", "flips": the n-Clue paper's Table 7
gives an operation's sign on CrossPage and under source shift) is judged on the pattern, not on
one side: with ``other`` (a sibling release) and ``other_direction`` (the paper's direction
there), the same base and variant runs are compared on both releases, each side gets its own
verdict code by the rule above, and the row's verdict is the weaker of the two (in the order
1 > 0 > -1 > -2). So a reversal "replicates" only when both sides have the paper's signs and
both intervals exclude zero; it is "contradicted" when either side is significantly opposite.
The row gives both sides' deltas, intervals and verdicts.

Every row also gives the Monte Carlo SE of the bound that decides its verdict and a fragility flag
(1 when that bound lies within two Monte Carlo SE of the point where the verdict would change):
the 95% bound nearest 0, or on a no-effect row the 90% bound nearest -margin or +margin
(:func:`row_decision`, :mod:`nclue.inference.montecarlo`).

The words of a verdict are fixed (:data:`VERDICT_TEXT`, :data:`NULL_VERDICT_TEXT`: "no effect"
is never printed, only "equivalent" when equivalence is shown), and the report's summary line
counts the printed bullets (:func:`findings_bullets`). An explanation printed after a verdict is
a list of checked statements (:mod:`nclue.tables.statements`) that declares the verdicts it was
written for (``written_for``); it is checked here when the table is built, and rendered, or
withheld with a problem that fails verification, when the report is assembled.

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
from .spec import VERDICT_CODES, SpecKind, setting, spec_title
from .statements import Statement, explanation_problems

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
    explanation: Optional[Tuple[Statement, ...]] = setting(
        Statement, "checked statements printed after the verdict (nclue.tables.statements)", None)
    written_for: Optional[Tuple[int, ...]] = setting(
        "verdicts", "the verdict codes the explanation was written for (required with one); "
        "another verdict withholds it and fails verification", None)
    other: Optional[str] = setting(
        "release", "a pattern across releases (\"reverses\", \"flips\"): the sibling release "
        "where the same base and variant runs are compared too; the verdict is the weaker side's",
        None)
    other_direction: Optional[str] = setting(
        "direction", "the paper's direction on the other release (required with `other`)", None)
    other_label_version: Optional[str] = setting(
        "text", "label version (a repair id) of the other release; none: the label version of this "
        "table (the released labels, or a scoped table's)", None)
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


def check_explanation(item, where: str, report_spec) -> None:
    """Refuse an explanation that breaks the written rule (nclue.tables.statements) or has no
    ``written_for``, and a ``written_for`` without an explanation."""
    if item.explanation is None:
        if item.written_for is not None:
            raise InputError(report_spec, f"{where}: 'written_for' without an 'explanation'")
        return
    found = explanation_problems(item.explanation, item.written_for, VERDICT_CODES)
    if found:
        raise InputError(report_spec, f"{where}, explanation: {found[0]}")


PATTERN_COLUMNS = (Column("here_verdict", "Verdict on this release", 0),
                   Column("other_delta", "Other release: delta", 1),
                   Column("other_lo", "Other release: 95% CI low", 1),
                   Column("other_hi", "Other release: 95% CI high", 1),
                   Column("other_verdict", "Other release: verdict", 0))


def pattern_verdict(codes) -> int:
    """A pattern across releases holds no better than its weakest side (1 > 0 > -1 > -2)."""
    return min(codes)


def _other_side(ctx: ReleaseContext, item: "Finding", spec: "FindingsSpec", where: str
                ) -> Dict[str, float]:
    """The pattern's side on the other release: delta, 95% interval and its own verdict."""
    from .scoped import scoped_context
    from .source_shift import other_context
    other = ctx.derived(("findings_other_release", item.other),
                        lambda: other_context(ctx, item.other))
    version = item.other_label_version or getattr(ctx, "label_version", None)
    if version is not None:
        other = scoped_context(other, "all", version)[0]
    for run_id in (item.base, item.variant):
        if run_id not in other.index:
            raise InputError(ctx.layout.report_spec, f"{where}: run {run_id!r} is not in release "
                                                     f"{item.other!r}")
    base, variant = other.vector(item.base, item.measure), other.vector(item.variant, item.measure)
    if base is None or variant is None:
        raise InputError(ctx.layout.report_spec, f"{where}: measure {item.measure.name!r} is "
                                                 f"not available for both runs on {item.other!r}")
    diff = _paired(base, variant)
    stats = bootstrap_distribution(other.resampler(base, spec.seed), diff, spec.replicates)
    delta = 100.0 * math.fsum(diff.values()) / len(diff)
    lo, hi = 100.0 * percentile(stats, ALPHA), 100.0 * percentile(stats, 1 - ALPHA)
    fragile = row_decision(stats).fragile  # the same deciding-bound rule as this side's
    return {"other_delta": delta, "other_lo": lo, "other_hi": hi, "_fragile": fragile,
            "other_verdict": float(verdict(item.other_direction, delta, lo, hi))}


def build(spec: FindingsSpec, ctx: ReleaseContext) -> Table:
    """Builder for kind ``findings``; see the module docstring."""
    columns = (Column("base", "Base", 1), Column("variant", "Variant", 1), Column("delta", "Delta", 1),
               Column("ci_lo", "95% CI low", 1), Column("ci_hi", "95% CI high", 1),
               Column("margin", "Equivalence margin", 1), Column("lo90", "90% CI low", 1),
               Column("hi90", "90% CI high", 1), Column("se", "MC SE of the deciding bound", 2),
               Column("fragile", "Fragile", 0))
    if any(item.other is not None for item in spec.findings):
        columns += PATTERN_COLUMNS
    columns += (Column("verdict", "Verdict (1 / 0 / -1 / -2 / -3)", 0),)
    rows = []
    for number, item in enumerate(spec.findings, start=1):
        where = f"table {spec.id!r}, finding {number}"
        check_explanation(item, where, ctx.layout.report_spec)
        if (item.other is None) != (item.other_direction is None) or (
                item.other_label_version is not None and item.other is None):
            raise InputError(ctx.layout.report_spec, f"{where}: a pattern across releases needs "
                             "both 'other' and 'other_direction'")
        if item.other is not None and (item.direction == "0" or item.other_direction == "0"
                                       or item.dispersion_quartiles is not None):
            raise InputError(ctx.layout.report_spec, f"{where}: a pattern across releases "
                             "compares two signed directions ('+' or '-') of one paired contrast")
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
        if item.other is not None:
            side = _other_side(ctx, item, spec, where)
            if side.pop("_fragile"):
                cells["fragile"] = 1.0
            cells.update(side)
            cells["here_verdict"] = cells["verdict"]
            cells["verdict"] = float(pattern_verdict((int(cells["here_verdict"]),
                                                      int(cells["other_verdict"]))))
            label = (f"{item.statement} [{item.measure.name}: {item.base} -> {item.variant} on "
                     f"{item.other} and {ctx.name}, paper: {item.other_direction} on {item.other}, "
                     f"{item.direction} on {ctx.name}]")
        rows.append((item.id, label, cells))
    note = ("Percentage points; variant minus base; 95% family-clustered percentile bootstrap "
            f"({spec.replicates} replicates, seed {spec.seed}); no-effect findings: two one-sided "
            "tests, equivalence when the 90% interval lies inside (-margin, +margin). MC SE: Monte "
            "Carlo SE of the deciding bound (the 95% bound nearest 0; on rows with a margin the 90% "
            "bound nearest -margin or +margin); Fragile = 1 when that bound lies within two MC SE "
            "of where the verdict would change. Verdict: "
            + "; ".join(f"{code} = {text}" for code, text in VERDICT_TEXT.items())
            + "; rows with a margin (no-effect findings): "
            + "; ".join(f"{code} = {text}" for code, text in NULL_VERDICT_TEXT.items()) + "."
            + (" Patterns across releases: each side's verdict by the same rule; the row's "
               "verdict is the weaker side's." if any(i.other for i in spec.findings) else ""))
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


def findings_bullets(table: Table, explanations: Optional[Mapping[str, str]] = None,
                     patterns: Optional[Mapping[str, Tuple[str, str]]] = None
                     ) -> List[Tuple[str, str]]:
    """Plain-language sentences for the report, one per finding, from a findings table (or an
    ``observations`` table, whose regression rows carry ``beta`` cells in log-odds per SD), as
    ``(verdict words, the rest of the sentence)``: the report shows the verdict in bold, both
    verbatim, and its summary line counts these words (:func:`summary_line`).
    ``explanations``: the rendered explanation of a row, appended after its sentence;
    ``patterns``: (other release, this release) of each pattern row, whose sentence gives both
    sides."""
    out = []
    explanations = explanations or {}
    patterns = patterns or {}
    for row_key, label, cells in table.rows:
        code = int(cells["verdict"])
        words = verdict_text(cells)
        prefix, unit, places = ("beta_", "log-odds per SD", 2) if "beta" in cells else ("", "points", 1)
        value = cells.get("beta" if prefix else "delta")
        lo, hi = cells.get(prefix + "lo" if prefix else "ci_lo"), cells.get(prefix + "hi" if prefix else "ci_hi")
        margin = cells.get(prefix + "margin")
        if value is None:
            line = f": {label}"
        elif margin is not None:
            line = (f": {label}: {'beta' if prefix else 'delta'} "
                    f"{_signed(value, places)} {unit}, 90% interval "
                    f"[{_signed(cells[prefix + 'lo90'], places)}, "
                    f"{_signed(cells[prefix + 'hi90'], places)}] against a margin of "
                    f"+/-{format_fixed(margin, places)}")
        elif cells.get("other_verdict") is not None:
            other, here = patterns.get(row_key, ("the other release", "this release"))
            line = (f": {label}: {other} delta {_signed(cells['other_delta'])} points "
                    f"[{_signed(cells['other_lo'])}, {_signed(cells['other_hi'])}] "
                    f"({VERDICT_TEXT[int(cells['other_verdict'])]}); {here} delta "
                    f"{_signed(value)} points [{_signed(lo)}, {_signed(hi)}] "
                    f"({VERDICT_TEXT[int(cells['here_verdict'])]})")
        else:
            line = (f": {label}: {'beta' if prefix else 'delta'} "
                    f"{_signed(value, places)} {unit} [{_signed(lo, places)}, {_signed(hi, places)}]")
        if cells.get("fragile"):
            line += " (fragile: within two Monte Carlo SE of flipping)"
        if row_key in explanations:
            line += f". {explanations[row_key]}"
        out.append((words, line))
    return out


def findings_sentences(table: Table, explanations: Optional[Mapping[str, str]] = None,
                       patterns: Optional[Mapping[str, Tuple[str, str]]] = None
                       ) -> List[Tuple[str, str]]:
    """The (verdict words, rest) pairs of :func:`findings_bullets`."""
    return findings_bullets(table, explanations, patterns)


def summary_line(bullets: List[Tuple[str, str]]) -> str:
    """"N replicates; N same direction, not significant; ...", counted from the printed
    bullets' verdict words: every directional verdict (zeros too), then the equivalence
    verdicts that occur."""
    counts = {text: 0 for text in VERDICT_TEXT.values()}
    for words, _ in bullets:
        counts[words] = counts.get(words, 0) + 1
    order = list(VERDICT_TEXT.values()) + [t for t in NULL_VERDICT_TEXT.values()
                                           if t not in VERDICT_TEXT.values()]
    return "; ".join(f"{counts[t]} {t}" for t in order if t in counts
                     and (counts[t] or t in VERDICT_TEXT.values())) + "."


def _signed(value: float, places: int = 1) -> str:
    text = format_fixed(value, places)
    return text if text.startswith("-") else "+" + text


#: How a "no effect" (direction "0") finding's verdict reads: it is judged by equivalence.
NULL_VERDICT_TEXT = {1: "equivalent", 0: "inconclusive (equivalence not shown)",
                     -2: "an effect beyond the margin"}


def is_equivalence_row(cells: Mapping[str, Optional[float]]) -> bool:
    """A "no effect" row, judged by equivalence: it has a margin (``margin``, or ``beta_margin``
    for a regression coefficient of the observations kind)."""
    return cells.get("margin") is not None or cells.get("beta_margin") is not None


def verdict_text(cells: Mapping[str, Optional[float]]) -> str:
    """The verdict of one findings or observations row in words: a row with an equivalence
    margin (``margin``, or ``beta_margin`` for a regression coefficient) is a "no effect"
    finding, judged by equivalence."""
    code = int(cells["verdict"])
    return NULL_VERDICT_TEXT[code] if is_equivalence_row(cells) else VERDICT_TEXT[code]


KIND = SpecKind("findings", FindingsSpec, build,
                 "The paper's directional findings re-tested: paired difference, family-bootstrap "
                 "interval and a verdict code per finding.")
