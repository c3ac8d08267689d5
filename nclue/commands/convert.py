"""``nclue export-trec`` / ``nclue import-trec``: move runs and qrels between formats."""

import sys

from ..exports import QREL_GRADES, qids_by_topic_number, qrels_text
from ..formats import write_text_atomic
from ..outputs import check_output
from ..release import load_release, release_input_files
from ..runs import ORDER_RULES, load_run, write_run, write_trec_run


def add_parser(subparsers) -> None:
    export = subparsers.add_parser(
        "export-trec", help="write a release's qrels, or a run, in TREC format",
        description="TREC qrels: one row per judged pair; --grades chooses the grade (clues: "
                    "clue count, golds and subsets alike; gold: 1 for a gold, 0 for a subset, so "
                    "trec_eval's ndcg_cut.k and success.k are Gold-NDCG@k and Gold Hit@k; labels: "
                    "clue count + 1 for a gold, so a gate-failed all-condition subset stays below "
                    "the golds). TREC runs use ranks 1..n in the run's order and the run id as tag.")
    export.add_argument("--release", required=True, help="release folder")
    export.add_argument("--run", help="run file to convert (omit to export the qrels)")
    export.add_argument("--grades", choices=QREL_GRADES, default="clues",
                        help="qrels grade scheme (default clues)")
    export.add_argument("--out", required=True,
                        help="output file (written atomically; '-' for standard output)")
    export.set_defaults(func=run_export)
    imp = subparsers.add_parser(
        "import-trec", help="convert a TREC run file into the release's JSONL(.gz) run format",
        description="Validate a TREC run against a release and write it as JSONL (gzip when the "
                    "name ends in .gz). Scores are re-sorted; the tie rule decides equal scores.")
    imp.add_argument("run", help="TREC run file")
    imp.add_argument("--release", required=True, help="release folder")
    imp.add_argument("--ties", choices=ORDER_RULES, default="input", help="tie rule (default: input order)")
    imp.add_argument("--topic-numbers", action="store_true", dest="topic_numbers",
                     help="the run's qids are the topic numbers of 'nclue export topics --format "
                          "trec': write the release's qids instead")
    imp.add_argument("--out", required=True,
                     help="output .jsonl or .jsonl.gz ('-' for JSONL on standard output)")
    imp.set_defaults(func=run_import)


def run_export(args) -> int:
    if args.run and args.grades != "clues":
        print("nclue: --grades applies to qrels; omit --run to export them", file=sys.stderr)
        return 2
    inputs = [args.run, *release_input_files(args.release)]
    check_output(args.out, inputs)
    release = load_release(args.release)
    if args.run:
        write_trec_run(args.out, load_run(args.run, release), inputs=inputs)
    else:
        write_text_atomic(args.out, qrels_text(release, args.grades), inputs)
    return 0


def run_import(args) -> int:
    inputs = [args.run, *release_input_files(args.release)]
    check_output(args.out, inputs)
    release = load_release(args.release)
    qid_map = qids_by_topic_number(release.queries) if args.topic_numbers else None
    write_run(args.out, load_run(args.run, release, ties=args.ties, fmt="trec", qid_map=qid_map),
              inputs=inputs)
    return 0
