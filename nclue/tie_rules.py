"""Per-query vectors of a loaded release's runs under every tie rule, for tie-sensitivity tables.

The n-Clue paper (arXiv 2607.24165, supplement 2) breaks score ties by stable input order;
trec_eval breaks them by docid descending; the rule ``expected`` takes the exact expectation of
every per-query measure over uniformly random orders within tie groups (:mod:`nclue.ties`, with
its closed forms and brute-force tests). RRF and other rank-based fusions hold many exact ties,
so a contrast can depend on the rule. A :class:`TieView` gives a run's per-query vector of a
measure under any rule without re-reading the run file: a query whose ranking holds no tied
score has the same value under every rule, so only the tied rankings are re-scored (re-ordered
for ``input`` / ``trec_eval``: the trec_eval order is a total order on (score, docid), so
re-sorting the input-ordered ranking gives exactly the order of re-reading the file; or replaced
by their expectations for ``expected``), and every other query keeps the context's value.

:data:`VECTOR_PROVIDERS` maps each rule a report may name to the function that computes the
vector; a new tie mode is one more entry there. The queries a tie *decides* (n-Clue success or
Gold Hit with a probability strictly between 0 and 1 over the tie orders) are those of
:func:`nclue.ties.tie_decided_queries`, the count ``nclue score`` prints.
"""

from types import MappingProxyType
from typing import Callable, Dict, Mapping, Optional, Tuple

from .errors import InputError
from .measures import Measure
from .metrics import QueryFacts, QueryOutcome, is_page_scored, query_facts
from .runs import ORDER_RULES, TIE_RULES, Ranking, Run, order_by_score
from .tie_contract import outcome_records, plan
from .ties import tie_decided_queries

Vector = Dict[str, float]


def has_ties(ranking: Ranking) -> bool:
    """Whether two documents of the ranking share a score."""
    return len(set(ranking.scores)) != len(ranking.scores)


def ties_touch_judged(ranking: Ranking, judged: Mapping[str, int]) -> bool:
    """Whether some tie group (two or more documents with one score) holds a judged document.

    Permuting a group of unjudged documents moves no judged document's rank and brings no
    support pages into or out of the top k, so every measure keeps its value under every rule.
    """
    seen: Dict[float, int] = {}
    for score in ranking.scores:
        seen[score] = seen.get(score, 0) + 1
    tied = {score for score, n in seen.items() if n > 1}
    return any(score in tied for docid, score in zip(ranking.docs, ranking.scores)
               if docid in judged)


class TieView:
    """Per-query vectors of a :class:`nclue.context.ReleaseContext`'s runs under every tie rule
    (cached per run); the context's own rule is the context's vectors."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._facts: Optional[Mapping[str, QueryFacts]] = None
        self._vectors: Dict[Tuple[str, str, str], Optional[Vector]] = {}
        self._decided: Dict[Tuple[str, int], frozenset] = {}
        self._changed: Dict[Tuple[str, str], Dict[str, Ranking]] = {}
        self._outcomes: Dict[Tuple[str, str, int], Dict[str, QueryOutcome]] = {}

    @property
    def facts(self) -> Mapping[str, QueryFacts]:
        if self._facts is None:
            self._facts = query_facts(self.ctx.release)
        return self._facts

    def vector(self, run_id: str, measure: Measure, rule: str) -> Optional[Vector]:
        """The per-query vector of ``measure`` for ``run_id`` under tie rule ``rule``."""
        if rule not in VECTOR_PROVIDERS:
            raise InputError(self.ctx.layout.report_spec,
                             f"tie rule {rule!r} is not available (known: "
                             f"{', '.join(VECTOR_PROVIDERS)}); see nclue.tie_rules.VECTOR_PROVIDERS")
        key = (run_id, measure.name, rule)
        if key not in self._vectors:
            self._vectors[key] = VECTOR_PROVIDERS[rule](self, run_id, measure, rule)
        return self._vectors[key]

    def decided(self, run_id: str, k: int) -> frozenset:
        """Queries whose n-Clue success or Gold Hit at k a score tie decides, for ``run_id``."""
        key = (run_id, k)
        if key not in self._decided:
            run = self.ctx.run(run_id)
            tied = {q for q, r in run.rankings.items() if has_ties(r)}
            facts = {q: f for q, f in self.facts.items() if q in tied}
            self._decided[key] = frozenset(tie_decided_queries(facts, run, k))
        return self._decided[key]

    def rescored(self, run_id: str, rule: str) -> Dict[str, Ranking]:
        """The tied rankings of ``run_id`` that ``rule`` scores differently: re-ordered ones for an
        order rule (only those whose order changes), every tied one for ``expected``."""
        key = (run_id, rule)
        if key not in self._changed:
            out = {}
            for qid, ranking in self.ctx.run(run_id).rankings.items():
                if not has_ties(ranking) or not ties_touch_judged(ranking, self.facts[qid].clues):
                    continue  # no tie that moves a judged document: every rule gives its value
                if rule not in ORDER_RULES:
                    out[qid] = ranking
                    continue
                docs, scores = order_by_score(list(ranking.docs), list(ranking.scores), rule)
                if tuple(docs) != ranking.docs:
                    out[qid] = Ranking(qid, tuple(docs), tuple(scores), ranking.pages)
            self._changed[key] = out
        return self._changed[key]

    def outcomes(self, run_id: str, rule: str, k: int) -> Dict[str, QueryOutcome]:
        """Per-query outcomes at cutoff ``k`` of the rankings that ``rule`` scores differently."""
        key = (run_id, rule, k)
        if key not in self._outcomes:
            changed = self.rescored(run_id, rule)
            self._outcomes[key] = outcome_records(
                {q: self.facts[q] for q in changed}, Run(run_id, changed, rule), k,
                is_page_scored(self.ctx.run(run_id)))
        return self._outcomes[key]


def _rescored_vector(view: TieView, run_id: str, measure: Measure, rule: str) -> Optional[Vector]:
    """The context's vector with the queries that ``rule`` scores differently re-scored, as the
    measure's tie contract says (:mod:`nclue.tie_contract`; its refusal is an InputError)."""
    ctx = view.ctx
    plan(ctx.registry.definition(measure), rule, ctx.layout.report_spec)
    own = ctx.vector(run_id, measure)
    if rule == ctx.ties or own is None:
        return own
    changed = view.rescored(run_id, rule)
    if not changed:
        return own
    scorer = ctx.scorer
    part = Run(run_id, changed, rule)
    values = scorer.vector(part, measure, ctx.layout.report_spec,
                           lambda k: scorer.outcome_vectors(part, k, view.outcomes(run_id, rule, k)),
                           ctx.k, qids=changed) or {}
    out = dict(own)
    for q in changed:  # a conditional measure may leave or join its denominator
        if q in values:
            out[q] = values[q]
        else:
            out.pop(q, None)
    return out


#: Tie rule -> provider of per-query vectors (every rule of :data:`nclue.runs.TIE_RULES`).
VECTOR_PROVIDERS: Mapping[str, Callable[[TieView, str, Measure, str], Optional[Vector]]] = (
    MappingProxyType({rule: _rescored_vector for rule in TIE_RULES}))
