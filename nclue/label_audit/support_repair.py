"""A label version made by a pre-specified support rule, through the repair path (P0 -> P1).

``audit/label_audit/support_rule_P1.md`` states the rule; :mod:`nclue.instrument.support_rule`
decides page by page.  This module applies it to every judged pair of a label version:

* each condition's page set shrinks to the pages that establish it (nothing is added);
* the pair is judged again with the instrument's rule (:func:`nclue.instrument.gates.judge`,
  the release's ``page_gates``); a pair left with no clue leaves the qrels;
* the changed pairs become repair rows of the same shape as the audit's
  (:func:`nclue.label_audit.repair.repair_rows`), with ``status`` ``"rule"`` and the rule's reason
  per condition; the lineage records the rule file's sha256, the build folder's file hashes and
  the queries the removal policy drops (no gold left).

n-Clue paper, supplement sec. 10.4 ("The final manifest changes 65/300 grades") and sec. 1.1 (the
P0 -> P genealogy of label copies).
"""

from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..instrument.gates import judge
from ..instrument.support_rule import Establisher
from ..release import Release

Label = Tuple[int, str, Optional[str]]


@dataclass(frozen=True)
class RuleOutcome:
    """One judged pair before and after the rule."""

    qid: str
    docid: str
    before: Label
    after: Optional[Label]
    before_pages: Tuple[Tuple[int, ...], ...]
    after_pages: Tuple[Tuple[int, ...], ...]
    reasons: Tuple[Dict[str, int], ...]

    @property
    def changed(self) -> bool:
        return self.after != self.before or self.after_pages != self.before_pages


def apply_rule(release: Release, establisher: Establisher, page_gates: bool) -> List[RuleOutcome]:
    """Every judged pair of ``release`` under the rule, sorted by (qid, docid)."""
    out = []
    for qid in sorted(release.judgments):
        cids = release.queries[qid].condition_ids
        n = len(cids)
        for docid, j in sorted(release.judgments[qid].items()):
            before_pages = tuple(tuple(p) for p in release.evidence.get((qid, docid), tuple(() for _ in range(n))))
            kept, reasons = [], []
            for cid, pages in zip(cids, before_pages):
                p1, removed = establisher.filter(docid, cid, pages)
                kept.append(p1)
                reasons.append(removed)
            after_pages = tuple(kept)
            judged = judge(after_pages, page_gates)
            after = None if judged is None else (judged.clues, judged.label, judged.gate)
            out.append(RuleOutcome(qid, docid, (j.clues, j.label, j.gate), after, before_pages,
                                   after_pages, tuple(reasons)))
    return out


def _label_json(label: Optional[Label], pages: Sequence[Sequence[int]]) -> Optional[Dict[str, Any]]:
    if label is None:
        return None
    return {"clues": label[0], "label": label[1], "gate": label[2], "pages": [list(p) for p in pages]}


def rule_rows(outcomes: Sequence[RuleOutcome], release: Release, rule_id: str) -> List[Dict[str, Any]]:
    """The changed pairs as repair rows (the audit repair's row shape)."""
    rows = []
    for o in outcomes:
        if not o.changed:
            continue
        cids = release.queries[o.qid].condition_ids
        conditions = []
        for index, (cid, before, after, why) in enumerate(zip(cids, o.before_pages, o.after_pages, o.reasons)):
            conditions.append({"index": index, "condition_id": cid, "before": bool(before), "after": bool(after),
                               "status": "rule", "rule": f"{rule_id}: " + (
                                   "kept" if not why else "; ".join(f"{k} x{v}" for k, v in sorted(why.items())))})
        rows.append({"qid": o.qid, "docid": o.docid, "before": _label_json(o.before, o.before_pages),
                     "after": _label_json(o.after, o.after_pages), "conditions": conditions})
    return rows


def queries_without_gold(outcomes: Sequence[RuleOutcome], release: Release) -> List[str]:
    """Queries of the release that keep no gold under the rule (the removal policy's list)."""
    with_gold = {o.qid for o in outcomes if o.after is not None and o.after[1] == "gold"}
    return sorted(q for q in release.queries if q not in with_gold)


def grade(label: Optional[Label]) -> str:
    """A pair's grade as the transition tables print it: ``gold``, ``subset:<clues>[:<gate>]`` or
    ``none`` (out of the qrels)."""
    if label is None:
        return "none"
    clues, kind, gate = label
    if kind == "gold":
        return "gold"
    return f"subset:{clues}" + (f":{gate}" if gate else "")


def summary(outcomes: Sequence[RuleOutcome], release: Release) -> Dict[str, Any]:
    """Counts for the lineage and the report: transitions by grade, pages removed by reason and
    condition kind, pairs changed, queries without a gold."""
    transitions = Counter((grade(o.before), grade(o.after)) for o in outcomes)
    removed: Counter = Counter()
    pages_before: Counter = Counter()
    for o in outcomes:
        cids = release.queries[o.qid].condition_ids
        for cid, before, why in zip(cids, o.before_pages, o.reasons):
            kind = cid.split(":", 1)[0]
            pages_before[kind] += len(before)
            for reason, count in why.items():
                removed[(kind, reason)] += count
    return {
        "pairs": len(outcomes),
        "changed_pairs": sum(1 for o in outcomes if o.changed),
        "transitions": [{"before": b, "after": a, "pairs": n} for (b, a), n in sorted(transitions.items())],
        "pages_before": dict(sorted(pages_before.items())),
        "pages_removed": [{"kind": k, "reason": r, "pages": n} for (k, r), n in sorted(removed.items())],
        "queries_without_gold": queries_without_gold(outcomes, release),
    }
