#!/usr/bin/env python3
"""Regenerate and verify every number this repository reports. Standard library only, offline.

    python reproduce.py            # regenerate everything in memory and verify it; writes nothing
    python reproduce.py --write    # maintainers: also write the regenerated reference_metrics/
    python reproduce.py --freeze   # maintainers: --write, and rewrite claims.json, MANIFEST.json,
                                   # SHA256SUMS

Steps: (1) for every release in data/ (a folder with queries.jsonl): load and validate it, check
each run file against runs/index.json, re-derive its derived files, rebuild the tables and figures
its report.json declares, compare every regenerated file byte for byte with the one shipped in
reference_metrics/<release>/, and check every claim in its claims.json; (2) check the frozen
paper-audit verdicts; (3) check every number quoted in README.md and DATASHEET.md; (4) check
SHA256SUMS, that nothing unlisted lies in the release folders, and that MANIFEST.json and the audit
summaries re-derive. Nothing is written without --write or --freeze, so a read-only copy verifies.
Prints one line per release, every failing check, and a final ``N checks verified, M failed``;
exits 1 on any failure, 2 on bad input (e.g. an unknown --release), 130 on Ctrl-C.
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # verification writes nothing inside the repository (nor a bag's
ROOT = Path(__file__).resolve().parent  # payload), not even bytecode caches
# ... and reads none: the code that runs is the source SHA256SUMS verifies, never a
# __pycache__/*.pyc beside it (caches are looked up under this prefix, which cannot exist)
sys.pycache_prefix = os.path.join(os.devnull, "nclue-reads-no-bytecode")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    from nclue.errors import InputError, NclueError  # noqa: E402
    from nclue import outputs, verification  # noqa: E402
except KeyboardInterrupt:  # Ctrl-C while starting: no traceback either
    print("reproduce: interrupted", file=sys.stderr, flush=True)
    sys.exit(130)


def main(argv=None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C: one line, exit 130 (workers stop with us: nclue.workers)
        print("reproduce: interrupted", file=sys.stderr, flush=True)
        return 130


def _main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--write", action="store_true",
                       help="also write the regenerated reference_metrics/ files (maintainers)")
    modes.add_argument("--freeze", action="store_true",
                       help="--write, and rewrite claims.json of every release and the integrity "
                            "files (maintainers cutting a release)")
    parser.add_argument("--release", action="append", default=None,
                        help="only this release (folder name under data/); repeatable")
    parser.add_argument("--jobs", type=int, default=None,
                        help="worker processes that parse run files (default: 2 where 2 CPUs exist; "
                             "1 = everything in one process); the output is the same either way")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    started = time.perf_counter()
    mode = "freeze" if args.freeze else "write" if args.write else "verify"
    outputs.clean_repository_temporaries(  # left by a killed run: reported; removed when writing
        ROOT, report=lambda line: print(f"reproduce: {line}", file=sys.stderr, flush=True),
        remove=mode != "verify")
    try:
        summary = verification.reproduce(ROOT, mode=mode, only=args.release,
                                         log=lambda line: print(line, flush=True), jobs=args.jobs,
                                         progress=lambda line: print(line, file=sys.stderr, flush=True))
    except InputError as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 2
    except NclueError as exc:
        print(f"reproduce: {exc}", file=sys.stderr)
        return 2
    for line in summary.report_lines(time.perf_counter() - started):
        print(line)
    return summary.exit_status()  # 2: something could not be read (bad input); 1: a check failed


if __name__ == "__main__":
    sys.exit(main())
