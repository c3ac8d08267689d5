"""The explicit list of CLI command modules (add one import and one entry per command)."""

from . import coverage

COMMAND_MODULES = (coverage,)
