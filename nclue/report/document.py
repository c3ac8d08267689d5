"""The report as a small document: headings, paragraphs, lists, tables and figures.

A release report (REPORT.md / REPORT.html) and the reference tables (tables.md) are built once as
a :class:`Document` and rendered by :mod:`nclue.report.markdown` and :mod:`nclue.report.html`
(and any further renderer); nothing renders a document by re-reading another rendering.

Text is data, never markup: a ``str`` anywhere in a document (a heading, a paragraph, a list item,
a table's title, headers, labels and note, a figure caption) is shown verbatim, every character as
written, and each renderer escapes it for its target (HTML, Markdown, LaTeX), so ``#{|T*| >= |T|}``
stays ``#{|T*| >= |T|}``. Paragraphs and list items may instead be a tuple of *spans*
(:data:`Inline`): plain strings and the three marked spans :class:`Code`, :class:`Strong` and
:class:`Link`, built by the code that writes the sentence. No renderer parses Markdown out of
text.
"""

from dataclasses import dataclass
from typing import Tuple, Union

from ..table import Table


@dataclass(frozen=True)
class Code:
    """Inline code (a command, a file name), shown verbatim in a monospace face."""

    text: str


@dataclass(frozen=True)
class Strong:
    """Strongly emphasised text (a finding's verdict)."""

    text: str


@dataclass(frozen=True)
class Link:
    """A link: ``target`` is http(s), mailto, a ``#fragment`` or a relative path (renderers
    refuse any other scheme)."""

    text: str
    target: str


Span = Union[str, Code, Strong, Link]
#: A paragraph's or list item's text: plain text, or spans in reading order.
Inline = Union[str, Tuple[Span, ...]]


def spans(text: Inline) -> Tuple[Span, ...]:
    """The spans of inline text (a plain string is one span); anything else is a TypeError."""
    items = (text,) if isinstance(text, str) else text
    if not isinstance(items, tuple):
        raise TypeError(f"inline text must be a str or a tuple of spans, got {type(text).__name__}")
    for span in items:
        if not isinstance(span, (str, Code, Strong, Link)):
            raise TypeError(f"not an inline span: {span!r}")
    return items


def plain(text: Inline) -> str:
    """What a reader sees of inline text, as one string (link targets left out)."""
    return "".join(span if isinstance(span, str) else span.text for span in spans(text))


@dataclass(frozen=True)
class Heading:
    level: int  # 2..6; the document title is level 1
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: Inline


@dataclass(frozen=True)
class BulletList:
    items: Tuple[Inline, ...]


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
