"""The condition inventory P0(d, c) (n-Clue paper, supplement 1.1).

For every condition c and document d, P0(d, c) is the set of pages whose stored facts establish
c: for a section condition the pages of its headings (outline items whose title normalizes to
the condition's canonical key, :mod:`.sections`), for an entity condition the pages that mention
the term as a whole word (:mod:`.entities`).  Pages flagged empty, garbage, toc or index
(``excluded_page_flags``) support no condition of either kind.  Only documents with a nonempty page
set are stored.

Condition ids are ``section:<canonical key>`` and ``entity:<term>``; the display name is what a
query shows.  Both kinds are chosen by document frequency (``min_df`` to ``max_df_fraction`` of
the documents), most frequent first, up to a configured number per kind.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from ..errors import InputError

from . import entities, sections
from .config import ConstructionConfig
from .inputs import BuildInput


@dataclass(frozen=True)
class Condition:
    cid: str
    kind: str  # "section" | "entity"
    name: str
    df: int
    variants: Tuple[str, ...] = ()  # entity spellings matched (empty for sections)


@dataclass(frozen=True)
class Inventory:
    """Conditions (sorted by id) and their support: ``support[cid][docid]`` -> sorted pages."""

    conditions: Tuple[Condition, ...]
    support: Dict[str, Dict[str, Tuple[int, ...]]]
    record: Dict[str, Any]  # vocabulary decisions for provenance

    def by_id(self) -> Dict[str, Condition]:
        return {c.cid: c for c in self.conditions}

    def page_sets(self, cids, docid: str) -> List[Tuple[int, ...]]:
        return [self.support[cid].get(docid, ()) for cid in cids]


def section_pages(inputs: BuildInput, excluded_flags=()) -> Tuple[Dict[str, Dict[str, Set[int]]], Dict[str, Counter]]:
    """``{key: {docid: pages}}`` for every canonical key, and per key the surface forms' df.

    A heading on a page flagged with one of ``excluded_flags`` (a table of contents, an index:
    e.g. the "Symbols" letter group that opens a generated index) does not count."""
    flags = frozenset(excluded_flags)
    pages: Dict[str, Dict[str, Set[int]]] = defaultdict(lambda: defaultdict(set))
    surfaces: Dict[str, Dict[str, Set[str]]] = defaultdict(lambda: defaultdict(set))
    for docid, items in sorted(inputs.outlines.items()):
        for item in items:
            if inputs.pages[docid][item.page - 1].flags & flags:
                continue
            key = sections.canonical_key(item.title)
            if key is None:
                continue
            pages[key][docid].add(item.page)
            surfaces[key][sections.surface_form(item.title)].add(docid)
    surface_df = {key: Counter({form: len(docs) for form, docs in forms.items()})
                  for key, forms in surfaces.items()}
    return pages, surface_df


@dataclass(frozen=True)
class WordCounts:
    """Per document and page the candidate words of the page (None: a non-supporting page), and
    document frequencies over supporting pages: of every word, of every candidate variant and of
    every candidate group (:func:`nclue.instrument.entities.group_key`)."""

    pages: Dict[str, List[Optional[FrozenSet[str]]]]
    word_df: Counter
    variant_df: Dict[str, Counter]
    group_df: Counter


def candidate_words(inputs: BuildInput, excluded_flags) -> WordCounts:
    """One tokenization pass over all pages; only candidate words are kept per page."""
    flags = frozenset(excluded_flags)
    group_memo: Dict[str, Optional[str]] = {}
    per_page: Dict[str, List[Optional[FrozenSet[str]]]] = {}
    word_df: Counter = Counter()
    variant_df: Dict[str, Counter] = defaultdict(Counter)
    group_df: Counter = Counter()
    for docid, pages in inputs.pages.items():
        doc_words: Set[str] = set()
        kept: List[Optional[FrozenSet[str]]] = []
        for page in pages:
            if not entities.supporting(page.flags, flags):
                kept.append(None)
                continue
            words = entities.page_words(page.text)
            doc_words |= words
            candidates = []
            for word in words:
                if word not in group_memo:
                    group_memo[word] = entities.group_key(word)
                if group_memo[word] is not None:
                    candidates.append(word)
            kept.append(frozenset(candidates))
        word_df.update(doc_words)
        doc_candidates = {w for w in doc_words if group_memo[w] is not None}
        for word in doc_candidates:
            variant_df[group_memo[word]][word] += 1
        group_df.update({group_memo[w] for w in doc_candidates})
        per_page[docid] = kept
    return WordCounts(per_page, word_df, dict(variant_df), group_df)


def jaccard(a, b) -> float:
    union = len(set(a) | set(b))
    return len(set(a) & set(b)) / union if union else 0.0


def drop_redundant(conditions: List[Condition], support: Dict[str, Dict[str, Tuple[int, ...]]],
                   max_jaccard: float) -> Tuple[List[Condition], Dict[str, str]]:
    """Keep conditions greedily by descending df (then id); drop one whose document set has
    Jaccard similarity >= ``max_jaccard`` with an already kept condition's.  Returns the kept
    conditions and ``{dropped id: reason}``."""
    kept: List[Condition] = []
    dropped: Dict[str, str] = {}
    for cond in sorted(conditions, key=lambda c: (-len(support[c.cid]), c.cid)):
        docs = support[cond.cid]
        twin = next((k for k in kept if jaccard(docs, support[k.cid]) >= max_jaccard), None)
        if twin is None:
            kept.append(cond)
        else:
            dropped[cond.cid] = (f"document set Jaccard {jaccard(docs, support[twin.cid]):.3f} with "
                                 f"{twin.cid}")
    return kept, dict(sorted(dropped.items()))


def build_inventory(inputs: BuildInput, config: ConstructionConfig) -> Inventory:
    """Select the conditions and compute P0(d, c) for every document."""
    n_docs = len(inputs.documents)
    max_df = config.max_df_fraction * n_docs
    conditions: List[Condition] = []
    support: Dict[str, Dict[str, Tuple[int, ...]]] = {}

    # Section conditions.
    sec_pages, surface_df = section_pages(inputs, config.excluded_page_flags)
    sec_ranked = sorted(((len(docs), key) for key, docs in sec_pages.items()
                         if config.min_df <= len(docs) <= max_df), key=lambda x: (-x[0], x[1]))
    sec_kept = sec_ranked[:config.max_section_conditions]
    for df, key in sec_kept:
        cid = f"section:{key}"
        conditions.append(Condition(cid, "section", sections.display_name(key, surface_df[key]), df))
        support[cid] = {docid: tuple(sorted(p)) for docid, p in sorted(sec_pages[key].items())}

    # Entity conditions.
    counts = candidate_words(inputs, config.excluded_page_flags)
    if config.entity_terms:
        chosen = []
        for term in config.entity_terms:
            group = entities.group_key(term)
            if group is None:
                raise InputError("<config>", f"entity term {term!r} does not satisfy the shape rule")
            variants = tuple(sorted(set(counts.variant_df.get(group, {})) | {term}))
            chosen.append((term, counts.group_df.get(group, 0), entities.term_shape(term), variants))
        rejected: Dict[str, str] = {}
    else:
        chosen, rejected = entities.select_vocabulary(
            counts.group_df, counts.variant_df, counts.word_df, n_docs, config.min_df,
            config.max_df_fraction, config.capitalized_ratio, config.entity_exclude,
            config.max_entity_terms)
    variants_of: Dict[str, Tuple[str, ...]] = {}
    for term, _count, _shape, variants in chosen:
        cid = f"entity:{term}"
        variants_of[cid] = variants
        per_doc = {}
        for docid, page_sets in counts.pages.items():
            found = entities.term_pages(page_sets, variants)
            if found:
                per_doc[docid] = found
        conditions.append(Condition(cid, "entity", term, len(per_doc), variants))
        support[cid] = per_doc

    conditions, redundant = drop_redundant(conditions, support, config.max_jaccard)
    for cid in redundant:
        del support[cid]
    conditions.sort(key=lambda c: c.cid)
    record = {
        "sections": [{"id": f"section:{key}", "df": df_, "name": sections.display_name(key, surface_df[key]),
                      "surface_forms": dict(sorted(surface_df[key].items()))}
                     for df_, key in sorted(sec_kept, key=lambda x: x[1])],
        "sections_in_df_range_not_kept": [key for _, key in sec_ranked[config.max_section_conditions:]],
        "entities": [{"id": f"entity:{t}", "df": c, "shape": s, "variants": list(v)}
                     for t, c, s, v in sorted(chosen)],
        "entities_rejected": dict(sorted(rejected.items())),
        "redundant_conditions": redundant,
    }
    return Inventory(tuple(conditions), support, record)
