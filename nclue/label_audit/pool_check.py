"""Composition of a stage's page pools (Table S10) and the held-out recall check of the
expanded-page pool.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.3.1 and Table S10: "Candidate-pool statistic:
Pairs / unresolved conditions 75 / 94, Displayed page contexts 830, Pages per condition (min /
mean / max) 6 / 8.83 / 9, Prior evaluator-selected memberships 92, Original three-page memberships
282, Exact/alias lexical memberships 321, BM25 memberships 344, OCR-fuzzy memberships 349,
Construction-fact memberships 98"; "Membership rows are not mutually exclusive". And: "As a
held-out check, the pool is evaluated on the 86 locked positive conditions in the same queued
documents. It recovers evidence for 86/86 by rank six and 86/86 by rank nine; all previously
submitted positive pages are present by rank nine. This check establishes recall for known
positives under the audit distribution, not exhaustive document-level recall for unknown
negatives."

Definitions (written down here; the paper does not spell out the held-out pool):

- composition (:func:`pool_table`), from a stage's administrator key: items, asked conditions,
  displayed page contexts, pages per asked condition (min / mean / max) and, per route of
  :data:`nclue.label_audit.pools.ROUTES`, the displayed (condition, page) contexts the route lists
  (a page found by several routes counts once per route);
- **locked positive conditions**: the conditions of the queued pairs that the first pass decided
  positive at once (both evaluators positive, with valid quotes) and that are therefore not
  asked again; their **known evidence** is the set of pages the two evaluators quoted;
- the **held-out pool** of a locked condition is the expanded pool built exactly as for a queued
  condition (:data:`~nclue.label_audit.pools.EXPANDED_ORDER`, nine pages), but with the two routes
  that come from the first-pass evaluators withheld (``selected``: their quoted pages, and
  ``first_pass``: the pages they were shown), since those routes contain the known evidence by
  construction; the pages are ranked in the order the round robin takes them
  (:func:`nclue.label_audit.pools.ranked_pool`);
- recall by rank r: the locked conditions with at least one known-evidence page among the
  held-out pool's first r pages (r = 6 and 9); and the locked conditions with *every* known
  evidence page among the first nine;
- for the asked conditions: those with first-pass quotes whose quoted pages are all displayed in
  the stage's pool ("all previously submitted positive pages are present").
"""

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

from ..table import Column, Table
from ..tables.model import with_row_decimals
from .pagetext import PageText
from .policy import Policy
from .pools import EXPANDED_MIN_PAGES, EXPANDED_ORDER, EXPANDED_PAGES, ROUTES, index_document, ranked_pool, routes_for
from .record import Record
from .repair import decide, first_pass_streams
from .rubric import RubricSet
from .spec import Key

ROUTE_LABELS = {
    "selected": "Prior evaluator-selected memberships",
    "first_pass": "Original first-pass memberships",
    "exact": "Exact (release rule) memberships",
    "bm25": "BM25 memberships",
    "fuzzy": "Fuzzy (case/punctuation-insensitive) memberships",
    "construction": "Construction-fact memberships",
    "fill": "Seeded filler memberships",
}
#: routes withheld from the held-out pool: both come from the first-pass evaluators
WITHHELD = ("selected", "first_pass")


def pool_table(key: Key, table_id: str = "audit_pool") -> Table:
    """Table S10 analogue for the stage of ``key`` (module docstring)."""
    asked = [c for it in key.items for c in it.conditions if c.ask]
    sizes = [len(c.pool) for c in asked]
    rows = [("pairs", "Pairs", {"count": len(key.items)}),
            ("conditions", "Asked conditions", {"count": len(asked)}),
            ("contexts", "Displayed page contexts", {"count": sum(sizes)})]
    if sizes:
        rows += [("pages_min", "Pages per condition, min", {"count": min(sizes)}),
                 ("pages_mean", "Pages per condition, mean", {"count": sum(sizes) / len(sizes)}),
                 ("pages_max", "Pages per condition, max", {"count": max(sizes)})]
    for route in ROUTES:
        rows.append((f"route_{route}", ROUTE_LABELS[route],
                     {"count": sum(1 for c in asked for p in c.pool if route in p.routes)}))
    table = Table(table_id, f"Page-pool composition, {key.packet_id} (Table S10 analogue)",
                  (Column("count", "count", 0),), tuple(rows),
                  note="Membership rows are not mutually exclusive: one page can be listed by several routes.")
    return with_row_decimals(table, {"pages_mean": 2})


