"""Every number quoted in hand-written prose names the value it quotes, and is checked against it.

README.md, DATASHEET.md and docs/*.md bind each quoted release number to one checked value with
a marker placed right after the number (an HTML comment: invisible when rendered)::

    BM25-AND finds a gold for 79.1%<!--=v1/scorecard/bm25_and.clean/gold_hit@10--> of queries

Keys (what a marker may name):

- ``RELEASE/TABLE/ROW/COLUMN``: a claim of ``data/RELEASE/claims.json`` (every claim is
  recomputed from the release files by ``reproduce.py``);
- ``FILE#POINTER``: a value in a JSON file of the repository, addressed by a JSON pointer
  (RFC 6901), e.g. ``audit/quote_audit_v1_summary.json#/conditions/percent`` (a frozen audit
  value); a pointer step ``FIELD=VALUE`` picks the one list member whose FIELD is VALUE
  (``claims/papers/nclue.json#/prose/id=t1_median/s``: a paper's number as transcribed, kept as
  printed text); ``FILE#POINTER?count`` is the number of members of the list or object there,
  ``?count=VALUE`` the number of members equal to VALUE, and ``?count.FIELD=VALUE`` the number of
  member objects whose FIELD equals VALUE (e.g. how many frozen verdicts are EXACT).

Marked regions (HTML comments, on their own lines or inline)::

    <!-- numbers: bound v1 -->        every number inside must carry a marker; keys may leave
                                      out the release (``scorecard/bm25_and.clean/gold_hit@10``);
    <!-- numbers: bound FILE -->      ... or the file (``#/conditions/percent``);
    <!-- numbers: measured NOTE -->   measurements (benchmark timings): not claims, not checked;
    <!-- numbers: fixed NOTE -->      not data: definitions, settings, versions, section numbers;
    <!-- /numbers -->                 closes the region.

A single number is excluded with ``<!--=measured-->`` or ``<!--=fixed-->`` after it.

Rules (written out with examples in ``docs/CONVENTIONS.md``, "Numbers in prose"). **Every
number** of README.md, DATASHEET.md and docs/*.md must be bound or excluded: bound by a marker,
or excluded by ``<!--=fixed-->`` / ``<!--=measured-->`` or by a ``fixed`` / ``measured`` region;
any other number is a problem, so a new unmarked number cannot land. A marker binds the number
right before it (only spaces, ``%``, a closing backtick, bracket, quote or emphasis mark may come
between). A bound number is checked at its printed precision: against a claim, the quote must
equal the claim's printed value as a number (``17`` quotes ``17.0``; ``17.4`` does not quote
``17.45``; more decimals than the claim prints are refused); against a JSON value, the quote must
equal the value rounded half up at the quote's decimals (the claims rule, :mod:`nclue.claims`).
A sign printed before the number (``+``, ``-``, ``−``) is compared; an unsigned quote is compared
by magnitude ("falls by 36.0" quotes -36.0).

What is a number (:func:`numbers_in`): digits with optional thousands commas and decimals, or a
leading-dot decimal (``.801``), optionally with a ``K`` / ``M`` suffix (``5.0K``); a date
(``2026-12-02``), a dotted version (``3.11.2``) and a number in scientific notation (``1e-9``)
are one number each. Numbers count in code spans and fenced code blocks too (a command's output
is data; a block of commands is marked ``fixed``). Not numbers: digits inside a word or a name
(``v1``, ``S5b``, ``k1``, ``HC@10``, ``UTF-8``, ``top-10``, ``Qwen3-8B``), in a URL, or inside an
HTML comment; *labels*, a number right after a reference word (``sec. 3.1``, ``Table 5``,
``Tables 8–9``, ``Figure 2(a)``, ``supplement 1.1``, ``eq. 5``, ``step 2``, ``issue 24``,
``RFC 8493``, ``arXiv 2607.24165``, ``line 11``; :data:`LABEL_WORDS`), including the numbers a
range or list joins to it; and the ordinal of a numbered list item or heading (``1. ``, ``## 3.``).
The older loose fence (``numbers-from``), which accepted a number printed anywhere in a file, is
refused.
"""

