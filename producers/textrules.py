"""Pure, standard-library text rules used by the source producers (issue 4).

Everything here is a deterministic function of its arguments (no subprocess, no files), so it is
unit-tested in ``tests/test_producers_text.py`` without poppler. The producers in
``producers/texlive/`` and ``producers/v2/`` call these rules; ``provenance/extraction_rules.md``
documents them in words. ``nclue`` never imports this module.

Rules:
- :func:`split_form_feeds` -- page texts from ``pdftotext -layout`` output (one ``\\f`` per page).
- :func:`detect_language` -- stopword-ratio language rule (English kept).
- :func:`shingles`, :func:`jaccard` -- 5-word-shingle near-duplicate rule (Broder 1997).
- :func:`parse_outline_xml` -- bookmarks (title, page, level) from ``pdftohtml -xml`` output.
- :func:`text_rule_headings` -- heading fallback for PDFs without a usable outline.
- :func:`page_flags` -- page-quality flags: empty, garbage, toc, index.
- :func:`html_to_text`, :func:`paginate` -- HTML rendered to 80-column, 60-line pages (v2).
"""

import html
import re
import textwrap
import unicodedata
from html.parser import HTMLParser
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

# --------------------------------------------------------------------------------------------
# Pages


def split_form_feeds(text: str) -> List[str]:
    """Split ``pdftotext`` output into pages (list index 0 is page 1).

    ``pdftotext`` ends every page with a form feed, so the piece after the last ``\\f`` is empty
    and is dropped. A final piece that is not empty (output without a closing form feed) is kept
    as a page. Empty input has zero pages.
    """
    if text == "":
        return []
    pieces = text.split("\f")
    if pieces[-1] == "":
        pieces.pop()
    return pieces


# --------------------------------------------------------------------------------------------
# Language

# Distinctive function words per language (lower case). Words shared by several languages
# ("a", "de", "in", "la", "die"/"die" ...) are kept in only one list or dropped, so the ratios
# separate languages.
STOPWORDS: Dict[str, FrozenSet[str]] = {
    "en": frozenset("""the and of to is that for with as are this be by it or which from an not
        can on at you if will have has your we these they their its when then there was were
        been should would into also only other than such may used use each all but more
        following see how one two must does here""".split()),
    "de": frozenset("""und der das ist nicht ein eine einen dem den des mit sich auf für werden
        wird sind auch oder wenn bei zu von nach kann können über dass diese dieser wie im vom
        zur zum noch nur aus hier""".split()),
    "fr": frozenset("""le les des est une dans pour qui que sur pas avec sont par ce cette ces
        du au aux ou mais être peut nous vous il elle être fait comme son sa ses leur""".split()),
    "es": frozenset("""el los las del por una con para es que se lo como más pero sus al este
        esta son está puede también entre cuando""".split()),
    "it": frozenset("""il gli della delle dei che è per una con sono non nel nella alla come
        questo questa anche più può essere degli""".split()),
    "nl": frozenset("""het een van en is dat op te voor niet met zijn worden wordt deze dit bij
        ook als kan door naar""".split()),
    "pt": frozenset("""os uma não com para em que é do da dos das pelo pela são está como mais
        também pode""".split()),
    "pl": frozenset("""się nie jest na że do w z to jak oraz dla przez może są być tym""".split()),
}

_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)


_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CYRILLIC_RE = re.compile("[\u0400-\u04ff]")
_GREEK_RE = re.compile("[\u0370-\u03ff]")


_NON_LETTERS_RE = re.compile(r"[\W\d_]+")


def count_letters(text: str) -> int:
    """Number of letters (word characters that are neither digits nor underscore)."""
    return len(_NON_LETTERS_RE.sub("", text))


def _script_counts(text: str) -> Tuple[int, int, int, int]:
    """(letters, cjk, cyrillic, greek) counts; letters as in :func:`count_letters`."""
    letters = count_letters(text)
    cjk = len(_CJK_RE.findall(text))
    cyr = sum(1 for ch in _CYRILLIC_RE.findall(text) if ch.isalpha())
    greek = sum(1 for ch in _GREEK_RE.findall(text) if ch.isalpha())
    return letters, cjk, cyr, greek


