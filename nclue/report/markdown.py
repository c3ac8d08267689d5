"""Render a :class:`nclue.report.document.Document` as GitHub Markdown (REPORT.md, tables.md).

Blocks are separated by one blank line; tables print every cell at its printed decimals
(:func:`nclue.claims.format_fixed`), the same text the claims are checked against. Text is
escaped from the document model (:func:`escape_markdown`), so that GitHub shows it verbatim
(``#{|T*| >= |T|}`` is written ``#{|T\\*| >= |T|}``); only the model's spans become Markdown
(:func:`inline_markdown`).
"""

import re
from typing import List

from ..claims import format_fixed
from ..table import Table
from .document import (BulletList, Code, Document, Figure, Heading, Inline, Paragraph, Strong,
                       TableBlock, spans)

_ALWAYS = frozenset("\\`*[]<")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")
_BLOCK_START = re.compile(r"^(#|>|[-+=](\s|$))")
_ORDERED_START = re.compile(r"^([0-9]+)([.)])(\s|$)")


def escape_markdown(text: str, at_start: bool = True) -> str:
    """``text`` with a backslash before every character GitHub Markdown would read as markup:
    ``\\ ` * [ ] <`` always, ``_`` unless both neighbours are letters or digits (GitHub does not
    emphasise inside words), ``&`` before an entity name, and a leading ``#``, ``>``, ``-``,
    ``+``, ``=`` or ``1.`` that would start a block (``at_start``: the text opens its line)."""
    out = []
    for i, ch in enumerate(text):
        if ch in _ALWAYS:
            out.append("\\" + ch)
        elif ch == "_" and not (0 < i < len(text) - 1 and text[i - 1].isalnum()
                                and text[i + 1].isalnum()):
            out.append("\\_")
        elif ch == "&" and _ENTITY.match(text, i):
            out.append("\\&")
        else:
            out.append(ch)
    escaped = "".join(out)
    if not at_start:
        return escaped
    if _BLOCK_START.match(escaped):
        return "\\" + escaped
    return _ORDERED_START.sub(lambda m: m.group(1) + "\\" + m.group(2) + m.group(3), escaped, 1)


def _code(text: str) -> str:
    """A code span whose fence is longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def inline_markdown(text: Inline) -> str:
    """Inline text as Markdown: strings escaped (:func:`escape_markdown`), spans as code,
    ``**strong**`` and ``[text](target)``."""
    out = []
    for span in spans(text):
        if isinstance(span, str):
            out.append(escape_markdown(span, at_start=not out))
        elif isinstance(span, Code):
            out.append(_code(span.text))
        elif isinstance(span, Strong):
            out.append(f"**{escape_markdown(span.text)}**")
        else:
            out.append(f"[{escape_markdown(span.text)}]({span.target})")
    return "".join(out)


def _cell(text: str) -> str:
    return escape_markdown(text).replace("|", "\\|")


def table_lines(table: Table, block: "TableBlock | None" = None) -> List[str]:
    """One table as Markdown lines: a level-3 title, the pipe table (a literal ``|`` in a label
    or header is written ``\\|``), and its note."""
    decimals = table.decimals()
    lines = [f"### {escape_markdown(table.title)}", "",
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
        lines += ["", escape_markdown(table.printed_note)]
    return lines


def block_lines(block) -> List[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + escape_markdown(block.text)]
    if isinstance(block, Paragraph):
        return [inline_markdown(block.text)]
    if isinstance(block, BulletList):
        return [f"- {inline_markdown(item)}" for item in block.items]
    if isinstance(block, TableBlock):
        return table_lines(block.table, block)
    if isinstance(block, Figure):
        return [f"![{escape_markdown(block.caption)}](figures/{block.figure_id}.svg)"]
    raise TypeError(f"not a document block: {block!r}")


def render_markdown(document: Document) -> str:
    parts = ["# " + escape_markdown(document.title)] + ["\n".join(block_lines(b)) for b in document.blocks]
    return "\n\n".join(parts) + "\n"