import bisect
import json
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .claims import format_fixed, load_claims
from .errors import InputError
from .layout import RepositoryLayout

#: the top-level prose files (docs/*.md are added by :func:`prose_files`)
STRICT_TABLES = ("README.md", "DATASHEET.md")
EXCLUSIONS = ("measured", "fixed")
MODES = ("bound",) + EXCLUSIONS
#: words after which a number is a label (a part of a document, an issue, a standard), not data
LABEL_WORDS = ("sec", "secs", "section", "sections", "\u00a7", "supplement", "supplements", "supp",
               "table", "tables", "figure", "figures", "fig", "figs", "eq", "eqs", "equation",
               "equations", "app", "appendix", "appendices", "step", "steps", "issue", "issues",
               "item", "items", "rfc", "arxiv", "chapter", "chapters", "line", "lines", "rq")

_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_URL = re.compile(r"https?://[^\s)>\]`'\"]+")
_REGION = re.compile(r"^\s*numbers:\s*(\S+)\s*(.*?)\s*$", re.S)
_START = r"(?<![\w.,@])(?<![A-Za-z]-)"
_NUMBER = re.compile(
    _START + r"\d{4}-\d{2}-\d{2}(?![\w-])"                        # a date: one number
    r"|" + _START + r"\d+(?:\.\d+){2,}(?![\w]|\.\d)"               # a dotted version: one number
    r"|" + _START + r"\d+(?:\.\d+)?e[-+]?\d+(?![\w.])"              # scientific notation
    r"|" + _START + r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[KM](?!\w))?(?![\w])"
    r"|" + _START + r"\d+(?:\.\d+)?(?:[KM](?!\w))?(?![\w]|\.\d)"
    r"|" + _START + r"\.\d+(?![\w]|\.\d)")
_PLAIN = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d*)(?:\.\d+)?$")
_SIGNS = "+-\u2212"
_GAP = re.compile(r"^[\s%`)\]\"'*_]*$")
_LABEL = re.compile(r"(?:^|(?<=[^\w]))(" + "|".join(re.escape(w) for w in LABEL_WORDS)
                    + r")\.?:?[\s\u00a0]*(?:(?:sec|section)\.?[\s\u00a0]*)?$", re.I)
_LABEL_JOIN = re.compile(r"^(?:\([a-z]\))?(?:[\s\u00a0]*(?:\u2013|-|,|/|&|and|or)[\s\u00a0]*)$")
_ORDINAL = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]*)?$")


@dataclass(frozen=True)
class Number:
    """A number as printed in prose: its offset, text (with commas) and sign (or None)."""

    start: int
    end: int
    text: str
    sign: Optional[str]

    @property
    def kind(self) -> str:
        """``number``, or ``date`` / ``version`` (one number each, never a quantity)."""
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", self.text):
            return "date"
        if re.fullmatch(r"\d+(?:\.\d+){2,}", self.text):
            return "version"
        return "number"

    @property
    def exponent(self) -> int:
        """3 for a ``K`` suffix, 6 for ``M``, else 0."""
        return {"K": 3, "M": 6}.get(self.text[-1:], 0)

    @property
    def plain(self) -> str:
        text = self.text.replace(",", "")
        return text[:-1] if self.exponent else text

    @property
    def decimals(self) -> int:
        """Decimal places of the printed value in its own unit (``5.0K``: -2, i.e. hundreds)."""
        mantissa = self.plain.lower().split("e")[0]
        places = len(mantissa.split(".")[1]) if "." in mantissa else 0
        if "e" in self.plain.lower():
            places -= int(self.plain.lower().split("e")[1])
        return places - self.exponent

    def value(self) -> Decimal:
        if self.kind != "number":
            raise KeyError(f"a {self.kind} is not a quantity (mark it <!--=fixed-->)")
        number = Decimal(self.plain).scaleb(self.exponent)
        return -number if self.sign in ("-", "\u2212") else number


