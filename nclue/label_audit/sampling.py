"""Stratified, seeded sample of judged query-document pairs for the label audit.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.1 and Table S7: the audit unit is a judged
query-document pair; the initial packet is stratified by release and source with about half
pre-gold and half pre-subset pairs ("Counts describe the sampled packet, not the population
distribution of qrels", Table S7; Table S13: rates "must not be reweighted into a population
error estimate").

Strata: (source of the document, number of conditions n, grade), the grade being ``gold`` or
``subset:<clues>`` with ``:<gate>`` for an all-condition subset that failed a page gate.

Allocation (written down here, deterministic):

1. ``n_gold = n // 2`` pairs go to the gold strata and ``n - n_gold`` to the subset strata; a
   side with fewer pairs than its share passes the shortfall to the other side.
2. Within a side, the pairs are spread *equally* over its strata (water-filling): every stratum
   with pairs left receives ``floor(remaining / strata left)``, a stratum holding fewer receives
   all it has and the rest is spread again; when the remainder is smaller than the number of
   strata left, one pair each goes to the first strata in sorted stratum order.
3. Within a stratum, ``random.Random(seed)`` draws the pairs (``rng.sample`` of the stratum's
   pairs sorted by (qid, docid)); strata are visited in sorted order with one generator.

Asking for more pairs than the release judges takes every judged pair.
"""

import random
from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

from ..errors import NclueError
from ..release import Judgment, Release

StratumKey = Tuple[str, int, str]


@dataclass(frozen=True)
class SampledPair:
    qid: str
    docid: str
    stratum: StratumKey


def grade_of(judgment: Judgment) -> str:
    """``gold`` or ``subset:<clues>[:<gate>]``."""
    if judgment.is_gold:
        return "gold"
    return f"subset:{judgment.clues}" + (f":{judgment.gate}" if judgment.gate else "")


def stratum_of(release: Release, judgment: Judgment) -> StratumKey:
    """(source, number of conditions, grade) of one judged pair."""
    return (release.corpus[judgment.docid].source, len(release.queries[judgment.qid].conditions),
            grade_of(judgment))


def stratum_label(key: StratumKey) -> str:
    return f"{key[0]} | n={key[1]} | {key[2]}"


def strata(release: Release) -> Dict[StratumKey, List[Tuple[str, str]]]:
    """Every judged pair by stratum, each list sorted by (qid, docid)."""
    out: Dict[StratumKey, List[Tuple[str, str]]] = {}
    for qid in sorted(release.judgments):
        for docid in sorted(release.judgments[qid]):
            judgment = release.judgments[qid][docid]
            out.setdefault(stratum_of(release, judgment), []).append((qid, docid))
    return out


def allocate_equal(capacity: Mapping[StratumKey, int], total: int) -> Dict[StratumKey, int]:
    """Equal allocation of ``total`` over strata with the given capacities (module docstring)."""
    if total < 0:
        raise NclueError("cannot allocate a negative number of pairs")
    alloc = {k: 0 for k in capacity}
    remaining = min(total, sum(capacity.values()))
    while remaining > 0:
        active = [k for k in sorted(capacity) if alloc[k] < capacity[k]]
        share = remaining // len(active)
        if share == 0:
            for k in active[:remaining]:
                alloc[k] += 1
            break
        for k in active:
            given = min(share, capacity[k] - alloc[k])
            alloc[k] += given
            remaining -= given
    return alloc


def allocate(release: Release, n: int) -> Dict[StratumKey, int]:
    """Pairs to draw from every stratum for a sample of ``n`` (module docstring, steps 1-2)."""
    if n < 1:
        raise NclueError(f"the sample needs at least one pair, got {n}")
    groups = strata(release)
    gold = {k: len(v) for k, v in groups.items() if k[2] == "gold"}
    subset = {k: len(v) for k, v in groups.items() if k[2] != "gold"}
    want_gold, want_subset = n // 2, n - n // 2
    have_gold, have_subset = sum(gold.values()), sum(subset.values())
    if have_gold < want_gold:
        want_subset += want_gold - have_gold
        want_gold = have_gold
    if have_subset < want_subset:
        want_gold = min(have_gold, want_gold + want_subset - have_subset)
        want_subset = have_subset
    alloc = allocate_equal(gold, want_gold)
    alloc.update(allocate_equal(subset, want_subset))
    return alloc


def draw_sample(release: Release, n: int, seed: int) -> List[SampledPair]:
    """The stratified sample, sorted by (qid, docid) (module docstring, step 3)."""
    groups = strata(release)
    alloc = allocate(release, n)
    rng = random.Random(seed)
    picked: List[SampledPair] = []
    for key in sorted(groups):
        for qid, docid in rng.sample(groups[key], alloc[key]):
            picked.append(SampledPair(qid, docid, key))
    return sorted(picked, key=lambda p: (p.qid, p.docid))


def sample_table_rows(release: Release, pairs: Sequence[SampledPair]) -> List[Tuple[str, int, int, int]]:
    """Table S7 shape: (source, pairs, pre-gold, pre-subset) per source, sorted, plus ``All``."""
    by_source: Dict[str, List[int]] = {}
    for pair in pairs:
        row = by_source.setdefault(pair.stratum[0], [0, 0, 0])
        row[0] += 1
        row[1 if pair.stratum[2] == "gold" else 2] += 1
    rows = [(source, *counts) for source, counts in sorted(by_source.items())]
    rows.append(("All", sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows)))
    return rows
