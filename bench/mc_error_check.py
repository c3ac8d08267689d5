"""Seed-spread check of the Monte Carlo SE of bootstrap bounds (issue 27).

Every interval of the reports is a percentile bound of B replicate statistics drawn from one
seed, and every report prints a Monte Carlo standard error for it
(:func:`nclue.inference.montecarlo.quantile_se`). This script checks that estimator against the
real spread of the same bound over independent seeds: for each bound of a stated sample it
redraws the replicates under seeds 1..S (seed 11, the shipped one, among them), takes the
sample SD of the bound over the S seeds (the empirical MC SE), and compares it with several
estimators computed from one seed's sorted replicates:

* ``normal_scale`` (the one the reports use; the script checks that
  :func:`nclue.inference.montecarlo.quantile_se` returns it on every bound and seed): the
  asymptotic SE of a sample quantile,
  ``sqrt(q (1 - q) / B) / f(x_q)``, with the density at the bound estimated from a normal of the
  replicates' SD: ``f(x_q) = phi(z_q) / s``;
* ``tail_scale``: the same with ``s = (median - x_q) / |z_q|`` (a normal fitted to the median
  and the bound, for skewed replicates);
* ``binomial``: the previous estimator, half the distance between the type-7 quantiles at
  ``q -/+ sqrt(q (1 - q) / B)`` (two order statistics about 10 apart at B = 1,000, q = .025);
* ``maritz_jarrett``: the Maritz-Jarrett SE (Beta-weighted second moment of the order statistics
  around the ``floor(qB + .5)``-th; Wilcox 2012, sec. 3.5.3);
* ``batch_means``: sectioning: the SD of the quantile over 10 consecutive sub-streams of B/10
  replicates, divided by sqrt(10).

The sample (data/v1, the shipped report's settings: B = 1,000, seed 11 among the seeds):
percentile 95% bounds of paired family-bootstrap contrasts (findings rows, 0/1 and graded
measures), one system's family-bootstrap interval (ranked matrix), one quartile-gap interval
(Multi3IR Table 7 finding), the 90% bounds of the TOST rows (random-vector controls), and the
crossed query/document intervals over gold and judged memberships (Table S1i); plus one contrast
and one TOST control at B = 200 (the regression tables' refit count). 34 bounds. Each bound gives
the ratio estimator / empirical SD at seed 11 (what the report prints), the mean of the
estimator over the seeds divided by the empirical SD, and the 5th-95th percentile of the
per-seed ratios. With S seeds the empirical SD itself has a relative SE of about
1 / sqrt(2 (S - 1)) (7% at S = 100).

Job: ``python bench/mc_error_check.py --seeds 100 --out bench/results/mc_error_v1.json
--table bench/results/mc_error_v1.md``;
standard library only, one process; 11-18 minutes on the shared 2-core machine at 100 seeds
(the judged-membership crossed weights dominate). It is not run by the tests or CI.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from nclue import inference  # noqa: E402
from nclue.context import ReleaseContext  # noqa: E402
from nclue.coverage import load_dispersions, quartiles  # noqa: E402
from nclue.inference import montecarlo  # noqa: E402
from nclue.inference.resampling import Resampler, _paired, percentile  # noqa: E402
from nclue.inference.sensitivity import crossed_weights  # noqa: E402

NORMAL = statistics.NormalDist()
BATCHES = 10

#: (name, kind, base, variant, measure, level[, replicates]); kind: paired, single, quartile_gap,
#: crossed_gold, crossed_judged. The level is that of the printed interval (0.90: TOST rows);
#: replicates default to --replicates (the report's 1,000); two bounds use 200 (the regression
#: tables' refits, too costly to redraw 100 times themselves).
SAMPLE = (
    ("fusion_adds_to_lexical", "paired", "bm25_and.clean", "rrf_bm25_and+minilm_joint_top3.clean",
     "nclue_score@10", 0.95),
    ("dense_decomposition", "paired", "minilm_joint_best.clean", "minilm_cond_hmean_best.clean",
     "nclue_score@10", 0.95),
    ("spin_coverage", "paired", "minilm_joint_best.natural", "spin_m5_l3.natural", "hc@10", 0.95),
    ("page_top3_score", "paired", "bm25_page_max.clean", "bm25_page_top3.clean",
     "nclue_score@10", 0.95),
    ("reranking_hurts_gold_ndcg", "paired", "bm25_or.clean", "minilm_pool_best_bm25_or.clean",
     "gold_ndcg@10", 0.95),
    ("and_auc_over_or", "paired", "bm25_or.clean", "bm25_and.clean", "auc", 0.95),
    ("matrix_bm25_and", "single", None, "bm25_and.clean", "nclue_score@10", 0.95),
    ("m3_dispersed_gains", "quartile_gap", "minilm_joint_best.natural", "spin_m5_l3.natural",
     "hc@10", 0.95),
    ("tost_random_m1", "paired", "minilm_joint_best.natural", "spin_random_m1_l3.natural",
     "hc@10", 0.90),
    ("tost_random_m5", "paired", "minilm_joint_best.natural", "spin_random_m5_l3.natural",
     "hc@10", 0.90),
    ("tost_random_m7", "paired", "minilm_joint_best.natural", "spin_random_m7_l3.natural",
     "hc@10", 0.90),
    ("crossed_gold_dense", "crossed_gold", "minilm_joint_best.clean",
     "minilm_cond_hmean_best.clean", "nclue_score@10", 0.95),
    ("crossed_gold_fusion", "crossed_gold", "bm25_and.clean",
     "rrf_bm25_and+splade_cond_hmean_best.clean", "nclue_score@10", 0.95),
    ("crossed_judged_dense", "crossed_judged", "minilm_joint_best.clean",
     "minilm_cond_hmean_best.clean", "nclue_score@10", 0.95),
    ("crossed_judged_fusion", "crossed_judged", "bm25_and.clean",
     "rrf_bm25_and+splade_cond_hmean_best.clean", "nclue_score@10", 0.95),
    ("fusion_adds_to_lexical_b200", "paired", "bm25_and.clean",
     "rrf_bm25_and+minilm_joint_top3.clean", "nclue_score@10", 0.95, 200),
    ("tost_random_m5_b200", "paired", "minilm_joint_best.natural", "spin_random_m5_l3.natural",
     "hc@10", 0.90, 200),
)


# ------------------------------------------------------------------------------------------
# Candidate estimators (sorted replicates, lower-tail quantile q)
# ------------------------------------------------------------------------------------------

def se_binomial(stats, q):
    b = len(stats)
    half = math.sqrt(q * (1 - q) / b)
    return (percentile(stats, min(1.0, q + half)) - percentile(stats, max(0.0, q - half))) / 2


def _log_binom_pmf(n, k, x):
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(x) + (n - k) * math.log1p(-x))


def _beta_cdf_int(x, a, b):
    """I_x(a, b) for integer a, b >= 1: P(Binomial(a + b - 1, x) >= a)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    n = a + b - 1
    return math.fsum(math.exp(_log_binom_pmf(n, k, x)) for k in range(a, n + 1))


