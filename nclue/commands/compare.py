"""``nclue compare BASE VARIANT --release DIR``: paired n-Clue Score@k difference with inference.

Prints ``variant - base`` in percentage points with its exact-gold-set-family percentile bootstrap
interval and the two-sided family sign-flip randomization p-value (+1 correction), as in the
n-Clue paper's Table 5 (sec. 3.4). Defaults are the paper's: seed 11, 1,000 bootstrap
replicates, 10,000 randomization draws. Queries a run lacks count as empty rankings.
"""

import json
from pathlib import Path

from ..claims import format_fixed
from ..errors import InputError
from ..inference import (DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED,
                         Resampler)
from ..metrics import DEFAULT_K, per_query
from ..release import gold_families, load_release
from ..runs import TIE_RULES, load_run

#: Unconditional per-query measures of nclue.metrics (defined on every query of the release).
MEASURES = ("nclue_score", "gold_hit", "gold_ndcg", "graded_ndcg", "subset_first", "no_gold")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare", help="paired n-Clue Score difference with family bootstrap CI and flip p",
        description="Compare two runs on one release: the paired difference VARIANT - BASE of "
                    "n-Clue Score@k in percentage points, its exact-gold-set-family percentile "
                    "bootstrap interval, and the two-sided family sign-flip randomization p "
                    "(p = (1 + #{|T*| >= |T|}) / (1 + draws)). A run argument that is not a file "
                    "is looked up as DIR/runs/<id>.jsonl.gz.")
    parser.add_argument("base", help="base run file (JSONL(.gz) or TREC), or a run id of the release")
    parser.add_argument("variant", help="variant run file, or a run id of the release")
    parser.add_argument("--release", required=True, help="release folder, e.g. data/example")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"random seed for both resampling streams (default {DEFAULT_SEED})")
    parser.add_argument("--replicates", type=int, default=DEFAULT_REPLICATES,
                        help=f"family bootstrap replicates (default {DEFAULT_REPLICATES})")
    parser.add_argument("--draws", type=int, default=DEFAULT_DRAWS,
                        help=f"randomization draws (default {DEFAULT_DRAWS})")
    parser.add_argument("--level", type=float, default=DEFAULT_LEVEL,
                        help=f"confidence level of the interval (default {DEFAULT_LEVEL})")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="rank cutoff (default 10)")
    parser.add_argument("--measure", choices=MEASURES, default="nclue_score",
                        help="per-query measure to compare (default nclue_score; every query "
                             "of the release counts for each of these)")
    parser.add_argument("--ties", choices=TIE_RULES, default="input",
                        help="tie rule for equal scores (default: input order, as the paper)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: delta, ci_lo, ci_hi, p, families (points, "
                             "unrounded) plus the settings used")
    parser.set_defaults(func=run_compare)


def _resolve(run: str, release_dir: str) -> Path:
    path = Path(run)
    if path.exists():
        return path
    candidate = Path(release_dir) / "runs" / f"{run}.jsonl.gz"
    if candidate.exists():
        return candidate
    raise InputError(run, "run file not found (nor as a run id under "
                          f"{Path(release_dir) / 'runs'})")


def compare_runs(release, base_run, variant_run, *, k: int = DEFAULT_K, seed: int = DEFAULT_SEED,
                 replicates: int = DEFAULT_REPLICATES, draws: int = DEFAULT_DRAWS,
                 level: float = DEFAULT_LEVEL, measure: str = "nclue_score") -> dict:
    """The compare result as a dict (values in percentage points, unrounded)."""
    if measure not in MEASURES:
        raise InputError("--measure", f"unknown measure {measure!r}")
    measure = f"{measure}@{k}"
    base = per_query(release, base_run, k)[measure]
    variant = per_query(release, variant_run, k)[measure]
    resampler = Resampler(base.keys(), gold_families(release), seed=seed)
    interval = resampler.paired_bootstrap(base, variant, replicates=replicates, level=level)
    test = resampler.flip_test(base, variant, draws=draws)
    return {
        "base": base_run.run_id, "variant": variant_run.run_id, "measure": measure,
        "delta": 100 * test.delta, "ci_lo": 100 * interval.lo, "ci_hi": 100 * interval.hi,
        "p": test.p, "families": resampler.n_families, "queries": test.queries,
        "seed": seed, "replicates": replicates, "draws": draws, "level": level,
    }


def run_compare(args) -> int:
    if args.k < 1:
        raise InputError("--k", f"must be at least 1, got {args.k}")
    release = load_release(args.release)
    base_run = load_run(_resolve(args.base, args.release), release, ties=args.ties)
    variant_run = load_run(_resolve(args.variant, args.release), release, ties=args.ties)
    result = compare_runs(release, base_run, variant_run, k=args.k, seed=args.seed,
                          replicates=args.replicates, draws=args.draws, level=args.level,
                          measure=args.measure)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    pct = format_fixed(100 * result["level"], 1).rstrip("0").rstrip(".")
    sign = "+" if result["delta"] > 0 else ""
    print(f"{result['variant']} - {result['base']} on {release.name} "
          f"({result['queries']} queries, {result['families']} exact-gold-set families)")
    print(f"  delta {result['measure']}: {sign}{format_fixed(result['delta'], 1)} points "
          f"[{pct}% CI {format_fixed(result['ci_lo'], 1)}, {format_fixed(result['ci_hi'], 1)}]"
          f"  (family bootstrap, {result['replicates']} replicates)")
    print(f"  family sign-flip p = {format_fixed(result['p'], 4)}  "
          f"(two-sided, {result['draws']} draws, +1 correction, seed {result['seed']})")
    return 0
