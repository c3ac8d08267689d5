"""Support rule P1: when a page's text *establishes* a condition (n-Clue paper, supplement
sec. 10.1: "whether displayed text is necessary evidence, not whether it is merely related").

The rule was written down before it was run: ``audit/label_audit/support_rule_P1.md`` (the
reasons) and ``support_rule_P1.json`` (its parameters, :class:`SupportRule`).  P1(d, c) is the
subset of P0(d, c) (:mod:`.inventory`) whose pages establish c:

1. running lines (a page's first or last non-empty line whose letter-run skeleton repeats on a
   margin line of a page at distance 1..``running_line_distance``) establish nothing;
2. apparatus pages (flagged toc/index, inside an outline section such as the index or the
   references, or with >= ``bibliography_min_lines`` lines opening with a bracketed label)
   establish no entity;
3. an entity needs >= ``entity_min_occurrences`` body occurrences, or one in a heading-like
   segment, or one as a body line's first word (a definition entry);
4. a section needs its heading printed in a body segment of the page its bookmark points at.

Everything here is a pure function of the build folder's page text and outlines.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from ..errors import InputError
from ..formats import read_json
from . import sections
from .inputs import BuildInput, OutlineItem, Page

FORMAT = "nclue-support-rule"
_LETTERS = re.compile(r"[^\W\d_]+")
_WORD_RUN = re.compile(r"\w+")
_HAS_ALNUM = re.compile(r"[^\W_]")
_LEADING_WORD = re.compile(r"^\\?(\w+)")


@dataclass(frozen=True)
class SupportRule:
    """The parameters of ``support_rule_<id>.json`` (every key required, no other key)."""

    id: str
    date: str
    description: str
    apparatus_keys: FrozenSet[str]
    bibliography_label_pattern: str
    bibliography_min_lines: int
    entity_min_occurrences: int
    excluded_page_flags: FrozenSet[str]
    heading_max_chars: int
    heading_max_words: int
    running_line_distance: int
    segment_gap: int


_INT_KEYS = ("bibliography_min_lines", "entity_min_occurrences", "heading_max_chars",
             "heading_max_words", "running_line_distance", "segment_gap")
_KEYS = frozenset(_INT_KEYS) | {"format", "id", "date", "description", "apparatus_keys",
                                "bibliography_label_pattern", "excluded_page_flags"}


def load_rule(path) -> SupportRule:
    """Read and validate a support-rule file (one line naming the file and key on any problem)."""
    obj = read_json(path)
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise InputError(path, f"not a support-rule file ('format' must be {FORMAT!r})")
    unknown = sorted(set(obj) - _KEYS)
    if unknown:
        raise InputError(path, f"unknown key {unknown[0]!r}")
    missing = sorted(_KEYS - set(obj))
    if missing:
        raise InputError(path, f"missing key {missing[0]!r}")
    for key in _INT_KEYS:
        if not isinstance(obj[key], int) or isinstance(obj[key], bool) or obj[key] < 1:
            raise InputError(path, f"{key!r} must be a positive integer")
    for key in ("apparatus_keys", "excluded_page_flags"):
        if not isinstance(obj[key], list) or not all(isinstance(x, str) for x in obj[key]):
            raise InputError(path, f"{key!r} must be a list of strings")
    for key in ("id", "date", "description", "bibliography_label_pattern"):
        if not isinstance(obj[key], str) or not obj[key]:
            raise InputError(path, f"{key!r} must be a nonempty string")
    try:
        re.compile(obj["bibliography_label_pattern"])
    except re.error as exc:
        raise InputError(path, f"'bibliography_label_pattern' is not a regular expression: {exc}") from None
    return SupportRule(obj["id"], obj["date"], obj["description"], frozenset(obj["apparatus_keys"]),
                       obj["bibliography_label_pattern"], obj["bibliography_min_lines"],
                       obj["entity_min_occurrences"], frozenset(obj["excluded_page_flags"]),
                       obj["heading_max_chars"], obj["heading_max_words"],
                       obj["running_line_distance"], obj["segment_gap"])


# --- text units ---------------------------------------------------------------------------------

def nonempty_lines(text: str) -> List[str]:
    """The page's lines that hold a letter or digit, in order."""
    return [line for line in text.splitlines() if _HAS_ALNUM.search(line)]


