"""Report tables: one module per table kind (``report.json`` ``kind``), listed in
:mod:`nclue.tables.kinds`.

The :class:`Table` record itself lives one layer below, in :mod:`nclue.table`, so that the
label-audit analyses and the report renderers use it without importing this package; the names
are re-exported here for older call sites. The kinds (which sit above
:class:`nclue.context.ReleaseContext`) load from :mod:`nclue.tables.kinds`.
"""

from ..table import Column, RowDecimalsTable, Table, with_row_decimals

__all__ = ["Column", "RowDecimalsTable", "Table", "with_row_decimals"]
