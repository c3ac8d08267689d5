"""The expanded-page adjudication stage, drawn mechanically from a first-pass record.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.2-10.3: the policy sends every split and
every consensus decrease to "expanded-page adjudication"; "The resulting queue has 75 unique
pairs and 94 unresolved conditions ... Another 86 conditions within those pairs were already
directly supported and remain locked"; the poll shows "six to nine pages ... from the start",
and "The evaluator sees neither the prior qrel nor A/E votes, candidate ranks, or retrieval
routes".

Every pair with a queued condition (:func:`nclue.label_audit.repair.queued`) becomes one item
asking only its queued conditions; locked conditions are not asked. Each asked condition's pool
(:mod:`.pools`, 9 pages, at least 6 where the document has them) takes, round-robin, the pages
first-pass evaluators quoted (``selected``), the construction pages, exact hits, the first-pass
pages, BM25 and fuzzy hits. The stage's key names the first-pass record (its sha256) it was
drawn from, and the policy recorded there.
"""

from typing import Dict, List, Tuple

from .record import Record
from .spec import StagePair


def adjudication_pairs(first: Record, queue: Dict[Tuple[str, str], List[int]]) -> List[StagePair]:
    """Stage pairs for the queued conditions (sorted by pair)."""
    pairs = []
    by_pair = {(it.qid, it.docid): it for it in first.items}
    for (qid, docid), indices in sorted(queue.items()):
        it = by_pair[(qid, docid)]
        first_pass = {c.index: tuple(p.page for p in c.pool) for c in it.conditions}
        selected: Dict[int, Tuple[int, ...]] = {}
        for evaluator in first.evaluator_ids:
            for index, answer in first.answers[evaluator].get(it.item, {}).items():
                selected[index] = tuple(sorted(set(selected.get(index, ())) | set(answer.pages)))
        pairs.append(StagePair(qid, docid, it.role, it.stratum, tuple(indices), first_pass, selected))
    return pairs
