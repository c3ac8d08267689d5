#!/usr/bin/env python3
"""Regenerate and verify every number this repository reports. Standard library only, offline.

    python reproduce.py            # verify SHA256SUMS, regenerate all tables, check every claim
    python reproduce.py --freeze   # maintainers: rewrite claims.json, MANIFEST.json, SHA256SUMS

Steps: (1) check SHA256SUMS; (2) for every release in data/ (a folder with queries.jsonl), load
and validate it, check each run file against runs/index.json, rebuild the tables declared in its
report.json, write them to reference_metrics/<release>/ (Markdown and JSON) and check every claim
in its claims.json; (3) check the frozen paper-audit verdicts; (4) re-check SHA256SUMS so that a
regenerated file that drifted from the released bytes is reported. Prints one summary line per
release and a final ``N claims verified, M failed``; exits 1 on any failure, 2 on bad input.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nclue.errors import InputError, NclueError  # noqa: E402
from nclue import verification  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--freeze", action="store_true",
                        help="rewrite claims.json of every release and the integrity files (maintainers)")
    parser.add_argument("--release", action="append", default=None,
                        help="only this release (folder name under data/); repeatable")
    parser.add_argument("--jobs", type=int, default=None,
                        help="worker processes that parse run files (default: 2 where 2 CPUs exist; "
                             "1 = everything in one process); the output is the same either way")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    started = time.perf_counter()
    try:
        summary = verification.reproduce(ROOT, freeze=args.freeze, only=args.release,
                                         log=lambda line: print(line, flush=True), jobs=args.jobs,
                                         progress=lambda line: print(line, file=sys.stderr, flush=True))
    except InputError as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 2
    except NclueError as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 2
    for problem in summary.problems:
        print(f"FAIL {problem}")
    print(f"{summary.verified} claims verified, {summary.failed} failed "
          f"({time.perf_counter() - started:.1f} s)")
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