@dataclass(frozen=True)
class Region:
    start: int
    end: int
    mode: str
    base: str
    line: int


def _normalised(printed: str) -> str:
    """``1,164`` -> ``1164``; ``17.0`` -> ``17``; ``1.80`` -> ``1.8`` (the same number); dates,
    versions and scientific notation are kept as printed."""
    plain = printed.replace(",", "")
    if not _PLAIN.match(plain):
        return plain
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def numbers_in(text: str) -> List[str]:
    """The numbers printed in ``text`` (the module's rule of what a number is), normalised (see
    :func:`_normalised`), in order; labels and ordinals are numbers here, :func:`check_text`
    decides which of them need no marker."""
    return [_normalised(m.group(0)) for m in _tokens(_masked(text))]


def _tokens(masked: str) -> List["re.Match[str]"]:
    """The number tokens of masked text: :data:`_NUMBER` matches that are not the tail of a
    compound name joined by hyphens (``top-10``, ``audit-2027-01``, ``Qwen3-VL-2``)."""
    out = []
    for m in _NUMBER.finditer(masked):
        start = m.start()
        if start > 0 and masked[start - 1] == "-":
            j = start - 1
            while j > 0 and (masked[j - 1].isalnum() or masked[j - 1] in "_-."):
                j -= 1
            if any(c.isalpha() for c in masked[j:start - 1]):
                continue
        out.append(m)
    return out


def _masked(text: str) -> str:
    """``text`` with HTML comments and URLs blanked (offsets kept); code counts as prose."""
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    for m in _COMMENT.finditer(text):
        blank(m.start(), m.end())
    for m in _URL.finditer("".join(chars)):
        blank(m.start(), m.end())
    return "".join(chars)


def _unchecked(text: str, masked: str, numbers: Sequence["Number"]) -> Dict[int, str]:
    """Indexes of the numbers that are labels or ordinals (need no marker), with the reason."""
    out: Dict[int, str] = {}
    previous_label: Optional[int] = None
    for index, number in enumerate(numbers):
        line_start = masked.rfind("\n", 0, number.start) + 1
        before = masked[max(0, number.start - 40):number.start]
        if number.sign is not None:
            before = before[:-1]
        head = masked[line_start:number.start]
        after = masked[number.end:number.end + 2]
        if _ORDINAL.match(head) and (head.strip().startswith("#") and after[:1] in (" ", ".")
                                     or re.match(r"^[.)] ", after)):
            out[index] = "ordinal"
            continue
        if _LABEL.search(before):
            out[index] = "label"
            previous_label = index
            continue
        if (previous_label == index - 1 and
                _LABEL_JOIN.match(masked[numbers[index - 1].end:number.start])):
            out[index] = "label"
            previous_label = index
            continue
        previous_label = None
    return out


def _numbers(text: str, masked: str) -> List[Number]:
    """Number tokens of the prose; a sign counts when it does not join two words or numbers
    (``10-300`` is a range, ``−36.0`` a signed number), markers in between being invisible."""
    comments = [(m.start(), m.end()) for m in _COMMENT.finditer(text)]
    found = []
    for m in _tokens(masked):
        start = m.start()
        sign = None
        if start > 0 and text[start - 1] in _SIGNS:
            before = start - 2
            for a, b in reversed(comments):
                if a <= before < b:
                    before = a - 1
            if before < 0 or not text[before].isalnum():
                sign = text[start - 1]
        found.append(Number(start, m.end(), m.group(0), sign))
    return found


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