def skeleton(line: str) -> FrozenSet[str]:
    """Case-folded letter runs of a line, as a set (digits, ``§`` and punctuation dropped)."""
    return frozenset(w.casefold() for w in _LETTERS.findall(line))


def segments(line: str, gap: int) -> List[str]:
    """A line split at runs of ``gap`` or more spaces, stripped, empty pieces dropped."""
    return [s.strip() for s in re.split(" {%d,}" % gap, line) if s.strip()]


def margin_skeletons(pages: Sequence[Page]) -> List[Tuple[FrozenSet[str], ...]]:
    """Per page, the skeletons of its first and last non-empty line (one when they coincide)."""
    out = []
    for page in pages:
        lines = nonempty_lines(page.text)
        if not lines:
            out.append(())
        elif len(lines) == 1:
            out.append((skeleton(lines[0]),))
        else:
            out.append((skeleton(lines[0]), skeleton(lines[-1])))
    return out


@dataclass(frozen=True)
class Segment:
    """One body segment: its text, its word runs, whether it is heading-like and whether it opens
    its line (rule steps 3-4)."""

    text: str
    words: Tuple[str, ...]
    heading_like: bool
    opens_line: bool
    lead_word: Optional[str]


@dataclass(frozen=True)
class PageBody:
    """A page's body segments (running lines removed) and whether it is an apparatus page."""

    segments: Tuple[Segment, ...]
    apparatus: bool


def body_segments(lines: Sequence[str], rule: "SupportRule") -> Tuple[Segment, ...]:
    out = []
    for line in lines:
        for position, piece in enumerate(segments(line, rule.segment_gap)):
            lead = _LEADING_WORD.match(piece) if position == 0 else None
            out.append(Segment(piece, tuple(_WORD_RUN.findall(piece)), _heading_like(piece, rule),
                               position == 0, lead.group(1) if lead else None))
    return tuple(out)


def running_flags(margins: Sequence[Tuple[FrozenSet[str], ...]], index: int,
                  distance: int) -> Tuple[bool, bool]:
    """(first line is running, last line is running) for the 0-based page ``index`` (rule step 1)."""
    own = margins[index]
    if not own:
        return False, False
    near: Set[FrozenSet[str]] = set()
    for other in range(max(0, index - distance), min(len(margins), index + distance + 1)):
        if other != index:
            near.update(margins[other])
    first = bool(own[0]) and own[0] in near
    last = bool(own[-1]) and own[-1] in near
    return first, last


def apparatus_pages(outline: Sequence[OutlineItem], n_pages: int, keys: FrozenSet[str]) -> Set[int]:
    """1-based pages inside an outline section whose normalized title is an apparatus key (rule
    step 2): from the item's page to the page before the next item that starts on a later page."""
    items = sorted(outline, key=lambda it: it.page)
    out: Set[int] = set()
    for i, item in enumerate(items):
        if sections.title_key(item.title) not in keys:
            continue
        later = [it.page for it in items[i + 1:] if it.page > item.page]
        end = (later[0] - 1) if later else n_pages
        out.update(range(item.page, max(item.page, end) + 1))
    return out


def document_bodies(pages: Sequence[Page], outline: Sequence[OutlineItem],
                    rule: SupportRule) -> List[PageBody]:
    """Every page of one document as body lines plus its apparatus status (rule steps 1-2)."""
    margins = margin_skeletons(pages)
    in_apparatus = apparatus_pages(outline, len(pages), rule.apparatus_keys)
    label = re.compile(rule.bibliography_label_pattern)
    bodies = []
    for index, page in enumerate(pages):
        if page.flags & rule.excluded_page_flags - {"toc", "index"}:
            bodies.append(PageBody((), True))
            continue
        lines = nonempty_lines(page.text)
        first, last = running_flags(margins, index, rule.running_line_distance)
        keep = list(lines)
        if lines and last and len(lines) > 1:
            keep = keep[:-1]
        if lines and first:
            keep = keep[1:]
        labelled = sum(1 for line in keep if label.match(line.strip()))
        apparatus = (bool(page.flags & {"toc", "index"}) or (index + 1) in in_apparatus
                     or labelled >= rule.bibliography_min_lines)
        bodies.append(PageBody(body_segments(keep, rule), apparatus))
    return bodies