def stopword_ratios(text: str) -> Tuple[int, Dict[str, float]]:
    """(number of words, fraction of words that are stopwords of each language)."""
    counts: Dict[str, int] = {}
    n = 0
    for w in _WORD_RE.findall(text):
        w = w.lower()
        counts[w] = counts.get(w, 0) + 1
        n += 1
    ratios = {}
    for lang, stop in STOPWORDS.items():
        ratios[lang] = (sum(counts.get(w, 0) for w in stop) / n) if n else 0.0
    return n, ratios


def detect_language(text: str, min_words: int = 200) -> str:
    """Language of a document's text by script shares and stopword ratios.

    Rule (in order):
    1. letters = alphabetic characters; if CJK characters are >= 20% of letters: ``"cjk"``;
       Cyrillic >= 20%: ``"cyrillic"``; Greek >= 20%: ``"greek"``.
    2. fewer than ``min_words`` words: ``"unknown"``.
    3. r[L] = share of words in language L's stopword list; best = the language with the largest
       r (ties: alphabetical). ``"en"`` if best is English, r[en] >= 0.08 and r[en] >= 2 x the
       second largest ratio; ``"en?"`` if best is English but one of those two tests fails and
       r[en] >= 0.04; another language L if r[L] >= 0.08; else ``"unknown"``.
    Only ``"en"`` documents are kept in the English pools.
    """
    letters, cjk, cyr, greek = _script_counts(text)
    if letters:
        if cjk / letters >= 0.2:
            return "cjk"
        if cyr / letters >= 0.2:
            return "cyrillic"
        if greek / letters >= 0.2:
            return "greek"
    n, ratios = stopword_ratios(text)
    if n < min_words:
        return "unknown"
    ranked = sorted(ratios.items(), key=lambda kv: (-kv[1], kv[0]))
    best, r_best = ranked[0]
    r_second = ranked[1][1]
    if best == "en":
        if r_best >= 0.08 and r_best >= 2.0 * r_second:
            return "en"
        if r_best >= 0.04:
            return "en?"
        return "unknown"
    if r_best >= 0.08:
        return best
    return "unknown"


# --------------------------------------------------------------------------------------------
# Near duplicates

_SHINGLE_WORD_RE = re.compile(r"\w+", re.UNICODE)


def words_of(text: str) -> List[str]:
    """Lower-cased word tokens (``\\w+``) in order."""
    return [w.lower() for w in _SHINGLE_WORD_RE.findall(text)]


def shingles(words: Sequence[str], k: int = 5) -> FrozenSet[Tuple[str, ...]]:
    """Set of contiguous ``k``-word tuples; a text of 1..k-1 words gives one short shingle."""
    if k < 1:
        raise ValueError("k must be >= 1")
    if not words:
        return frozenset()
    if len(words) < k:
        return frozenset([tuple(words)])
    return frozenset(tuple(words[i:i + k]) for i in range(len(words) - k + 1))


def jaccard(a: FrozenSet, b: FrozenSet) -> float:
    """|A n B| / |A u B|; two empty sets have Jaccard 0 (nothing shared)."""
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def duplicate_clusters(pairs: Iterable[Tuple[str, str]], ids: Iterable[str]) -> List[List[str]]:
    """Connected components (union-find) of ``pairs`` over ``ids``; each sorted, list sorted.

    Singletons are included. Used to group near duplicates before choosing representatives.
    """
    parent: Dict[str, str] = {i: i for i in ids}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            if rb < ra:
                ra, rb = rb, ra
            parent[rb] = ra
    groups: Dict[str, List[str]] = {}
    for i in parent:
        groups.setdefault(find(i), []).append(i)
    return sorted(sorted(g) for g in groups.values())


# --------------------------------------------------------------------------------------------
# Outlines

