"""Command-line interface: ``nclue <command> ...`` and ``python -m nclue <command> ...``.

Each command lives in a module of ``nclue.commands`` that defines ``add_parser(subparsers)``;
the parser it adds sets ``func(args) -> int``. Bad input is reported as one line on stderr
(``nclue: FILE:LINE: problem``) with exit status 2. Ctrl-C (SIGINT) ends the command with
``nclue: interrupted`` and exit status 130, SIGTERM with ``nclue: terminated`` and 143, never a
traceback; a temporary output file being written is removed first (:mod:`nclue.outputs`). A
failing standard output (``> /dev/full``) is one line and exit status 2; a closed pipe
(``| head``) ends quietly with status 0.
"""

import argparse
import signal
import sys
from typing import List, Optional

from . import __version__
from .errors import InputError, NclueError, VerificationError
from .outputs import silence_stdout


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM, so that cleanup runs as for Ctrl-C."""


def _on_sigterm(signum, frame):  # pragma: no cover - exercised through a subprocess
    raise Terminated()


def flush_stdout() -> Optional[str]:
    """Flush standard output now; the problem in words if that fails (after which standard
    output is pointed at the null device so that exit does not fail again)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        return None
    except OSError as exc:
        silence_stdout()
        return f"<stdout>: cannot write: {exc.strerror or exc}"
    return None


def _command_modules():
    # Imported here so that ``import nclue`` stays light; the list is explicit on purpose.
    from .commands import registry
    return registry.COMMAND_MODULES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nclue",
        description="Score, compare and verify conjunctive cross-page retrieval (n-Clue).",
    )
    parser.add_argument("--version", action="version", version=f"nclue {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.add_parser(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return _run(args)
    except KeyboardInterrupt:
        flush_stdout()
        print("nclue: interrupted", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (an embedding application): leave SIGTERM alone
        pass
    try:
        code = int(args.func(args) or 0)
        problem = flush_stdout()
        if problem is not None:
            print(f"nclue: {problem}", file=sys.stderr)
            return 2
        return code
    except InputError as exc:
        flush_stdout()
        print(f"nclue: {exc}", file=sys.stderr)
        return 2
    except VerificationError as exc:
        flush_stdout()
        print(f"nclue: verification failed: {exc}", file=sys.stderr)
        return 1
    except NclueError as exc:
        flush_stdout()
        print(f"nclue: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        silence_stdout()
        return 0
    except OSError as exc:  # the environment failed us (a full disk, a failing standard output)
        if exc.filename is None and flush_stdout() is not None:
            where = "<stdout>: cannot write"
        else:
            where = f"{exc.filename}: I/O error" if exc.filename else "I/O error"
            if exc.filename is None:
                silence_stdout()  # most likely standard output itself: do not fail again at exit
        print(f"nclue: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Terminated:
        flush_stdout()
        print("nclue: terminated", file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
