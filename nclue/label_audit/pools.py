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
from typing import Dict, List, Mapping, Sequence, Tuple

from .pagetext import PageText
from .rubric import ConditionRubric, RubricSet

FIRST_PASS_PAGES = 3
EXPANDED_PAGES = 9
EXPANDED_MIN_PAGES = 6
FIRST_PASS_ORDER = ("construction", "exact", "bm25", "fuzzy")
EXPANDED_ORDER = ("selected", "construction", "exact", "first_pass", "bm25", "fuzzy")
ROUTES = ("construction", "exact", "fuzzy", "bm25", "first_pass", "selected", "fill")
BM25_K1 = 0.9
BM25_B = 0.4

_WORD = re.compile(r"[0-9a-z]+")


def _squash(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _forms(rubric: ConditionRubric) -> List[str]:
    return list(rubric.titles or ()) + list(rubric.variants or ()) or [rubric.name]


def exact_pages(rubric: ConditionRubric, rubrics: RubricSet, pages: Mapping[int, PageText]) -> List[int]:
    """Pages where the release's mechanical rule establishes the condition."""
    return [n for n in sorted(pages) if rubrics.holds_on(rubric, pages[n].text, pages[n].flags)]


def fuzzy_pages(rubric: ConditionRubric, pages: Mapping[int, PageText]) -> List[int]:
    """Pages containing a squashed title or spelling, most occurrences first, then page order."""
    needles = sorted({_squash(f) for f in _forms(rubric) if _squash(f)})
    scored = []
    for n in sorted(pages):
        hay = _squash(pages[n].text)
        count = sum(hay.count(needle) for needle in needles)
        if count:
            scored.append((-count, n))
    return [n for _, n in sorted(scored)]


def bm25_pages(rubric: ConditionRubric, pages: Mapping[int, PageText]) -> List[int]:
    """Pages ranked by BM25 of the condition's words (document-internal statistics)."""
    terms = sorted({t for f in _forms(rubric) for t in _WORD.findall(f.casefold())})
    if not terms or not pages:
        return []
    tokens = {n: _WORD.findall(pages[n].text.casefold()) for n in pages}
    total = len(tokens)
    avg = math.fsum(len(t) for t in tokens.values()) / total or 1.0
    present = {n: set(toks) for n, toks in tokens.items()}
    df = {t: sum(1 for words in present.values() if t in words) for t in terms}
    scored = []
    for n in sorted(tokens):
        toks = tokens[n]
        score = 0.0
        for term in terms:
            tf = toks.count(term)
            if not tf:
                continue
            idf = math.log(1 + (total - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf / (tf + BM25_K1 * (1 - BM25_B + BM25_B * len(toks) / avg))
        if score > 0:
            scored.append((-score, n))
    return [n for _, n in sorted(scored)]


def routes_for(rubric: ConditionRubric, rubrics: RubricSet, pages: Mapping[int, PageText],
               construction: Sequence[int], first_pass: Sequence[int] = (),
               selected: Sequence[int] = ()) -> Dict[str, List[int]]:
    """Every route's ordered pages for one condition of one document (module docstring)."""
    return {
        "construction": sorted(p for p in set(construction) if p in pages),
        "exact": exact_pages(rubric, rubrics, pages),
        "fuzzy": fuzzy_pages(rubric, pages),
        "bm25": bm25_pages(rubric, pages),
        "first_pass": sorted(p for p in set(first_pass) if p in pages),
        "selected": sorted(p for p in set(selected) if p in pages),
    }


def build_pool(routes: Mapping[str, Sequence[int]], order: Sequence[str], size: int,
               pages: Mapping[int, PageText], fill_seed: str) -> Tuple[List[int], Dict[int, List[str]]]:
    """Round-robin pool of ``min(size, len(pages))`` pages; returns (pages ascending,
    page -> every route that lists it, in :data:`ROUTES` order, ``fill`` for filled pages)."""
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
    membership = {}
    for n in chosen:
        names = [r for r in ROUTES if r != "fill" and n in set(routes.get(r, ()))]
        membership[n] = names + (["fill"] if n in filled else [])
    return sorted(chosen), membership
