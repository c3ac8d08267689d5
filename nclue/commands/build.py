"""``nclue build``: construct a release from a local build folder (n-Clue paper, sec. 3.2)."""

import sys
import time

from ..layout import ReleaseLayout
from ..formats import dumps_canonical, read_json
from ..errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "build", help="construct a release (queries, qrels, evidence, families) from build/<release>/",
        description="Build the condition inventory from local page text and outlines, enumerate rare "
                    "conjunctions of common conditions, judge every document holding a condition, and "
                    "write data/<release>/ plus provenance/construction_<release>.json.")
    parser.add_argument("--input", required=True, help="build folder (documents.jsonl, pages.jsonl.gz, "
                                                       "outlines.jsonl)")
    parser.add_argument("--out", required=True, help="release folder to write, e.g. data/v1")
    parser.add_argument("--release", default="v1", help="configuration preset: v1 (page-level) or v2 "
                                                         "(document-level); default v1")
    parser.add_argument("--config", help="JSON object overriding preset fields")
    parser.add_argument("--seed", type=int, help="override the preset's seed")
    parser.add_argument("--provenance", default="provenance", help="provenance folder (default provenance)")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON on stdout")
    parser.set_defaults(func=run)


def run(args) -> int:
    from ..instrument import config as config_mod
    from ..instrument.construction import construct
    from ..instrument.inputs import read_build
    from ..instrument.release_writer import write_release
    from ..outputs import check_output_dir
    check_output_dir(args.out, [args.input])

    overrides = {}
    if args.config:
        overrides = read_json(args.config)
        if not isinstance(overrides, dict):
            raise InputError(args.config, "expected a JSON object of configuration fields")
    if args.seed is not None:
        overrides["seed"] = args.seed
    config = config_mod.preset(args.release, overrides, args.config or "<config>")
    start = time.perf_counter()
    inputs = read_build(args.input)
    read_s = time.perf_counter() - start
    print(f"nclue build: read {len(inputs.documents)} documents in {read_s:.1f} s", file=sys.stderr)
    construction = construct(inputs, config)
    construct_s = time.perf_counter() - start - read_s
    files = write_release(construction, inputs, args.out, args.provenance)
    total_s = time.perf_counter() - start
    stats = read_json(ReleaseLayout.of(args.out).instrument_stats)
    print(f"nclue build: {stats['queries']} queries, {stats['gold_qrels']} gold / {stats['subset_qrels']} "
          f"subset qrels, {len(files)} files in {args.out}; construction {construct_s:.1f} s, "
          f"total {total_s:.1f} s", file=sys.stderr)
    if stats["queries"] < config.n_queries:
        print(f"nclue build: only {stats['queries']} of the {config.n_queries} requested queries exist "
              f"under the caps (max_gold_per_doc {config.max_gold_per_doc}, "
              f"max_queries_per_condition {config.max_queries_per_condition})", file=sys.stderr)
    if args.json:
        print(dumps_canonical(stats, indent=2))
    return 0
