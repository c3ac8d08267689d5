"""Benchmark of nclue.inference at the n-Clue paper's scale, with optional scipy cross-checks.

Times (synthetic 0/1 n-Clue outcomes, 1,000 queries in 453 exact-gold-set families):
  1. 1,000 family-bootstrap replicates for 8 paired contrasts (one shared Resampler),
  2. 10,000 family sign-flip draws for the same 8 contrasts,
  3. one max-|T| block of 19 endpoints with 10,000 draws,
  and, separately, the crossed query/document interval over gold (about 2.2 documents per
  query, 287 documents) and all-judged (about 51 per query, 2,021 documents) memberships.

If scipy/numpy are importable (they are never imported by nclue), cross-checks on the same
vectors: scipy.stats.permutation_test (sign flips of the family sums, 10,000 resamples) against
the family flip p, and scipy.stats.bootstrap (percentile, paired over families with the ratio
statistic sum(D)/sum(n)) against the family bootstrap interval. Different random streams, so
agreement is up to Monte Carlo error.

Usage: python bench/bench_inference.py [--seed 11] [--skip-crossed]
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from nclue import inference  # noqa: E402


def synthetic(seed: int, queries: int = 1000, families: int = 453, systems: int = 27):
    rng = random.Random(seed)
    fam_of = {}
    order = list(range(queries))
    rng.shuffle(order)
    for i, q in enumerate(order):
        # Every family gets one query, the rest are spread unevenly (skewed sizes).
        fam = i if i < families else int(families * rng.random() ** 2)
        fam_of[f"q{q:04d}"] = f"F{fam:03d}"
    difficulty = {q: rng.random() for q in sorted(fam_of)}
    fam_effect = {f: rng.gauss(0, 0.15) for f in sorted(set(fam_of.values()))}
    runs = []
    for s in range(systems):
        skill = 0.15 + 0.02 * (s % 10)
        runs.append({q: int(rng.random() < min(0.95, max(0.02, skill + fam_effect[fam_of[q]]
                                                         + 0.3 * (0.5 - difficulty[q]))))
                     for q in fam_of})
    return fam_of, runs


def memberships(fam_of, seed, docs, per_query):
    rng = random.Random(seed)
    names = [f"d{i:04d}" for i in range(docs)]
    fam_docs = {}
    out = {}
    for q, f in sorted(fam_of.items()):
        if per_query < 5:  # gold memberships: identical within a family
            if f not in fam_docs:
                fam_docs[f] = rng.sample(names, rng.choice((1, 2, 2, 3, 3, 4)))
            out[q] = fam_docs[f]
        else:
            out[q] = rng.sample(names, max(1, int(rng.expovariate(1 / per_query))))
    return out


def timed(label, fn):
    t0 = time.perf_counter()
    result = fn()
    dt = time.perf_counter() - t0
    print(f"{label:<62} {dt:7.3f} s")
    return result, dt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=inference.DEFAULT_SEED)
    parser.add_argument("--skip-crossed", action="store_true")
    args = parser.parse_args()
    fam_of, runs = synthetic(args.seed)
    n_fam = len(set(fam_of.values()))
    print(f"{len(fam_of)} queries, {n_fam} families, seed {args.seed}, python {sys.version.split()[0]}")
    contrasts = [(runs[i], runs[i + 1]) for i in range(8)]

    def setup():
        return inference.Resampler(fam_of.keys(), fam_of, seed=args.seed)

    rs, t_setup = timed("family design (sorting, family map)", setup)

    def boots():
        return [rs.paired_bootstrap(b, v, replicates=1000) for b, v in contrasts]

    intervals, t_boot = timed("1,000 family-bootstrap replicates x 8 contrasts", boots)

    def flips():
        return [rs.flip_test(b, v, draws=10000) for b, v in contrasts]

    tests, t_flip = timed("10,000 family sign-flip draws x 8 contrasts", flips)

    block = {f"endpoint_{j:02d}": (runs[0], runs[8 + j]) for j in range(19)}
    fresh = inference.Resampler(fam_of.keys(), fam_of, seed=args.seed)

    def maxt():
        return fresh.max_t_block(block, draws=10000)

    block_result, t_maxt = timed("max-|T| block: 19 endpoints x 10,000 draws (fresh draws)", maxt)
    total = t_setup + t_boot + t_flip + t_maxt
    print(f"{'TOTAL (bootstrap + flips + max-|T| block)':<62} {total:7.3f} s  (target < 10 s)")

    print("\ncontrast  delta(pts)  95% CI (pts)        family-flip p")
    for j, (ci, test) in enumerate(zip(intervals, tests)):
        print(f"  c{j}      {100 * test.delta:+6.1f}    [{100 * ci.lo:+6.1f}, {100 * ci.hi:+6.1f}]"
              f"    {test.p:.4f}")
    worst = max(block_result.values(), key=lambda e: abs(e.t))
    print(f"max-|T| block: largest |T| = {abs(worst.t):.3f}, raw p {worst.p_raw:.4f}, "
          f"adjusted p {worst.p_adjusted:.4f}")

    if not args.skip_crossed:
        gold = memberships(fam_of, args.seed, 287, 2.2)
        judged = memberships(fam_of, args.seed + 1, 2021, 51)
        n_gold = sum(len(v) for v in gold.values())
        n_judged = sum(len(v) for v in judged.values())
        timed(f"crossed query/doc, gold memberships ({n_gold}), 1,000 repl.",
              lambda: inference.crossed_bootstrap(runs[0], runs[1], gold, seed=args.seed))
        timed(f"crossed query/doc, all-judged ({n_judged}), 1,000 repl.",
              lambda: inference.crossed_bootstrap(runs[0], runs[1], judged, seed=args.seed))
        timed("leave-one-gold-document ranges",
              lambda: inference.leave_one_document_out(runs[0], runs[1], gold))

    try:
        import numpy as np
        from scipy import stats
    except ImportError:
        print("\nscipy/numpy not importable: cross-checks skipped")
        return 0
    print("\nscipy cross-check on the same 8 contrasts (independent random streams: agreement is")
    print("up to Monte Carlo error; scipy's two-sided p doubles the smaller tail, ours counts |T*| >= |T|)")
    print("  contrast  family-flip p: nclue / scipy   family 95% CI (pts): nclue / scipy")
    sizes = np.array(rs.sizes, dtype=float)

    def total(x, axis):
        return np.sum(x, axis=axis)

    def ratio(d, n, axis):
        return np.sum(d, axis=axis) / np.sum(n, axis=axis)

    for j, (base, variant) in enumerate(contrasts):
        diff = {q: variant[q] - base[q] for q in base}
        dsum = np.array(rs.family_sums(diff), dtype=float)
        perm = stats.permutation_test((dsum,), total, permutation_type="samples",
                                      n_resamples=10000, alternative="two-sided", vectorized=True,
                                      random_state=np.random.default_rng(args.seed))
        boot = stats.bootstrap((dsum, sizes), ratio, paired=True, vectorized=True,
                               n_resamples=1000, method="percentile",
                               random_state=np.random.default_rng(args.seed))
        ci = intervals[j]
        print(f"  c{j}        {tests[j].p:.4f} / {perm.pvalue:.4f}"
              f"              [{100 * ci.lo:+5.2f}, {100 * ci.hi:+5.2f}] / "
              f"[{100 * boot.confidence_interval.low:+5.2f}, "
              f"{100 * boot.confidence_interval.high:+5.2f}]")
    pick = min(range(8), key=lambda j: abs(tests[j].p - 0.05))
    base, variant = contrasts[pick]
    qdiff = np.array([variant[q] - base[q] for q in sorted(base)], dtype=float)
    qperm = stats.permutation_test((qdiff,), total, permutation_type="samples",
                                   n_resamples=10000, alternative="two-sided", vectorized=True,
                                   random_state=np.random.default_rng(args.seed))
    ours = inference.query_permutation_test(base, variant, seed=args.seed)
    qboot = stats.bootstrap((qdiff,), np.mean, vectorized=True, n_resamples=1000,
                            method="percentile", random_state=np.random.default_rng(args.seed))
    qci = inference.paired_family_bootstrap(base, variant, {q: q for q in base}, seed=args.seed)
    print(f"  query-paired (Table S4 style), c{pick}: permutation p nclue {ours.p:.4f} / scipy "
          f"{qperm.pvalue:.4f}; bootstrap CI nclue [{100 * qci.lo:+.2f}, {100 * qci.hi:+.2f}] / "
          f"scipy [{100 * qboot.confidence_interval.low:+.2f}, "
          f"{100 * qboot.confidence_interval.high:+.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
