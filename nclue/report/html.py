"""Render a :class:`nclue.report.document.Document` as one static, self-contained HTML page.

The page has inline CSS and the SVG figures inlined: no scripts, no external assets, and it is
deterministic (the same document gives byte-identical output; no dates, no random ids). Every
heading gets ``id="sec-<slug>"`` (duplicates numbered ``-2``, ``-3``). Tables print each cell at
its printed decimals; body cells that are plain numbers get ``class="num"`` (right-aligned,
tabular figures) and the first cell of each row is a row header. Text is escaped from the document
model (:func:`inline_html`): every string verbatim, never re-read as Markdown or passed through as
HTML; only the model's spans (code, strong, links) become elements. Figures are checked by
:func:`check_svg` before they are inlined.
"""

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html import escape
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ..claims import format_fixed
from ..errors import NclueError
from .document import (BulletList, Code, Document, Figure, Heading, Inline, Paragraph, Strong,
                       TableBlock, spans)

SVG_NS = "{http://www.w3.org/2000/svg}"
#: tables of this many columns or more are set smaller (class ``wide``), so that a 20-column
#: table (v1's Table 5 analogue) fits a 1,400 px window without sideways scrolling
WIDE_COLUMNS = 14

_NUMBER = re.compile(r"^[-+\u2212]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?%?$")
_FIGURE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_CSS_URL = re.compile(r"url\(\s*['\"]?\s*(?!#)", re.IGNORECASE)



def esc(text: str) -> str:
    """Escape ``& < > " '`` for HTML text and attribute values."""
    return escape(text, quote=True)


@dataclass(frozen=True)
class InlineSvg:
    """A checked SVG ready to inline: its text (no XML declaration), its ids and ``<title>``."""

    name: str
    text: str
    ids: Tuple[str, ...]
    title: str


# ---------------------------------------------------------------------------------------------
# Inline text


def _safe_target(target: str) -> str:
    match = _SCHEME.match(target)
    if match and match.group(1).lower() not in ("http", "https", "mailto"):
        raise NclueError(f"link target {target!r} uses the scheme {match.group(1)!r}; only http, "
                         f"https, mailto, #fragment and relative paths are allowed (no scripts)")
    return target


def inline_html(text: Inline) -> str:
    """Inline text as HTML: every string escaped verbatim (no Markdown is parsed), spans as
    ``<code>``, ``<strong>`` and ``<a href>`` (see :mod:`nclue.report.document`)."""
    out: List[str] = []
    for span in spans(text):
        if isinstance(span, str):
            out.append(esc(span))
        elif isinstance(span, Code):
            out.append(f"<code>{esc(span.text)}</code>")
        elif isinstance(span, Strong):
            out.append(f"<strong>{esc(span.text)}</strong>")
        else:
            out.append(f'<a href="{esc(_safe_target(span.target))}">{esc(span.text)}</a>')
    return "".join(out)


_BREAK_AFTER = re.compile(r"([_/+]|\.(?=[A-Za-z])|@(?=[A-Za-z0-9]))(?=\S)")


def breakable_html(text: str) -> str:
    """Plain text as HTML with a line-break opportunity (``<wbr/>``) after ``_ / +`` and after
    ``.``/``@`` before a letter or digit, so that identifiers such as ``nclue_score@10`` or
    ``bm25_page_max.clean`` in table headers and row labels can wrap instead of widening the
    table; the characters themselves are unchanged (copying the text gives the same string)."""
    return "".join(esc(piece) if i % 2 == 0 else esc(piece) + "<wbr/>"
                   for i, piece in enumerate(_BREAK_AFTER.split(text)) if piece is not None)


