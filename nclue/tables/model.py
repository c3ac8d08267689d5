"""Compatibility alias: the :class:`Table` record moved to :mod:`nclue.table` (a layer below the
table kinds). New code imports it from there; this module only re-exports it."""

from ..table import Column, RowDecimalsTable, Table, qualified_key, with_row_decimals

__all__ = ["Column", "RowDecimalsTable", "Table", "qualified_key", "with_row_decimals"]
