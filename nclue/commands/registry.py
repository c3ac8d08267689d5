"""The explicit list of CLI command modules (add one import and one entry per command)."""

from . import convert, coverage, score, verify

COMMAND_MODULES = (score, verify, convert, coverage,)
