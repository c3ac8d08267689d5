"""The measure registry (nclue/measures.py): names, parsing, and what adding a measure takes.

Expected values are worked out by hand on data/example (the rankings are described in
tests/test_example_release.py).
"""

import unittest
from pathlib import Path

from nclue.context import ReleaseContext
from nclue.errors import InputError
from nclue.measures import REGISTRY, Measure, MeasureDef, count_key, definitions_markdown
from nclue.metrics import evaluate
from nclue.release import load_release
from nclue.runs import load_run
from nclue.tables.kinds import table_from_dict

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example"

#: Every outcome measure of the registry at k = 10 on the example's lexical run, by hand
#: (tests/test_example_release.py derives each): adding a measure to the registry fails
#: test_every_outcome_measure_has_a_hand_value until its hand-worked value is added here.
LEXICAL_BY_HAND = {
    "nclue_score": 100 * 3 / 6,     # q1, q4, q5 succeed
    "gold_hit": 100 * 4 / 6,        # q1, q2, q4, q5 retrieve a gold
    "gold_ndcg": None,              # an expression, checked in test_example_release
    "graded_ndcg": None,            # likewise
    "auc": 60.0,                    # 1, .5, 0, 1, (q5 undefined), .5 over 5 queries
    "complete_first": 100 * 3 / 6,
    "subset_first": 100 * 1 / 6,    # q2
    "no_gold": 100 * 2 / 6,         # q3, q6
    "gold_support": "absent",       # not a page-scored run
    "condition_coverage": "absent",
    "full_coverage": "absent",
}


class Names(unittest.TestCase):
    def test_parse_and_print(self):
        self.assertEqual(REGISTRY.parse("nclue_score@10"), Measure("nclue_score", 10))
        self.assertEqual(str(REGISTRY.parse("gold_hit", default_k=5)), "gold_hit@5")
        self.assertEqual(REGISTRY.parse("auc").name, "auc")
        self.assertEqual(REGISTRY.parse("hc@100").at(10).name, "hc@10")
        self.assertEqual(REGISTRY.header(Measure("graded_ndcg", 10)), "graded NDCG@10")
        self.assertEqual(count_key(Measure("auc")), "auc_queries")

    def test_refusals(self):
        for text, problem in (("ndcg@10", "trec_eval's ndcg takes no cutoff"),
                              ("nclue@10", "unknown measure 'nclue'"), ("auc@10", "takes no cutoff"),
                              ("gold_hit", "needs a cutoff"), ("gold_hit@0", "needs a cutoff"),
                              ("Gold Hit@10", "is not a measure name")):
            with self.assertRaises(InputError) as caught:
                REGISTRY.parse(text, where="--measure")
            self.assertIn(problem, str(caught.exception))
            self.assertTrue(str(caught.exception).startswith("--measure: "))

    def test_registry_is_immutable_and_refuses_twins(self):
        extra = MeasureDef("x", "X", True, "d", "c", computation="coverage")
        self.assertNotIn("x", REGISTRY)
        self.assertIn("x", REGISTRY.with_measure(extra))
        self.assertNotIn("x", REGISTRY)
        with self.assertRaises(ValueError):
            REGISTRY.with_measure(extra).with_measure(extra)
        with self.assertRaises(ValueError):
            MeasureDef("x", "X", True, "d", "c", denominator="some", computation="coverage")


#: ir_measures' and trec_eval's documented definitions of the names nclue accepts, written down
#: here (not imported). ir_measures: the measure's SUPPORTED_PARAMS (ir_measures/measures/ndcg.py:
#: ``cutoff`` not required, none = the whole ranking; success.py: ``cutoff`` required, ``rel``
#: default 1) and its ``Name@k`` syntax; NDCG is registered as an alias of nDCG. trec_eval
#: (m_ndcg.c, m_ndcg_cut.c, m_success.c): ``ndcg`` has no cutoff (the whole ranking);
#: ``ndcg_cut`` and ``success`` take cutoffs, ``-m ndcg_cut.10`` on the command line and
#: ``ndcg_cut_10`` in the output, defaulting to every cutoff of their lists. Both gain the
#: relevance grade (linear) with a log2(rank + 1) discount; a document of grade >= 1 is relevant.
DOCUMENTED = {
    ("ir_measures", "nDCG"): {"kind": "ndcg", "cutoff": "optional", "separators": "@"},
    ("ir_measures", "NDCG"): {"kind": "ndcg", "cutoff": "optional", "separators": "@"},
    ("ir_measures", "Success"): {"kind": "success", "cutoff": "required", "separators": "@"},
    ("trec_eval", "ndcg"): {"kind": "ndcg", "cutoff": "none", "separators": "._"},
    ("trec_eval", "ndcg_cut"): {"kind": "ndcg", "cutoff": "list 5, 10, 15, 20, 30, 100, 200, 500, 1000",
                                "separators": "._"},
    ("trec_eval", "success"): {"kind": "success", "cutoff": "list 1, 5 and 10", "separators": "._"},
}
#: What each kind is on the release's graded qrels (grade = clue count) and on the gold-only
#: binary qrels (``gold:``): NDCG with linear gain is graded NDCG / Gold-NDCG (n-Clue sec. 3.1);
#: success on graded qrels counts a judged subset (grade >= 1), so only the gold form has an
#: equivalent, Gold Hit.
MEANS = {("ndcg", False): "graded_ndcg", ("ndcg", True): "gold_ndcg",
         ("success", False): None, ("success", True): "gold_hit"}


