"""``nclue verify``: the same verification as ``python reproduce.py`` (from a repository root)."""

from pathlib import Path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify", help="verify SHA256SUMS, regenerate every table and check every claim",
        description="Run the repository's full verification (what reproduce.py does).")
    parser.add_argument("--root", default=".", help="repository root (default: current folder)")
    parser.add_argument("--release", action="append", default=None, help="only this release; repeatable")
    parser.set_defaults(func=run_verify)


def run_verify(args) -> int:
    """Print what ``python reproduce.py`` prints (checks and failures, then the summary line, on
    standard output; progress on standard error) and return its exit status."""
    # imported here: verification pulls in every table kind and renderer (about 0.1 s), which
    # the other commands (nclue score above all) should not pay for at start-up
    from ..verification import run_and_report
    return run_and_report(Path(args.root), only=args.release, name="nclue verify")
