"""The retrieval-conditioned qrel challenge (n-Clue paper, supplement sec. 10.5).

"The stratified audit was not designed to find every false negative in a system's top ranks. We
therefore formed a separate robustness set containing every already-judged ... subset in the
frozen fusion/BM25 top-10 union whose promotion could reduce that contrast: 125 targets. Twenty-five
neutral controls were interleaved. System, rank, source, original grade, and target/control status
were hidden"; Table S14: "The target challenge is deliberately contrast-conditioned and
therefore tests robustness rather than estimating an unbiased leaderboard."

Definitions (exact, per query, with the scorer's own per-query outcomes, :mod:`nclue.metrics`):

- the contrast is ``mean_q [m(variant, q) - m(base, q)]`` for a per-query measure ``m`` of the
  registry defined on every query (``nclue_score``, ``gold_hit``, ``gold_ndcg``, ``graded_ndcg``,
  ...) at cutoff k;
- promoting a judged subset d of query q makes it a gold with every condition; its effect is
  ``delta(q, d) = [m'(variant, q) - m'(base, q)] - [m(variant, q) - m(base, q)]`` with m'
  recomputed on the promoted judgments (the gold count of q, hence the ideal DCG, changes too);
- **targets**: every judged subset in the union of both runs' top k whose delta moves the
  contrast toward zero (``sign(contrast) * delta < 0``);
- **controls**: judged subsets whose promotion leaves the contrast unchanged (delta exactly 0),
  drawn with ``random.Random(seed)`` first from the top-k union, then from the other judged
  subsets; they are interleaved with the targets (the item order is shuffled) and marked only in
  the administrator key.
"""

import math
import random
from dataclasses import dataclass, replace
from typing import Dict, List, Sequence, Tuple

from ..errors import NclueError
from ..measures import REGISTRY
from ..metrics import QueryFacts, query_facts, query_outcome
from ..release import Release
from ..runs import Run

#: Measures a contrast can be taken on: per-query outcome measures over every query.
MEASURES = tuple(d.key for d in REGISTRY if d.per_query is not None and d.denominator == "all")


@dataclass(frozen=True)
class Candidate:
    qid: str
    docid: str
    delta: float  # change of the contrast, in percentage points of the mean


def _value(facts: QueryFacts, run: Run, k: int, measure: str) -> float:
    outcome = query_outcome(facts, run.rankings.get(facts.qid), k)
    return float(REGISTRY.definition(measure).per_query(outcome))


def promoted(facts: QueryFacts, docid: str) -> QueryFacts:
    """The query's facts with subset ``docid`` promoted to a gold holding every condition."""
    clues = dict(facts.clues)
    clues[docid] = facts.n_conditions
    return replace(facts, golds=facts.golds | {docid}, subsets=facts.subsets - {docid}, clues=clues)


def contrast(release: Release, base: Run, variant: Run, k: int, measure: str) -> float:
    """``100 * mean_q [m(variant, q) - m(base, q)]`` over every query of the release."""
    if measure not in MEASURES:
        raise NclueError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    facts = query_facts(release)
    total = math.fsum(_value(f, variant, k, measure) - _value(f, base, k, measure) for f in facts.values())
    return 100.0 * total / len(facts)


def _delta(facts: QueryFacts, docid: str, base: Run, variant: Run, k: int, measure: str,
           old: float, n_queries: int) -> float:
    changed = promoted(facts, docid)
    new = _value(changed, variant, k, measure) - _value(changed, base, k, measure)
    return 100.0 * (new - old) / n_queries


def top_union(base: Run, variant: Run, k: int) -> Dict[str, set]:
    """Per query, the documents in either run's top k."""
    out: Dict[str, set] = {}
    for run in (base, variant):
        for qid, ranking in run.rankings.items():
            out.setdefault(qid, set()).update(ranking.docs[:k])
    return out


def select(release: Release, base: Run, variant: Run, k: int, measure: str, n_controls: int,
           seed: int) -> Tuple[float, List[Candidate], List[Candidate]]:
    """(contrast, targets, controls), both lists sorted by (qid, docid) (module docstring).

    Controls: the neutral subsets of the top-k union are drawn first (``rng.sample``); when they
    are too few, the other judged subsets are visited in a seeded random order and the neutral
    ones taken until ``n_controls`` are found.
    """
    value = contrast(release, base, variant, k, measure)
    if value == 0:
        raise NclueError("the contrast is exactly 0: no promotion can reduce it")
    sign = 1.0 if value > 0 else -1.0
    facts = query_facts(release)
    n_queries = len(facts)
    union = top_union(base, variant, k)
    old = {q: _value(f, variant, k, measure) - _value(f, base, k, measure) for q, f in facts.items()}
    targets, near, far = [], [], []
    for qid, f in facts.items():
        for docid in sorted(f.subsets):
            if docid not in union.get(qid, set()):
                far.append((qid, docid))
                continue
            delta = _delta(f, docid, base, variant, k, measure, old[qid], n_queries)
            if sign * delta < 0:
                targets.append(Candidate(qid, docid, delta))
            elif delta == 0:
                near.append(Candidate(qid, docid, 0.0))
    rng = random.Random(seed)
    controls = rng.sample(near, min(n_controls, len(near)))
    if len(controls) < n_controls:
        rng.shuffle(far)
        for qid, docid in far:
            if len(controls) == n_controls:
                break
            if _delta(facts[qid], docid, base, variant, k, measure, old[qid], n_queries) == 0:
                controls.append(Candidate(qid, docid, 0.0))
    return (value, sorted(targets, key=lambda c: (c.qid, c.docid)),
            sorted(controls, key=lambda c: (c.qid, c.docid)))


def contrast_record(base: Run, variant: Run, k: int, measure: str, value: float,
                    targets: Sequence[Candidate], controls: Sequence[Candidate],
                    seed: int) -> Dict[str, object]:
    """What the administrator key records about the challenge (hidden from the packet)."""
    return {"base": base.run_id, "variant": variant.run_id, "k": k, "measure": measure,
            "contrast": value, "seed": seed, "targets": len(targets), "controls": len(controls),
            "target_deltas": {f"{c.qid}|{c.docid}": c.delta for c in targets}}
