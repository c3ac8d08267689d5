"""Kind ``observations``: paper observations that are not a paired run contrast, re-tested.

The ``findings`` kind re-tests a paper direction as variant-minus-base over the same queries.
Several observations of the n-Clue paper (arXiv 2607.24165) compare query groups or model
coefficients instead; each row here names its test:

- ``density``: on the judged-pool-matched subset (kind ``density_matched``), ``run``'s
  ``measure`` on 3-condition minus matched 2-condition queries (supplement sec. 9: "three-
  condition items are easier for every tested system"); bootstrap over matched pairs;
- ``slice``: ``run``'s ``measure`` on slice B minus slice A (``groups``; default 3-condition
  minus 2-condition queries; any two task-factor slices of :mod:`nclue.slices`, Table 6 / S1j);
  family bootstrap of the group difference (:mod:`nclue.inference.groups`);
- ``coverage_by_n``: ``run``'s full page coverage on 3-condition minus 2-condition queries with
  a top-k gold (Table 8 prose: 21.2% -> 5.1%); family bootstrap of the group difference;
- ``length``: length-matched minus all-pair AUC on the same queries (sec. 5: ".606 -> .598");
- ``regression``: the coefficient of ``covariate`` in ``run``'s difficulty regression (kind
  ``difficulty_regression``; supplement Table S5b: "beta_n = +.03 (p = .27); rarity -.41, pool
  size +.34").

Verdicts are those of kind ``findings`` (1 replicates, 0 same direction n.s., -1 opposite n.s.,
-2 contradicted; a "0" direction needs a ``margin`` and is judged by equivalence of the 90%
interval; regression coefficients are on the log-odds scale and points otherwise). Rows without
a run have verdict -3 (not testable) with the reason.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..difficulty import COVARIATES
from ..errors import InputError, NclueError
from ..inference.groups import group_difference_distribution
from ..inference.matching import pairs_auc
from ..inference.montecarlo import bootstrap_distribution
from ..inference.resampling import _paired, percentile
from ..measures import Measure
from ..slices import query_slices
from .contrasts import _vector
from .density_matched import matching
from .difficulty_regression import design, regress
from .findings import (EQUIVALENCE_LEVEL, NULL_VERDICT_TEXT, VERDICT_TEXT, check_explanation,
                       row_decision, verdict)
from .statements import Statement
from .length_matched import query_pairs
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title

BETA_KEYS = {"delta": "beta", "ci_lo": "beta_lo", "ci_hi": "beta_hi", "lo90": "beta_lo90",
             "hi90": "beta_hi90", "se": "beta_se", "margin": "beta_margin"}
#: Lower tail of the 95% interval, computed as Resampler.bootstrap does (same last bits).
ALPHA = (1 - inference.DEFAULT_LEVEL) / 2
TESTS = ("untestable", "density", "slice", "coverage_by_n", "length", "regression")


@dataclass(frozen=True)
class Observation:
    id: str = setting("text", "row id")
    statement: str = setting("text", "the paper's observation, with its section")
    test: str = setting("text", f"one of {', '.join(TESTS)}")
    run: Optional[str] = setting("run", "the run tested (none for untestable)", None)
    measure: Measure = setting("measure", "per-query measure (density, slice)", "nclue_score")
    direction: str = setting("direction", "the paper's direction", "+")
    margin: Optional[float] = setting("points", "equivalence margin (direction \"0\")", None)
    ratio: float = setting("ratio", "matching ratio (density, length)", 1.1)
    covariate: Optional[str] = setting("text", f"regression covariate: {', '.join(COVARIATES)}",
                                       None)
    groups: Optional[Tuple[str, ...]] = setting(
        "names", "slice test: the two task-factor slices compared, A then B (nclue.slices names; "
                 "default n=2, n=3)", None)
    untestable: Optional[str] = setting("text", "why the release cannot test it", None)
    explanation: Optional[Tuple[Statement, ...]] = setting(
        Statement, "checked statements printed after the verdict (nclue.tables.statements)", None)
    written_for: Optional[Tuple[int, ...]] = setting(
        "verdicts", "the verdict codes the explanation was written for (required with one); "
        "another verdict withholds it and fails verification", None)


@dataclass(frozen=True)
class ObservationsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`observations`")
    title: Optional[str] = setting("text", "printed title", None)
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    regression_replicates: int = setting("count", "refits for regression rows (as the "
                                                  "difficulty table)", 200)
    findings: Tuple[Observation, ...] = setting(Observation, "rows")


def _from_stats(estimate: float, stats: List[float], scale: float) -> Dict[str, object]:
    lo, hi = percentile(stats, ALPHA), percentile(stats, 1 - ALPHA)
    alpha = (1 - EQUIVALENCE_LEVEL) / 2
    return {"delta": scale * estimate, "ci_lo": scale * lo, "ci_hi": scale * hi,
            "lo90": scale * percentile(stats, alpha), "hi90": scale * percentile(stats, 1 - alpha),
            "_stats": (stats, scale)}


def _resampler(cache: Dict, qids, families, seed: int) -> inference.Resampler:
    """One Resampler (and so one set of draws) per query set within a table."""
    key = ("resampler", frozenset(qids))
    if key not in cache:
        cache[key] = inference.Resampler(qids, families, seed=seed)
    return cache[key]


def _groups(ctx: ReleaseContext, qids, names: Optional[Tuple[str, ...]] = None
            ) -> Tuple[List[str], List[str]]:
    """The queries of ``qids`` in slice A and slice B (default: 2 and 3 conditions)."""
    if names is None:
        names = ("n=2", "n=3")
    if len(names) != 2:
        raise NclueError("a slice test compares exactly two slices")
    slices = query_slices(ctx.release)
    for name in names:
        if name not in slices:
            raise NclueError(f"slice {name!r} is empty or unknown (non-empty: {', '.join(slices)})")
    a = sorted(q for q in qids if q in set(slices[names[0]]))
    b = sorted(q for q in qids if q in set(slices[names[1]]))
    return a, b


def _test(item: Observation, spec: ObservationsSpec, ctx: ReleaseContext,
          fits: Dict[str, object]) -> Dict[str, float]:
    if item.test == "density":
        vector = _vector(ctx, spec.id, item.run, item.measure)
        key = ("density", item.ratio)
        if key not in fits:
            fits[key] = matching(ctx, item.ratio)
        pairs = fits[key]
        base = {t: vector[pairs[t]] for t in pairs}
        variant = {t: vector[t] for t in pairs}
        resampler = _resampler(fits, base.keys(), {t: t for t in base}, spec.seed)
        diff = _paired(base, variant)
        stats = bootstrap_distribution(resampler, diff, spec.replicates)
        cells = _from_stats(math.fsum(diff.values()) / len(diff), stats, 100.0)
        cells.update({"base": 100 * math.fsum(base.values()) / len(base),
                      "variant": 100 * math.fsum(variant.values()) / len(variant)})
        return cells
    if item.test in ("slice", "coverage_by_n"):
        if item.test == "slice":
            vector = _vector(ctx, spec.id, item.run, item.measure)
        else:
            vector = ctx.vector(item.run, ctx.registry.measure("full_coverage", ctx.k))
            if vector is None:
                raise NclueError(f"run {item.run!r} has no page scores")
        two, three = _groups(ctx, vector, item.groups if item.test == "slice" else None)
        resampler = _resampler(fits, vector.keys(), ctx.families, spec.seed)
        stats = group_difference_distribution(resampler, vector, two, three, spec.replicates)
        a = math.fsum(vector[q] for q in two) / len(two)
        b = math.fsum(vector[q] for q in three) / len(three)
        cells = _from_stats(b - a, stats, 100.0)
        cells.update({"base": 100 * a, "variant": 100 * b})
        return cells
    if item.test == "length":
        pairs = query_pairs(ctx, item.ratio)
        run = ctx.run(item.run)
        every = ctx.vector(item.run, ctx.registry.measure("auc"))
        qs = sorted(q for q, p in pairs.items() if p)
        same = {q: every[q] for q in qs}
        matched = {}
        for q in qs:
            ranking = run.rankings.get(q)
            matched[q] = pairs_auc(pairs[q], ranking.docs if ranking else ())
        resampler = _resampler(fits, qs, ctx.families, spec.seed)
        diff = _paired(same, matched)
        stats = bootstrap_distribution(resampler, diff, spec.replicates)
        cells = _from_stats(math.fsum(diff.values()) / len(diff), stats, 100.0)
        cells.update({"base": 100 * math.fsum(same.values()) / len(same),
                      "variant": 100 * math.fsum(matched.values()) / len(matched)})
        return cells
    if item.test == "regression":
        if item.covariate not in COVARIATES:
            raise NclueError(f"covariate must be one of {', '.join(COVARIATES)}")
        key = ("regression", item.run, item.measure.name)
        if key not in fits:  # several covariates of one run share one fit
            qids, rows = design(ctx)
            vector = _vector(ctx, spec.id, item.run, item.measure)
            fits[key] = regress(qids, rows, vector, ctx.families, spec.seed,
                                spec.regression_replicates, inference.DEFAULT_LEVEL,
                                _resampler(fits, qids, ctx.families, spec.seed))
        result = fits[key]
        c = item.covariate
        return _from_stats(result.coefficients[c], result.stats[c], 1.0)
    raise NclueError(f"unknown test {item.test!r} (known: {', '.join(TESTS)})")


def build(spec: ObservationsSpec, ctx: ReleaseContext) -> Table:
    rows = []
    fits: Dict[str, object] = {}
    for number, item in enumerate(spec.findings, start=1):
        where = f"table {spec.id!r}, observation {item.id!r}"
        check_explanation(item, where, ctx.layout.report_spec)
        if item.test not in TESTS:
            raise InputError(ctx.layout.report_spec, f"{where}: unknown test {item.test!r}")
        if item.test == "untestable":
            if item.untestable is None or item.run is not None:
                raise InputError(ctx.layout.report_spec, f"{where}: an untestable row gives a "
                                                         "reason and no run")
            rows.append((item.id, f"{item.statement} [not testable: {item.untestable}]",
                         {"verdict": -3.0}))
            continue
        if item.run is None:
            raise InputError(ctx.layout.report_spec, f"{where}: needs a run")
        if item.direction == "0" and item.margin is None:
            raise InputError(ctx.layout.report_spec, f"{where}: a no-effect row needs a margin")
        try:
            cells = _test(item, spec, ctx, fits)
        except NclueError as exc:
            raise InputError(ctx.layout.report_spec, f"{where}: {exc}") from None
        stats, scale = cells.pop("_stats")
        if item.direction == "0":  # the 90% bound nearest -margin or +margin decides
            cells["margin"] = item.margin
        decision = row_decision(stats, None if item.direction != "0" else item.margin / scale)
        cells.update({"se": scale * decision.se, "fragile": 1.0 if decision.fragile else 0.0})
        cells["verdict"] = float(verdict(item.direction, cells["delta"], cells["ci_lo"],
                                         cells["ci_hi"], item.margin, cells.get("lo90"),
                                         cells.get("hi90")))
        if item.test == "regression":  # log-odds, printed to 2 decimals in their own columns
            cells = {BETA_KEYS.get(key, key): value for key, value in cells.items()}
        if item.test == "regression":
            what = f"beta {item.covariate}"
        elif item.test == "slice":
            a, b = item.groups or ("n=2", "n=3")
            what = f"slice {a} -> {b}, {item.measure.name}"
        elif item.test == "density":
            what = f"density, {item.measure.name}"
        else:
            what = item.test
        rows.append((item.id, f"{item.statement} [{what}: {item.run}, paper: {item.direction}]",
                     cells))
    columns = (Column("base", "Group A / all", 1), Column("variant", "Group B / matched", 1),
               Column("delta", "Delta", 1), Column("ci_lo", "95% CI low", 1),
               Column("ci_hi", "95% CI high", 1), Column("margin", "Equivalence margin", 1),
               Column("lo90", "90% CI low", 1), Column("hi90", "90% CI high", 1),
               Column("se", "MC SE of the deciding bound", 2),
               Column("beta", "beta (log-odds per SD)", 2), Column("beta_lo", "beta 95% low", 2),
               Column("beta_hi", "beta 95% high", 2), Column("beta_margin", "beta margin", 2),
               Column("beta_lo90", "beta 90% low", 2), Column("beta_hi90", "beta 90% high", 2),
               Column("beta_se", "beta MC SE of the deciding bound", 3),
               Column("fragile", "Fragile", 0), Column("verdict", "Verdict (1 / 0 / -1 / -2 / -3)", 0))
    note = ("Points (density, coverage_by_n: B = 3-condition, A = 2-condition queries; slice: B and "
            "A as named in the row, default the same; "
            "length: matched-pair minus all-pair AUC x 100) or log-odds per SD (regression). "
            f"Family bootstrap ({spec.replicates} replicates; regression {spec.regression_replicates} "
            f"refits; seed {spec.seed}); density: bootstrap over matched pairs. MC SE: Monte Carlo "
            "SE of the deciding bound (the 95% bound nearest 0; on rows with a margin the 90% bound "
            "nearest -margin or +margin); Fragile = 1 when that bound lies within two MC SE of where "
            "the verdict would change. Verdict: "
            + "; ".join(f"{code} = {text}" for code, text in VERDICT_TEXT.items())
            + "; rows with a margin (no-effect findings): "
            + "; ".join(f"{code} = {text}" for code, text in NULL_VERDICT_TEXT.items()) + ".")
    return Table(spec.id, spec_title(spec, "Further paper observations re-tested"), columns,
                 tuple(rows), note)


KIND = SpecKind("observations", ObservationsSpec, build,
                 "Paper observations that compare query groups, matched subsets or regression "
                 "coefficients (not one paired run contrast), with findings-style verdicts.")
