"""The measure × tie-rule contract (nclue/tie_contract.py) against brute-force enumeration.

For every measure of the registry and every tie rule, on generated small queries and on every
query of the example release:

- ``input``: the value equals the measure's definition on the file order stable-sorted by
  descending score (the order is computed here, not by nclue);
- ``trec_eval``: the definition on the order (score descending, docid descending), whatever the
  file order (the file is shuffled first);
- ``expected``: the average of the definition over every order of every tie group (all
  permutations, enumerated), taken over the orders in which the query is inside the measure's
  denominator; or, for a measure that declares no exact expectation, a one-line refusal.

The definition on one order is the measure's own per-order function (its per-query function of
:func:`nclue.query_outcomes.query_outcome`, or :mod:`nclue.coverage`'s function for the
coverage measures): what is tested is how each rule turns orders into one value. A measure added
to the registry is walked by these loops at once; a new ``coverage`` measure needs its per-order
function in ``COVERAGE_REFERENCE`` (the test says so).
"""

import math
import random
import unittest
from fractions import Fraction
from itertools import permutations, product
from pathlib import Path

from nclue.coverage import (Perspective, PerspectiveQuery, hard_coverage, perspective_hits,
                            perspectives_from_release, soft_coverage, source_coverage)
from nclue.errors import InputError
from nclue.measures import REGISTRY, Measure, MeasureDef
from nclue.query_outcomes import QueryFacts, is_page_scored, query_facts, query_outcome
from nclue.release import load_release
from nclue.runs import TIE_RULES, Ranking, Run, load_run, order_by_score
from nclue.tie_contract import Scorer, contract_markdown, check_contract, plan, refusal
from nclue.ties import first_rank_law, tie_groups
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"
MAX_ORDERS = 720


def gold_rr(o):
    """docs/ARCHITECTURE.md's worked example: reciprocal rank of the first gold."""
    return 0.0 if o.first_gold is None else 1.0 / o.first_gold


#: The worked example exactly as docs/ARCHITECTURE.md writes it (with its tie contract).
GOLD_RR = MeasureDef("gold_rr", "Gold RR", False,
                     "reciprocal rank of the first gold (0 if none is retrieved)",
                     "n-Clue (arXiv 2607.24165), sec. 3.1 (illustration)", per_query=gold_rr,
                     scorecard=True, expectation="first_ranks")
WITH_RR = REGISTRY.with_measure(GOLD_RR)


def reference_order(docs, scores, rule):
    """The order a rule picks, computed here: stable by descending score (input), or by
    (score descending, docid descending) (trec_eval)."""
    index = list(range(len(docs)))
    if rule == "trec_eval":
        index.sort(key=lambda i: docs[i], reverse=True)
    index.sort(key=lambda i: -scores[i])  # stable: the order above breaks equal scores
    return [docs[i] for i in index], [scores[i] for i in index]


def tie_orders(docs, scores):
    """Every order obtained by permuting documents within groups of equal score."""
    groups = tie_groups(docs, scores)
    for choice in product(*(permutations(g.docs) for g in groups)):
        yield tuple(d for part in choice for d in part)


#: Per-order functions of the ``coverage`` measures: (query case, docs best first, k) -> value.
COVERAGE_REFERENCE = {
    "sc": lambda case, docs, k: soft_coverage(case.pids, docs, k, case.verdicts)[0],
    "unjudged": lambda case, docs, k: float(soft_coverage(case.pids, docs, k, case.verdicts)[1]),
    "source_coverage": lambda case, docs, k: source_coverage(case.positives, docs, k, case.sources),
    "perspective_hit": lambda case, docs, k: perspective_hits(case.supports, docs, k),
}


class Case:
    """One query: judgment facts, perspectives, SC verdicts, document sources, and a file
    (docs, scores, page scores) in file order."""

    def __init__(self, facts, perspectives, verdicts, sources, docs, scores, pages,
                 page_scored=None):
        self.facts, self.perspectives = facts, perspectives
        self.verdicts, self.sources = verdicts, sources
        self.docs, self.scores, self.pages = docs, scores, pages
        # whether the run carries page scores (a query of such a run may have none itself)
        self.page_scored = pages is not None if page_scored is None else page_scored
        self.pids = [p.pid for p in perspectives.perspectives]
        self.supports = [p.docs for p in perspectives.perspectives]
        self.positives = perspectives.positives

    def ranking(self, order, scores):
        pages = self.pages if self.pages is not None or not self.page_scored else {}
        return Ranking(self.facts.qid, tuple(order), tuple(scores), pages)

    def definition(self, d, measure, order, scores):
        """The measure's value on one order (None: outside its denominator / not defined)."""
        k = measure.k if measure.k is not None else 10
        if d.computation == "outcome":
            outcome = query_outcome(self.facts, self.ranking(order, scores), k, self.page_scored)
            return d.per_query(outcome)
        if d.computation == "hard_coverage":
            return hard_coverage(self.supports, order, k)
        return COVERAGE_REFERENCE[d.key](self, tuple(order), k)


