"""Tests for nclue.coverage and `nclue coverage` (Multi3IR paper, eq. 5, eq. 6, Tables 6-7).

Every expected value is worked out by hand in the comment next to it.
"""

import contextlib
import io
import json
import math
import tempfile
import unittest
from pathlib import Path

from nclue import coverage
from nclue.cli import main
from nclue.errors import InputError


def write_lines(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["coverage"] + list(argv))
    return code, out.getvalue(), err.getvalue()


class HardCoverageTest(unittest.TestCase):
    # D_1 = {a, b}, D_2 = {c}, D_3 = {d, e}; ranking x, a, c, y, d
    SUPPORTS = [{"a", "b"}, {"c"}, {"d", "e"}]
    RANKING = ["x", "a", "c", "y", "d"]

    def test_eq5_by_cutoff(self):
        # k=1: {x} covers nothing -> 0/3
        self.assertEqual(coverage.hard_coverage(self.SUPPORTS, self.RANKING, 1), 0.0)
        # k=2: {x, a} covers D_1 -> 1/3
        self.assertAlmostEqual(coverage.hard_coverage(self.SUPPORTS, self.RANKING, 2), 1 / 3)
        # k=3: {x, a, c} covers D_1, D_2 -> 2/3
        self.assertAlmostEqual(coverage.hard_coverage(self.SUPPORTS, self.RANKING, 3), 2 / 3)
        # k=4: y adds nothing -> still 2/3
        self.assertAlmostEqual(coverage.hard_coverage(self.SUPPORTS, self.RANKING, 4), 2 / 3)
        # k=5: d covers D_3 -> 3/3
        self.assertEqual(coverage.hard_coverage(self.SUPPORTS, self.RANKING, 5), 1.0)
        # k=100 beyond the ranking's depth: D*(100) = all 5 documents -> 1
        self.assertEqual(coverage.hard_coverage(self.SUPPORTS, self.RANKING, 100), 1.0)

    def test_one_document_covering_every_perspective(self):
        # a document in every D_i covers all three at k=1 -> 1
        self.assertEqual(coverage.hard_coverage([{"g"}, {"g", "s"}, {"g"}], ["g"], 1), 1.0)

    def test_empty_ranking_and_bad_arguments(self):
        self.assertEqual(coverage.hard_coverage(self.SUPPORTS, [], 10), 0.0)
        with self.assertRaises(ValueError):
            coverage.hard_coverage([], ["a"], 1)
        with self.assertRaises(ValueError):
            coverage.hard_coverage(self.SUPPORTS, ["a"], 0)


class SoftCoverageTest(unittest.TestCase):
    # ranking x, a, c. Verdicts: (p1,x) partially, (p1,a) fully, (p2,x) fully, (p3,x) not,
    # (p3,a) partially; unjudged: (p1,c), (p2,a), (p2,c), (p3,c).
    VERDICTS = {("p1", "x"): False, ("p1", "a"): True, ("p2", "x"): True,
                ("p3", "x"): False, ("p3", "a"): False}
    PIDS = ["p1", "p2", "p3"]
    RANKING = ["x", "a", "c"]

    def test_eq6_k1(self):
        # k=1: D* = {x}: p1 partially -> 0, p2 fully -> 1, p3 not -> 0 => 1/3; all 3 pairs judged
        value, unjudged = coverage.soft_coverage(self.PIDS, self.RANKING, 1, self.VERDICTS)
        self.assertAlmostEqual(value, 1 / 3)
        self.assertEqual(unjudged, 0)

    def test_eq6_k3(self):
        # k=3: p1 max(0, 1, ?) = 1; p2 max(1, ?, ?) = 1; p3 max(0, 0, ?) = 0 => 2/3;
        # 3 perspectives x 3 documents = 9 pairs, 5 judged -> 4 unjudged
        value, unjudged = coverage.soft_coverage(self.PIDS, self.RANKING, 3, self.VERDICTS)
        self.assertAlmostEqual(value, 2 / 3)
        self.assertEqual(unjudged, 4)

    def test_partially_never_counts(self):
        # only partial verdicts -> max Judge = 0 for the single perspective
        value, unjudged = coverage.soft_coverage(["p"], ["d1", "d2"], 2,
                                                 {("p", "d1"): False, ("p", "d2"): False})
        self.assertEqual((value, unjudged), (0.0, 0))


