"""Report tables: the :class:`Table` record (:mod:`nclue.tables.model`) and one module per table
kind (``report.json`` ``kind``), listed in :mod:`nclue.tables.kinds`.

Importing this package gives only the records, so that any module may return a :class:`Table`;
the kinds (which sit above :class:`nclue.context.ReleaseContext`) load from
:mod:`nclue.tables.kinds`.
"""

from .model import Column, RowDecimalsTable, Table, with_row_decimals

__all__ = ["Column", "RowDecimalsTable", "Table", "with_row_decimals"]
