"""Runs and TREC formats, tie rules, claims rounding, stdlib-only imports, reproduce determinism."""

import ast
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from nclue.claims import Claim, claim_holds, format_fixed
from nclue.formats import gzip_bytes
from nclue.release import load_release, render_forms
from nclue.runs import load_run, order_by_score, read_trec_qrels, trec_qrels_text, trec_run_text, write_run
from tests.slow import slow
from tests.small_repo import reproduce_in_process

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


class TieRules(unittest.TestCase):
    def test_input_order_keeps_file_order_on_ties(self):
        docs, _ = order_by_score(["b", "a", "c"], [1.0, 1.0, 2.0], "input")
        self.assertEqual(docs, ["c", "b", "a"])

    def test_trec_eval_orders_ties_by_docid_descending(self):
        docs, _ = order_by_score(["a", "c", "b", "z"], [1.0, 1.0, 1.0, 0.5], "trec_eval")
        self.assertEqual(docs, ["c", "b", "a", "z"])

    def test_trec_rank_column_is_ignored(self):
        release = load_release(EXAMPLE)
        tmp = Path(tempfile.mkdtemp())
        try:
            path = tmp / "r.trec"
            # ranks contradict scores; scores decide: d04 (3.0) first.
            path.write_text("q2 Q0 d06 1 1.0 t\nq2 Q0 d04 2 3.0 t\n")
            run = load_run(path, release)
            self.assertEqual(run.rankings["q2"].docs, ("d04", "d06"))
        finally:
            shutil.rmtree(tmp)


class TrecRoundTrip(unittest.TestCase):
    def test_run_roundtrip(self):
        release = load_release(EXAMPLE)
        run = load_run(EXAMPLE / "runs" / "example_dense.jsonl.gz", release)
        tmp = Path(tempfile.mkdtemp())
        try:
            path = tmp / "dense.trec"
            path.write_text(trec_run_text(run))
            again = load_run(path, release)
            self.assertEqual({q: r.docs for q, r in again.rankings.items()},
                             {q: r.docs for q, r in run.rankings.items()})
            self.assertEqual(path.read_text().split("\n")[0], "q1 Q0 d10 1 0.9 example_dense")
        finally:
            shutil.rmtree(tmp)

    def test_qrels_export(self):
        release = load_release(EXAMPLE)
        text = trec_qrels_text(release)
        self.assertIn("q2 0 d08 3\n", text)  # the distinct-page subset keeps its clue count
        tmp = Path(tempfile.mkdtemp())
        try:
            (tmp / "q.txt").write_text(text)
            qrels = read_trec_qrels(tmp / "q.txt")
            self.assertEqual(sum(len(v) for v in qrels.values()), 24)
        finally:
            shutil.rmtree(tmp)

    def test_jsonl_run_is_byte_deterministic(self):
        release = load_release(EXAMPLE)
        run = load_run(EXAMPLE / "runs" / "example_pages.jsonl.gz", release)
        tmp = Path(tempfile.mkdtemp())
        try:
            write_run(tmp / "a.jsonl.gz", run)
            write_run(tmp / "b.jsonl.gz", run)
            self.assertEqual((tmp / "a.jsonl.gz").read_bytes(), (tmp / "b.jsonl.gz").read_bytes())
            # and identical to the released file written by tools/make_example.py
            self.assertEqual((tmp / "a.jsonl.gz").read_bytes(),
                             (EXAMPLE / "runs" / "example_pages.jsonl.gz").read_bytes())
        finally:
            shutil.rmtree(tmp)

    def test_gzip_has_mtime_zero(self):
        data = gzip_bytes(b"x")
        self.assertEqual(data[4:8], b"\x00\x00\x00\x00")


