"""Task-factor slices of a release's queries, defined once (n-Clue paper, Table 6 / Table S1j).

Three factors describe a query: its condition count n; L_min, the page count of its shortest
gold (undefined without a gold); and |D+|, its judged pool (the number of nonzero qrels).
:func:`query_factors` computes them from the released files (``slices.jsonl`` of a release
holds the same rows, and ``reproduce.py`` re-derives it); :data:`SLICES` names the bins the
report and the paper audit use, with the paper's cut points (L_min <= 30 and > 100 pages;
|D+| <= 25 and > 50) and the middle bins added so every query falls in exactly one bin of each
factor.
"""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from .release import Release


@dataclass(frozen=True)
class QueryFactors:
    """One query's task factors (one row of ``slices.jsonl``, without the condition kinds)."""

    qid: str
    conditions: int
    shortest_gold_pages: Optional[int]  # None: the query has no gold
    judged_pool: int
    kinds: str  # "entity", "section", ... or "mixed"; "" when the release records none


def _kinds(condition_ids: Tuple[str, ...]) -> str:
    kinds = sorted({cid.split(":", 1)[0] for cid in condition_ids})
    if not kinds:
        return ""
    return kinds[0] if len(kinds) == 1 else "mixed"


def query_factors(release: Release) -> Dict[str, QueryFactors]:
    """Task factors of every query, by qid (sorted)."""
    out = {}
    for qid in sorted(release.queries):
        query = release.queries[qid]
        golds = release.golds(qid)
        shortest = min(release.corpus[d].pages for d in golds) if golds else None
        out[qid] = QueryFactors(qid, len(query.conditions), shortest,
                                len(release.judgments.get(qid, {})), _kinds(query.condition_ids))
    return out


def slice_rows(release: Release) -> List[dict]:
    """The rows of ``slices.jsonl`` as :mod:`nclue.instrument.release_writer` writes them
    (``shortest_gold_pages`` 0 for a query without a gold)."""
    return [{"qid": f.qid, "conditions": f.conditions,
             "shortest_gold_pages": f.shortest_gold_pages or 0, "judged_pool": f.judged_pool,
             "kinds": f.kinds} for f in query_factors(release).values()]


def _lmin(low: Optional[int], high: Optional[int]) -> Callable[[QueryFactors], bool]:
    def member(f: QueryFactors) -> bool:
        if f.shortest_gold_pages is None:
            return False
        return ((low is None or f.shortest_gold_pages > low)
                and (high is None or f.shortest_gold_pages <= high))
    return member


def _pool(low: Optional[int], high: Optional[int]) -> Callable[[QueryFactors], bool]:
    def member(f: QueryFactors) -> bool:
        return (low is None or f.judged_pool > low) and (high is None or f.judged_pool <= high)
    return member


@dataclass(frozen=True)
class Slice:
    """A named bin of one factor (``name`` as printed in Table 6 analogues)."""

    name: str
    factor: str
    member: Callable[[QueryFactors], bool]


#: Every slice, in report order.
SLICES: Tuple[Slice, ...] = (
    Slice("all", "all", lambda f: True),
    Slice("n=2", "conditions", lambda f: f.conditions == 2),
    Slice("n=3", "conditions", lambda f: f.conditions == 3),
    Slice("Lmin<=30", "shortest gold", _lmin(None, 30)),
    Slice("Lmin31-100", "shortest gold", _lmin(30, 100)),
    Slice("Lmin>100", "shortest gold", _lmin(100, None)),
    Slice("no gold", "shortest gold", lambda f: f.shortest_gold_pages is None),
    Slice("D+<=25", "judged pool", _pool(None, 25)),
    Slice("D+26-50", "judged pool", _pool(25, 50)),
    Slice("D+>50", "judged pool", _pool(50, None)),
)

#: Names the paper audit uses for the paper's own slices (``release_map`` entries).
AUDIT_NAMES = {"lmin<=30": "Lmin<=30", "lmin>100": "Lmin>100", "dplus<=25": "D+<=25",
               "dplus>50": "D+>50", "n=2": "n=2", "n=3": "n=3", "all": "all"}


def query_slices(release: Release) -> Dict[str, List[str]]:
    """Non-empty slices, ``{name: [qid, ...]}`` in :data:`SLICES` order, qids sorted."""
    factors = query_factors(release)
    out: Dict[str, List[str]] = {}
    for s in SLICES:
        members = [qid for qid, f in factors.items() if s.member(f)]
        if members:
            out[s.name] = members
    return out


def slice_by_name(name: str) -> Slice:
    """A slice by its report name or its paper-audit alias; KeyError when unknown."""
    name = AUDIT_NAMES.get(name, name)
    for s in SLICES:
        if s.name == name:
            return s
    raise KeyError(name)