def se_maritz_jarrett(stats, q):
    n = len(stats)
    m = int(math.floor(q * n + 0.5))
    a, b = m - 1, n - m
    # weights are negligible far from m: a window of +/- 12 binomial SDs
    width = int(12 * math.sqrt(n * q * (1 - q))) + 5
    lo_i, hi_i = max(1, m - width), min(n, m + width)
    prev = _beta_cdf_int((lo_i - 1) / n, a, b)
    c1 = c2 = 0.0
    for i in range(lo_i, hi_i + 1):
        cur = _beta_cdf_int(i / n, a, b)
        w = cur - prev
        prev = cur
        x = stats[i - 1]
        c1 += w * x
        c2 += w * x * x
    return math.sqrt(max(0.0, c2 - c1 * c1))


def se_normal_scale(stats, q):
    b = len(stats)
    s = statistics.stdev(stats)
    z = NORMAL.inv_cdf(q)
    return s * math.sqrt(q * (1 - q) / b) / NORMAL.pdf(z)


def se_tail_scale(stats, q):
    b = len(stats)
    z = NORMAL.inv_cdf(q)
    s = (percentile(stats, 0.5) - percentile(stats, q)) / -z
    return s * math.sqrt(q * (1 - q) / b) / NORMAL.pdf(z)


def se_batch_means(unsorted, q):
    size = len(unsorted) // BATCHES
    values = [percentile(sorted(unsorted[i * size:(i + 1) * size]), q) for i in range(BATCHES)]
    return statistics.stdev(values) / math.sqrt(BATCHES)


ESTIMATORS = ("normal_scale", "tail_scale", "binomial", "maritz_jarrett", "batch_means")


def estimates(unsorted, q):
    stats = sorted(unsorted)
    return {"normal_scale": se_normal_scale(stats, q), "tail_scale": se_tail_scale(stats, q),
            "binomial": se_binomial(stats, q),
            "maritz_jarrett": se_maritz_jarrett(stats, q),
            "batch_means": se_batch_means(unsorted, q)}


# ------------------------------------------------------------------------------------------
# Replicate distributions in stream order (the reports' draws, not sorted)
# ------------------------------------------------------------------------------------------

def paired_stats(resampler, diff, replicates):
    sums = resampler.family_sums(diff)
    add = sum if all(isinstance(v, int) for v in sums) else math.fsum
    return [add(map(sums.__getitem__, idx)) / den
            for idx, den in zip(resampler.bootstrap_draws(replicates),
                                resampler._bootstrap_sizes(replicates))]