def generated_cases(seed, count):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        n = rng.randint(1, 6)
        docs = [f"d{i}" for i in rng.sample(range(10), n)]
        scores = [float(rng.randint(1, 3)) for _ in docs]  # file order: not sorted
        ordered = reference_order(docs, scores, "input")
        if math.prod(math.factorial(g.size) for g in tie_groups(*ordered)) > MAX_ORDERS:
            continue
        n_cond = rng.choice((1, 2, 3))
        pool = docs + ["x1", "x2"]
        roles = {d: rng.choice(("gold", "subset", "none")) for d in pool}
        golds = {d for d, r in roles.items() if r == "gold"}
        subsets = {d for d, r in roles.items() if r == "subset"}
        clues = {**{d: n_cond for d in golds}, **{d: rng.randint(1, n_cond) for d in subsets}}
        support = {d: tuple(frozenset(rng.sample(range(1, 5), rng.randint(1, 2)))
                            for _ in range(n_cond)) for d in golds if rng.random() < 0.8}
        pages = None
        if rng.random() < 0.5:
            pages = {d: tuple((rng.randint(1, 4), float(rng.randint(1, 3)))
                              for _ in range(rng.randint(0, 4)))
                     for d in docs if rng.random() < 0.8}
        facts = QueryFacts("q", n_cond, frozenset(golds), frozenset(subsets), clues, support)
        perspectives = tuple(Perspective(f"p{i}", frozenset(rng.sample(pool, rng.randint(1, 3))))
                             for i in range(rng.randint(1, 3)))
        query = PerspectiveQuery("q", "", perspectives)
        verdicts = {(p.pid, d): rng.random() < 0.5 for p in perspectives for d in pool
                    if rng.random() < 0.7}
        sources = {d: rng.choice(("a", "b")) for d in pool}
        cases.append(Case(facts, query, verdicts, sources, docs, scores, pages))
    return cases


def measures_of(registry, ks):
    for d in registry:
        for k in (ks if d.cutoff else (None,)):
            yield d, Measure(d.key, k)


def brute_expected(case, d, measure, order, scores):
    """Mean of the definition over every tie order, given the query is in the denominator."""
    values = [case.definition(d, measure, o, scores) for o in tie_orders(order, scores)]
    defined = [Fraction(v) for v in values if v is not None]
    return None if not defined else float(sum(defined) / len(defined))


#: generated cases checked in the fast part (the other 150 - FAST_CASES are a slow test)
FAST_CASES = 40