class SourceCoverageTest(unittest.TestCase):
    # golds: a (text, bio), b (image, bio), c (text, psych), d (image, chem);
    # x is retrieved, not gold, and is an image: it must not count.
    MODALITY = {"a": "text", "b": "image", "c": "text", "d": "image", "x": "image", "z": "text"}
    DOMAIN = {"a": "bio", "b": "bio", "c": "psych", "d": "chem", "x": "chem", "z": "bio"}
    GOLD = {"a", "b", "c", "d"}
    RANKING = ["x", "a", "z", "c", "b"]

    def check(self, k, modality, domain):
        self.assertAlmostEqual(coverage.source_coverage(self.GOLD, self.RANKING, k,
                                                        self.MODALITY), modality)
        self.assertAlmostEqual(coverage.source_coverage(self.GOLD, self.RANKING, k,
                                                        self.DOMAIN), domain)

    def test_table6(self):
        # sources of the golds: modalities {text, image} (2), domains {bio, psych, chem} (3)
        self.check(1, 0.0, 0.0)          # {x}: no gold
        self.check(2, 1 / 2, 1 / 3)      # a: text, bio
        self.check(4, 1 / 2, 2 / 3)      # a, c: {text}, {bio, psych}
        self.check(5, 1.0, 2 / 3)        # + b: {text, image}, {bio, psych}


class DispersionTest(unittest.TestCase):
    def test_three_vectors_closed_form(self):
        # u=(1,0), v=(0,1), w=(1,1): d(u,v) = 1, d(u,w) = d(v,w) = 1 - 1/sqrt 2;
        # mean = (1 + 2 - sqrt 2) / 3 = 1 - sqrt(2)/3
        value = coverage.dispersion([(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)])
        self.assertAlmostEqual(value, 1 - math.sqrt(2) / 3, places=12)

    def test_opposite_scaled_and_single(self):
        self.assertAlmostEqual(coverage.dispersion([(1, 0), (-3, 0)]), 2.0)  # cos = -1
        self.assertAlmostEqual(coverage.dispersion([(2, 0), (0, 3)]), 1.0)   # cos = 0
        self.assertAlmostEqual(coverage.dispersion([(1, 2), (2, 4)]), 0.0)   # parallel
        self.assertIsNone(coverage.dispersion([(1, 0)]))
        with self.assertRaises(ValueError):
            coverage.dispersion([(0, 0), (1, 0)])

    def test_matches_pairwise_definition(self):
        # the O(n d) identity against the literal mean over pairs of cosine_distance
        import random
        rng = random.Random(7)
        for n in (2, 3, 6):
            vectors = [[rng.uniform(-1, 1) for _ in range(5)] for _ in range(n)]
            pairs = [coverage.cosine_distance(vectors[i], vectors[j])
                     for i in range(n) for j in range(i + 1, n)]
            self.assertAlmostEqual(coverage.dispersion(vectors), sum(pairs) / len(pairs),
                                   places=12)
        # cosine_distance itself: (1,0) vs (1,1): 1 - 1/sqrt 2
        self.assertAlmostEqual(coverage.cosine_distance((1, 0), (1, 1)), 1 - 1 / math.sqrt(2))

    def test_quartiles_rule(self):
        # n = 8: positions 0,1 -> 0; 2,3 -> 1; 4,5 -> 2; 6,7 -> 3 (floor(4i/8))
        values = {"h": 0.8, "a": 0.1, "g": 0.7, "b": 0.2, "f": 0.6, "c": 0.3, "e": 0.5, "d": 0.4}
        self.assertEqual(coverage.quartiles(values),
                         {"a": 0, "b": 0, "c": 1, "d": 1, "e": 2, "f": 2, "g": 3, "h": 3})
        # n = 5: floor(0)=0, floor(0.8)=0, floor(1.6)=1, floor(2.4)=2, floor(3.2)=3
        five = {"q1": 1.0, "q2": 2.0, "q3": 3.0, "q4": 4.0, "q5": 5.0}
        self.assertEqual(coverage.quartiles(five),
                         {"q1": 0, "q2": 0, "q3": 1, "q4": 2, "q5": 3})
        # ties split by qid: c(0.1) a(0.5) b(0.5) d(0.9) -> 0, 1, 2, 3
        self.assertEqual(coverage.quartiles({"a": 0.5, "b": 0.5, "c": 0.1, "d": 0.9}),
                         {"c": 0, "a": 1, "b": 2, "d": 3})

    def test_breakdown(self):
        # 4 queries, one per quartile; HC values 1, 0.5, 0, 0.25 -> 100, 50, 0, 25 points
        rows = coverage.quartile_breakdown({"w": 1.0, "x": 0.5, "y": 0.0, "z": 0.25},
                                           {"w": 0.1, "x": 0.2, "y": 0.3, "z": 0.4})
        self.assertEqual([r["value"] for r in rows], [100.0, 50.0, 0.0, 25.0])
        self.assertEqual([r["queries"] for r in rows], [1, 1, 1, 1])
        # 2 queries: positions 0 -> 0, 1 -> floor(4/2) = 2; quartiles 1 and 3 empty
        rows = coverage.quartile_breakdown({"w": 1.0, "x": 0.5}, {"w": 0.9, "x": 0.2})
        self.assertEqual([r["value"] for r in rows], [50.0, None, 100.0, None])


