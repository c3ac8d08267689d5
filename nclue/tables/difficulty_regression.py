"""Kind ``difficulty_regression``: per system, logistic regression of query success on
standardized difficulty covariates, with family-bootstrap intervals (n-Clue paper, supplement
sec. 9, Table S5b "Difficulty covariates"; the paper: beta_n = +.03 (p = .27), rarity -.41,
pool size +.34).

Per run: the outcome is the per-query 0/1 vector of ``measure`` (n-Clue Score@k by default)
over the queries with a gold; the covariates are :mod:`nclue.difficulty`'s, each standardized
(z-scores over those queries), so a coefficient is the change in log-odds per standard
deviation. Intervals: percentile bootstrap over exact-gold-set families (each replicate refits
the model with every query weighted by its family's draw count, from the full-sample
estimate); the MC column is the largest Monte Carlo SE of the eight bounds
(:mod:`nclue.inference.montecarlo`), and Fragile counts the coefficients whose "interval
excludes zero" could flip within two SE.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..difficulty import COVARIATE_LABELS, COVARIATES, query_difficulty
from ..errors import InputError, NclueError
from ..inference.logistic import fit_logistic, standardize
from ..inference.montecarlo import interval_fragile, quantile_se
from ..inference.resampling import percentile
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


#: Refits start at the full-sample estimate, so Newton converges quadratically: a last step
#: below 1e-5 of a coefficient leaves an error of order 1e-10, far below the printed 2 decimals.
REFIT_TOLERANCE = 1e-5


@dataclass(frozen=True)
class DifficultyRegressionSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`difficulty_regression`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("run_list", "one row per run")
    measure: Measure = setting("measure", "0/1 per-query outcome regressed", "nclue_score")
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates (each refits the model)", 200)
    level: float = setting("level", "confidence level", inference.DEFAULT_LEVEL)


@dataclass(frozen=True)
class RegressionResult:
    coefficients: Dict[str, float]
    lo: Dict[str, float]
    hi: Dict[str, float]
    max_se: float
    fragile: int
    queries: int
    successes: int
    stats: Dict[str, List[float]]  # sorted replicate coefficients, by name


def design(ctx: ReleaseContext) -> Tuple[List[str], List[Tuple[float, ...]]]:
    """(qids, rows): the standardized design (intercept first) over queries with a gold."""
    covariates = query_difficulty(ctx.release)
    qids = sorted(covariates)
    columns = []
    for name in COVARIATES:
        z, _, _ = standardize([float(getattr(covariates[q], name)) for q in qids])
        columns.append(z)
    rows = [(1.0,) + tuple(col[i] for col in columns) for i in range(len(qids))]
    return qids, rows


def regress(qids: List[str], rows: List[Tuple[float, ...]], outcome: Dict[str, float],
            families: Dict[str, str], seed: int, replicates: int, level: float,
            resampler: Optional[inference.Resampler] = None) -> RegressionResult:
    """Fit once, then refit on every family-bootstrap replicate (module docstring); a given
    ``resampler`` (over ``qids`` with ``seed``) shares its draws across runs."""
    y = []
    for q in qids:
        value = outcome.get(q)
        if value not in (0, 1):
            raise NclueError(f"query {q!r}: outcome must be 0 or 1, got {value!r}")
        y.append(int(value))
    fit = fit_logistic(rows, y)
    if resampler is None:
        resampler = inference.Resampler(qids, families, seed=seed)
    position = {fam: i for i, fam in enumerate(resampler.family_ids)}
    family_index = [position[families[q]] for q in qids]
    draws: List[List[float]] = [[] for _ in fit.coefficients]
    for number, idx in enumerate(resampler.bootstrap_draws(replicates), start=1):
        counts = [0] * resampler.n_families
        for i in idx:
            counts[i] += 1
        weights = [counts[f] for f in family_index]
        try:
            refit = fit_logistic(rows, y, weights, start=fit.coefficients, tol=REFIT_TOLERANCE,
                                 likelihood=False)
        except NclueError as exc:
            raise NclueError(f"bootstrap replicate {number}: {exc}") from None
        for j, b in enumerate(refit.coefficients):
            draws[j].append(b)
    alpha = (1 - level) / 2
    names = ("intercept",) + COVARIATES
    coef, lo, hi, fragile, ses, all_stats = {}, {}, {}, 0, [], {}
    for j, name in enumerate(names):
        stats = sorted(draws[j])
        all_stats[name] = stats
        coef[name] = fit.coefficients[j]
        lo[name], hi[name] = percentile(stats, alpha), percentile(stats, 1 - alpha)
        se_lo, se_hi = quantile_se(stats, alpha), quantile_se(stats, 1 - alpha)
        if name != "intercept":
            ses += [se_lo, se_hi]
            fragile += int(interval_fragile(lo[name], hi[name], se_lo, se_hi))
    return RegressionResult(coef, lo, hi, max(ses), fragile, len(qids), sum(y), all_stats)


def build(spec: DifficultyRegressionSpec, ctx: ReleaseContext) -> Table:
    try:
        qids, rows = design(ctx)
    except NclueError as exc:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {exc}") from None
    columns = [Column("queries", "Queries", 0), Column("successes", "Successes", 0)]
    for name in COVARIATES:
        label = COVARIATE_LABELS[name]
        columns += [Column(f"{name}:beta", f"beta {label}", 2), Column(f"{name}:lo", "low", 2),
                    Column(f"{name}:hi", "high", 2)]
    columns += [Column("max_se", "largest MC SE of a bound", 3), Column("fragile", "Fragile", 0)]
    table_rows = []
    resampler = ctx.resampler(qids, spec.seed)
    for run_id in spec.runs:
        vector = _vector(ctx, spec.id, run_id, spec.measure)
        try:
            result = regress(qids, rows, vector, ctx.families, spec.seed, spec.replicates,
                             spec.level, resampler)
        except NclueError as exc:
            raise InputError(ctx.layout.report_spec,
                             f"table {spec.id!r}, run {run_id!r}: {exc}") from None
        cells: Dict[str, Optional[float]] = {"queries": float(result.queries),
                                             "successes": float(result.successes),
                                             "max_se": result.max_se,
                                             "fragile": float(result.fragile)}
        for name in COVARIATES:
            cells[f"{name}:beta"] = result.coefficients[name]
            cells[f"{name}:lo"] = result.lo[name]
            cells[f"{name}:hi"] = result.hi[name]
        table_rows.append((run_id, ctx.label(run_id), cells))
    pct = f"{100 * spec.level:g}"
    names = list(COVARIATES)
    corr = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            r = math.fsum(x[a + 1] * x[b + 1] for x in rows) / len(rows)
            corr.append(f"{COVARIATE_LABELS[names[a]]} / {COVARIATE_LABELS[names[b]]} {r:+.2f}")
    note = ("Correlations of the standardized covariates over these queries: " + "; ".join(corr)
            + f" (nearly collinear covariates share their effect, so their separate betas are "
            "unstable). " f"Logistic regression of per-query {spec.measure} (0/1) on z-scored covariates "
            "(rarity = mean ln(N/df) of the conditions; condition count; ln shortest-gold pages; "
            "ln judged pool), queries with a gold; IRLS maximum likelihood. beta = change in "
            f"log-odds per SD. {pct}% percentile intervals over exact-gold-set families "
            f"({spec.replicates} refits, seed {spec.seed}). Fragile = coefficients whose "
            "zero-exclusion could flip within two Monte Carlo SE.")
    return Table(spec.id, spec_title(spec, "Difficulty regression (Table S5b analogue)"),
                 tuple(columns), tuple(table_rows), note)


KIND = SpecKind("difficulty_regression", DifficultyRegressionSpec, build,
                 "Table S5b 'difficulty covariates' analogue: per run, logistic regression of "
                 "success on standardized rarity, condition count, shortest-gold length and "
                 "judged-pool size, with family-bootstrap intervals.")
