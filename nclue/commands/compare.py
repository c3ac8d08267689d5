"""``nclue compare RUN RUN [RUN ...] --release DIR``: paired comparisons with inference.

Two runs (BASE VARIANT): ``variant - base`` in percentage points with its exact-gold-set-family
percentile bootstrap interval (with the Monte Carlo SE of each bound,
:func:`nclue.inference.montecarlo.quantile_se`) and the two-sided family sign-flip randomization p-value (+1
correction), as in the n-Clue paper's Table 5 (sec. 3.4). Defaults are the paper's: seed 11,
1,000 bootstrap replicates, 10,000 randomization draws. Three or more runs (or ``--format
markdown|latex``): one table of every run on every ``--measures`` measure, each cell marked
with the runs it is significantly better than (family sign-flip test, Holm across the table;
:func:`nclue.api.compare`). Queries a run lacks count as empty rankings.
"""

import json
import sys

from .. import api
from ..claims import format_fixed
from ..errors import InputError
from ..inference import (DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED,
                         Resampler)
from ..inference.montecarlo import bootstrap_distribution, bounds_error
from ..inference.resampling import _paired
from ..measures import DEFAULT_K, REGISTRY, Measure, MeasureRegistry
from ..metrics import query_facts
from ..release import gold_families, load_release
from ..run_index import RunIndex
from ..runs import TIE_RULES, load_run
from ..tie_contract import decided_queries, file_order_warning, rule_note


def comparable(registry: MeasureRegistry = REGISTRY) -> tuple:
    """Measures a paired comparison can use: computed from rankings and defined on every query."""
    return tuple(d.key for d in registry if d.per_query is not None and not d.conditional
                 and d.key != "complete_first")


COMPARABLE = comparable()


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare", help="paired n-Clue Score difference with family bootstrap CI and flip p",
        description="Compare two runs on one release: the paired difference VARIANT - BASE of "
                    "n-Clue Score@k in percentage points, its exact-gold-set-family percentile "
                    "bootstrap interval, and the two-sided family sign-flip randomization p "
                    "(p = (1 + #{|T*| >= |T|}) / (1 + draws)). A run argument that is not a file "
                    "is looked up as a run id in DIR/runs/index.json.")
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="run files (JSONL(.gz) or TREC) or run ids of the release; with two, "
                             "the first is the base and the second the variant")
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
    parser.add_argument("--measure", default="nclue_score",
                        help="per-query measure to compare, a name of the measure registry "
                             f"({', '.join(COMPARABLE)}; with or without @k; default "
                             "nclue_score): every query of the release counts for each")
    parser.add_argument("--ties", choices=TIE_RULES, default="input",
                        help="tie rule for equal scores: input (default: the file order, the "
                             "paper's rule; a warning names the queries it decides), trec_eval "
                             "(docid descending) or expected (exact expectation over tie orders; "
                             "both independent of the file order)")
    parser.add_argument("--measures", nargs="+", metavar="MEASURE",
                        help="measures of the N-run table (default nclue_score gold_hit); registry "
                             "names or aliases such as nDCG@10 or gold:Success@10")
    parser.add_argument("--format", choices=("text", "markdown", "latex", "json"), default="text",
                        help="text (two runs: the paired analysis; more: a Markdown table), "
                             "markdown or latex (the N-run table), json")
    parser.add_argument("--json", action="store_true",
                        help="same as --format json: with two runs one object with delta, ci_lo, "
                             "ci_hi, se_lo, se_hi (their Monte Carlo SE), p, families (points, "
                             "unrounded) and the settings used")
    parser.set_defaults(func=run_compare)


def comparable_measure(text: str, k: int, registry: MeasureRegistry = REGISTRY) -> Measure:
    """Parse ``--measure`` (a registry name, bare or with ``@k``) and refuse measures whose mean
    is not over every query (a paired test needs the same queries on both sides)."""
    measure = registry.parse(text, default_k=k, where="--measure")
    keys = comparable(registry)
    if measure.key not in keys:
        raise InputError("--measure", f"{measure.name!r} cannot be compared query by query; "
                                      f"use one of {', '.join(keys)}")
    return measure