class Aliases(unittest.TestCase):
    """Every alias means exactly its ir_measures / trec_eval definition (issue 22, item 3)."""

    def test_every_alias_against_the_documented_definitions(self):
        from nclue.measures import ALIASES
        for alias in ALIASES:
            doc = DOCUMENTED[(alias.tool, alias.name)]
            prefix = "gold:" if alias.gold else ""
            name = prefix + alias.name
            self.assertEqual(alias.separators, doc["separators"], name)
            target = MEANS[(doc["kind"], alias.gold)]
            for sep in alias.separators:
                text = f"{name}{sep}7"
                if doc["cutoff"] == "none" or target is None:
                    with self.assertRaises(InputError, msg=text):
                        REGISTRY.parse(text, default_k=10)
                else:
                    self.assertEqual(REGISTRY.parse(text, default_k=10), Measure(target, 7), text)
            # without a cutoff: never nclue's default cutoff
            with self.assertRaises(InputError, msg=name) as caught:
                REGISTRY.parse(name, default_k=10, where="--measures")
            message = str(caught.exception)
            self.assertEqual(len(message.splitlines()), 1)
            if doc["cutoff"] in ("optional", "none"):
                self.assertIn("whole ranking", message, name)
            elif doc["cutoff"] == "required":
                self.assertIn("requires a cutoff", message, name)
            else:
                self.assertIn(doc["cutoff"].split(" ", 1)[1], message, name)
            for other in "@._":
                if other not in alias.separators:
                    with self.assertRaises(InputError, msg=name + other):
                        REGISTRY.parse(f"{name}{other}7")

    def test_every_documented_name_has_an_answer(self):
        # each documented name, on either qrels, is an alias or refused with a reason
        from nclue.measures import ALIASES, NO_EQUIVALENT
        known = {(a.name, a.gold) for a in ALIASES}
        for (_, name), doc in DOCUMENTED.items():
            for gold in (False, True):
                if MEANS[(doc["kind"], gold)] is None:
                    self.assertIn(name, NO_EQUIVALENT)
                    with self.assertRaises(InputError):
                        REGISTRY.parse(("gold:" if gold else "") + name + "@10")
                else:
                    self.assertIn((name, gold), known, name)

    def test_the_reported_case(self):
        # issue 22: `--measures nDCG` was accepted as graded_ndcg@10
        with self.assertRaises(InputError) as caught:
            REGISTRY.parse("nDCG", default_k=10, where="--measures")
        self.assertIn("whole ranking", str(caught.exception))
        self.assertEqual(REGISTRY.parse("nDCG@10"), Measure("graded_ndcg", 10))
        self.assertEqual(REGISTRY.parse("gold:Success@10"), Measure("gold_hit", 10))


class AddingAMeasure(unittest.TestCase):
    """docs/ARCHITECTURE.md's worked example: a new per-query measure reaches every scorecard
    through the registry alone."""

    def test_every_outcome_measure_has_a_hand_value(self):
        self.assertEqual(sorted(LEXICAL_BY_HAND),
                         sorted(d.key for d in REGISTRY if d.per_query is not None))
        release = load_release(EXAMPLE)
        scores = evaluate(release, load_run(EXAMPLE / "runs" / "example_lexical.jsonl.gz", release))
        for key, value in LEXICAL_BY_HAND.items():
            name = REGISTRY.measure(key, 10).name
            if value == "absent":
                self.assertNotIn(name, scores)
            elif value is not None:
                self.assertAlmostEqual(scores[name], value, msg=name)

    def test_throwaway_measure_in_the_scorecard(self):
        rr = MeasureDef("gold_rr", "Gold RR", False, "reciprocal rank of the first gold (0 if none)",
                        "illustration", per_query=lambda o: 0.0 if o.first_gold is None
                        else 1.0 / o.first_gold, scorecard=True)
        registry = REGISTRY.with_measure(rr)
        ctx = ReleaseContext(EXAMPLE, registry=registry)
        table = table_from_dict({"id": "s", "kind": "scorecard", "runs": ["example_lexical"]}, ctx)
        self.assertEqual([c.key for c in table.columns][-1], "gold_rr")
        self.assertEqual(table.columns[-1].header, "Gold RR")
        # lexical first golds: q1 rank 1, q2 rank 2, q3 none, q4 rank 1, q5 rank 2, q6 none:
        # (1 + 1/2 + 0 + 1 + 1/2 + 0) / 6 = 50 points.
        self.assertAlmostEqual(table.rows[0][2]["gold_rr"], 50.0)
        self.assertIn("| `gold_rr` (Gold RR) |", definitions_markdown(registry))
        self.assertNotIn("gold_rr", definitions_markdown())


if __name__ == "__main__":
    unittest.main()
