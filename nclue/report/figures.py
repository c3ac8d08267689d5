"""Figure kinds of ``report.json``: the n-Clue paper's Figure 2 analogues, as SVG.

* ``landscape`` (Figure 2(a)): Gold Hit@k against n-Clue Score@k, one point per run; ``"fair"``
  selects every run that is neither a control nor privileged (the paper's "fair method rows").
* ``delta_plane`` (Figure 2(b), sec. 3.4): each paired effect at (delta Gold Hit@k, delta n-Clue
  Score@k) with its 95% family-clustered bootstrap interval on both axes; the figure's
  description prints each interval with its Monte Carlo SE (the larger of its two bounds').

Drawing is :mod:`nclue.figures`; these builders only pick the runs and compute the points. The
Multi³IR Figure 4 analogue, ``perspective_hits``, is a module of its own
(:mod:`nclue.report.perspective_hits`).
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference.montecarlo import bootstrap_distribution, bounds_error
from ..inference.resampling import _paired
from ..figures import LandscapePoint, PairedEffect, delta_plane_svg, landscape_svg
from ..tables.spec import SpecKind, setting
from . import perspective_hits


@dataclass(frozen=True)
class LandscapeSpec:
    id: str = setting("text", "figure id (file `figures/<id>.svg`)")
    kind: str = setting("text", "`landscape`")
    title: Optional[str] = setting("text", "title drawn in the figure", None)
    caption: Optional[str] = setting("text", "caption in the report (default: the id)", None)
    runs: Tuple[str, ...] = setting("runs_or_fair", "points", "fair")
    labelled: Optional[Tuple[str, ...]] = setting("run_list", "runs whose points are labelled", None)


@dataclass(frozen=True)
class Effect:
    label: str = setting("text", "point label")
    block: str = setting("text", "legend group", "contrast")
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")


@dataclass(frozen=True)
class DeltaPlaneSpec:
    id: str = setting("text", "figure id (file `figures/<id>.svg`)")
    kind: str = setting("text", "`delta_plane`")
    title: Optional[str] = setting("text", "title drawn in the figure", None)
    caption: Optional[str] = setting("text", "caption in the report (default: the id)", None)
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    effects: Tuple[Effect, ...] = setting(Effect, "the paired effects plotted")


def landscape_figure(spec: LandscapeSpec, ctx: ReleaseContext) -> str:
    """Figure 2(a) analogue: Gold Hit@k against n-Clue Score@k, one point per run."""
    hit, score = ctx.registry.measure("gold_hit", ctx.k), ctx.registry.measure("nclue_score", ctx.k)
    points = []
    for run_id in spec.runs:
        scores = ctx.scores(run_id)
        points.append(LandscapePoint(run_id, ctx.entry(run_id).family, scores[hit.name],
                                     scores[score.name]))
    labelled = [r for r in (spec.labelled or ()) if r in spec.runs]
    h, s = ctx.registry.header(hit), ctx.registry.header(score)
    return landscape_svg(points, title=spec.title or f"{h} vs {s}", labelled=labelled,
                         figure_id=spec.id, x_label=f"{h} (points)", y_label=f"{s} (points)")


def delta_plane_figure(spec: DeltaPlaneSpec, ctx: ReleaseContext) -> str:
    """Figure 2(b) analogue: paired effects with family-bootstrap intervals on both axes."""
    hit, score = ctx.registry.measure("gold_hit", ctx.k), ctx.registry.measure("nclue_score", ctx.k)
    effects = []
    for item in spec.effects:
        intervals = []
        for measure in (hit, score):
            base = ctx.vectors(item.base)[measure.name]
            variant = ctx.vectors(item.variant)[measure.name]
            resampler = ctx.resampler(base, spec.seed)
            iv = resampler.paired_bootstrap(base, variant, replicates=spec.replicates)
            error = bounds_error(bootstrap_distribution(resampler, _paired(base, variant),
                                                        spec.replicates), inference.DEFAULT_LEVEL)
            intervals.append((100.0 * iv.estimate, (100.0 * iv.lo, 100.0 * iv.hi),
                              100.0 * max(error.se_lo, error.se_hi)))
        (dx, x_iv, x_se), (dy, y_iv, y_se) = intervals
        effects.append(PairedEffect(item.label, item.block, dx, dy, x_iv, y_iv, x_se, y_se))
    h, s = ctx.registry.header(hit), ctx.registry.header(score)
    return delta_plane_svg(effects, title=spec.title or f"Paired effects: delta {h} vs delta {s}",
                           figure_id=spec.id)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def landscape_selection(spec: LandscapeSpec, ctx: ReleaseContext) -> str:
    """The caption's account of Figure 2(a)'s points, generated from the run index: how many
    runs it shows and how they were selected, which of them are controls by their recorded
    operation (``"control: ..."``), and what it leaves out."""
    shown = list(spec.runs)
    fair = set(ctx.fair_runs())
    if set(shown) == fair:
        how = ("every run of all test queries whose runs/index.json entry is neither privileged nor of "
               "the control family")
    else:
        how = "the runs the report lists"
    operations: dict = {}
    for run_id in shown:
        operation = str(ctx.entry(run_id).info.get("operation", ""))
        if operation.lower().startswith("control:"):
            operations.setdefault(operation[len("control:"):].strip(), []).append(run_id)
    included = [f"{_count(len(runs), 'run')} whose recorded operation is a control (\"{operation}\")"
                for operation, runs in sorted(operations.items())]
    words = f" for {_count(len(shown), 'run')} ({how}" + (", including " + " and ".join(included)
                                                          if included else "") + ")"
    complete = set(ctx.complete_runs())
    left = [r for r in ctx.index if r not in set(shown)]
    controls = [r for r in left if r in complete and ctx.index[r].is_control]
    partial = [r for r in left if r not in complete]
    other = [r for r in left if r in complete and not ctx.index[r].is_control]
    parts = []
    if controls:
        parts.append(_count(len(controls), "control or privileged run"))
    if partial:
        parts.append(_count(len(partial), "run") + " scored on a subset of the test queries")
    if other:
        parts.append(_count(len(other), "other run"))
    if parts:
        words += "; not shown: " + ", ".join(parts)
    return words


#: Figure kinds whose caption ends with facts generated from the release.
FIGURE_DESCRIPTIONS = {"landscape": landscape_selection}

FIGURE_KINDS = {kind.name: kind for kind in (
    SpecKind("landscape", LandscapeSpec, landscape_figure,
              "Figure 2(a) analogue: Gold Hit@k against n-Clue Score@k, one point per run."),
    SpecKind("delta_plane", DeltaPlaneSpec, delta_plane_figure,
              "Figure 2(b) analogue: paired effects with family-bootstrap intervals on both axes."),
    perspective_hits.KIND,
)}
