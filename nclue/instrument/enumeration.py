"""Query enumeration: rare conjunctions of individually common conditions (n-Clue paper,
sec. 3.2: "Candidate conjunctions are rare even though their conditions are individually common,
yielding natural partial matches without mining against a particular retriever").

A *candidate* is a set of 2 or 3 conditions with distinct display names (case folded) such that
1 to ``max_holders`` documents hold every condition and at least one of those is gold (passes
the page gates).  Every condition is common by construction of the inventory (df >= min_df), so
each candidate has natural subset documents.  Nothing here reads a retriever.

Selection is deterministic under the recorded seed: candidates are listed in sorted order,
shuffled with ``random.Random(seed)``, and accepted greedily (two-condition candidates first,
as they are the scarcer kind) while (a) no gold document would exceed ``max_gold_per_doc`` test
queries and (b) no condition would exceed ``max_queries_per_condition``.  Extra queries for
training (validation first, then training) come from the remaining candidates, skipping every
candidate that shares a *condition pair* with an already assigned query of another split, so
the splits share no query and no conjunction of two conditions.
"""

import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Dict, FrozenSet, List, Sequence, Set, Tuple

from .inventory import Inventory

GoldTest = Callable[[Sequence[str], str], bool]


@dataclass(frozen=True)
class Candidate:
    cids: Tuple[str, ...]  # sorted condition ids
    holders: Tuple[str, ...]  # documents holding every condition, sorted
    golds: Tuple[str, ...]  # holders that pass the gates, sorted


def condition_pairs(cids: Sequence[str]) -> Set[Tuple[str, str]]:
    return {tuple(sorted(p)) for p in combinations(cids, 2)}


def enumerate_candidates(inventory: Inventory, n: int, max_holders: int,
                         is_gold: GoldTest) -> List[Candidate]:
    """All candidates with ``n`` (2 or 3) conditions, in sorted order of condition ids."""
    if n not in (2, 3):
        raise ValueError("n must be 2 or 3")
    cids = [c.cid for c in inventory.conditions]
    names = {c.cid: c.name.casefold() for c in inventory.conditions}
    docs: Dict[str, FrozenSet[str]] = {cid: frozenset(inventory.support[cid]) for cid in cids}
    out: List[Candidate] = []

    def consider(combo: Tuple[str, ...], holders: FrozenSet[str]) -> None:
        if not 1 <= len(holders) <= max_holders:
            return
        if len({names[c] for c in combo}) < len(combo):
            return
        ordered = tuple(sorted(holders))
        golds = tuple(d for d in ordered if is_gold(combo, d))
        if golds:
            out.append(Candidate(combo, ordered, golds))

    for i, a in enumerate(cids):
        for j in range(i + 1, len(cids)):
            b = cids[j]
            ab = docs[a] & docs[b]
            if not ab:
                continue
            if n == 2:
                consider((a, b), ab)
                continue
            for k in range(j + 1, len(cids)):
                c = cids[k]
                abc = ab & docs[c]
                if abc:
                    consider((a, b, c), abc)
    return out


def select_test(pairs: List[Candidate], triples: List[Candidate], n2: int, n3: int,
                max_gold_per_doc: int, max_per_condition: int,
                rng: random.Random) -> List[Candidate]:
    """Greedy seeded selection of test queries under the gold and condition caps."""
    gold_use: Counter = Counter()
    cond_use: Counter = Counter()
    chosen: List[Candidate] = []
    for pool, target in ((pairs, n2), (triples, n3)):
        order = list(pool)
        rng.shuffle(order)
        taken = 0
        for cand in order:
            if taken >= target:
                break
            if any(gold_use[d] >= max_gold_per_doc for d in cand.golds):
                continue
            if any(cond_use[c] >= max_per_condition for c in cand.cids):
                continue
            gold_use.update(cand.golds)
            cond_use.update(cand.cids)
            chosen.append(cand)
            taken += 1
    return chosen


def select_extra(pairs: List[Candidate], triples: List[Candidate], test: List[Candidate],
                 splits: Sequence[Tuple[str, int]], three_fraction: float,
                 rng: random.Random) -> Dict[str, List[Candidate]]:
    """Disjoint extra splits (e.g. validation, training) from candidates unused by ``test``.

    A candidate is eligible for a split only if none of its condition pairs occurs in a query
    of another split (test included)."""
    owner: Dict[Tuple[str, str], str] = {}
    for cand in test:
        for pair in condition_pairs(cand.cids):
            owner[pair] = "test"
    used = {cand.cids for cand in test}
    pair_order = [c for c in pairs if c.cids not in used]
    triple_order = [c for c in triples if c.cids not in used]
    rng.shuffle(pair_order)
    rng.shuffle(triple_order)
    result: Dict[str, List[Candidate]] = {}
    for name, size in splits:
        n3 = int(size * three_fraction + 0.5)
        picked: List[Candidate] = []
        for pool, target in ((pair_order, size - n3), (triple_order, n3)):
            taken = 0
            for cand in pool:
                if taken >= target:
                    break
                if cand.cids in used:
                    continue
                mine = condition_pairs(cand.cids)
                if any(owner.get(p, name) != name for p in mine):
                    continue
                for p in mine:
                    owner[p] = name
                used.add(cand.cids)
                picked.append(cand)
                taken += 1
        result[name] = picked
    return result