class _Values:
    """Resolves keys to (printed value, decimals or None, description) with per-file caches."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._claims: Dict[str, Optional[Dict[Tuple[str, str, str], Tuple[float, int]]]] = {}
        self._json: Dict[str, Any] = {}

    def claim(self, release: str, table: str, row: str, column: str) -> Tuple[float, int]:
        if release not in self._claims:
            path = RepositoryLayout(self.root).release(release).claims
            if not path.is_file():
                self._claims[release] = None
            else:
                self._claims[release] = {(c.table, c.row, c.column): (c.value, c.decimals)
                                         for c in load_claims(path)}
        table_claims = self._claims[release]
        if table_claims is None:
            raise KeyError(f"no data/{release}/claims.json")
        if (table, row, column) not in table_claims:
            raise KeyError(f"no such claim in data/{release}/claims.json")
        return table_claims[(table, row, column)]

    def pointer(self, relative: str, pointer: str) -> Any:
        if relative not in self._json:
            path = self.root / relative
            if not path.is_file():
                raise KeyError(f"{relative} does not exist")
            try:
                self._json[relative] = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise KeyError(f"{relative} is not JSON ({exc})") from None
        node = self._json[relative]
        if pointer in ("", "/"):
            return node
        if not pointer.startswith("/"):
            raise KeyError(f"JSON pointer {pointer!r} must start with '/'")
        for raw in pointer[1:].split("/"):
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            elif isinstance(node, list) and "=" in token:  # extension: the member with FIELD=VALUE
                name, wanted = token.split("=", 1)
                matches = [m for m in node if isinstance(m, dict) and str(m.get(name)) == wanted]
                if len(matches) != 1:
                    raise KeyError(f"{relative}: {len(matches)} members with {token} under {pointer}")
                node = matches[0]
            else:
                raise KeyError(f"{relative} has nothing at {pointer}")
        return node


def _aggregate(node: Any, how: str, key: str) -> int:
    members = list(node.values()) if isinstance(node, dict) else node
    if not isinstance(members, list):
        raise KeyError(f"{key}: ?count needs a list or an object")
    if how == "count":
        return len(members)
    if how.startswith("count="):
        wanted = how[len("count="):]
        return sum(1 for m in members if not isinstance(m, (dict, list)) and str(m) == wanted)
    if how.startswith("count.") and "=" in how:
        name, wanted = how[len("count."):].split("=", 1)
        return sum(1 for m in members if isinstance(m, dict) and name in m and
                   not isinstance(m[name], (dict, list)) and str(m[name]) == wanted)
    raise KeyError(f"{key}: unknown aggregate ?{how} (count, count=VALUE, count.FIELD=VALUE)")


def _resolve_key(key: str, base: str) -> str:
    """An absolute key from a marker's key and its region's base."""
    if key.startswith("#"):
        return f"{base}{key}" if base else key
    if "#" in key or key.count("/") >= 3:
        return key
    return f"{base}/{key}" if base else key


def _check_number(number: Number, key: str, values: _Values) -> Optional[str]:
    """None when ``number`` quotes ``key``'s value at its printed precision, else why not."""
    quoted = number.value()
    if "#" in key:
        relative, _, pointer = key.partition("#")
        pointer, _, how = pointer.partition("?")
        node = values.pointer(relative, pointer)
        if how:
            node = _aggregate(node, how, key)
        if isinstance(node, str) and _NUMBER.fullmatch(node.strip()):
            exact = Decimal(node.strip().replace(",", ""))  # a number transcribed as printed
        elif isinstance(node, bool) or not isinstance(node, (int, float)):
            raise KeyError(f"{key} is not a number")
        else:
            exact = Decimal(node) if isinstance(node, int) else Decimal(repr(float(node)))
        rounded = exact.quantize(Decimal(1).scaleb(-number.decimals), rounding=ROUND_HALF_UP)
        if _same(quoted, rounded, number.sign):
            return None
        shown = format(exact, "f")
        return f"which gives {shown} ({format(rounded, 'f')} at {number.decimals} decimals)"
    parts = key.split("/")
    if len(parts) != 4 or not all(parts):
        raise KeyError("a claim key is RELEASE/TABLE/ROW/COLUMN and a file key FILE#POINTER")
    value, decimals = values.claim(*parts)
    printed = Decimal(format_fixed(value, decimals))
    if number.decimals > decimals:
        return f"which prints {printed} ({decimals} decimals; the quote has {number.decimals})"
    if _same(quoted, printed, number.sign):
        return None
    return f"which prints {printed}"