def _slug(text: str, ids: Set[str]) -> str:
    base = "sec-" + (re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section")
    slug = base
    number = 2
    while slug in ids:
        slug = f"{base}-{number}"
        number += 1
    ids.add(slug)
    return slug


# ---------------------------------------------------------------------------------------------
# SVG checking and the page


def check_svg(name: str, svg_text: str) -> InlineSvg:
    """Parse an SVG figure and refuse anything that is not a plain, self-contained drawing:
    malformed XML, a DOCTYPE/entities, a root other than ``<svg>``, ``<script>``,
    ``<foreignObject>``, event-handler attributes, and references outside the document."""
    if not isinstance(name, str) or not _FIGURE_NAME.match(name):
        raise NclueError(f"figure name {name!r} must be letters, digits, '-' or '_'")
    if not isinstance(svg_text, str):
        raise NclueError(f"figure {name!r}: SVG must be text, got {type(svg_text).__name__}")
    body = svg_text.strip()
    if body.startswith("<?xml"):
        end = body.find("?>")
        if end < 0:
            raise NclueError(f"figure {name!r}: unterminated XML declaration")
        body = body[end + 2:].strip()
    if re.search(r"<!(DOCTYPE|ENTITY)", body, re.IGNORECASE):
        raise NclueError(f"figure {name!r}: DOCTYPE and entity declarations are not allowed")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise NclueError(f"figure {name!r}: not well-formed XML ({exc})") from None
    if root.tag != SVG_NS + "svg":
        raise NclueError(f"figure {name!r}: root element is {root.tag!r}, expected an SVG <svg>")
    ids: List[str] = []
    for element in root.iter():
        local = element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""
        if local.lower() in ("script", "foreignobject", "iframe", "object", "embed", "image"):
            raise NclueError(f"figure {name!r}: <{local}> elements are not allowed")
        for attr, value in element.attrib.items():
            key = attr.rsplit("}", 1)[-1].lower()
            if key.startswith("on"):
                raise NclueError(f"figure {name!r}: event attribute {key!r} is not allowed")
            if key in ("href", "src") and not value.startswith("#"):
                raise NclueError(f"figure {name!r}: reference {value!r} points outside the figure")
            if _CSS_URL.search(value):
                raise NclueError(f"figure {name!r}: url() to an outside resource in {key!r}")
            if key == "id":
                ids.append(value)
        if local == "style" and (_CSS_URL.search(element.text or "") or "@import" in (element.text or "")):
            raise NclueError(f"figure {name!r}: <style> loads an outside resource")
    if len(set(ids)) != len(ids):
        raise NclueError(f"figure {name!r}: an id is used twice inside the figure")
    title_el = root.find(SVG_NS + "title")
    title = "".join(title_el.itertext()).strip() if title_el is not None else ""
    return InlineSvg(name=name, text=body, ids=tuple(ids), title=title)


def check_figures(figures: Mapping[str, str]) -> Dict[str, InlineSvg]:
    """Check every figure (see :func:`check_svg`) and that no id is shared between figures."""
    if not isinstance(figures, Mapping):
        raise NclueError(f"figures must be a mapping name -> SVG text, got {type(figures).__name__}")
    checked = {name: check_svg(name, figures[name]) for name in sorted(figures)}
    owner: Dict[str, str] = {}
    for name, svg in checked.items():
        for ident in svg.ids + (f"figure-{name}",):
            if ident in owner:
                raise NclueError(f"figures {owner[ident]!r} and {name!r} both use the id {ident!r}; "
                                 f"give each figure its own figure_id")
            owner[ident] = name
    return checked


CSS = """\
:root{color-scheme:light}
body{margin:0;background:#f4f5f7;color:#1b1f24;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:90rem;margin:0 auto;padding:1.5rem 1.5rem 3rem;background:#ffffff}
h1,h2,h3,h4,h5,h6{line-height:1.25;margin:1.6em 0 .6em}
h1{font-size:1.9rem;margin-top:.4em}
h2{font-size:1.45rem;border-bottom:1px solid #d8dde3;padding-bottom:.25em}
h3{font-size:1.2rem}
h4{font-size:1.05rem}
p,ul,ol{margin:.7em 0}
code{font:.9em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;background:#eef0f3;padding:.1em .3em;border-radius:3px;overflow-wrap:anywhere}
pre{background:#eef0f3;padding:.8em 1em;overflow-x:auto;border-radius:4px}
pre code{background:none;padding:0}
a{color:#0b5cad}
hr{border:0;border-top:1px solid #d8dde3;margin:2em 0}
nav.toc{border:1px solid #d8dde3;background:#f8f9fb;padding:.6em 1.2em;margin:1em 0 1.5em;font-size:.95rem}
nav.toc .toc-title{font-weight:bold;margin:.2em 0}
nav.toc ol{margin:.2em 0;padding-left:1.4em}
nav.toc ol ol{font-size:.92em}
.table-wrap{overflow-x:auto;margin:1em 0}
table{border-collapse:collapse;font-size:.88rem}
th,td{border:1px solid #d8dde3;padding:.3em .5em;text-align:left;vertical-align:top}
thead th{background:#e9edf1;vertical-align:bottom;font-weight:600;min-width:3.5em}
tbody th{font-weight:normal;width:14em;overflow-wrap:break-word}
tbody tr:nth-child(even){background:#f8f9fb}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.table-wrap.wide table{font-size:.72rem}
.table-wrap.wide th,.table-wrap.wide td{padding:.25em .3em}
.table-wrap.wide thead th{min-width:2.6em}
.table-wrap.wide tbody th{width:11em}
sup{font-size:.75em}
figure{margin:1.5em 0}
figure svg{display:block;max-width:100%;height:auto;border:1px solid #d8dde3}
figcaption{font-size:.92rem;color:#40464d;margin-top:.4em}
@page{size:A4 landscape;margin:12mm}
@media print{body{background:#ffffff;font-size:10pt}main{max-width:none;padding:0}nav.toc{display:none}.table-wrap{overflow:visible}table{font-size:7.5pt;width:100%;table-layout:auto;page-break-inside:auto}tr{page-break-inside:avoid}th,td{padding:.15em .25em}thead{display:table-header-group}.table-wrap.wide table{font-size:6.5pt}.table-wrap.wide th,.table-wrap.wide td{padding:.12em .18em}.table-wrap.wide thead th{min-width:0}tbody th{width:16em;overflow-wrap:normal}thead th{min-width:0}figure{page-break-inside:avoid}h2,h3{page-break-after:avoid}a{color:inherit;text-decoration:none}}
"""



# ---------------------------------------------------------------------------------------------
# The page


def _table_html(block: TableBlock, slug: str, out: List[str]) -> None:
    table = block.table
    decimals = table.decimals()
    out.append(f'<h3 id="{slug}">{inline_html(table.title)}</h3>')
    wide = " wide" if len(table.columns) >= WIDE_COLUMNS else ""
    out.append(f'<div class="table-wrap{wide}">')
    out.append("<table>")
    out.append("<thead>")
    out.append('<tr><th scope="col"></th>' + "".join(
        f'<th scope="col">{breakable_html(c.header)}</th>' for c in table.columns) + "</tr>")
    out.append("</thead>")
    if table.rows:
        out.append("<tbody>")
        for row_key, label, values in table.rows:
            tags = [f'<th scope="row">{breakable_html(label)}</th>']
            for column in table.columns:
                value = values.get(column.key)
                text = "" if value is None else format_fixed(value, decimals[(table.table_id, row_key, column.key)])
                number = ' class="num"' if _NUMBER.match(text) else ""
                mark = block.mark(row_key, column.key)
                sup = f"<sup>{esc(mark)}</sup>" if mark else ""
                tags.append(f"<td{number}>{inline_html(text)}{sup}</td>")
            out.append("<tr>" + "".join(tags) + "</tr>")
        out.append("</tbody>")
    out.append("</table>")
    out.append("</div>")
    if table.printed_note:
        out.append(f"<p>{inline_html(table.printed_note)}</p>")


def _anchors(document: Document) -> Tuple[str, List[Tuple[int, str, str]]]:
    """The title's id and ``(level, text, anchor)`` of every heading, table and figure, in
    document order (the table of contents and the ids the page uses)."""
    ids: Set[str] = set()
    title = _slug(document.title, ids)
    entries: List[Tuple[int, str, str]] = []
    for block in document.blocks:
        if isinstance(block, Heading):
            entries.append((block.level, block.text, _slug(block.text, ids)))
        elif isinstance(block, TableBlock):
            entries.append((3, block.table.title, _slug(block.table.title, ids)))
        elif isinstance(block, Figure):
            entries.append((2, block.caption, f"figure-{block.figure_id}"))
    return title, entries


def _contents(entries: Sequence[Tuple[int, str, str]]) -> List[str]:
    """A nested list of links: level-2 entries, each with its level-3 entries (tables) below
    it; none for a page of fewer than three entries."""
    if len(entries) < 3:
        return []
    groups: List[Tuple[Optional[Tuple[str, str]], List[Tuple[str, str]]]] = []
    for level, text, anchor in entries:
        if level <= 2 or not groups:
            groups.append(((text, anchor) if level <= 2 else None, []))
        if level >= 3:
            groups[-1][1].append((text, anchor))
    out = ['<nav class="toc" aria-label="Contents">', '<p class="toc-title">Contents</p>', "<ol>"]
    for head, children in groups:
        link = f'<a href="#{head[1]}">{inline_html(head[0])}</a>' if head else ""
        if not children:
            out.append(f"<li>{link}</li>")
            continue
        out.append(f"<li>{link}")
        out.append("<ol>")
        out.extend(f'<li><a href="#{anchor}">{inline_html(text)}</a></li>' for text, anchor in children)
        out.append("</ol></li>")
    out += ["</ol>", "</nav>"]
    return out


def render_html(document: Document) -> str:
    """One static, self-contained HTML page of a document (see the module docstring), with a
    table of contents linking every section, table and figure."""
    if not isinstance(document.title, str) or not document.title.strip():
        raise NclueError("the report title must be a non-empty string")
    figures = check_figures({f.figure_id: f.svg for f in document.figures()})
    title_id, entries = _anchors(document)
    anchors = iter(entries)
    out: List[str] = [f'<h1 id="{title_id}">{inline_html(document.title)}</h1>']
    out += _contents(entries)
    for block in document.blocks:
        if isinstance(block, Heading):
            out.append(f'<h{block.level} id="{next(anchors)[2]}">{inline_html(block.text)}'
                       f'</h{block.level}>')
        elif isinstance(block, Paragraph):
            out.append(f"<p>{inline_html(block.text)}</p>")
        elif isinstance(block, BulletList):
            out.append("<ul>")
            out.extend(f"<li>{inline_html(item)}</li>" for item in block.items)
            out.append("</ul>")
        elif isinstance(block, TableBlock):
            _table_html(block, next(anchors)[2], out)
        elif isinstance(block, Figure):
            next(anchors)
            out.append(f'<figure id="figure-{block.figure_id}">')
            out.append(figures[block.figure_id].text)
            out.append(f"<figcaption>{inline_html(block.caption)}</figcaption>")
            out.append("</figure>")
        else:
            raise TypeError(f"not a document block: {block!r}")
    ids = {title_id} | {anchor for _, _, anchor in entries if not anchor.startswith("figure-")}
    for svg in figures.values():
        clash = ids.intersection(svg.ids + (f"figure-{svg.name}",))
        if clash:
            raise NclueError(f"figure {svg.name!r} uses the id {sorted(clash)[0]!r} of a heading")
    title = esc(document.title)
    return ("<!DOCTYPE html>\n"
            '<html lang="en">\n'
            "<head>\n"
            '<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{title}</title>\n"
            f"<style>\n{CSS}</style>\n"
            "</head>\n"
            "<body>\n"
            "<main>\n"
            + "\n".join(out) + "\n"
            "</main>\n"
            "</body>\n"
            "</html>\n")
