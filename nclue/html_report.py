"""A static, self-contained HTML page for the release report (standard library only).

:func:`markdown_to_html` converts the Markdown subset that our reports use; :func:`render_report_html`
wraps it into ONE page with inline CSS and the SVG figures inlined: no scripts, no external
assets, deterministic (the same input gives byte-identical output; no dates, no random ids).

Markdown subset (GitHub-flavoured where it matters; anything else is literal, escaped text):

* ATX headings ``#`` .. ``######`` (each gets ``id="sec-<slug>"``, duplicates numbered ``-2``, ``-3``);
* paragraphs (consecutive non-blank lines; a blank line ends them);
* pipe tables: a header row and a delimiter row ``| --- | ---: |`` (``:`` sets alignment); rows
  must start with ``|``; ``\\|`` is a literal pipe in a cell; every row must have as many cells
  as the header (a mismatch is refused, not padded). When the header's first cell is empty (as in
  :func:`nclue.report.table_markdown`), body rows' first cells become row headers. Cells that are
  plain numbers get ``class="num"`` (right-aligned, tabular figures);
* bullet lists (``-``, ``*``, ``+``) and ordered lists (``1.``), nested by indentation; a list
  without blank lines between items is tight (no ``<p>`` in items);
* fenced code blocks (```` ``` ````), thematic breaks (``---``);
* inline: ```code```, ``**bold**``, ``*emphasis*``, ``[text](target)`` links (targets: http(s),
  mailto, ``#fragment`` or a relative path; ``javascript:`` and other schemes are refused),
  backslash escapes of ASCII punctuation;
* a paragraph consisting of one image ``![caption](name.svg)`` is replaced by the SVG figure
  ``name`` (the target's file stem) inlined with its caption; without such a figure it is refused,
  since an ``<img>`` would be an external asset. Images inside running text are refused.

Raw HTML in the Markdown is escaped, never passed through. Bad input raises :class:`NclueError`
naming the Markdown line.
"""

import re
import string
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html import escape
from typing import Dict, List, Mapping, Optional, Set, Tuple

from .errors import NclueError