# --- the two condition kinds -------------------------------------------------------------------

def _heading_like(segment: str, rule: SupportRule) -> bool:
    return (len(segment) <= rule.heading_max_chars and len(segment.split()) <= rule.heading_max_words
            and not segment.rstrip().endswith((".", ",", ";")))


def entity_established(body: PageBody, variants: FrozenSet[str], rule: SupportRule) -> bool:
    """Rule step 3 on one page."""
    if body.apparatus:
        return False
    count = 0
    for seg in body.segments:
        hits = sum(1 for w in seg.words if w in variants)
        if not hits:
            continue
        count += hits
        if seg.heading_like or seg.lead_word in variants or count >= rule.entity_min_occurrences:
            return True
    return False


def section_established(body: PageBody, key: str, rule: SupportRule) -> bool:
    """Rule step 4 on the page a bookmark of the condition points at."""
    return any(sections.canonical_key(seg.text, excluded=frozenset()) == key for seg in body.segments)


@dataclass(frozen=True)
class ConditionDef:
    """What the rule needs of a condition: its kind and key (section) or spellings (entity)."""

    cid: str
    kind: str
    key: str
    variants: FrozenSet[str]


def condition_defs(construction_record: Mapping[str, Any]) -> Dict[str, ConditionDef]:
    """Condition definitions from a construction record (``provenance/construction_<r>.json``)."""
    vocab = construction_record.get("vocabulary") or {}
    out: Dict[str, ConditionDef] = {}
    for row in vocab.get("sections") or []:
        cid = row["id"]
        out[cid] = ConditionDef(cid, "section", cid.split(":", 1)[1], frozenset())
    for row in vocab.get("entities") or []:
        cid = row["id"]
        out[cid] = ConditionDef(cid, "entity", cid.split(":", 1)[1], frozenset(row["variants"]))
    return out


class Establisher:
    """Decides, with a cache per document, whether page p of document d establishes condition c."""

    def __init__(self, inputs: BuildInput, conditions: Mapping[str, ConditionDef], rule: SupportRule):
        self.inputs = inputs
        self.conditions = conditions
        self.rule = rule
        self._bodies: Dict[str, List[PageBody]] = {}
        self._memo: Dict[Tuple[str, str, int], Optional[str]] = {}

    def bodies(self, docid: str) -> List[PageBody]:
        if docid not in self._bodies:
            self._bodies[docid] = document_bodies(self.inputs.pages[docid],
                                                  self.inputs.outlines.get(docid, ()), self.rule)
        return self._bodies[docid]

    def reason_against(self, docid: str, cid: str, page: int) -> Optional[str]:
        """None when the page establishes the condition, else the reason it does not."""
        key = (docid, cid, page)
        if key not in self._memo:
            self._memo[key] = self._decide(docid, cid, page)
        return self._memo[key]

    def _decide(self, docid: str, cid: str, page: int) -> Optional[str]:
        cond = self.conditions.get(cid)
        if cond is None:
            raise InputError(cid, "condition not in the construction record")
        pages = self.inputs.pages.get(docid)
        if pages is None or not 1 <= page <= len(pages):
            raise InputError(docid, f"page {page} is not in the build folder")
        if pages[page - 1].flags & (self.rule.excluded_page_flags - {"toc", "index"}):
            return "flagged page"
        body = self.bodies(docid)[page - 1]
        if cond.kind == "section":
            return None if section_established(body, cond.key, self.rule) else "heading not printed in the page body"
        if body.apparatus:
            return "apparatus page (contents, index, bibliography)"
        if entity_established(body, cond.variants, self.rule):
            return None
        raw = sum(1 for w in _WORD_RUN.findall(pages[page - 1].text) if w in cond.variants)
        body_hits = sum(1 for seg in body.segments for w in seg.words if w in cond.variants)
        return "only in running lines" if raw and not body_hits else "single passing mention"

    def filter(self, docid: str, cid: str, page_set: Sequence[int]) -> Tuple[Tuple[int, ...], Dict[str, int]]:
        """P1 pages of one P0 page set and the count of removed pages by reason."""
        kept, removed = [], {}
        for p in page_set:
            reason = self.reason_against(docid, cid, p)
            if reason is None:
                kept.append(p)
            else:
                removed[reason] = removed.get(reason, 0) + 1
        return tuple(kept), removed