@dataclass(frozen=True)
class HeldOutRecall:
    """Counts of the held-out recall check (module docstring)."""

    locked: int
    by_min_rank: int
    by_full_rank: int
    all_by_full_rank: int
    asked_with_quotes: int
    asked_quotes_displayed: int


def _quoted_pages(record: Record, names: Sequence[str], item_id: str, index: int) -> set:
    """Pages the named response streams quoted for one condition of one item."""
    pages: set = set()
    for name in names:
        answer = record.answers[name].get(item_id, {}).get(index)
        if answer is not None:
            pages.update(answer.pages)
    return pages


def locked_positives(first: Record, queue: Mapping[Tuple[str, str], Sequence[int]], policy: Policy
                     ) -> Dict[Tuple[str, str, int], Tuple[int, ...]]:
    """{(qid, docid, condition): pages the first-pass evaluators quoted} for the conditions of the
    queued pairs that the first pass accepted as positive."""
    names = first_pass_streams(first, policy)[0]
    by_pair = {(it.qid, it.docid): it for it in first.items}
    out = {}
    for outcome in decide(first, (), policy):
        pair = (outcome.qid, outcome.docid)
        if pair not in queue:
            continue
        item = by_pair[pair]
        for c in outcome.conditions:
            if c.decision.status == "accepted" and c.decision.positive and c.index not in queue[pair]:
                out[(outcome.qid, outcome.docid, c.index)] = tuple(sorted(_quoted_pages(first, names, item.item,
                                                                                        c.index)))
    return out


def held_out_recall(first: Record, stage_key: Key, queue: Mapping[Tuple[str, str], Sequence[int]],
                    policy: Policy, rubrics: RubricSet, pages: Mapping[str, Mapping[int, PageText]]) -> HeldOutRecall:
    """The held-out recall check of an adjudication stage drawn from ``first`` (module docstring)."""
    locked = locked_positives(first, queue, policy)
    by_pair = {(it.qid, it.docid): it for it in first.items}
    order = [r for r in EXPANDED_ORDER if r not in WITHHELD]
    indexes = {}
    at_min = at_full = all_full = 0
    for (qid, docid, index), quoted in sorted(locked.items()):
        condition = next(c for c in by_pair[(qid, docid)].conditions if c.index == index)
        if docid not in indexes:
            indexes[docid] = index_document(pages[docid], rubrics)
        routes = routes_for(rubrics.conditions[condition.condition_id], rubrics, indexes[docid],
                            condition.construction_pages)
        ranked, _ = ranked_pool(routes, order, EXPANDED_PAGES, pages[docid],
                                f"nclue-audit-heldout:{stage_key.packet_id}:{qid}:{docid}:{index}")
        at_min += int(bool(set(quoted) & set(ranked[:EXPANDED_MIN_PAGES])))
        at_full += int(bool(set(quoted) & set(ranked[:EXPANDED_PAGES])))
        all_full += int(set(quoted) <= set(ranked[:EXPANDED_PAGES]))
    with_quotes = displayed = 0
    for it in stage_key.items:
        for c in it.conditions:
            if not c.ask:
                continue
            quoted = _quoted_pages(first, first.evaluator_ids, by_pair[(it.qid, it.docid)].item, c.index)
            if quoted:
                with_quotes += 1
                displayed += int(quoted <= {p.page for p in c.pool})
    return HeldOutRecall(len(locked), at_min, at_full, all_full, with_quotes, displayed)


def recall_table(recall: HeldOutRecall, packet_id: str, table_id: str = "audit_pool_recall") -> Table:
    """The held-out recall check as a table (count of n)."""
    rows: List = [
        ("rank6", f"Locked positive conditions with known evidence by rank {EXPANDED_MIN_PAGES}",
         {"count": recall.by_min_rank, "n": recall.locked}),
        ("rank9", f"Locked positive conditions with known evidence by rank {EXPANDED_PAGES}",
         {"count": recall.by_full_rank, "n": recall.locked}),
        ("all9", f"Locked positive conditions with every quoted page by rank {EXPANDED_PAGES}",
         {"count": recall.all_by_full_rank, "n": recall.locked}),
        ("asked", "Asked conditions whose first-pass quoted pages are all displayed",
         {"count": recall.asked_quotes_displayed, "n": recall.asked_with_quotes}),
    ]
    return Table(table_id, f"Held-out recall check of the expanded pool, {packet_id} (sec. 10.3.1)",
                 (Column("count", "count", 0), Column("n", "of", 0)), tuple(rows),
                 note="Held-out pool: the expanded pool without the two routes built from the first-pass "
                      "evaluators (their quoted and their shown pages). Recall for known positives, not "
                      "document-level recall for unknown negatives.")