class DeriveTest(unittest.TestCase):
    CONDITIONS = {"q1": ["A", "B", "C"], "q2": ["A", "D"]}
    JUDGED = {"q1": {"g1": "gold", "s1": "subset", "s2": "subset"}}
    EVIDENCE = {("q1", "s1"): [[1], [], [4, 5]], ("q1", "s2"): [[], [2], []]}

    def test_conditions_become_perspectives(self):
        derived = coverage.derive_perspectives(self.CONDITIONS, self.JUDGED, self.EVIDENCE)
        q1 = derived["q1"]
        # gold g1 supports every condition without evidence; s1 supports A and C; s2 supports B
        self.assertEqual([(p.pid, sorted(p.docs)) for p in q1.perspectives],
                         [("A", ["g1", "s1"]), ("B", ["g1", "s2"]), ("C", ["g1", "s1"])])
        self.assertEqual(q1.positives, frozenset({"g1", "s1", "s2"}))
        # q2 has no judged document: both conditions keep an empty D_i
        self.assertEqual([sorted(p.docs) for p in derived["q2"].perspectives], [[], []])

    def test_subset_without_evidence(self):
        judged = {"q1": {"g1": "gold", "s3": "subset"}}
        with self.assertRaisesRegex(InputError, r"rel: no evidence for judged subset \('q1', 's3'\)"):
            coverage.derive_perspectives(self.CONDITIONS, judged, {}, where="rel")

    def test_evaluate(self):
        derived = coverage.derive_perspectives(self.CONDITIONS, self.JUDGED, self.EVIDENCE)
        report = coverage.evaluate_coverage(derived, {"q1": ["s2", "s1"]}, ks=(1, 2),
                                            sources={"pkg": {"g1": "x", "s1": "y", "s2": "x"}})
        # q1: k=1 {s2} covers B -> 1/3; k=2 {s2, s1} covers A, B, C -> 1. q2 unranked and
        # unsupported -> 0. Means: (1/3 + 0)/2 = 1/6 -> 16.67 points; (1 + 0)/2 -> 50 points
        self.assertAlmostEqual(report["measures"]["hc@1"], 100 / 6)
        self.assertAlmostEqual(report["measures"]["hc@2"], 50.0)
        # source coverage is defined for q1 only (q2 has no gold): sources {x, y};
        # k=1 s2 -> {x} = 1/2; k=2 -> {x, y} = 1
        self.assertAlmostEqual(report["measures"]["pkg_coverage@1"], 50.0)
        self.assertAlmostEqual(report["measures"]["pkg_coverage@2"], 100.0)
        self.assertEqual(report["missing_queries"], 1)
        self.assertEqual(report["unsupported_perspectives"], 2)


class ReaderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.good = {"qid": "q1", "query": "why?",
                     "perspectives": [{"id": "p1", "text": "t", "docs": ["a", "b"]},
                                      {"id": "p2", "docs": ["c"]}]}

    def tearDown(self):
        self.tmp.cleanup()

    def assert_error(self, loader, rows, line, text, *extra):
        path = write_lines(self.dir / "in.jsonl", rows)
        with self.assertRaises(InputError) as ctx:
            loader(path, *extra)
        message = str(ctx.exception)
        self.assertTrue(message.startswith(f"{path}:{line}: "), message)
        self.assertIn(text, message)

    def test_perspectives_ok(self):
        path = write_lines(self.dir / "p.jsonl", [self.good])
        queries = coverage.load_perspectives(path)
        self.assertEqual([p.pid for p in queries["q1"].perspectives], ["p1", "p2"])
        self.assertEqual(queries["q1"].positives, frozenset({"a", "b", "c"}))

    def test_perspective_errors(self):
        load = coverage.load_perspectives
        self.assert_error(load, [self.good, self.good], 2, "duplicate qid 'q1' (first on line 1)")
        self.assert_error(load, [{"qid": "q1", "query": "?"}], 1, "missing field 'perspectives'")
        self.assert_error(load, [{"qid": "q1", "query": "?", "perspectives": []}], 1,
                          "'perspectives' must not be empty")
        bad = dict(self.good, perspectives=[{"id": "p1", "docs": []}])
        self.assert_error(load, ["", bad], 2, "perspective 'p1' has no supporting document")
        bad = dict(self.good, perspectives=[{"id": "p1", "docs": ["a"]}, {"id": "p1", "docs": ["b"]}])
        self.assert_error(load, [bad], 1, "perspective 2: duplicate id 'p1'")
        bad = dict(self.good, perspectives=[{"id": "p1", "docs": "a"}])
        self.assert_error(load, [bad], 1, "'docs' must be a list of non-empty strings")
        bad = dict(self.good, perspectives=[{"id": "p1", "docs": ["a", "a"]}])
        self.assert_error(load, [bad], 1, "lists a document twice")
        bad = dict(self.good, perspectives=["p1"])
        self.assert_error(load, [bad], 1, "perspective 1 must be an object")
        self.assert_error(load, [self.good, "{not json"], 2, "malformed JSON")

    def test_judgments(self):
        queries = coverage.load_perspectives(write_lines(self.dir / "p.jsonl", [self.good]))
        ok = {"qid": "q1", "perspective": "p1", "docid": "z", "verdict": "fully supported"}
        path = write_lines(self.dir / "j.jsonl",
                           [ok, dict(ok, docid="y", verdict="partially")])
        self.assertEqual(coverage.load_judgments(path, queries),
                         {"q1": {("p1", "z"): True, ("p1", "y"): False}})
        load = coverage.load_judgments
        self.assert_error(load, [ok, ok], 2, "duplicate judgment for ('q1', 'p1', 'z') "
                          "(first on line 1)", queries)
        self.assert_error(load, [dict(ok, qid="q9")], 1, "unknown qid 'q9'", queries)
        self.assert_error(load, [dict(ok, perspective="p9")], 1,
                          "query 'q1' has no perspective 'p9'", queries)
        self.assert_error(load, [dict(ok, verdict="yes")], 1, "verdict must be one of", queries)
        self.assert_error(load, [dict(ok, verdict=1)], 1, "field 'verdict' must be a string",
                          queries)

    def test_vectors(self):
        path = write_lines(self.dir / "v.jsonl", [{"docid": "a", "vector": [1, 0]},
                                                  {"docid": "b", "vector": [0.5, 2.5]}])
        self.assertEqual(coverage.load_vectors(path), {"a": (1.0, 0.0), "b": (0.5, 2.5)})
        load = coverage.load_vectors
        first = {"docid": "a", "vector": [1, 0]}
        self.assert_error(load, [first, {"docid": "b", "vector": [1, 0, 0]}], 2,
                          "vector has 3 dimensions, line 1 has 2")
        self.assert_error(load, [first, {"docid": "b", "vector": [0, 0]}], 2, "zero vector")
        self.assert_error(load, [first, first], 2, "duplicate docid 'a' (first on line 1)")
        self.assert_error(load, [{"docid": "a", "vector": [1, "x"]}], 1,
                          "vector component must be a number")
        self.assert_error(load, ['{"docid": "a", "vector": [NaN, 1]}'], 1, "malformed JSON")

    def test_sources(self):
        path = write_lines(self.dir / "s.jsonl", [{"docid": "a", "modality": "text"}])
        self.assertEqual(coverage.load_sources(path, "modality"), {"a": "text"})
        self.assert_error(coverage.load_sources, [{"docid": "a", "modality": "text"},
                                                  {"docid": "b", "domain": "bio"}], 2,
                          "missing field 'modality'", "modality")


