"""The report as a small document: headings, paragraphs, lists, tables and figures.

A release report (REPORT.md / REPORT.html) and the reference tables (tables.md) are built once as
a :class:`Document` and rendered by :mod:`nclue.report.markdown` and :mod:`nclue.report.html`
(and any further renderer); nothing renders a document by re-reading another rendering.

Text inside blocks uses a small inline subset that every renderer understands: ```code```,
``**bold**``, ``*emphasis*`` and ``[text](target)`` links (http(s), mailto, ``#fragment`` or a
relative path), with backslash escapes of ASCII punctuation.
"""

from dataclasses import dataclass
from typing import Tuple, Union

from ..table import Table


@dataclass(frozen=True)
class Heading:
    level: int  # 2..6; the document title is level 1
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class BulletList:
    items: Tuple[str, ...]


@dataclass(frozen=True)
class TableBlock:
    """A table with its title (a level-3 heading), its rows and its note. ``marks`` are
    superscripts on cells, ``(row key, column key, text)`` (significance letters of a
    comparison); renderers print them after the cell's number."""

    table: Table
    marks: Tuple[Tuple[str, str, str], ...] = ()

    def mark(self, row_key: str, column_key: str) -> str:
        for row, column, text in self.marks:
            if row == row_key and column == column_key:
                return text
        return ""


@dataclass(frozen=True)
class Figure:
    """An SVG figure, stored beside the report as ``figures/<figure_id>.svg``."""

    figure_id: str
    caption: str
    svg: str


Block = Union[Heading, Paragraph, BulletList, TableBlock, Figure]


@dataclass(frozen=True)
class Document:
    title: str
    blocks: Tuple[Block, ...]

    def figures(self) -> Tuple[Figure, ...]:
        return tuple(b for b in self.blocks if isinstance(b, Figure))

    def tables(self) -> Tuple[Table, ...]:
        return tuple(b.table for b in self.blocks if isinstance(b, TableBlock))