class EveryMeasureEveryRule(unittest.TestCase):
    """The loops over registry × rules (with the worked example's Gold RR added)."""

    def contract_value(self, case, d, measure, rule):
        """What nclue computes for the case under ``rule``: through the contract's scorer for a
        measure a release scorer computes, through nclue.coverage on the run's order else."""
        docs, scores = order_by_score(list(case.docs), list(case.scores), rule)
        run = Run("r", {"q": case.ranking(docs, scores)}, rule)
        if d.computation == "coverage":
            plan(d, rule)  # refuses under expected
            return case.definition(d, measure, run.rankings["q"].docs, run.rankings["q"].scores)
        scorer = Scorer(None, WITH_RR, {"q": case.facts}, {"q": case.perspectives})
        vector = scorer.vector(run, measure, "test", default_k=10)
        return None if vector is None else vector.get("q")

    def check(self, case, registry, ks, where):
        for d, measure in measures_of(registry, ks):
            for rule in TIE_RULES:
                label = f"{where}: {measure.name} under {rule}"
                if d.computation == "coverage" and d.key not in COVERAGE_REFERENCE:
                    self.fail(f"{label}: add its per-order function to COVERAGE_REFERENCE")
                if refusal(d, rule) is not None:
                    with self.assertRaises(InputError, msg=label) as caught:
                        self.contract_value(case, d, measure, rule)
                    self.assertEqual(len(str(caught.exception).splitlines()), 1, label)
                    continue
                got = self.contract_value(case, d, measure, rule)
                if rule == "expected":
                    order, scores = reference_order(case.docs, case.scores, "input")
                    want = brute_expected(case, d, measure, order, scores)
                else:
                    order, scores = reference_order(case.docs, case.scores, rule)
                    want = case.definition(d, measure, order, scores)
                if d.needs == "pages" and not case.page_scored:
                    want = None  # a page measure of a run without page scores is absent
                if want is None or got is None:
                    self.assertEqual(got, want, label)
                elif isinstance(want, tuple):
                    self.assertEqual(tuple(got), want, label)
                else:
                    self.assertAlmostEqual(got, want, places=12, msg=label)

    def test_generated_cases(self):
        for i, case in enumerate(generated_cases(20261203, 150)[:FAST_CASES]):
            self.check(case, WITH_RR, (1, 2, 3, 10), f"case {i} {case.docs} {case.scores}")

    @slow
    def test_more_generated_cases(self):
        # the same 150 cases as before: the first FAST_CASES run in the fast part, the rest here
        for i, case in enumerate(generated_cases(20261203, 150)[FAST_CASES:], start=FAST_CASES):
            self.check(case, WITH_RR, (1, 2, 3, 10), f"case {i} {case.docs} {case.scores}")

    def test_every_query_of_the_example_release(self):
        release = load_release(EXAMPLE)
        facts = query_facts(release)
        perspectives = perspectives_from_release(release)
        rng = random.Random(7)
        for path in sorted((EXAMPLE / "runs").glob("*.jsonl.gz")):
            run = load_run(path, release)
            for qid in sorted(facts):
                ranking = run.rankings.get(qid, Ranking(qid, (), ()))
                groups = tie_groups(ranking.docs, ranking.scores)
                if math.prod(math.factorial(g.size) for g in groups) > MAX_ORDERS:
                    continue
                pool = sorted(set(ranking.docs) | perspectives[qid].positives)
                case = Case(facts[qid], perspectives[qid],
                            {(p.pid, d): rng.random() < 0.5 for p in perspectives[qid].perspectives
                             for d in pool}, {d: rng.choice("ab") for d in pool},
                            list(ranking.docs), list(ranking.scores), ranking.pages,
                            is_page_scored(run))
                self.check(case, WITH_RR, (1, 2, 10), f"{path.name} {qid}")


class FirstRankLaw(unittest.TestCase):
    def test_against_enumeration(self):
        rng = random.Random(3)
        for _ in range(300):
            n = rng.randint(1, 7)
            docs = [f"d{i}" for i in range(n)]
            scores = sorted((float(rng.randint(1, 3)) for _ in docs), reverse=True)
            orders = list(tie_orders(docs, scores))
            if len(orders) > MAX_ORDERS:
                continue
            golds = {d for d in docs + ["x"] if rng.random() < 0.35}
            subsets = {d for d in docs if d not in golds and rng.random() < 0.4}
            want = {}
            for order in orders:
                r_g = next((i for i, d in enumerate(order, 1) if d in golds), None)
                r_s = next((i for i, d in enumerate(order, 1) if d in subsets), None)
                want[(r_g, r_s)] = want.get((r_g, r_s), 0) + Fraction(1, len(orders))
            got = {(r_g, r_s): p for p, r_g, r_s in first_rank_law(golds, subsets,
                                                                   tie_groups(docs, scores))}
            self.assertEqual(got, want, f"{docs} {scores} {golds} {subsets}")

    def test_hand_worked(self):
        # g, s, u tied at ranks 1-3: six orders; (r_G, r_S) = (1,2) (1,3) (2,1) (3,1) (2,3) (3,2)
        law = first_rank_law({"g"}, {"s"}, tie_groups(("g", "s", "u"), (1.0, 1.0, 1.0)))
        self.assertEqual(sorted((r_g, r_s) for _, r_g, r_s in law),
                         [(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)])
        self.assertTrue(all(p == Fraction(1, 6) for p, _, _ in law))