def _same(quoted: Decimal, reference: Decimal, sign: Optional[str]) -> bool:
    return quoted == reference if sign is not None else abs(quoted) == abs(reference)


def _markers(text: str, where: str, problems: List[str]) -> Tuple[List[Tuple[int, int, str]],
                                                                   List[Region]]:
    """(binding markers as (start, end, key), regions); malformed ones become problems."""
    bindings: List[Tuple[int, int, str]] = []
    regions: List[Region] = []
    open_region: Optional[Tuple[int, str, str, int]] = None
    code = sorted(_code_spans(text))
    code_starts = [a for a, _ in code]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for m in _COMMENT.finditer(text):
        inside = bisect.bisect_right(code_starts, m.start()) - 1
        if inside >= 0 and code[inside][0] <= m.start() < code[inside][1]:
            continue  # an example inside a code block or a code span
        body = m.group(1)
        line = bisect.bisect_right(line_starts, m.start())
        stripped = body.strip()
        if stripped.startswith("="):
            bindings.append((m.start(), m.end(), stripped[1:].strip()))
        elif stripped.startswith("numbers-from") or stripped.startswith("/numbers-from"):
            problems.append(f"{where}:{line}: numbers-from blocks are replaced by bound numbers "
                            "(<!--=KEY--> after each number; see nclue/prose_numbers.py)")
        elif stripped == "/numbers":
            if open_region is None:
                problems.append(f"{where}:{line}: <!-- /numbers --> closes no region")
            else:
                start, mode, base, first = open_region
                regions.append(Region(start, m.start(), mode, base, first))
                open_region = None
        else:
            region = _REGION.match(body)
            if region is None:
                continue
            mode, base = region.group(1), region.group(2)
            if mode not in MODES:
                problems.append(f"{where}:{line}: unknown region 'numbers: {mode}' "
                                f"(expected {', '.join(MODES)})")
                continue
            if open_region is not None:
                problems.append(f"{where}:{line}: region opened inside the region of line "
                                f"{open_region[3]} (close it with <!-- /numbers -->)")
                continue
            if mode == "bound":
                base = base.split()[0] if base else ""
            open_region = (m.end(), mode, base, line)
    if open_region is not None:
        problems.append(f"{where}:{open_region[3]}: region is not closed with <!-- /numbers -->")
    return bindings, regions


def _code_spans(text: str) -> List[Tuple[int, int]]:
    """Fenced code blocks and inline code spans, as (start, end) offsets."""
    spans = _fences(text)
    outside = list(text)
    for a, b in spans:
        for i in range(a, b):
            if outside[i] != "\n":
                outside[i] = " "
    spans += [(m.start(), m.end()) for m in re.finditer(r"`[^`\n]*`", "".join(outside))]
    return spans


def _fences(text: str) -> List[Tuple[int, int]]:
    spans, fence, pos = [], None, 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            if fence is None:
                fence = pos
            else:
                spans.append((fence, pos + len(line)))
                fence = None
        pos += len(line)
    if fence is not None:
        spans.append((fence, len(text)))
    return spans


