"""Command-line interface: ``nclue <command> ...`` and ``python -m nclue <command> ...``.

Each command lives in a module of ``nclue.commands`` that defines ``add_parser(subparsers)``;
the parser it adds sets ``func(args) -> int``. Bad input is reported as one line on stderr
(``nclue: FILE:LINE: problem``) with exit status 2.
"""

import argparse
import sys
from typing import List, Optional

from . import __version__
from .errors import InputError, NclueError, VerificationError


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
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"nclue: {exc}", file=sys.stderr)
        return 2
    except VerificationError as exc:
        print(f"nclue: verification failed: {exc}", file=sys.stderr)
        return 1
    except NclueError as exc:
        print(f"nclue: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
