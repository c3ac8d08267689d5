"""The :class:`Table` record: unrounded cells under typed columns (the output of every table).

A :class:`Table` holds unrounded cells under typed columns; each column (or row) states how
many decimals are printed, and every printed cell becomes a claim (:mod:`nclue.claims`).

The record sits below every module that builds tables (the table kinds of :mod:`nclue.tables`,
the label-audit analyses of :mod:`nclue.label_audit`) and every module that renders them
(:mod:`nclue.report`), so none of them reaches into another's package for it.
"""

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Tuple

from .measures import Measure
from .runs import tie_sentence


def qualified_key(qualifier: str, measure: Measure) -> str:
    """A column key for a measure within a group of columns: ``n=2:nclue_score@10``."""
    return f"{qualifier}:{measure.name}"


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    decimals: int


@dataclass(frozen=True)
class Table:
    """A report table: rows of unrounded cells under typed columns."""

    table_id: str
    title: str
    columns: Tuple[Column, ...]
    rows: Tuple[Tuple[str, str, Mapping[str, Optional[float]]], ...]  # (row key, label, cells)
    note: str = ""
    ties: Optional[str] = None  # the tie rule its numbers were scored under (None: no ranking read)

    @property
    def printed_note(self) -> str:
        """The note as printed: the table's note, then the sentence naming its tie rule."""
        if self.ties is None:
            return self.note
        return f"{self.note} {tie_sentence(self.ties)}".strip()

    def cells(self) -> Dict[Tuple[str, str, str], float]:
        out = {}
        for row_key, _, values in self.rows:
            for column in self.columns:
                value = values.get(column.key)
                if value is not None:
                    out[(self.table_id, row_key, column.key)] = value
        return out

    def decimals(self) -> Dict[Tuple[str, str, str], int]:
        places = {c.key: c.decimals for c in self.columns}
        return {key: places[key[2]] for key in self.cells()}


@dataclass(frozen=True)
class RowDecimalsTable(Table):
    """A table whose printed decimals vary per row (one-column statistics tables)."""

    row_decimals: Mapping[str, int] = None  # type: ignore[assignment]

    def decimals(self) -> Dict[Tuple[str, str, str], int]:
        base = super().decimals()
        return {key: self.row_decimals.get(key[1], places) for key, places in base.items()}


def with_row_decimals(table: Table, row_decimals: Mapping[str, int]) -> Table:
    return RowDecimalsTable(table.table_id, table.title, table.columns, table.rows, table.note,
                            table.ties, dict(row_decimals))


