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

import os
import signal
import sys


def _stop_now(signum, frame):  # Ctrl-C while verifying: nothing is being written, so stop at once
    os.write(2, b"reproduce: interrupted\n")
    os._exit(130)


signal.signal(signal.SIGINT, _stop_now)  # first: from here to the interpreter's last breath
# (imports, every stage, the final lines, shutdown) Ctrl-C is one line and exit status 130, with
# no thread or child process to wait for; --write/--freeze switch to KeyboardInterrupt below so
# that a file being written is removed first (nclue/outputs.py)

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

sys.dont_write_bytecode = True  # verification writes nothing inside the repository (nor a bag's
ROOT = Path(__file__).resolve().parent  # payload), not even bytecode caches
# ... and reads none: the code that runs is the source SHA256SUMS verifies, never a
# __pycache__/*.pyc beside it (caches are looked up under this prefix, which cannot exist)
sys.pycache_prefix = os.path.join(os.devnull, "nclue-reads-no-bytecode")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nclue import outputs, verification  # noqa: E402


def main(argv=None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C while writing (--write, --freeze): one line, exit 130
        signal.signal(signal.SIGINT, _stop_now)
        print("reproduce: interrupted", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:  # | head: end quietly, as nclue does
        outputs.silence_stdout()
        return 0
    except OSError as exc:
        if exc.filename is not None:
            raise
        outputs.silence_stdout()  # standard output failed (> /dev/full): one line, exit 2
        print(f"reproduce: <stdout>: cannot write: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return 2
    finally:
        signal.signal(signal.SIGINT, _stop_now)  # the final lines and shutdown: stop at once


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
    args = parser.parse_args(argv)
    mode = "freeze" if args.freeze else "write" if args.write else "verify"
    if mode != "verify":  # writing: Ctrl-C unwinds, so that the file being written is removed
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # a temporary file left by a killed writer is reported; verifying writes nothing, so it
    # removes nothing either (--write and --freeze remove them). Exit status 2: something could
    # not be read (bad input); 1: a check failed
    return verification.run_and_report(ROOT, mode=mode, only=args.release)


def _exit(code: int) -> None:
    """Flush the output and end the process now: the interpreter's own shutdown would first put
    SIGINT back to its default action, so a Ctrl-C landing there would kill the process without
    the line and status 130. Nothing is left to clean up: every write is complete by now."""
    try:
        sys.stdout.flush()
    except OSError as exc:  # a failing standard output (> /dev/full), a closed pipe
        if not isinstance(exc, BrokenPipeError):
            os.write(2, f"reproduce: <stdout>: cannot write: {exc.strerror or exc}\n".encode())
            code = 2
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


if __name__ == "__main__":
    _exit(main())