_OUTLINE_TOKEN_RE = re.compile(
    r"<outline>|</outline>|<item(?:\s+page=\"(\d+)\")?\s*>(.*?)</item>", re.DOTALL)
_TAG_RE = re.compile(r"<[^>]*>")
_SPACE_RE = re.compile(r"\s+")


def clean_title(raw: str) -> str:
    """Outline title: inner tags removed, entities unescaped, NFC, whitespace collapsed."""
    text = html.unescape(_TAG_RE.sub("", raw))
    text = unicodedata.normalize("NFC", text)
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return _SPACE_RE.sub(" ", text).strip()


def parse_outline_xml(xml_text: str, n_pages: Optional[int] = None) -> List[Dict[str, object]]:
    """Bookmarks from ``pdftohtml -xml -i -stdout -q -f 1 -l 1`` output.

    ``pdftohtml`` prints the outline as nested ``<outline>`` elements holding
    ``<item page="N">Title</item>``; an item's children follow it in a nested ``<outline>``.
    Level = nesting depth (1 = top). Items without a page attribute, with an empty title, or
    with a page outside 1..n_pages (when given) are dropped. Order is document (XML) order.
    The parser is a tolerant tokenizer (pdftohtml output is not always well-formed XML).
    """
    items: List[Dict[str, object]] = []
    depth = 0
    for match in _OUTLINE_TOKEN_RE.finditer(xml_text):
        token = match.group(0)
        if token == "<outline>":
            depth += 1
        elif token == "</outline>":
            depth = max(0, depth - 1)
        else:
            page_attr, raw_title = match.group(1), match.group(2)
            if page_attr is None:
                continue
            page = int(page_attr)
            title = clean_title(raw_title)
            if not title or page < 1 or (n_pages is not None and page > n_pages):
                continue
            items.append({"title": title, "page": page, "level": max(1, depth)})
    return items


# Text rule: numbering prefix such as "1", "2.3", "A.1", "Chapter 4", "Part II", "Appendix B".
_NUMBERING_RE = re.compile(
    r"^(?:(?:Chapter|Part|Section|Appendix)\s+[0-9IVXLC]+[.:]?\s+|"
    r"(?:[0-9]{1,2}|[A-Z])(?:\.[0-9]{1,2}){0,3}\.?\s+)")
_DOT_LEADER_RE = re.compile(r"(?:\.\s?){4,}|…{2,}")
_CODE_CHARS = set("\\{}=;<>$%#&|[]_^~@*")


def heading_candidate(line: str) -> Optional[Tuple[str, int]]:
    """(title, level) if ``line`` looks like a heading under the text rule, else None.

    A heading line, after stripping: 3..60 characters, at most 7 words, no dot leaders, no run of
    3+ spaces (a table row in -layout output), no code characters (``\\ { } = ; < > $ % # & | [ ] _ ^ ~ @ *``), not ending in ``, ; :`` or a
    digit-only token after text (TOC entry), containing at least 3 letters, and whose first
    character after an optional numbering prefix ("2.3 ", "A.1 ", "Chapter 4 ") is an upper-case
    letter. The title is the line without its numbering prefix. Level = 1 + number of dots in a
    numeric prefix (1 when unnumbered or "Chapter N").
    """
    s = line.strip()
    if not (3 <= len(s) <= 60):
        return None
    if _DOT_LEADER_RE.search(s) or any(ch in _CODE_CHARS for ch in s) or "   " in s:
        return None
    if s[-1] in ",;:":
        return None
    words = s.split()
    if len(words) > 7:
        return None
    m = _NUMBERING_RE.match(s)
    rest = s[m.end():] if m else s
    if not rest or not rest[0].isupper():
        return None
    if sum(1 for ch in rest if ch.isalpha()) < 3:
        return None
    if len(words) >= 2 and re.fullmatch(r"[0-9ivxlc]+", words[-1]):
        return None  # "Introduction 3": a TOC entry or running header with a page number
    level = 1
    if m:
        prefix = m.group(0).strip()
        if re.match(r"^(?:[0-9]{1,2}|[A-Z])(?:\.[0-9]{1,2})*\.?$", prefix):
            level = 1 + prefix.rstrip(".").count(".")
    return rest.strip(), level


