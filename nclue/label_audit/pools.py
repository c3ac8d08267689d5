"""Condition-specific page contexts: which pages of a document an evaluator sees for a condition.

n-Clue paper (arXiv 2607.24165), supplement sec. 10: "the initial pass showed three
condition-specific page contexts and adjudication/challenge polls showed six to nine pages from
the start"; sec. 10.3.1: each unresolved condition receives "a deduplicated union of original
candidate pages, pages already selected by evaluators, exact/alias lexical hits, BM25 page
retrieval, OCR-tolerant fuzzy retrieval, and construction evidence when available. Route and
rank are hidden in the evaluator form"; membership counts are "nonexclusive because one page can
be recovered by several routes" (Table S10).

Routes (each an ordered page list for one condition of one document):

- ``construction``: the release's evidence pages for the condition, ascending;
- ``exact``: pages where the release's own rule holds (heading / whole-word mention on a page
  whose flags are not excluded), ascending;
- ``fuzzy``: pages whose case-folded letters and digits contain those of a title or spelling
  (catches other letter cases, macro names, hyphenation), most occurrences first;
- ``bm25``: BM25 of the condition's words over the document's pages (k1 0.9, b 0.4, Lucene
  idf, document-internal statistics), best first;
- ``first_pass`` / ``selected`` (adjudication): the pages shown in the first pass / selected with
  a valid quote by a first-pass evaluator, ascending;
- ``fill``: when the routes hold fewer pages than the display size, remaining pages in a seeded
  order (unflagged pages first).

A pool takes the routes round-robin in a fixed order (each route's r-th page in round r, pages
already taken are skipped) until it holds ``min(size, pages in the document)`` pages; the pool is
shown in page order, so the order of the routes is not visible. Everything is deterministic.
"""

import math
import random
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Sequence, Tuple

from ..instrument.verify import mentions
from .pagetext import PageText
from .rubric import ConditionRubric, RubricSet

FIRST_PASS_PAGES = 3
EXPANDED_PAGES = 9
EXPANDED_MIN_PAGES = 6
FIRST_PASS_ORDER = ("construction", "exact", "bm25", "fuzzy")
EXPANDED_ORDER = ("selected", "construction", "exact", "first_pass", "bm25", "fuzzy")
#: the challenge's tie-break shows exactly the pages both first-pass streams were shown
TIE_BREAK_ORDER = ("first_pass",)
ROUTES = ("construction", "exact", "fuzzy", "bm25", "first_pass", "selected", "fill")
BM25_K1 = 0.9
BM25_B = 0.4

_WORD = re.compile(r"[0-9a-z]+")
_NOT_ALNUM = re.compile(r"[\W_]+")  # str.isalnum() is exactly \w without "_"


def _squash(text: str) -> str:
    """Case-folded letters and digits only."""
    return _NOT_ALNUM.sub("", text.casefold())


def _forms(rubric: ConditionRubric) -> List[str]:
    return list(rubric.titles or ()) + list(rubric.variants or ()) or [rubric.name]


@dataclass(frozen=True)
class DocumentIndex:
    """What the routes need of one document, computed once: per page its flags, squashed text,
    word tokens and the section keys its lines read as (the release's heading rule)."""

    pages: Mapping[int, PageText]
    squashed: Mapping[int, str]
    tokens: Mapping[int, Tuple[str, ...]]
    token_sets: Mapping[int, FrozenSet[str]]
    headings: Mapping[int, FrozenSet[str]]
    avg_len: float


def index_document(pages: Mapping[int, PageText], rubrics: RubricSet) -> DocumentIndex:
    tokens = {n: tuple(_WORD.findall(pages[n].text.casefold())) for n in sorted(pages)}
    headings = {}
    for n in sorted(pages):
        keys = {rubrics.heading_key(line) for line in pages[n].text.split("\n")}
        keys.discard(None)
        headings[n] = frozenset(keys)
    avg = math.fsum(len(t) for t in tokens.values()) / len(tokens) if tokens else 1.0
    return DocumentIndex(pages=pages, squashed={n: _squash(pages[n].text) for n in sorted(pages)},
                         tokens=tokens, token_sets={n: frozenset(t) for n, t in tokens.items()},
                         headings=headings, avg_len=avg or 1.0)


