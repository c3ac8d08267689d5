"""``nclue croissant --release DIR``: write (or check) the release's Croissant JSON-LD metadata."""

import sys
from pathlib import Path

from ..croissant import CROISSANT_NAME, metadata_text, stale
from ..formats import write_text_atomic
from ..outputs import check_output
from ..release import release_input_files


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "croissant", help="write or check a release's Croissant (JSON-LD) metadata",
        description="Croissant 1.0 metadata for a release: file objects with sha256 and record "
                    "sets for queries, qrels, corpus, evidence and runs. Default output: "
                    f"<release>/{CROISSANT_NAME}.")
    parser.add_argument("--release", required=True, help="release folder, e.g. data/v1")
    parser.add_argument("--out", help=f"output file (default <release>/{CROISSANT_NAME})")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when the committed file differs from the "
                             "regenerated metadata")
    parser.set_defaults(func=run_croissant)


def run_croissant(args) -> int:
    if args.check:
        problem = stale(args.release)
        if problem:
            print(f"nclue: {problem}", file=sys.stderr)
            return 1
        return 0
    target = args.out or str(Path(args.release) / CROISSANT_NAME)
    inputs = release_input_files(args.release)
    check_output(target, inputs)
    write_text_atomic(target, metadata_text(args.release), inputs)
    return 0