def text_rule_headings(pages: Sequence[str], flags: Sequence[Sequence[str]]
                       ) -> List[Dict[str, object]]:
    """Heading fallback for documents without a usable outline (fewer than 3 items).

    On each page, a line is a heading if :func:`heading_candidate` accepts it and it is the first
    non-blank line of the page or follows a blank line. On pages flagged ``toc`` or ``index``
    only the top 5 non-blank lines are considered (so "Contents"/"Index" are found but not
    their entries). Pages flagged ``empty`` or ``garbage`` are skipped. Order: page, then line.
    """
    out: List[Dict[str, object]] = []
    for number, (text, page_flags_) in enumerate(zip(pages, flags), start=1):
        if "empty" in page_flags_ or "garbage" in page_flags_:
            continue
        limited = "toc" in page_flags_ or "index" in page_flags_
        previous_blank = True
        seen = 0
        for line in text.split("\n"):
            if not line.strip():
                previous_blank = True
                continue
            seen += 1
            if limited and seen > 5:
                break
            if previous_blank:
                cand = heading_candidate(line)
                if cand is not None:
                    out.append({"title": cand[0], "page": number, "level": cand[1]})
            previous_blank = False
    return out


# --------------------------------------------------------------------------------------------
# Page quality

_TOC_LINE_RE = re.compile(r"(?:(?:\.\s?){3,}|\s{2,})[0-9ivxlc]{1,4}\s*$")
_INDEX_NUMBERS_RE = re.compile(r",\s*[0-9]{1,4}(?:\s*[,–-]\s*[0-9]{1,4})*(?:\s{2,}|$)")
_LETTER_RE = re.compile(r"[^\W\d_]")


def _is_toc_line(line: str) -> bool:
    """Line ends with a page number (arabic or lower-case roman, <= 4 characters) after dot
    leaders (3+ dots, optionally spaced) or 2+ spaces. Only the last 12 characters can take part
    in such an ending, so only they are searched."""
    return _TOC_LINE_RE.search(line.rstrip()[-12:]) is not None


def _has_index_entry(line: str) -> bool:
    """Line holds "term, N" (N = 1..4 digits, optionally more numbers or ranges after commas or
    dashes), followed by 2+ spaces or the line end, with a letter between the previous comma
    (or line start) and the comma."""
    for m in _INDEX_NUMBERS_RE.finditer(line):
        start = line.rfind(",", 0, m.start()) + 1
        if _LETTER_RE.search(line, start, m.start()):
            return True
    return False