def compare_runs(release, base_run, variant_run, *, k: int = DEFAULT_K, seed: int = DEFAULT_SEED,
                 replicates: int = DEFAULT_REPLICATES, draws: int = DEFAULT_DRAWS,
                 level: float = DEFAULT_LEVEL, measure: str = "nclue_score",
                 registry: MeasureRegistry = REGISTRY) -> dict:
    """The compare result as a dict (values in percentage points, unrounded), with the tie rule
    and, per run, the queries whose n-Clue or Gold Hit outcome at ``k`` a tie decides. A measure
    without a cutoff (AUC, Gold RR) is compared as it is; ``k`` then only counts the decided
    queries."""
    if base_run.tie_rule != variant_run.tie_rule:
        raise InputError("nclue compare", "the two runs were loaded under different tie rules")
    chosen = comparable_measure(measure, k, registry)
    facts = query_facts(release)
    vectors = {run.run_id: api.per_query_vectors(release, run, (chosen,), registry, facts)
               for run in (base_run, variant_run)}
    base = vectors[base_run.run_id][chosen.name]
    variant = vectors[variant_run.run_id][chosen.name]
    resampler = Resampler(base.keys(), gold_families(release), seed=seed)
    interval = resampler.paired_bootstrap(base, variant, replicates=replicates, level=level)
    error = bounds_error(bootstrap_distribution(resampler, _paired(base, variant), replicates),
                         level)
    test = resampler.flip_test(base, variant, draws=draws)
    return {
        "base": base_run.run_id, "variant": variant_run.run_id, "measure": chosen.name,
        "delta": 100 * test.delta, "ci_lo": 100 * interval.lo, "ci_hi": 100 * interval.hi,
        "se_lo": 100 * error.se_lo, "se_hi": 100 * error.se_hi,
        "p": test.p, "families": resampler.n_families, "queries": test.queries,
        "seed": seed, "replicates": replicates, "draws": draws, "level": level,
        "ties": base_run.tie_rule, "k": k,
        "tie_decided_queries": {"base": len(decided_queries(facts, base_run, k)),
                                "variant": len(decided_queries(facts, variant_run, k))},
    }


def warn_file_order(release, runs, paths, rule: str, k: int) -> None:
    """Under ``--ties input``, one stderr warning per run whose file order decides the n-Clue or
    Gold Hit outcome of some query (:func:`nclue.tie_contract.file_order_warning`)."""
    if rule != "input":
        return
    facts = query_facts(release)
    for run, path in zip(runs, paths):
        decided = decided_queries(facts, run, k)
        if decided:
            print(file_order_warning(path, decided, f"the n-Clue or Gold Hit outcome at k={k}"),
                  file=sys.stderr)


def run_compare(args) -> int:
    if args.k < 1:
        raise InputError("--k", f"must be at least 1, got {args.k}")
    if len(args.runs) < 2:
        raise InputError("nclue compare", "give at least two runs")
    release = load_release(args.release)
    index = RunIndex.load(args.release)
    paths = [index.find(r) for r in args.runs]
    runs = [load_run(path, release, ties=args.ties) for path in paths]
    warn_file_order(release, runs, paths, args.ties, args.k)
    fmt = "json" if args.json else args.format
    if len(runs) > 2 or fmt in ("markdown", "latex") or args.measures:
        table = api.compare(release, runs, measures=args.measures, k=args.k, seed=args.seed,
                            draws=args.draws)
        if fmt == "json":
            print(json.dumps(table.to_dict(), sort_keys=True))
        elif fmt == "latex":
            print(table.to_latex(), end="")
        else:
            print(table.to_markdown(), end="")
        return 0
    base_run, variant_run = runs
    result = compare_runs(release, base_run, variant_run, k=args.k, seed=args.seed,
                          replicates=args.replicates, draws=args.draws, level=args.level,
                          measure=args.measure)
    if fmt == "json":
        print(json.dumps(result, sort_keys=True))
        return 0
    pct = format_fixed(100 * result["level"], 1).rstrip("0").rstrip(".")
    sign = "+" if result["delta"] > 0 else ""
    print(f"{result['variant']} - {result['base']} on {release.name} "
          f"({result['queries']} queries, {result['families']} exact-gold-set families)")
    print(f"  delta {result['measure']}: {sign}{format_fixed(result['delta'], 1)} points "
          f"[{pct}% CI {format_fixed(result['ci_lo'], 1)}, {format_fixed(result['ci_hi'], 1)}]"
          f"  (family bootstrap, {result['replicates']} replicates; Monte Carlo SE of the bounds "
          f"{format_fixed(result['se_lo'], 2)}, {format_fixed(result['se_hi'], 2)})")
    print(f"  family sign-flip p = {format_fixed(result['p'], 4)}  "
          f"(two-sided, {result['draws']} draws, +1 correction, seed {result['seed']})")
    decided = result["tie_decided_queries"]
    print(f"  {rule_note(result['ties'])} Queries whose n-Clue or Gold Hit outcome at "
          f"k={result['k']} a tie decides: base {decided['base']}, variant {decided['variant']}")
    return 0
