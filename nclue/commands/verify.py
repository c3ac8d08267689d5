"""``nclue verify``: the same verification as ``python reproduce.py`` (from a repository root)."""

import sys
from pathlib import Path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify", help="verify SHA256SUMS, regenerate every table and check every claim",
        description="Run the repository's full verification (what reproduce.py does).")
    parser.add_argument("--root", default=".", help="repository root (default: current folder)")
    parser.add_argument("--release", action="append", default=None, help="only this release; repeatable")
    parser.set_defaults(func=run_verify)


def run_verify(args) -> int:
    # imported here: verification pulls in every table kind and renderer (about 0.1 s), which
    # the other commands (nclue score above all) should not pay for at start-up
    from ..verification import reproduce
    summary = reproduce(Path(args.root), only=args.release, log=lambda line: print(line, file=sys.stderr))
    for line in summary.report_lines():
        print(line)
    return summary.exit_status()