SVG_NS = "{http://www.w3.org/2000/svg}"

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,})[ \t]*([^`]*)$")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])([ \t]+(.*))?$")
_IMAGE_PARA = re.compile(r"^!\[((?:[^\[\]\\]|\\.)*)\]\(([^()\s]+)\)$")
_LINK = re.compile(r"\[((?:[^\[\]\\]|\\.)*)\]\(([^()\s]*)\)")
_RULE_CELL = re.compile(r"^:?-+:?$")
_NUMBER = re.compile(r"^[-+\u2212]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?%?$")
_FIGURE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_CSS_URL = re.compile(r"url\(\s*['\"]?\s*(?!#)", re.IGNORECASE)
_PUNCT = frozenset(string.punctuation)

Line = Tuple[int, str]  # (1-based line number in the Markdown text, text)


def esc(text: str) -> str:
    """Escape ``& < > " '`` for HTML text and attribute values."""
    return escape(text, quote=True)


@dataclass
class _Context:
    figures: Mapping[str, "InlineSvg"]
    used: List[str] = field(default_factory=list)
    ids: Set[str] = field(default_factory=set)


@dataclass(frozen=True)
class InlineSvg:
    """A checked SVG ready to inline: its text (no XML declaration), its ids and ``<title>``."""

    name: str
    text: str
    ids: Tuple[str, ...]
    title: str


# ---------------------------------------------------------------------------------------------
# Inline Markdown


def _safe_target(target: str, line: int) -> str:
    match = _SCHEME.match(target)
    if match and match.group(1).lower() not in ("http", "https", "mailto"):
        raise NclueError(f"Markdown line {line}: link target {target!r} uses the scheme "
                         f"{match.group(1)!r}; only http, https, mailto, #fragment and relative "
                         f"paths are allowed (no scripts)")
    return target


def _code_span_end(text: str, start: int, run: int) -> int:
    """Index of the closing backtick run of exactly ``run`` ticks after ``start``, or -1."""
    pos = start
    n = len(text)
    while pos < n:
        if text[pos] == "`":
            end = pos
            while end < n and text[end] == "`":
                end += 1
            if end - pos == run:
                return pos
            pos = end
        else:
            pos += 1
    return -1


def inline_html(text: str, line: int = 0) -> str:
    """Render inline Markdown (code, bold, emphasis, links, backslash escapes); escape the rest."""
    out: List[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in _PUNCT:
            out.append(esc(text[i + 1]))
            i += 2
            continue
        if c == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            close = _code_span_end(text, j, j - i)
            if close < 0:
                out.append(esc(text[i:j]))
                i = j
                continue
            content = text[j:close].replace("\n", " ")
            if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip():
                content = content[1:-1]
            out.append(f"<code>{esc(content)}</code>")
            i = close + (j - i)
            continue
        if c == "!" and i + 1 < n and text[i + 1] == "[" and _LINK.match(text, i + 1):
            raise NclueError(f"Markdown line {line}: an image inside running text; a figure must "
                             f"stand alone in its own paragraph")
        if c == "[":
            match = _LINK.match(text, i)
            if match:
                target = _safe_target(match.group(2), line)
                out.append(f'<a href="{esc(target)}">{inline_html(match.group(1), line)}</a>')
                i = match.end()
                continue
        if text.startswith("**", i):
            close = text.find("**", i + 2)
            if close > i + 2 and not text[i + 2].isspace() and not text[close - 1].isspace():
                out.append(f"<strong>{inline_html(text[i + 2:close], line)}</strong>")
                i = close + 2
                continue
        if c == "*" and i + 1 < n and text[i + 1] not in " \t\n*":
            close = i + 1
            while True:
                close = text.find("*", close + 1)
                if close < 0 or not text[close - 1].isspace():
                    break
            if close > i + 1 and not text.startswith("**", close):
                out.append(f"<em>{inline_html(text[i + 1:close], line)}</em>")
                i = close + 1
                continue
        out.append(esc(c))
        i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Blocks


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _split_cells(text: str) -> List[str]:
    body = text.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells: List[str] = []
    current: List[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            current.append("|")
            i += 2
            continue
        if body[i] == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(body[i])
        i += 1
    cells.append("".join(current).strip())
    return cells


def _is_rule(text: str) -> bool:
    stripped = text.strip()
    if "|" not in stripped or "-" not in stripped:
        return False
    return all(_RULE_CELL.match(cell) for cell in _split_cells(stripped))


def _starts_table(lines: List[Line], i: int) -> bool:
    return (lines[i][1].lstrip().startswith("|") and i + 1 < len(lines) and _is_rule(lines[i + 1][1]))


def _starts_block(lines: List[Line], i: int) -> bool:
    """Does line ``i`` start a block that interrupts a paragraph?"""
    text = lines[i][1]
    stripped = text.strip()
    return bool(_HEADING.match(text) or _FENCE.match(text) or _HR.match(text)
                or (_ITEM.match(text) and _ITEM.match(text).group(3))
                or _starts_table(lines, i) or _IMAGE_PARA.match(stripped))


def _slug(text: str, ids: Set[str]) -> str:
    base = "sec-" + (re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section")
    slug = base
    number = 2
    while slug in ids:
        slug = f"{base}-{number}"
        number += 1
    ids.add(slug)
    return slug


def _table(lines: List[Line], i: int, out: List[str]) -> int:
    line_no, header_text = lines[i]
    header = _split_cells(header_text)
    rule = _split_cells(lines[i + 1][1])
    if len(rule) != len(header):
        raise NclueError(f"Markdown line {lines[i + 1][0]}: table delimiter row has {len(rule)} cells, "
                         f"the header has {len(header)}")
    aligns: List[Optional[str]] = []
    for cell in rule:
        left, right = cell.startswith(":"), cell.endswith(":")
        aligns.append("center" if left and right else "right" if right else "left" if left else None)
    row_headers = header[0] == ""

    def attrs(col: int, cell: str, is_body: bool) -> str:
        parts = []
        if is_body and not (row_headers and col == 0) and _NUMBER.match(cell):
            parts.append(' class="num"')
        if aligns[col] is not None:
            parts.append(f' style="text-align:{aligns[col]}"')
        return "".join(parts)

    out.append('<div class="table-wrap">')
    out.append("<table>")
    out.append("<thead>")
    out.append("<tr>" + "".join(f'<th scope="col"{attrs(c, cell, False)}>{inline_html(cell, line_no)}</th>'
                                for c, cell in enumerate(header)) + "</tr>")
    out.append("</thead>")
    j = i + 2
    body: List[str] = []
    while j < len(lines) and lines[j][1].strip().startswith("|"):
        row_no, row_text = lines[j]
        cells = _split_cells(row_text)
        if len(cells) != len(header):
            raise NclueError(f"Markdown line {row_no}: table row has {len(cells)} cells, the header "
                             f"has {len(header)} (write a literal pipe as \\|, also inside code spans)")
        tags = []
        for c, cell in enumerate(cells):
            tag = "th" if row_headers and c == 0 else "td"
            scope = ' scope="row"' if tag == "th" else ""
            tags.append(f"<{tag}{scope}{attrs(c, cell, True)}>{inline_html(cell, row_no)}</{tag}>")
        body.append("<tr>" + "".join(tags) + "</tr>")
        j += 1
    if body:
        out.append("<tbody>")
        out.extend(body)
        out.append("</tbody>")
    out.append("</table>")
    out.append("</div>")
    return j


def _list(lines: List[Line], i: int, ctx: _Context, out: List[str]) -> int:
    first = _ITEM.match(lines[i][1])
    base = len(first.group(1))
    ordered = first.group(2)[0].isdigit()
    delimiter = first.group(2)[-1] if ordered else first.group(2)
    items: List[List[Line]] = []
    loose = False
    j = i
    pending_blank = False
    content_col = 0
    while j < len(lines):
        line_no, text = lines[j]
        if not text.strip():
            pending_blank = True
            j += 1
            continue
        match = _ITEM.match(text)
        same_kind = (match is not None and match.group(3) is not None
                     and match.group(2)[0].isdigit() == ordered
                     and (match.group(2)[-1] if ordered else match.group(2)) == delimiter)
        if same_kind and len(match.group(1)) <= base + 1:
            if pending_blank and items:
                loose = True
            marker_end = match.start(3)
            content_col = marker_end + (len(match.group(3)) - len(match.group(3).lstrip(" \t")))
            items.append([(line_no, match.group(4) or "")])
            pending_blank = False
            j += 1
            continue
        if _indent(text) > base:
            if pending_blank:
                items[-1].append((line_no, ""))
            items[-1].append((line_no, text[min(_indent(text), content_col):]))
            pending_blank = False
            j += 1
            continue
        if not pending_blank and not _starts_block(lines, j):
            items[-1].append((line_no, text.strip()))  # lazy paragraph continuation
            j += 1
            continue
        break
    # A trailing blank line belongs to what follows, not to the list.
    if ordered:
        start = int(first.group(2)[:-1])
        out.append("<ol>" if start == 1 else f'<ol start="{start}">')
    else:
        out.append("<ul>")
    for item in items:
        inner: List[str] = []
        _blocks(item, ctx, inner, tight=not loose)
        out.append("<li>" + "\n".join(inner) + "</li>")
    out.append("</ol>" if ordered else "</ul>")
    return j


def _figure(name: str, caption: str, line: int, ctx: _Context, out: List[str]) -> None:
    svg = ctx.figures[name]
    if name in ctx.used:
        raise NclueError(f"Markdown line {line}: figure {name!r} is placed twice (its ids would clash)")
    ctx.used.append(name)
    out.append(f'<figure id="figure-{name}">')
    out.append(svg.text)
    out.append(f"<figcaption>{caption}</figcaption>")
    out.append("</figure>")


def _blocks(lines: List[Line], ctx: _Context, out: List[str], tight: bool = False) -> None:
    i = 0
    while i < len(lines):
        line_no, text = lines[i]
        stripped = text.strip()
        if not stripped:
            i += 1
            continue
        fence = _FENCE.match(text)
        if fence:
            ticks = fence.group(1)
            j = i + 1
            body: List[str] = []
            while j < len(lines) and not lines[j][1].strip().startswith(ticks):
                body.append(lines[j][1])
                j += 1
            if j == len(lines):
                raise NclueError(f"Markdown line {line_no}: code fence {ticks} is never closed")
            lang = fence.group(2).strip().split(" ")[0] if fence.group(2).strip() else ""
            cls = f' class="language-{esc(lang)}"' if lang else ""
            out.append(f"<pre><code{cls}>" + "".join(esc(b) + "\n" for b in body) + "</code></pre>")
            i = j + 1
            continue
        heading = _HEADING.match(text)
        if heading:
            level = len(heading.group(1))
            content = re.sub(r"[ \t]+#+$", "", heading.group(2) or "").strip()
            if content.strip("#") == "":
                content = ""
            slug = _slug(content, ctx.ids)
            out.append(f'<h{level} id="{slug}">{inline_html(content, line_no)}</h{level}>')
            i += 1
            continue
        if _HR.match(text):
            out.append("<hr>")
            i += 1
            continue
        if _starts_table(lines, i):
            i = _table(lines, i, out)
            continue
        item = _ITEM.match(text)
        if item and item.group(3):
            i = _list(lines, i, ctx, out)
            continue
        image = _IMAGE_PARA.match(stripped)
        if image:
            target = image.group(2)
            stem = target.rsplit("/", 1)[-1]
            if stem.lower().endswith(".svg"):
                stem = stem[:-4]
            if stem not in ctx.figures:
                known = ", ".join(sorted(ctx.figures)) or "none"
                raise NclueError(f"Markdown line {line_no}: image {target!r} names no figure given to "
                                 f"the renderer (known: {known}); external images are not allowed")
            _figure(stem, inline_html(image.group(1), line_no), line_no, ctx, out)
            i += 1
            continue
        para: List[str] = [stripped]
        j = i + 1
        while j < len(lines) and lines[j][1].strip() and not _starts_block(lines, j):
            para.append(lines[j][1].strip())
            j += 1
        rendered = inline_html("\n".join(para), line_no)
        out.append(rendered if tight else f"<p>{rendered}</p>")
        i = j


def _numbered(text: str) -> List[Line]:
    if not isinstance(text, str):
        raise NclueError(f"Markdown text must be a string, got {type(text).__name__}")
    normal = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    return [(number, line) for number, line in enumerate(normal.split("\n"), start=1)]


def _convert(text: str, ctx: _Context) -> str:
    out: List[str] = []
    _blocks(_numbered(text), ctx, out)
    return "\n".join(out) + ("\n" if out else "")


def markdown_to_html(text: str, figures: Optional[Mapping[str, str]] = None) -> str:
    """HTML fragment for the Markdown subset described in the module docstring.

    ``figures`` (name -> SVG text) resolves stand-alone image paragraphs ``![caption](name.svg)``.
    """
    return _convert(text, _Context(figures=check_figures(figures or {})))


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
main{max-width:64rem;margin:0 auto;padding:1.5rem 1.5rem 3rem;background:#ffffff}
h1,h2,h3,h4,h5,h6{line-height:1.25;margin:1.6em 0 .6em}
h1{font-size:1.9rem;margin-top:.4em}
h2{font-size:1.45rem;border-bottom:1px solid #d8dde3;padding-bottom:.25em}
h3{font-size:1.2rem}
h4{font-size:1.05rem}
p,ul,ol{margin:.7em 0}
code{font:.9em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;background:#eef0f3;padding:.1em .3em;border-radius:3px}
pre{background:#eef0f3;padding:.8em 1em;overflow-x:auto;border-radius:4px}
pre code{background:none;padding:0}
a{color:#0b5cad}
hr{border:0;border-top:1px solid #d8dde3;margin:2em 0}
.table-wrap{overflow-x:auto;margin:1em 0}
table{border-collapse:collapse;font-size:.92rem}
th,td{border:1px solid #d8dde3;padding:.3em .6em;text-align:left;vertical-align:top}
thead th{background:#e9edf1}
tbody th{font-weight:normal}
tbody tr:nth-child(even){background:#f8f9fb}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
figure{margin:1.5em 0}
figure svg{display:block;max-width:100%;height:auto;border:1px solid #d8dde3}
figcaption{font-size:.92rem;color:#40464d;margin-top:.4em}
@media print{body{background:#ffffff}main{max-width:none;padding:0}}
"""


def render_report_html(title: str, markdown_text: str, figures: Mapping[str, str]) -> str:
    """One static, self-contained HTML page: inline CSS, the SVG figures inlined, no scripts.

    Figures named by a stand-alone image paragraph ``![caption](name.svg)`` appear there with that
    caption; the others follow in name order under a final "Figures" heading, captioned with their
    SVG ``<title>``. An ``<h1>`` with ``title`` is added unless the Markdown starts with one.
    """
    if not isinstance(title, str) or not title.strip():
        raise NclueError("the report title must be a non-empty string")
    ctx = _Context(figures=check_figures(figures))
    body = _convert(markdown_text, ctx)
    rest = [name for name in sorted(ctx.figures) if name not in ctx.used]
    if rest:
        tail: List[str] = [f'<h2 id="{_slug("Figures", ctx.ids)}">Figures</h2>']
        for name in rest:
            _figure(name, esc(ctx.figures[name].title or name), 0, ctx, tail)
        body += "\n".join(tail) + "\n"
    heading_ids = ctx.ids
    for svg in ctx.figures.values():
        clash = heading_ids.intersection(svg.ids + (f"figure-{svg.name}",))
        if clash:
            raise NclueError(f"figure {svg.name!r} uses the id {sorted(clash)[0]!r} of a heading")
    first = next((line for _, line in _numbered(markdown_text) if line.strip()), "")
    header = "" if re.match(r"^ {0,3}#[ \t]", first) else f"<h1>{esc(title)}</h1>\n"
    return ("<!DOCTYPE html>\n"
            '<html lang="en">\n'
            "<head>\n"
            '<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n"
            f"<style>\n{CSS}</style>\n"
            "</head>\n"
            "<body>\n"
            "<main>\n"
            f"{header}{body}"
            "</main>\n"
            "</body>\n"
            "</html>\n")