class Forms(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(render_forms(("A", "B"))["natural"], 'Find the document that discusses "A" and "B".')
        self.assertEqual(render_forms(("A", "B", "C"))["natural"],
                         'Find the document that discusses "A", "B", and "C".')
        self.assertEqual(render_forms(("A", "B", "C"))["clean"], '"A"; "B"; "C"')


class ClaimRounding(unittest.TestCase):
    def test_half_unit_rule(self):
        claim = Claim("r", "t", "row", "col", 26.8, 1)
        self.assertTrue(claim_holds(claim, 26.75))    # |26.75 - 26.8| = .05 = half a unit
        self.assertTrue(claim_holds(claim, 26.849))
        self.assertFalse(claim_holds(claim, 26.86))
        self.assertFalse(claim_holds(Claim("r", "t", "row", "col", 3, 0), 3.6))

    def test_format_fixed_rounds_half_up(self):
        self.assertEqual(format_fixed(0.125, 2), "0.13")
        self.assertEqual(format_fixed(2.5, 0), "3")
        self.assertEqual(format_fixed(-0.04, 1), "0.0")

    def test_example_claims_equal_the_hand_values(self):
        # The example's frozen claims must agree with the values worked out by hand in
        # tests/test_example_release.py (e.g. lexical n-Clue 3/6, dense Gold Hit 6/6, pages
        # Gold+Support 4/6, conditional coverage 4/5).
        data = json.loads((EXAMPLE / "claims.json").read_text())
        cells = {(c["table"], c["row"], c["column"]): c["value"] for c in data["claims"]}
        self.assertEqual(cells[("scorecard", "example_lexical", "nclue_score@10")], 50.0)
        self.assertEqual(cells[("scorecard", "example_dense", "gold_hit@10")], 100.0)
        self.assertEqual(cells[("page_evidence", "example_pages", "gold_support@10")], 66.7)
        self.assertEqual(cells[("page_evidence", "example_pages", "full_coverage@10")], 80.0)
        self.assertEqual(cells[("instrument", "gold_qrels", "value")], 9)
        self.assertEqual(cells[("instrument", "subset_qrels", "value")], 15)

    def test_example_instrument_pool_and_family_rows(self):
        # Counted by hand from data/example/qrels.jsonl and queries.jsonl:
        # judged documents per query q1..q6 = 5, 5, 3, 6, 2, 3 (mean 24/6 = 4.0, median 4.0, max 6);
        # golds per query = 1, 2, 1, 1, 2, 2 (mean 1.50, median 1.5, max 2); d11 and d12 are gold
        # for q5 and q6 (max 2 queries per gold document); gold sets {d01}, {d04,d05}, {d09},
        # {d10}, {d11,d12} twice = 5 families; 14 condition slots, TikZ and Examples repeated = 12.
        from nclue.context import ReleaseContext
        from nclue.tables.kinds import table_from_dict
        table = table_from_dict({"id": "instrument", "kind": "instrument"}, ReleaseContext(EXAMPLE))
        got = {key: cells["value"] for key, _, cells in table.rows}
        expected = {"judged_pool_mean": 4.0, "judged_pool_median": 4.0, "judged_pool_max": 6,
                    "golds_per_query_mean": 1.5, "golds_per_query_median": 1.5,
                    "golds_per_query_max": 2, "max_queries_per_gold_document": 2,
                    "gold_families": 5, "conditions_used": 12}
        self.assertEqual({k: got[k] for k in expected}, expected)
        self.assertEqual(table.decimals()[("instrument", "golds_per_query_mean", "value")], 2)


def _is_stdlib(name: str) -> bool:
    """``sys.stdlib_module_names`` (Python >= 3.10); on 3.9, where the module file lives."""
    names = getattr(sys, "stdlib_module_names", None)
    if names is not None:
        return name in names
    if name in sys.builtin_module_names:
        return True
    import importlib.util
    import os
    import sysconfig
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    origin = os.path.realpath(spec.origin)
    roots = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
    return "site-packages" not in origin and any(origin.startswith(r + os.sep) for r in roots)


@slow
def statements(tree):
    """Every statement node of a module, nested ones included (an import is a statement, so
    this finds every import that ``ast.walk`` finds, without visiting each expression)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, field, ()) or ())


class StdlibOnly(unittest.TestCase):
    def test_statements_finds_what_ast_walk_finds(self):
        source = ("import a\ndef f():\n    import b\n    class C:\n        from c import d\n"
                  "try:\n    import e\nexcept ImportError:\n    import f\nelse:\n    import g\n"
                  "finally:\n    import h\nwith x:\n    if y:\n        import i\n    else:\n"
                  "        import j\nwhile z:\n    for k in w:\n        import l\n"
                  "match v:\n    case 1:\n        import m\n")
        if sys.version_info < (3, 10):
            source = source[:source.index("match v")]
        tree = ast.parse(source)
        imports = (ast.Import, ast.ImportFrom)
        self.assertEqual(sorted(ast.dump(n) for n in statements(tree) if isinstance(n, imports)),
                         sorted(ast.dump(n) for n in ast.walk(tree) if isinstance(n, imports)))
        self.assertEqual(sum(1 for n in statements(tree) if isinstance(n, imports)),
                         11 if sys.version_info >= (3, 10) else 10)   # a b d e f g h i j l (m)

    def test_no_third_party_imports(self):
        std = {"nclue", "__future__"}
        files = list((ROOT / "nclue").rglob("*.py")) + [ROOT / "reproduce.py"] + list((ROOT / "tests").glob("*.py"))
        bad = []
        for path in files:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in statements(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                        if n.split(".")[0] not in std and n.split(".")[0] != "tests"
                        and not _is_stdlib(n.split(".")[0])]
        self.assertEqual(bad, [])

    def test_isolated_interpreter_imports_every_module(self):
        modules = sorted("nclue." + ".".join(p.relative_to(ROOT / "nclue").with_suffix("").parts)
                         for p in (ROOT / "nclue").rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))
        code = "import sys; sys.path.insert(0, %r)\nimport importlib\nfor m in %r: importlib.import_module(m)" % (
            str(ROOT), modules)
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)


@slow
class ReproduceExample(unittest.TestCase):
    """reproduce.py on a copy holding only the example release (and a README quoting two of its
    numbers): passes, is deterministic, and fails (naming the file) when a claim, a data file or a
    quoted number is tampered with.

    The copy is frozen (``reproduce.py --freeze``, in this process) and then verified once by
    reproduce.py in a child process, for all tests (that run's output and the files before and
    after it are kept); every test that tampers works on a copy of the frozen copy and verifies
    it in this process (tests/small_repo.py, :func:`reproduce_in_process`)."""

    README = ("# x\nThe dense run finds a gold for "
              "{hit}%<!--=example/scorecard/example_dense/gold_hit@10--> of the "
              "6<!--=example/instrument/queries/value--> queries.\n")

    @classmethod
    def setUpClass(cls):
        cls.base = Path(tempfile.mkdtemp())
        cls.frozen = cls.base / "frozen"
        for name in ("nclue", "reproduce.py"):
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, cls.frozen / name)
        shutil.copytree(EXAMPLE, cls.frozen / "data" / "example")
        # by hand: example_dense ranks a gold in the top 10 for all 6 queries (Gold Hit 100.0)
        (cls.frozen / "README.md").write_text(cls.README.format(hit="100.0"))
        cls.freeze = reproduce_in_process(cls.frozen, mode="freeze")
        cls.before = cls.files(cls.frozen)
        cls.verify = cls.run_reproduce(cls.frozen)
        cls.after = cls.files(cls.frozen)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base)

    @staticmethod
    def files(root):
        return {p.relative_to(root): p.read_bytes() for p in root.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}

    @staticmethod
    def run_reproduce(root, *args):
        return subprocess.run([sys.executable, "-I", "-S", str(root / "reproduce.py"), *args],
                              capture_output=True, text=True, cwd=root)

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        shutil.rmtree(self.tmp)
        shutil.copytree(self.frozen, self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def reproduce(self, mode="verify"):
        return reproduce_in_process(self.tmp, mode=mode)

    def frozen_copy(self):
        """The test's copy, as ``reproduce.py --freeze`` left it (the freeze ran once, for all)."""
        self.assertEqual(self.freeze.returncode, 0, self.freeze.stdout[-2000:] + self.freeze.stderr[-2000:])

    def test_freeze_then_verify_is_deterministic(self):
        self.frozen_copy()
        proc = self.verify
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout.strip().split("\n")[-1], r"^\d+ checks verified, 0 failed")
        self.assertEqual(self.before, self.after)

    def test_changed_claim_fails_with_expected_got_and_file(self):
        self.frozen_copy()
        path = self.tmp / "data" / "example" / "claims.json"
        data = json.loads(path.read_text())
        for claim in data["claims"]:
            if (claim["table"], claim["row"], claim["column"]) == ("scorecard", "example_dense", "gold_hit@10"):
                claim["value"] = 99.9
        path.write_text(json.dumps(data))
        proc = self.reproduce()
        self.assertEqual(proc.returncode, 1)
        self.assertIn("example/scorecard/example_dense/gold_hit@10: expected 99.9", proc.stdout)
        self.assertIn("got 100.0000", proc.stdout)
        self.assertIn("data/example/claims.json", proc.stdout)
        # three checks fail: the claim itself, claims.json's checksum, and the README number
        # quoting that claim (the copy's README quotes it: test_readme_number_...)
        self.assertIn("FAIL prose: README.md: README.md:2: 100.0 is not printed by "
                      "example/scorecard/example_dense/gold_hit@10, which prints 99.9", proc.stdout)
        self.assertIn(" checks verified, 3 failed", proc.stdout)

    def test_tampered_data_file_fails_checksums(self):
        self.frozen_copy()
        corpus = self.tmp / "data" / "example" / "corpus.jsonl"
        corpus.write_text(corpus.read_text().replace('"pages":12', '"pages":13'))
        proc = self.reproduce()
        self.assertEqual(proc.returncode, 1)
        self.assertIn("data/example/corpus.jsonl: sha256", proc.stdout)

    def test_readme_number_not_in_the_regenerated_report_fails(self):
        self.frozen_copy()   # frozen with the README quoting 100.0, then verified:
        self.assertEqual(self.verify.returncode, 0, self.verify.stdout + self.verify.stderr)
        self.assertIn("prose: 2 quoted numbers checked", self.verify.stdout)
        (self.tmp / "README.md").write_text(self.README.format(hit="99.0"))
        self.assertEqual(self.reproduce("freeze").returncode, 1)  # the freeze re-checks prose too
        proc = self.reproduce()
        self.assertEqual(proc.returncode, 1)
        self.assertIn("README.md:2: 99.0 is not printed by "
                      "example/scorecard/example_dense/gold_hit@10, which prints 100.0", proc.stdout)

if __name__ == "__main__":
    unittest.main()