def check_text(root: Path, relative: str, text: str,
               values: Optional["_Values"] = None) -> Tuple[int, List[str]]:
    """(bound numbers checked, problems) for prose ``text`` shown as file ``relative``;
    ``values`` (:func:`value_cache`) shares the claims and JSON files read between calls.

    A failed check reads ``FILE:LINE: 79.3 is not printed by v1/scorecard/.../gold_hit@10,
    which prints 79.1``; an unbound number ``FILE:LINE: 42 is bound to nothing ...``.
    """
    problems: List[str] = []
    bindings, regions = _markers(text, relative, problems)
    masked = _masked(text)
    numbers = _numbers(text, masked)
    unchecked = _unchecked(text, masked, numbers)
    if values is None:
        values = _Values(Path(root))
    bound: Dict[int, Tuple[str, str]] = {}  # number index -> (key or exclusion, marker line)
    ends = [n.end for n in numbers]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        return bisect.bisect_right(line_starts, pos)

    for start, _, key in bindings:
        line = line_of(start)
        # the marker binds the last number before it, when only closers lie between them
        last = bisect.bisect_right(ends, start) - 1
        candidates = [last] if last >= 0 and _GAP.match(text[numbers[last].end:start]) else []
        if not candidates:
            problems.append(f"{relative}:{line}: marker <!--={key}--> follows no number "
                            "(put it right after the number it binds)")
            continue
        index = candidates[-1]
        if index in bound:
            problems.append(f"{relative}:{line}: {numbers[index].text} carries two markers")
            continue
        region = _region_at(regions, start)
        base = region.base if region is not None and region.mode == "bound" else ""
        bound[index] = (key if key in EXCLUSIONS else _resolve_key(key, base), key)
    checked = 0
    for index, number in enumerate(numbers):
        line = line_of(number.start)
        shown = f"{number.sign or ''}{number.text}"
        if index in bound:
            key, written = bound[index]
            if key in EXCLUSIONS:
                continue
            checked += 1
            try:
                mismatch = _check_number(number, key, values)
            except (KeyError, InputError) as exc:
                reason = exc.args[0] if isinstance(exc, KeyError) else str(exc)
                problems.append(f"{relative}:{line}: {shown} is not printed by {key}: {reason}")
                continue
            if mismatch is not None:
                problems.append(f"{relative}:{line}: {shown} is not printed by {key}, {mismatch}")
            continue
        region = _region_at(regions, number.start)
        if region is not None and region.mode in EXCLUSIONS:
            continue
        if index in unchecked:
            continue
        if region is not None and region.mode == "bound":
            problems.append(f"{relative}:{line}: {shown} in the 'numbers: bound' region of line "
                            f"{region.line} is bound to no claim (add <!--=KEY--> after it)")
        else:
            problems.append(f"{relative}:{line}: {shown} is bound to nothing (add <!--=KEY-->, "
                            "<!--=fixed--> or <!--=measured--> after it, or put it in a "
                            "'numbers: fixed' / 'numbers: measured' region; docs/CONVENTIONS.md)")
    return checked, problems


def value_cache(root: Path) -> "_Values":
    """A cache of the claims and JSON files keys name, for several :func:`check_text` calls on
    one unchanged repository."""
    return _Values(Path(root))


def _region_at(regions: Sequence[Region], pos: int) -> Optional[Region]:
    for region in regions:
        if region.start <= pos < region.end:
            return region
    return None


def check_file(root: Path, relative: str) -> Tuple[int, List[str]]:
    """(bound numbers checked, problems) for one prose file under ``root`` (see the module
    docstring). A failed check contains " is not printed by "; other problems (an unbound number,
    a bad marker) are not checks."""
    path = Path(root) / relative
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return 0, [f"{relative}: cannot read ({exc})"]
    return check_text(Path(root), relative, text)


def prose_files(root: Path) -> List[str]:
    """The prose files whose numbers are checked: README.md, DATASHEET.md and docs/*.md."""
    root = Path(root)
    names = [name for name in STRICT_TABLES if (root / name).is_file()]
    docs = root / "docs"
    if docs.is_dir():
        names += sorted(f"docs/{p.name}" for p in docs.glob("*.md") if p.is_file())
    return names


def check_all(root: Path) -> Tuple[int, List[str]]:
    """(bound numbers checked, problems) over :func:`prose_files`."""
    total, problems = 0, []
    for name in prose_files(root):
        checked, found = check_file(root, name)
        total += checked
        problems += found
    return total, problems
