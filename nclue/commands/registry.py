"""The explicit list of CLI command modules (add one import and one entry per command)."""

COMMAND_MODULES = ()