def exact_pages(rubric: ConditionRubric, rubrics: RubricSet, doc: DocumentIndex) -> List[int]:
    """Pages where the release's mechanical rule establishes the condition
    (:meth:`nclue.label_audit.rubric.RubricSet.holds_on`)."""
    out = []
    for n in sorted(doc.pages):
        if set(doc.pages[n].flags) & rubrics.excluded_page_flags:
            continue
        if rubric.kind == "entity":
            if any(mentions(doc.pages[n].text, v) for v in rubric.variants):
                out.append(n)
        elif rubric.key in doc.headings[n]:
            out.append(n)
    return out


def fuzzy_pages(rubric: ConditionRubric, doc: DocumentIndex) -> List[int]:
    """Pages containing a squashed title or spelling, most occurrences first, then page order."""
    needles = sorted({_squash(f) for f in _forms(rubric) if _squash(f)})
    scored = []
    for n in sorted(doc.pages):
        count = sum(doc.squashed[n].count(needle) for needle in needles)
        if count:
            scored.append((-count, n))
    return [n for _, n in sorted(scored)]


def bm25_pages(rubric: ConditionRubric, doc: DocumentIndex) -> List[int]:
    """Pages ranked by BM25 of the condition's words (document-internal statistics)."""
    terms = sorted({t for f in _forms(rubric) for t in _WORD.findall(f.casefold())})
    if not terms or not doc.pages:
        return []
    total = len(doc.tokens)
    df = {t: sum(1 for words in doc.token_sets.values() if t in words) for t in terms}
    scored = []
    for n in sorted(doc.tokens):
        if not any(t in doc.token_sets[n] for t in terms):
            continue
        toks = doc.tokens[n]
        score = 0.0
        for term in terms:
            tf = toks.count(term)
            if not tf:
                continue
            idf = math.log(1 + (total - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf / (tf + BM25_K1 * (1 - BM25_B + BM25_B * len(toks) / doc.avg_len))
        scored.append((-score, n))
    return [n for _, n in sorted(scored)]


def routes_for(rubric: ConditionRubric, rubrics: RubricSet, doc: DocumentIndex,
               construction: Sequence[int], first_pass: Sequence[int] = (),
               selected: Sequence[int] = ()) -> Dict[str, List[int]]:
    """Every route's ordered pages for one condition of one document (module docstring)."""
    pages = doc.pages
    return {
        "construction": sorted(p for p in set(construction) if p in pages),
        "exact": exact_pages(rubric, rubrics, doc),
        "fuzzy": fuzzy_pages(rubric, doc),
        "bm25": bm25_pages(rubric, doc),
        "first_pass": sorted(p for p in set(first_pass) if p in pages),
        "selected": sorted(p for p in set(selected) if p in pages),
    }


def ranked_pool(routes: Mapping[str, Sequence[int]], order: Sequence[str], size: int,
                pages: Mapping[int, PageText], fill_seed: str) -> Tuple[List[int], FrozenSet[int]]:
    """(pages in the order the pool takes them, the filled ones): round-robin over ``order``
    until ``min(size, len(pages))`` pages, then seeded fill (module docstring). A page's rank is
    its position in the first list, 1-based (the held-out recall check of
    :mod:`nclue.label_audit.pool_check` counts by rank)."""
    target = min(size, len(pages))
    chosen: List[int] = []
    taken = set()
    depth = max((len(routes.get(r, ())) for r in order), default=0)
    for rank in range(depth):
        for route in order:
            listed = routes.get(route, ())
            if rank < len(listed) and listed[rank] not in taken and len(chosen) < target:
                chosen.append(listed[rank])
                taken.add(listed[rank])
    filled = set()
    if len(chosen) < target:
        rest = sorted(n for n in pages if n not in taken)
        random.Random(fill_seed).shuffle(rest)
        rest.sort(key=lambda n: bool(pages[n].flags))  # stable: unflagged pages first
        for n in rest[: target - len(chosen)]:
            chosen.append(n)
            filled.add(n)
    return chosen, frozenset(filled)


def build_pool(routes: Mapping[str, Sequence[int]], order: Sequence[str], size: int,
               pages: Mapping[int, PageText], fill_seed: str) -> Tuple[List[int], Dict[int, List[str]]]:
    """Round-robin pool of ``min(size, len(pages))`` pages; returns (pages ascending,
    page -> every route that lists it, in :data:`ROUTES` order, ``fill`` for filled pages)."""
    chosen, filled = ranked_pool(routes, order, size, pages, fill_seed)
    membership = {}
    for n in chosen:
        names = [r for r in ROUTES if r != "fill" and n in set(routes.get(r, ()))]
        membership[n] = names + (["fill"] if n in filled else [])
    return sorted(chosen), membership