# U+FFFD, private use area, and control characters other than tab/newline/CR/form feed.
_BAD_CHAR_RE = re.compile("[\ufffd\ue000-\uf8ff\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_CONTENTS_HEAD_RE = re.compile(r"(?:Table of )?Contents", re.IGNORECASE)
_INDEX_HEAD_RE = re.compile(r"(?:[0-9.]+\s*)?(?:General |Command |Subject )?Index", re.IGNORECASE)


def page_flags(text: str) -> List[str]:
    """Quality flags of one page text, sorted; an empty list means a normal page.

    - ``empty``: fewer than 20 non-space characters.
    - ``garbage``: not empty, and letters are < 35% of non-space characters, or replacement /
      private-use / control characters are >= 10% of them (broken font encodings, glyph charts).
    - ``toc``: at least 5 non-blank lines and >= 40% of them end with a page number after dot
      leaders or 2+ spaces; or a "Contents" heading in the top 5 lines and >= 25% such lines.
    - ``index``: at least 5 non-blank lines and >= 40% of them hold an index entry ("word, 12"
      or "word, 12, 34-35"); or an "Index" heading in the top 5 lines and >= 20% such lines.
    """
    compact = "".join(text.split())
    n = len(compact)
    if n < 20:
        return ["empty"]
    flags = []
    letters = count_letters(compact)
    bad = len(_BAD_CHAR_RE.findall(text))
    if letters / n < 0.35 or bad / n >= 0.10:
        flags.append("garbage")
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if lines:
        top = lines[:5]
        toc_share = sum(1 for ln in lines if _is_toc_line(ln)) / len(lines)
        contents_head = any(_CONTENTS_HEAD_RE.fullmatch(ln.strip()) for ln in top)
        if (len(lines) >= 5 and toc_share >= 0.40) or (contents_head and toc_share >= 0.25):
            flags.append("toc")
        index_share = sum(1 for ln in lines if _has_index_entry(ln)) / len(lines)
        index_head = any(_INDEX_HEAD_RE.fullmatch(ln.strip()) for ln in top)
        if (len(lines) >= 5 and index_share >= 0.40) or (index_head and index_share >= 0.20):
            flags.append("index")
    return sorted(flags)


# --------------------------------------------------------------------------------------------
# HTML to text (v2: Python documentation)

_BLOCK_TAGS = {"p", "div", "section", "article", "table", "tr", "ul", "ol", "dl", "dt", "dd",
               "li", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "br", "hr",
               "main", "header", "footer", "figure", "caption", "tbody", "thead"}
_SKIP_TAGS = {"script", "style", "head", "title", "nav", "noscript", "template"}


class _TextExtractor(HTMLParser):
    """Collects blocks of (kind, text): kind is 'h1'..'h6', 'pre', 'li' or 'p'."""

    def __init__(self, skip_classes: FrozenSet[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: List[Tuple[str, str]] = []
        self._buf: List[str] = []
        self._kind = "p"
        self._skip_depth = 0
        self._stack: List[Tuple[str, bool]] = []
        self._pre = 0
        self._skip_classes = skip_classes

    def _flush(self) -> None:
        text = "".join(self._buf)
        self._buf = []
        if self._pre:
            if text.strip("\n"):
                self.blocks.append(("pre", text.strip("\n")))
        else:
            text = _SPACE_RE.sub(" ", text).strip()
            if text:
                self.blocks.append((self._kind, text))
        self._kind = "p"

    def handle_starttag(self, tag, attrs):  # noqa: D401 (HTMLParser API)
        attrs_d = dict(attrs)
        classes = set((attrs_d.get("class") or "").split())
        skip = tag in _SKIP_TAGS or bool(classes & self._skip_classes) or \
            attrs_d.get("role") == "navigation"
        if tag in ("br", "hr", "img", "meta", "link", "input", "wbr"):
            if tag in ("br", "hr") and not self._skip_depth:
                self._flush()
            return
        self._stack.append((tag, skip))
        if skip:
            self._skip_depth += 1
            return
        if self._skip_depth:
            return
        if tag in _BLOCK_TAGS:
            self._flush()
            if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                self._kind = tag
            elif tag == "li":
                self._kind = "li"
            if tag == "pre":
                self._pre += 1

    def handle_endtag(self, tag):
        if tag in ("br", "hr", "img", "meta", "link", "input", "wbr"):
            return
        # Pop to the matching start tag (tolerates unclosed inner tags).
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                popped = self._stack[i:]
                del self._stack[i:]
                break
        else:
            return
        for ptag, pskip in reversed(popped):
            if pskip:
                self._skip_depth -= 1
                continue
            if self._skip_depth:
                continue
            if ptag in _BLOCK_TAGS:
                self._flush()
                if ptag == "pre":
                    self._pre = max(0, self._pre - 1)

    def handle_data(self, data):
        if not self._skip_depth:
            self._buf.append(data)

    def close(self):
        super().close()
        self._flush()


def html_blocks(html_text: str, skip_classes: Iterable[str] = ()) -> List[Tuple[str, str]]:
    """Blocks of an HTML page as (kind, text); kind in h1..h6, pre, li, p. Scripts, styles,
    the head, navigation (``<nav>``, ``role="navigation"``) and elements with a class in
    ``skip_classes`` are dropped; whitespace outside ``<pre>`` is collapsed."""
    parser = _TextExtractor(frozenset(skip_classes))
    parser.feed(html_text)
    parser.close()
    return parser.blocks


def html_to_text(html_text: str, width: int = 80,
                 skip_classes: Iterable[str] = ()) -> Tuple[List[str], List[Tuple[str, int, int]]]:
    """Render HTML to text lines of at most ``width`` columns, with its headings.

    Paragraphs are wrapped with :func:`textwrap.wrap` (no hyphen breaking) and separated by a
    blank line; list items get a ``"* "`` bullet and a 2-space hanging indent; ``<pre>`` lines
    are kept verbatim and cut at ``width``; headings h1..h3 are recorded as (title, level,
    line index) and written as their own paragraph (the pilcrow/anchor sign is removed).
    Returns (lines, headings).
    """
    lines: List[str] = []
    headings: List[Tuple[str, int, int]] = []
    for kind, text in html_blocks(html_text, skip_classes):
        if lines and lines[-1] != "":
            lines.append("")
        if kind == "pre":
            for ln in text.split("\n"):
                ln = ln.expandtabs(8).rstrip()
                lines.append(ln[:width])
            continue
        if kind in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = text.replace("\u00b6", "").strip()
            if not text:
                continue
            if kind in ("h1", "h2", "h3"):
                headings.append((text, int(kind[1]), len(lines)))
        if kind == "li":
            wrapped = textwrap.wrap(text, width=width, initial_indent="* ",
                                    subsequent_indent="  ", break_on_hyphens=False)
        else:
            wrapped = textwrap.wrap(text, width=width, break_on_hyphens=False)
        lines.extend(wrapped)
    while lines and lines[-1] == "":
        lines.pop()
    return lines, headings


def paginate(lines: Sequence[str], page_lines: int = 60) -> List[str]:
    """Cut lines into pages of ``page_lines`` lines each (the last may be shorter); page text is
    the lines joined with ``\\n`` plus a final ``\\n``. No lines -> no pages."""
    if page_lines < 1:
        raise ValueError("page_lines must be >= 1")
    return ["\n".join(lines[i:i + page_lines]) + "\n"
            for i in range(0, len(lines), page_lines)]


def line_to_page(line_index: int, page_lines: int = 60) -> int:
    """1-based page holding 0-based line ``line_index`` under :func:`paginate`."""
    return line_index // page_lines + 1


# --------------------------------------------------------------------------------------------
# Identifiers

_DOCID_BAD_RE = re.compile(r"[^A-Za-z0-9._+-]+")


def make_docid(prefix: str, relpath: str, strip_prefixes: Sequence[str] = (),
               strip_suffixes: Sequence[str] = (".pdf",)) -> str:
    """Stable document id: ``prefix`` + ':' + path with a known prefix and suffix removed, '/'
    turned into '.', and any run of characters outside ``[A-Za-z0-9._+-]`` turned into '_'."""
    path = relpath
    for p in strip_prefixes:
        if path.startswith(p):
            path = path[len(p):]
            break
    for s in strip_suffixes:
        if path.lower().endswith(s):
            path = path[: -len(s)]
            break
    path = _DOCID_BAD_RE.sub("_", path.strip("/").replace("/", "."))
    return f"{prefix}:{path}"


def pod_headings(lines: Sequence[str]) -> List[Tuple[str, int, int]]:
    """(title, level, line index) of the headings in ``pod2text`` output.

    ``pod2text`` (Pod::Text) writes ``=head1`` titles at column 0 and ``=head2`` titles indented
    by exactly 2 spaces; body text, items and verbatim blocks are indented by 4 or more. So a
    non-blank line starting at column 0 is a level-1 heading and a line whose first non-space
    character is at column 2 is a level-2 heading."""
    out = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            out.append((line.strip(), 1, i))
        elif indent == 2:
            out.append((line.strip(), 2, i))
    return out
