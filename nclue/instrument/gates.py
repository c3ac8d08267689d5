"""Clue counts and the two page gates of a gold (n-Clue paper, sec. 3.2; supplement 1.1).

For a query with conditions c_1..c_n and a document d with page sets P0(d, c_i):

- the clue count is the number of conditions with a nonempty page set;
- a *gold* has every page set nonempty, an empty all-condition intersection (no single page
  solves the request: the ``single_page`` gate) and a distinct-page assignment, i.e. a system of
  distinct representatives (Hall 1935) choosing a different page for every condition (the
  ``distinct_page`` gate);
- a document with every condition that fails a gate is a *subset*, flagged with the first gate it
  fails in the order ``single_page``, ``distinct_page``.

The distinct-page gate is decided by maximum bipartite matching (augmenting paths, Kuhn 1955).
Document-level releases (``page_gates=False``) label every all-condition document gold.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

GATE_SINGLE_PAGE = "single_page"
GATE_DISTINCT_PAGE = "distinct_page"


@dataclass(frozen=True)
class Judgment:
    """A construction label: ``clues`` >= 1, ``label`` "gold" or "subset", ``gate`` or None."""

    clues: int
    label: str
    gate: Optional[str]


def clue_count(page_sets: Sequence[Sequence[int]]) -> int:
    """Number of conditions whose page set is nonempty."""
    return sum(1 for pages in page_sets if pages)


def single_page_solvable(page_sets: Sequence[Sequence[int]]) -> bool:
    """True when one page lies in every page set (a nonempty all-condition intersection)."""
    if not page_sets or not all(page_sets):
        return False
    common = set(page_sets[0])
    for pages in page_sets[1:]:
        common &= set(pages)
        if not common:
            return False
    return True


def distinct_page_assignment(page_sets: Sequence[Sequence[int]]) -> Optional[List[int]]:
    """One distinct page per condition (a system of distinct representatives), or None.

    Maximum bipartite matching conditions -> pages with augmenting paths; conditions and pages
    are tried in ascending order, so the returned assignment is deterministic.
    """
    owner: Dict[int, int] = {}  # page -> condition index

    def augment(condition: int, seen: set) -> bool:
        for page in sorted(set(page_sets[condition])):
            if page in seen:
                continue
            seen.add(page)
            if page not in owner or augment(owner[page], seen):
                owner[page] = condition
                return True
        return False

    for condition in range(len(page_sets)):
        if not augment(condition, set()):
            return None
    assignment = [0] * len(page_sets)
    for page, condition in owner.items():
        assignment[condition] = page
    return assignment


def judge(page_sets: Sequence[Sequence[int]], page_gates: bool = True) -> Optional[Judgment]:
    """Label one query-document pair from its per-condition page sets; None when no clue holds."""
    clues = clue_count(page_sets)
    if clues == 0:
        return None
    if clues < len(page_sets):
        return Judgment(clues, "subset", None)
    if page_gates:
        if single_page_solvable(page_sets):
            return Judgment(clues, "subset", GATE_SINGLE_PAGE)
        if distinct_page_assignment(page_sets) is None:
            return Judgment(clues, "subset", GATE_DISTINCT_PAGE)
    return Judgment(clues, "gold", None)
