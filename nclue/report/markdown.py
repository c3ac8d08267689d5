"""Render a :class:`nclue.report.document.Document` as GitHub Markdown (REPORT.md, tables.md).

Blocks are separated by one blank line; tables print every cell at its printed decimals
(:func:`nclue.claims.format_fixed`), the same text the claims are checked against.
"""

from typing import List

from ..claims import format_fixed
from ..table import Table
from .document import BulletList, Document, Figure, Heading, Paragraph, TableBlock


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table_lines(table: Table, block: "TableBlock | None" = None) -> List[str]:
    """One table as Markdown lines: a level-3 title, the pipe table (a literal ``|`` in a label
    or header is written ``\\|``), and its note."""
    decimals = table.decimals()
    lines = [f"### {table.title}", "",
             "| | " + " | ".join(_cell(c.header) for c in table.columns) + " |",
             "| --- |" + " --- |" * len(table.columns)]
    for row_key, label, values in table.rows:
        cells = []
        for column in table.columns:
            value = values.get(column.key)
            key = (table.table_id, row_key, column.key)
            text = "" if value is None else format_fixed(value, decimals[key])
            mark = block.mark(row_key, column.key) if block is not None else ""
            cells.append(text + (f"<sup>{mark}</sup>" if mark else ""))
        lines.append(f"| {_cell(label)} | " + " | ".join(cells) + " |")
    if table.printed_note:
        lines += ["", table.printed_note]
    return lines


def block_lines(block) -> List[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + block.text]
    if isinstance(block, Paragraph):
        return [block.text]
    if isinstance(block, BulletList):
        return [f"- {item}" for item in block.items]
    if isinstance(block, TableBlock):
        return table_lines(block.table, block)
    if isinstance(block, Figure):
        return [f"![{block.caption}](figures/{block.figure_id}.svg)"]
    raise TypeError(f"not a document block: {block!r}")


def render_markdown(document: Document) -> str:
    parts = ["# " + document.title] + ["\n".join(block_lines(b)) for b in document.blocks]
    return "\n\n".join(parts) + "\n"