class PerspectivesCliTest(unittest.TestCase):
    """`nclue coverage RUN --perspectives FILE` on external data, values by hand."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = Path(self.tmp.name)
        # qa: p1 {a}, p2 {b, c}; qb: p1 {d}
        self.persp = write_lines(d / "persp.jsonl", [
            {"qid": "qa", "query": "?", "perspectives": [{"id": "p1", "docs": ["a"]},
                                                         {"id": "p2", "docs": ["b", "c"]}]},
            {"qid": "qb", "query": "?", "perspectives": [{"id": "p1", "docs": ["d"]}]}])
        self.run = write_lines(d / "sys.jsonl", [
            {"qid": "qa", "docs": ["b", "x", "a"], "scores": [3, 2, 1]},
            {"qid": "qb", "docs": ["y", "d"], "scores": [2, 1]}])
        self.judg = write_lines(d / "judg.jsonl", [
            {"qid": "qa", "perspective": "p1", "docid": "x", "verdict": "fully"},
            {"qid": "qa", "perspective": "p2", "docid": "b", "verdict": "fully"},
            {"qid": "qb", "perspective": "p1", "docid": "y", "verdict": "partially"}])
        self.sources = write_lines(d / "src.jsonl", [
            {"docid": "a", "modality": "image"}, {"docid": "b", "modality": "text"},
            {"docid": "c", "modality": "image"}, {"docid": "d", "modality": "text"}])
        self.vectors = write_lines(d / "vec.jsonl", [
            {"docid": "a", "vector": [1, 0]}, {"docid": "b", "vector": [0, 1]},
            {"docid": "c", "vector": [1, 1]}, {"docid": "d", "vector": [1, 1]}])

    def tearDown(self):
        self.tmp.cleanup()

    def test_json(self):
        code, out, err = run_cli([str(self.run), "--perspectives", str(self.persp),
                                  "--k", "1", "2", "3", "--judgments", str(self.judg),
                                  "--source-field", "modality", "--sources", str(self.sources),
                                  "--vectors", str(self.vectors), "--json"])
        self.assertEqual(code, 0, err)
        report = json.loads(out)["runs"][0]
        m = report["measures"]
        # HC: qa k=1 {b}: p2 -> 1/2; k=2 {b,x} -> 1/2; k=3 + a -> 1. qb k=1 {y} -> 0; k>=2 -> 1
        self.assertAlmostEqual(m["hc@1"], 25.0)    # (1/2 + 0) / 2
        self.assertAlmostEqual(m["hc@2"], 75.0)    # (1/2 + 1) / 2
        self.assertAlmostEqual(m["hc@3"], 100.0)
        # SC: qa k=1 {b}: p2 fully -> 1/2; k=2 {b,x}: p1 fully via x -> 1. qb: y partially,
        # d unjudged -> 0 at every k. Means: 25, 50, 50
        self.assertAlmostEqual(m["sc@1"], 25.0)
        self.assertAlmostEqual(m["sc@2"], 50.0)
        self.assertAlmostEqual(m["sc@3"], 50.0)
        # unjudged pairs: k=1 qa (p1,b) + qb none = 1; k=2 qa (p1,b),(p2,x) + qb (p1,d) = 3;
        # k=3 qa adds (p1,a),(p2,a) -> 5 (qb has only 2 docs) = 5
        self.assertEqual([report["unjudged@1"], report["unjudged@2"], report["unjudged@3"]],
                         [1, 3, 5])
        # modality: qa golds a image, b text, c image -> {image, text}; qb d text -> {text}
        # k=1: qa {text} 1/2, qb 0 -> 25; k=2: qa 1/2, qb 1 -> 75; k=3: 1, 1 -> 100
        self.assertAlmostEqual(m["modality_coverage@1"], 25.0)
        self.assertAlmostEqual(m["modality_coverage@2"], 75.0)
        self.assertAlmostEqual(m["modality_coverage@3"], 100.0)
        # dispersion: qa 1 - sqrt(2)/3 ~ 0.53 (three vectors); qb one positive -> undefined.
        # One defined query: position 0 -> quartile 0 holds qa (HC@1 = 1/2 -> 50 points)
        self.assertEqual(report["undefined_dispersion"], 1)
        rows = report["quartiles"]["hc@1"]
        self.assertEqual([r["queries"] for r in rows], [1, 0, 0, 0])
        self.assertAlmostEqual(rows[0]["value"], 50.0)
        self.assertAlmostEqual(rows[0]["min_dispersion"], 1 - math.sqrt(2) / 3)

    def test_text_output(self):
        code, out, err = run_cli([str(self.run), "--perspectives", str(self.persp),
                                  "--k", "1", "2"])
        self.assertEqual(code, 0, err)
        self.assertIn("run sys: 2 queries, 0 not ranked", out)
        # HC@1 = 25.00, HC@2 = 75.00 (worked out in test_json)
        self.assertRegex(out, r"HC\s+25\.00\s+75\.00")

    def test_bad_input_exit_2(self):
        bad = write_lines(Path(self.tmp.name) / "bad.jsonl",
                          [{"qid": "qa", "perspective": "p3", "docid": "x", "verdict": "fully"}])
        code, out, err = run_cli([str(self.run), "--perspectives", str(self.persp),
                                  "--judgments", str(bad)])
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn(f"{bad}:1: query 'qa' has no perspective 'p3'", err)
        # a gold document without a source
        code, out, err = run_cli([str(self.run), "--perspectives", str(self.persp),
                                  "--source-field", "domain", "--sources", str(self.sources)])
        self.assertEqual(code, 2)
        self.assertIn(f"{self.sources}:1: missing field 'domain'", err)
        code, out, err = run_cli([str(self.run)])
        self.assertEqual(code, 2)
        self.assertIn("--release DIR or --perspectives FILE", err)


class ReleaseTest(unittest.TestCase):
    """Perspectives derived from a tiny hand-written release; coverage_table beside n-Clue."""

    def setUp(self):
        from nclue.release import render_forms
        self.tmp = tempfile.TemporaryDirectory()
        d = self.dir = Path(self.tmp.name) / "rel"
        d.mkdir()
        conds = {"q1": ("alpha", "beta", "gamma"), "q2": ("alpha", "delta")}
        write_lines(d / "queries.jsonl", [{"qid": q, "conditions": list(c),
                                           "forms": render_forms(c)} for q, c in conds.items()])
        pkgs = {"g1": "pkgA", "s1": "pkgB", "s2": "pkgA", "s3": "pkgC", "x": "pkgB"}
        write_lines(d / "corpus.jsonl", [{"docid": k, "pages": 5, "source": v, "sha256": "0" * 64}
                                         for k, v in pkgs.items()])
        write_lines(d / "qrels.jsonl", [
            {"qid": "q1", "docid": "g1", "clues": 3, "label": "gold"},
            {"qid": "q1", "docid": "s1", "clues": 2, "label": "subset"},
            {"qid": "q1", "docid": "s2", "clues": 1, "label": "subset"},
            {"qid": "q2", "docid": "g1", "clues": 2, "label": "gold"},
            {"qid": "q2", "docid": "s3", "clues": 1, "label": "subset"}])
        write_lines(d / "evidence.jsonl", [
            {"qid": "q1", "docid": "g1", "pages": [[1], [2], [3]]},
            {"qid": "q1", "docid": "s1", "pages": [[1], [], [4]]},
            {"qid": "q1", "docid": "s2", "pages": [[], [2], []]},
            {"qid": "q2", "docid": "g1", "pages": [[1], [2]]},
            {"qid": "q2", "docid": "s3", "pages": [[3], []]}])
        # run A: q1 s2, s1, x; q2 x, s3, g1.  run B: q1 g1, x; q2 g1
        self.run_a = write_lines(Path(self.tmp.name) / "A.jsonl", [
            {"qid": "q1", "docs": ["s2", "s1", "x"], "scores": [3, 2, 1]},
            {"qid": "q2", "docs": ["x", "s3", "g1"], "scores": [3, 2, 1]}])
        self.run_b = write_lines(Path(self.tmp.name) / "B.jsonl", [
            {"qid": "q1", "docs": ["g1", "x"], "scores": [2, 1]},
            {"qid": "q2", "docs": ["g1"], "scores": [1]}])

    def tearDown(self):
        self.tmp.cleanup()

    def test_derived_perspectives(self):
        from nclue.release import load_release
        derived = coverage.perspectives_from_release(load_release(self.dir))
        # q1: alpha {g1, s1}, beta {g1, s2}, gamma {g1, s1}; q2: alpha {g1, s3}, delta {g1}
        self.assertEqual({q: [(p.pid, sorted(p.docs)) for p in v.perspectives]
                          for q, v in derived.items()},
                         {"q1": [("alpha", ["g1", "s1"]), ("beta", ["g1", "s2"]),
                                 ("gamma", ["g1", "s1"])],
                          "q2": [("alpha", ["g1", "s3"]), ("delta", ["g1"])]})

    def test_cli_release(self):
        code, out, err = run_cli([str(self.run_a), "--release", str(self.dir), "--k", "1", "2",
                                  "3", "--source-field", "source", "--json"])
        self.assertEqual(code, 0, err)
        m = json.loads(out)["runs"][0]["measures"]
        # HC q1: k=1 {s2} beta -> 1/3; k=2 {s2, s1} -> 1; q2: k=1 {x} -> 0; k=2 s3 alpha -> 1/2;
        # k=3 g1 -> 1. Means: (1/3 + 0)/2 = 16.67; (1 + 1/2)/2 = 75; 100
        self.assertAlmostEqual(m["hc@1"], 100 / 6)
        self.assertAlmostEqual(m["hc@2"], 75.0)
        self.assertAlmostEqual(m["hc@3"], 100.0)
        # source: q1 golds g1 A, s1 B, s2 A -> {A, B}; q2 g1 A, s3 C -> {A, C}.
        # k=1: q1 s2 -> 1/2; q2 x (not gold) -> 0 => 25. k=2: q1 1; q2 s3 -> 1/2 => 75. k=3: 100
        self.assertAlmostEqual(m["source_coverage@1"], 25.0)
        self.assertAlmostEqual(m["source_coverage@2"], 75.0)
        self.assertAlmostEqual(m["source_coverage@3"], 100.0)

    def test_release_without_evidence(self):
        # without evidence.jsonl the subsets cannot be assigned to conditions: exit 2, no output
        (self.dir / "evidence.jsonl").unlink()
        code, out, err = run_cli([str(self.run_a), "--release", str(self.dir)])
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn("no evidence for judged subset ('q1', 's1')", err)

    def test_coverage_table(self):
        import shutil
        from nclue.context import ReleaseContext
        from nclue.run_index import record_entries
        from nclue.layout import ReleaseLayout
        from nclue.formats import sha256_file
        from nclue.tables.kinds import table_from_dict
        layout = ReleaseLayout.of(self.dir)
        layout.runs_dir.mkdir(exist_ok=True)
        entries = []
        for run_id, path in (("A", self.run_a), ("B", self.run_b)):
            target = layout.runs_dir / f"{run_id}{''.join(path.suffixes)}"
            shutil.copyfile(path, target)
            entries.append({"id": run_id, "file": target.name, "sha256": sha256_file(target)})
        record_entries(layout, entries)
        table = table_from_dict({"id": "cov", "kind": "coverage", "runs": "all", "ks": [1, 10]},
                                ReleaseContext(self.dir))
        rows = [dict(cells, run=key) for key, _, cells in table.rows]
        # A: HC@1 = 16.67 (as above), HC@10 = 100 (whole rankings cover every condition).
        # n-Clue Score@10: q1 retrieves no gold -> 0; q2 subset s3 (rank 2) precedes gold g1
        # (rank 3) -> 0 => 0. Gold Hit@10: q2 only -> 50. HC@10 - Score@10 = 100.
        # B: g1 first for both queries covers every condition -> HC@1 = HC@10 = 100; Score 100;
        # Gold Hit 100; difference 0.
        self.assertEqual([r["run"] for r in rows], ["A", "B"])
        a, b = rows
        self.assertAlmostEqual(a["hc@1"], 100 / 6)
        self.assertEqual((a["hc@10"], a["nclue_score@10"], a["gold_hit@10"],
                          a["hc_minus_score@10"]), (100.0, 0.0, 50.0, 100.0))
        self.assertEqual((b["hc@1"], b["hc@10"], b["nclue_score@10"], b["gold_hit@10"],
                          b["hc_minus_score@10"]), (100.0, 100.0, 100.0, 100.0, 0.0))


EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "example"


class ExampleReleaseTest(unittest.TestCase):
    """End to end on the worked example release (data/example), derived by hand.

    Perspectives (condition: judged documents whose evidence covers it; golds cover all):
    q1 Acknowledgements {d01, d02, d03}, TikZ {d01, d03, d10, d11};
    q2 Bibliography {d04, d05, d06, d08}, PGF {d04, d05, d07, d08}, hyperref {d04, d05, d06, d08};
    q3 Index {d09}, beamer {d01, d09, d10};
    q4 Introduction {d10, d11}, TikZ {d01, d03, d10, d11}, babel {d02, d10, d12};
    q5 Examples = fontspec = {d11, d12}; q6 Examples {d11, d12}, microtype {d03, d11, d12}.
    """

    RUNS = ["example_dense", "example_lexical", "example_pages"]

    def test_derived_perspectives(self):
        from nclue.release import load_release
        derived = coverage.perspectives_from_release(load_release(EXAMPLE))
        got = {q: [sorted(p.docs) for p in v.perspectives] for q, v in derived.items()}
        self.assertEqual(got, {
            "q1": [["d01", "d02", "d03"], ["d01", "d03", "d10", "d11"]],
            "q2": [["d04", "d05", "d06", "d08"], ["d04", "d05", "d07", "d08"],
                   ["d04", "d05", "d06", "d08"]],
            "q3": [["d09"], ["d01", "d09", "d10"]],
            "q4": [["d10", "d11"], ["d01", "d03", "d10", "d11"], ["d02", "d10", "d12"]],
            "q5": [["d11", "d12"], ["d11", "d12"]],
            "q6": [["d11", "d12"], ["d03", "d11", "d12"]]})

    def test_cli(self):
        runs = [str(EXAMPLE / "runs" / f"{r}.jsonl.gz") for r in self.RUNS]
        code, out, err = run_cli(runs + ["--release", str(EXAMPLE), "--k", "1", "2", "10",
                                         "--json"])
        self.assertEqual(code, 0, err)
        reports = {r["run"]: r for r in json.loads(out)["runs"]}
        # dense: q1 d10,d11,d03,.. -> 1/2, 1/2, 1 (d03 covers both); q2 d05 gold -> 1;
        # q3 d09 gold -> 1; q4 d02 (babel) -> 1/3, then d10 gold -> 1; q5 d12 gold -> 1;
        # q6 d03 (microtype) -> 1/2, then d11 -> 1.
        # @1: (1/2 + 1 + 1 + 1/3 + 1 + 1/2)/6 = 13/18; @2: (1/2 + 5)/6 = 11/12; @10: 1
        dense = reports["example_dense"]["measures"]
        self.assertAlmostEqual(dense["hc@1"], 100 * 13 / 18)
        self.assertAlmostEqual(dense["hc@2"], 100 * 11 / 12)
        self.assertAlmostEqual(dense["hc@10"], 100.0)
        # lexical: q1 d01 gold -> 1; q2 d06 (Bib, hyperref) -> 2/3, + d04 -> 1; q3 d01, d10
        # (beamer only) -> 1/2 at every k; q4 d10 gold -> 1; q5 d03 unjudged -> 0, + d12 -> 1;
        # q6 not ranked -> 0. @1: (1 + 2/3 + 1/2 + 1)/6 = 19/36; @2 = @10: 4.5/6 = 3/4
        lexical = reports["example_lexical"]
        self.assertAlmostEqual(lexical["measures"]["hc@1"], 100 * 19 / 36)
        self.assertAlmostEqual(lexical["measures"]["hc@2"], 75.0)
        self.assertAlmostEqual(lexical["measures"]["hc@10"], 75.0)
        self.assertEqual(lexical["missing_queries"], 1)
        # pages: q1, q2, q3, q6 gold first -> 1; q4 d11 (Introduction, TikZ) -> 2/3, + d10 -> 1;
        # q5 d07 unjudged for q5 -> 0. @1: (4 + 2/3)/6 = 7/9; @2 = @10: 5/6
        pages = reports["example_pages"]["measures"]
        self.assertAlmostEqual(pages["hc@1"], 100 * 7 / 9)
        self.assertAlmostEqual(pages["hc@2"], 100 * 5 / 6)
        self.assertAlmostEqual(pages["hc@10"], 100 * 5 / 6)
        for report in reports.values():
            self.assertEqual(report["unsupported_perspectives"], 0)

    def test_coverage_table(self):
        from nclue.context import ReleaseContext
        from nclue.tables.kinds import table_from_dict
        table = table_from_dict({"id": "cov", "kind": "coverage", "runs": list(self.RUNS)},
                                ReleaseContext(EXAMPLE))
        rows = {key: cells for key, _, cells in table.rows}
        # n-Clue Score@10 (first gold within 10 and before every judged subset) / Gold Hit@10:
        # dense: q1 subset d10 first, q2 gold, q3 gold, q4 subset d02 first, q5 gold, q6 subset
        #   d03 first -> 3/6 = 50; every query has a gold in its list -> 100. HC@10 = 100.
        # lexical: q1 gold, q2 subset d06 first, q3 no gold, q4 gold, q5 d03 unjudged then gold
        #   d12, q6 unranked -> 3/6 = 50; gold in q1, q2, q4, q5 -> 4/6. HC@10 = 75.
        # pages: q1, q2, q3, q6 gold first, q4 subset d11 first, q5 no gold -> 4/6; hit 5/6.
        #   HC@10 = 5/6. Depth <= 5 everywhere, so HC@100 = HC@10.
        expected = {"example_dense": (100.0, 50.0, 100.0),
                    "example_lexical": (75.0, 50.0, 100 * 4 / 6),
                    "example_pages": (100 * 5 / 6, 100 * 4 / 6, 100 * 5 / 6)}
        self.assertEqual(sorted(rows), sorted(expected))
        for run_id, (hc, score, hit) in expected.items():
            row = rows[run_id]
            self.assertAlmostEqual(row["hc@10"], hc)
            self.assertAlmostEqual(row["hc@100"], hc)
            self.assertAlmostEqual(row["nclue_score@10"], score)
            self.assertAlmostEqual(row["gold_hit@10"], hit)
            self.assertAlmostEqual(row["hc_minus_score@10"], hc - score)


    def test_report_table_builder(self):
        from nclue.context import ReleaseContext
        from nclue.report.markdown import table_lines
        from nclue.tables.kinds import table_from_dict
        ctx = ReleaseContext(EXAMPLE)
        table = table_from_dict({"id": "cov", "kind": "coverage", "runs": "all"}, ctx)
        cells = {row_key: values for row_key, _, values in table.rows}
        # same hand-derived values as test_coverage_table (report k = 10 in report.json)
        self.assertAlmostEqual(cells["example_lexical"]["hc@10"], 75.0)
        self.assertAlmostEqual(cells["example_lexical"]["hc_minus_score@10"], 25.0)
        self.assertAlmostEqual(cells["example_pages"]["nclue_score@10"], 100 * 4 / 6)
        self.assertAlmostEqual(cells["example_dense"]["gold_hit@10"], 100.0)
        text = "\n".join(table_lines(table))
        # dense row: HC@10 100.0, HC@100 100.0, Score 50.0, Gold Hit 100.0, difference 50.0
        self.assertIn("| example_dense | 100.0 | 100.0 | 50.0 | 100.0 | 50.0 |", text)
        with self.assertRaisesRegex(InputError, "'ks'.*must be an integer >= 1"):
            table_from_dict({"id": "cov", "kind": "coverage", "runs": "all", "ks": [0]}, ctx)


if __name__ == "__main__":
    unittest.main()