class WorkedExample(unittest.TestCase):
    """docs/ARCHITECTURE.md's Gold RR under every rule, on the example release."""

    @classmethod
    def setUpClass(cls):
        cls.release = load_release(EXAMPLE)

    def score(self, rankings, rule, registry=WITH_RR):
        from nclue.api import run_from_mapping, score
        run = run_from_mapping(rankings, self.release, ties=rule)
        return score(self.release, run, ["gold_rr"], registry=registry)

    def test_gold_and_subset_tied_at_the_top(self):
        # q1: d01 is its gold, d02 a judged subset (tests/test_example_release.py). The file lists
        # d02 first with the same score: RR 1/2 under input and trec_eval (d02 > d01); the two
        # orders give RR 1 and 1/2, so the expectation is 3/4. Over the 6 queries (the other
        # five unranked: RR 0): 100 * (1/2) / 6 = 8.33 and 100 * (3/4) / 6 = 12.5.
        rankings = {"q1": [("d02", 5.0), ("d01", 5.0)]}
        self.assertAlmostEqual(self.score(rankings, "input")["gold_rr"], 100 * 0.5 / 6)
        self.assertAlmostEqual(self.score(rankings, "trec_eval")["gold_rr"], 100 * 0.5 / 6)
        self.assertAlmostEqual(self.score(rankings, "expected")["gold_rr"], 12.5)

    def test_lexical_q1_in_the_tie_sensitivity_view(self):
        # example_lexical q1: d01 (gold) and d02 (subset) tie at rank 1-2: E[RR] = (1 + 1/2) / 2
        from nclue.context import ReleaseContext
        from nclue.tie_rules import TieView
        ctx = ReleaseContext(EXAMPLE, registry=WITH_RR)
        view = TieView(ctx)
        measure = WITH_RR.parse("gold_rr")
        self.assertEqual(view.vector("example_lexical", measure, "expected")["q1"], 0.75)
        self.assertEqual(view.vector("example_lexical", measure, "input")["q1"], 1.0)
        self.assertEqual(view.vector("example_lexical", measure, "trec_eval")["q1"], 0.5)

    def test_compare_a_measure_without_a_cutoff(self):
        from nclue.commands.compare import compare_runs
        runs = [load_run(EXAMPLE / "runs" / f"{name}.jsonl.gz", self.release, ties="expected")
                for name in ("example_lexical", "example_dense")]
        result = compare_runs(self.release, *runs, measure="gold_rr", registry=WITH_RR,
                              draws=99, replicates=99)
        self.assertEqual(result["measure"], "gold_rr")
        self.assertEqual(result["ties"], "expected")

    def test_an_undeclared_rank_measure_is_refused_under_expected(self):
        bare = MeasureDef("gold_rr", "Gold RR", False, "d", "c", per_query=gold_rr)
        registry = REGISTRY.with_measure(bare)
        rankings = {"q1": [("d02", 5.0), ("d01", 5.0)]}
        self.assertAlmostEqual(self.score(rankings, "input", registry)["gold_rr"], 100 * 0.5 / 6)
        with self.assertRaises(InputError) as caught:
            self.score(rankings, "expected", registry)
        self.assertIn("declares no exact expectation", str(caught.exception))
        # declared affine in the expected record's fields, but it reads the first ranks
        wrong = MeasureDef("gold_rr", "Gold RR", False, "d", "c", per_query=gold_rr,
                           expectation="outcome_fields")
        with self.assertRaises(InputError) as caught:
            self.score(rankings, "expected", REGISTRY.with_measure(wrong))
        self.assertIn("reads the first ranks", str(caught.exception))


class ContractTable(unittest.TestCase):
    def test_every_measure_has_a_line_per_rule(self):
        check_contract(WITH_RR)
        table = contract_markdown(WITH_RR)
        for d in WITH_RR:
            self.assertIn(f"`{d.key}", table)
        self.assertIn("refused", table)  # the coverage measures under expected

    def test_architecture_table_is_current(self):
        text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
        opening = "<!-- generated: tie-contract -->\n"
        start = text.index(opening) + len(opening)
        block = text[start:text.index("<!-- /generated -->\n", start)]
        self.assertEqual(block, contract_markdown(), "run python tools/make_docs.py")

    def test_declarations_are_checked(self):
        with self.assertRaises(ValueError):
            MeasureDef("x", "X", True, "d", "c", per_query=gold_rr, expectation="hard_coverage")
        with self.assertRaises(ValueError):
            MeasureDef("x", "X", True, "d", "c", per_query=gold_rr, computation="hard_coverage")
        with self.assertRaises(ValueError):
            MeasureDef("x", "X", True, "d", "c", per_query=gold_rr, expectation="guess")


if __name__ == "__main__":
    unittest.main()