def quartile_stats(resampler, diff, dispersions, replicates):
    groups = quartiles(dispersions)
    high = {q for q, g in groups.items() if g == 3}
    low = {q for q, g in groups.items() if g == 0}
    sa = [math.fsum(diff[q] for q in fam if q in low) for fam in resampler.members]
    sb = [math.fsum(diff[q] for q in fam if q in high) for fam in resampler.members]
    na = [sum(1 for q in fam if q in low) for fam in resampler.members]
    nb = [sum(1 for q in fam if q in high) for fam in resampler.members]
    return [math.fsum(map(sb.__getitem__, idx)) / sum(map(nb.__getitem__, idx))
            - math.fsum(map(sa.__getitem__, idx)) / sum(map(na.__getitem__, idx))
            for idx in resampler.bootstrap_draws(replicates)]


def crossed_stats(weights, diff):
    values = [diff[q] for q in weights.qids]
    return [math.fsum(w * values[i] for i, w in zip(idx, ws)) / math.fsum(ws)
            for idx, ws in weights.replicates]


def markdown(result):
    """The check's table: per bound, the empirical SD and each estimator's ratio to it."""
    lines = [f"# Monte Carlo SE of bootstrap bounds against {result['seeds']} seeds "
             f"({result['release']}, B = {result['replicates']} unless the B column says "
             "otherwise)", "",
             "Written by `bench/mc_error_check.py` (its docstring states the sample and the job). "
             "Empirical SD: the sample SD of the bound over the seeds (points; relative SE about "
             f"{100 * result['empirical_sd_relative_se']:.0f}%). Ratio: estimator / empirical SD, "
             "at seed 11 (what the report prints) / mean of the estimator over the seeds. "
             "The reports use `normal_scale` (0 on a bound that sits on an atom of the replicates: "
             f"{sum(r['seeds_on_an_atom'] for r in result['bounds'])} bound-seeds here).", "",
             "| bound | level | B | empirical SD | " + " | ".join(ESTIMATORS) + " |",
             "| --- | --- | --- | --- | " + " | ".join("---" for _ in ESTIMATORS) + " |"]
    for r in result["bounds"]:
        lines.append(f"| {r['bound']} | {r['level']:g} | {r['replicates']} | "
                     f"{r['empirical_sd_points']:.4f} | "
                     + " | ".join(f"{r[e]['ratio_at_seed_11']:.2f} / {r[e]['ratio_of_mean']:.2f}"
                                  for e in ESTIMATORS) + " |")
    lines += ["", "| estimator | ratio at seed 11 (min - max) | inside [0.8, 1.25] at seed 11 | "
                  "ratio of mean (min - max) | per-seed ratios, 5th - 95th percentile |",
              "| --- | --- | --- | --- | --- |"]
    for e in ESTIMATORS:
        s = result["summary"][e]
        lines.append(f"| {e} | {s['ratio_at_seed_11_min']:.2f} - {s['ratio_at_seed_11_max']:.2f} | "
                     f"{s['inside_at_seed_11']} / {s['bounds']} | "
                     f"{s['ratio_of_mean_min']:.2f} - {s['ratio_of_mean_max']:.2f} | "
                     f"{s['per_seed_p05_min']:.2f} - {s['per_seed_p95_max']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--release", default="data/v1")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--only", action="append", default=None, help="sample item names")
    parser.add_argument("--out", default=None, help="JSON results")
    parser.add_argument("--table", default=None, help="Markdown table of the results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    ctx = ReleaseContext(args.release)
    sample = [s for s in SAMPLE if args.only is None or s[0] in args.only]
    inputs = {}
    for name, kind, base, variant, measure, level, *_ in sample:
        m = ctx.registry.parse(measure)
        v = ctx.vector(variant, m)
        diff = dict(v) if base is None else _paired(ctx.vector(base, m), v)
        inputs[name] = diff
    dispersions = load_dispersions(ctx.layout.folder / "facts" / "dispersion_minilm.jsonl")
    gold = inference.gold_memberships(ctx.release)
    judged = inference.judged_memberships(ctx.release)
    print(f"loaded in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    seeds = list(range(1, args.seeds + 1))
    if 11 not in seeds:
        seeds.append(11)
    bounds = {}  # (name, side) -> {"q":, "values": [], "est": {estimator: []}}
    for seed in seeds:
        t0 = time.perf_counter()
        resamplers, crossed = {}, {}
        for name, kind, base, variant, measure, level, *more in sample:
            replicates = more[0] if more else args.replicates
            diff = inputs[name]
            key = frozenset(diff)
            if kind.startswith("crossed"):
                members = gold if kind == "crossed_gold" else judged
                ck = (kind, key)
                if ck not in crossed:
                    crossed[ck] = crossed_weights(diff.keys(), members,
                                                  replicates=replicates, seed=seed)
                unsorted = crossed_stats(crossed[ck], diff)
            else:
                if key not in resamplers:
                    resamplers[key] = Resampler(diff.keys(), ctx.families, seed=seed)
                rs = resamplers[key]
                if kind == "quartile_gap":
                    unsorted = quartile_stats(rs, diff, dispersions, replicates)
                else:
                    unsorted = paired_stats(rs, diff, replicates)
            stats = sorted(unsorted)
            alpha = (1 - level) / 2
            for side, q in (("lo", alpha), ("hi", 1 - alpha)):
                entry = bounds.setdefault((name, side), {"q": q, "kind": kind, "level": level,
                                                         "replicates": replicates, "atoms": 0,
                                                         "values": [], "seeds": [],
                                                         "est": {e: [] for e in ESTIMATORS}})
                entry["values"].append(percentile(stats, q))
                entry["seeds"].append(seed)
                # the upper tail: mirror so that each estimator sees a lower-tail quantile
                est = estimates([-x for x in unsorted], 1 - q) if q > 0.5 else estimates(unsorted, q)
                shipped = montecarlo.quantile_se(stats, q)  # what the reports print
                if shipped == 0.0 and est["normal_scale"] > 0:  # the bound sits on an atom
                    entry["atoms"] += 1
                elif not math.isclose(shipped, est["normal_scale"], rel_tol=1e-9, abs_tol=1e-15):
                    raise SystemExit(f"{name}:{side} seed {seed}: quantile_se {shipped!r} is not "
                                     f"the normal-scale estimate {est['normal_scale']!r}")
                for e in ESTIMATORS:
                    entry["est"][e].append(est[e])
        print(f"seed {seed}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    rows = []
    for (name, side), entry in bounds.items():
        sd = statistics.stdev(entry["values"])
        shipped_at = entry["seeds"].index(11)
        row = {"bound": f"{name}:{side}", "kind": entry["kind"], "level": entry["level"],
               "q": entry["q"], "seeds": len(entry["values"]), "replicates": entry["replicates"],
               "seeds_on_an_atom": entry["atoms"],
               "bound_at_seed_11_points": 100 * entry["values"][shipped_at],
               "empirical_sd_points": 100 * sd}
        for e in ESTIMATORS:
            per = entry["est"][e]
            ratios = sorted(x / sd for x in per)
            row[e] = {"at_seed_11_points": 100 * per[shipped_at],
                      "ratio_at_seed_11": per[shipped_at] / sd,
                      "ratio_of_mean": statistics.fmean(per) / sd,
                      "ratio_p05": percentile(ratios, 0.05), "ratio_p95": percentile(ratios, 0.95)}
        rows.append(row)
    summary = {}
    for e in ESTIMATORS:
        at11 = [r[e]["ratio_at_seed_11"] for r in rows]
        mean = [r[e]["ratio_of_mean"] for r in rows]
        summary[e] = {"ratio_at_seed_11_min": min(at11), "ratio_at_seed_11_max": max(at11),
                      "ratio_of_mean_min": min(mean), "ratio_of_mean_max": max(mean),
                      "inside_at_seed_11": sum(0.8 <= x <= 1.25 for x in at11),
                      "inside_of_mean": sum(0.8 <= x <= 1.25 for x in mean),
                      "per_seed_p05_min": min(r[e]["ratio_p05"] for r in rows),
                      "per_seed_p95_max": max(r[e]["ratio_p95"] for r in rows),
                      "bounds": len(rows)}
    result = {"release": os.path.basename(os.path.normpath(args.release)),
              "reports_use": "normal_scale (nclue.inference.montecarlo.quantile_se, checked equal "
                             "on every bound and seed)",
              "replicates": args.replicates, "seeds": f"1..{args.seeds}" + ("" if args.seeds >= 11 else " and 11"),
              "seconds": round(time.perf_counter() - started, 1),
              "empirical_sd_relative_se": 1 / math.sqrt(2 * (len(seeds) - 1)),
              "summary": summary, "bounds": rows}
    text = json.dumps(result, indent=2, sort_keys=True) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    if args.table:
        with open(args.table, "w", encoding="utf-8") as handle:
            handle.write(markdown(result))
    for r in rows:
        print(f"{r['bound']:32s} sd {r['empirical_sd_points']:.4f} "
              + " ".join(f"{e[:6]} {r[e]['ratio_at_seed_11']:.2f}/{r[e]['ratio_of_mean']:.2f}"
                         for e in ESTIMATORS))
    for e, s in summary.items():
        print(e, s)


if __name__ == "__main__":
    main()
