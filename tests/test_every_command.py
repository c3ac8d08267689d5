"""Every ``nclue`` subcommand's documented happy path, run through the CLI's own entry point
(issue 23, item 3), so that a command that crashes on valid input cannot land again.

The commands are enumerated from the argparse parser itself (``nclue audit sample``, ``nclue
export topics``, ... are leaves of their own): a new command without a happy path here fails
:meth:`Coverage.test_every_subcommand_has_a_happy_path`. Each command runs on data/example (a
copy where it writes), except where it needs a local page-text build: ``build``,
``verify-construction`` and ``audit support-rule`` run on the hand-made build of
tests/construction_fixture.py, and ``nclue verify`` runs on this repository.

Every expected value is worked out from the files themselves (read here with json/gzip) or by
hand in the comments (the example's scores: tests/test_example_release.py).
"""

import argparse
import contextlib
import gzip
import hashlib
import io
import json
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from nclue.cli import build_parser, main
from tests import audit_fixtures as fx
from tests import construction_fixture
from tests import label_audit_setup as setup

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def leaf_commands(parser=None, prefix=()):
    """Every runnable command of the CLI, as a tuple of words (``("audit", "sample")``)."""
    parser = parser or build_parser()
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        return [prefix]
    out = []
    for group in groups:
        for name, sub in group.choices.items():
            out.extend(leaf_commands(sub, prefix + (name,)))
    return out


def nclue(*args):
    """``python -m nclue ARGS`` in this process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def jsonl(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cells(payload, table_id):
    table = next(t for t in payload["tables"] if t["id"] == table_id)
    return {row["row"]: row["cells"] for row in table["rows"]}


class Commands(unittest.TestCase):
    """One test per leaf command; each names the command it covers in ``COVERS``."""

    COVERS = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="nclue-commands-"))
        cls.example = cls.tmp / "example"          # a writable copy of data/example
        shutil.copytree(EXAMPLE, cls.example)
        cls._built = None
        cls._first = None
        cls._adjudication = None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def ok(self, *args):
        proc = nclue(*args)
        self.assertEqual(proc.returncode, 0, f"nclue {' '.join(map(str, args))}: {proc.stderr[-2000:]}")
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def ok_json(self, *args):
        return json.loads(self.ok(*args, "--json").stdout)

    # --- shared steps -------------------------------------------------------------------------

    def built(self):
        """The hand-made build folder, built into a release (``nclue build``)."""
        cls = type(self)
        if cls._built is None:
            build, release, prov = self.tmp / "build", self.tmp / "v1", self.tmp / "prov"
            construction_fixture.write_build(str(build))
            config = self.tmp / "config.json"
            config.write_text(json.dumps(construction_fixture.TEST_CONFIG))
            proc = self.ok("build", "--input", build, "--out", release, "--provenance", prov,
                           "--config", config)
            cls._built = (build, release, prov / "construction_v1.json", proc)
        return cls._built

    def first_record(self):
        """``audit sample`` -> ``audit packet`` -> ``audit import`` on the example."""
        cls = type(self)
        if cls._first is None:
            from nclue.label_audit.packet import read_packet_html
            from nclue.label_audit.spec import read_key
            folder = self.tmp / "first"
            sampled = self.ok_json("audit", "sample", "--release", EXAMPLE, "--seed", "3", "--out", folder)
            self.ok("audit", "packet", "--spec", folder / "spec.json", "--pages", EXAMPLE / "pages.jsonl",
                    "--out", self.tmp / "first.html")
            key, _ = read_key(folder / "key.json")
            packet = read_packet_html(self.tmp / "first.html")
            exports = setup.write_exports(self.tmp, packet, setup.scenario_first(key))
            imported = self.ok_json("audit", "import", "--key", folder / "key.json", "--packet",
                                    self.tmp / "first.html", *exports, "--out", self.tmp / "first.record.json")
            cls._first = (sampled, packet, imported, self.tmp / "first.record.json")
        return cls._first

    def adjudication_record(self):
        """``audit adjudicate`` -> packet -> import of the workflow's adjudication answers."""
        cls = type(self)
        if cls._adjudication is None:
            from nclue.label_audit.packet import read_packet_html
            from nclue.label_audit.spec import read_key
            _, _, _, first = self.first_record()
            folder = self.tmp / "adj"
            queued = self.ok_json("audit", "adjudicate", "--release", EXAMPLE, "--record", first, "--out", folder)
            self.ok("audit", "packet", "--spec", folder / "spec.json", "--pages", EXAMPLE / "pages.jsonl",
                    "--out", self.tmp / "adj.html")
            key, _ = read_key(folder / "key.json")
            packet = read_packet_html(self.tmp / "adj.html")
            (self.tmp / "adj-exports").mkdir()
            exports = setup.write_exports(self.tmp / "adj-exports", packet, setup.scenario_adjudication(key))
            self.ok("audit", "import", "--key", folder / "key.json", "--packet", self.tmp / "adj.html",
                    *exports, "--out", self.tmp / "adj.record.json")
            cls._adjudication = (queued, self.tmp / "adj.record.json")
        return cls._adjudication

    # --- one test per command -----------------------------------------------------------------

    def test_score(self):
        # tests/test_example_release.py: the lexical run's n-Clue Score@10 is 3 of 6 queries
        out = self.ok_json("score", EXAMPLE / "runs" / "example_lexical.jsonl.gz", "--release", EXAMPLE)
        self.assertAlmostEqual(out["nclue_score@10"], 50.0)
        self.assertEqual(out["queries"], 6)
    COVERS["score"] = test_score

    def test_verify(self):
        proc = self.ok("verify", "--root", ROOT, "--release", "example")
        last = proc.stdout.strip().splitlines()[-1]
        self.assertRegex(last, r"^[1-9][0-9]* checks verified, 0 failed \([0-9.]+ s\)$")   # as reproduce.py prints it
        self.assertEqual([line for line in proc.stdout.splitlines() if line.startswith("FAIL ")], [])
    COVERS["verify"] = test_verify

    def test_export_trec_and_import_trec(self):
        qrels = self.tmp / "qrels.txt"
        self.ok("export-trec", "--release", EXAMPLE, "--out", qrels)
        expected = {(r["qid"], r["docid"], r["clues"]) for r in jsonl(EXAMPLE / "qrels.jsonl")}
        got = {(q, d, int(g)) for q, _, d, g in (line.split() for line in qrels.read_text().splitlines())}
        self.assertEqual(got, expected)
        self.assertEqual(len(expected), 24)   # 9 golds + 15 subsets
        trec = self.tmp / "lexical.trec"
        run = EXAMPLE / "runs" / "example_pages.jsonl.gz"
        self.ok("export-trec", "--release", EXAMPLE, "--run", run, "--out", trec)
        back = self.tmp / "back.jsonl"
        self.ok("import-trec", trec, "--release", EXAMPLE, "--out", back)
        self.assertEqual({r["qid"]: r["docs"] for r in jsonl(back)}, {r["qid"]: r["docs"] for r in jsonl(run)})
    COVERS["export-trec"] = test_export_trec_and_import_trec
    COVERS["import-trec"] = test_export_trec_and_import_trec

    def test_coverage(self):
        # tests/test_coverage.py: the lexical run covers 4.5 of 6 queries' perspectives at 10
        out = self.ok_json("coverage", EXAMPLE / "runs" / "example_lexical.jsonl.gz", "--release", EXAMPLE,
                           "--k", "10")
        (report,) = out["runs"]
        self.assertAlmostEqual(report["measures"]["hc@10"], 75.0)
    COVERS["coverage"] = test_coverage

    def test_build(self):
        _, release, record, _ = self.built()
        # tests/test_construction.py: 12 queries, 8 of two and 4 of three conditions
        sizes = sorted(len(q["conditions"]) for q in jsonl(release / "queries.jsonl"))
        self.assertEqual(sizes, [2] * 8 + [3] * 4)
        self.assertTrue(record.is_file())
    COVERS["build"] = test_build

    def test_verify_construction(self):
        build, release, record, _ = self.built()
        proc = self.ok("verify-construction", "--input", build, "--release", release, "--provenance", record,
                       "--json")
        self.assertEqual(json.loads(proc.stdout)["disagreements"], 0)
    COVERS["verify-construction"] = test_verify_construction

    def test_support_rule(self):
        build, release, record, _ = self.built()
        copy = self.tmp / "rule" / release.name   # the record's release: v1 (the preset)
        shutil.copytree(release, copy)
        out = self.ok_json("audit", "support-rule", "--release", copy, "--input", build, "--construction",
                           record, "--rule", ROOT / "audit" / "label_audit" / "support_rule_P1.json")
        self.assertEqual(out["pairs"], len(jsonl(copy / "qrels.jsonl")))   # every judged pair re-judged
        lineage = json.loads((copy / "repairs" / "P1.lineage.json").read_text())
        self.assertEqual(lineage["rule"]["sha256"], sha256(ROOT / "audit" / "label_audit" / "support_rule_P1.json"))
    COVERS["audit support-rule"] = test_support_rule

    def test_retrieve_and_fuse(self):
        release = self.tmp / "example-runs"
        shutil.copytree(EXAMPLE, release)
        out = release / "runs" / "bm25_and.clean.jsonl.gz"
        self.ok("retrieve", "--release", release, "--pages", EXAMPLE / "pages.jsonl", "--method", "bm25-and",
                "--form", "clean", "--out", out)
        rows = jsonl(out)
        self.assertEqual(sorted(r["qid"] for r in rows), ["q1", "q2", "q3", "q4", "q5", "q6"])
        index = {e["id"]: e for e in json.loads((release / "runs" / "index.json").read_text())["runs"]}
        self.assertEqual(index["bm25_and.clean"]["sha256"], sha256(out))
        # equal-weight RRF, k = 60, by its definition: sum over the inputs of 1 / (60 + rank)
        self.ok("fuse", "--release", release, "--inputs", "example_lexical", "example_dense", "--method", "rrf",
                "--id", "rrf_test")
        index = {e["id"]: e for e in json.loads((release / "runs" / "index.json").read_text())["runs"]}
        fused = {r["qid"]: dict(zip(r["docs"], r["scores"])) for r in jsonl(release / "runs" / index["rrf_test"]["file"])}
        expected = {}
        for name in ("example_lexical", "example_dense"):
            for row in jsonl(EXAMPLE / "runs" / f"{name}.jsonl.gz"):
                for rank, doc in enumerate(row["docs"], start=1):
                    expected.setdefault(row["qid"], {}).setdefault(doc, 0.0)
                    expected[row["qid"]][doc] += 1 / (60 + rank)
        self.assertEqual(set(fused), set(expected))
        for qid in expected:
            self.assertEqual(set(fused[qid]), set(expected[qid]), qid)
            for doc, value in expected[qid].items():
                self.assertAlmostEqual(fused[qid][doc], value, places=6)
    COVERS["retrieve"] = test_retrieve_and_fuse
    COVERS["fuse"] = test_retrieve_and_fuse

    def test_compare(self):
        # n-Clue Score@10 by hand: lexical 3/6 (q1 q4 q5), pages 4/6 (q1 q2 q3 q6)
        out = self.ok_json("compare", "example_lexical", "example_pages", "--release", EXAMPLE,
                           "--replicates", "200", "--draws", "200")
        self.assertAlmostEqual(out["delta"], 100 / 6)
    COVERS["compare"] = test_compare

    def test_audit_paper(self):
        out = self.ok_json("audit-paper", ROOT / "claims" / "papers" / "nclue.json")
        frozen = json.loads((ROOT / "audit" / "papers" / "nclue.verdicts.json").read_text())
        self.assertEqual(out["summary"], frozen["summary"])
    COVERS["audit-paper"] = test_audit_paper

    def test_audit_sample_packet_import(self):
        sampled, packet, imported, record = self.first_record()
        self.assertEqual(len(packet.items), 24)   # n = 300 >= the example's 24 judged pairs: all of them
        written = json.loads(record.read_text())
        self.assertEqual(written["stage"], "first_pass")
        self.assertEqual(len(written["items"]), 24)
    COVERS["audit sample"] = test_audit_sample_packet_import
    COVERS["audit packet"] = test_audit_sample_packet_import
    COVERS["audit import"] = test_audit_sample_packet_import

    def test_audit_adjudicate(self):
        queued, record = self.adjudication_record()
        # tests/test_label_audit_workflow.py: the splits and consensus decreases q2/d06, q4/d11,
        # q5/d11 and q5/d12 are queued
        self.assertEqual(queued["queued_pairs"], 4)
        self.assertEqual(json.loads(record.read_text())["stage"], "adjudication")
    COVERS["audit adjudicate"] = test_audit_adjudicate

    def test_audit_review(self):
        _, _, _, first = self.first_record()
        _, adjudication = self.adjudication_record()
        out = self.ok_json("audit", "review", "--release", EXAMPLE, "--record", first, "--adjudication",
                           adjudication, "--out", self.tmp / "sheet.json")
        # non-unanimous polls: q2/d06 (2 yes, 1 no), q4/d11 (1 yes, 2 no), q5/d12 (1-1)
        self.assertEqual(set(cells(out, "audit_review_sheet")), {"q2|d06|1", "q4|d11|1", "q5|d12|1"})
    COVERS["audit review"] = test_audit_review

    def test_audit_repair_and_impact(self):
        _, _, _, first = self.first_record()
        _, adjudication = self.adjudication_record()
        release = self.tmp / "example-repair"
        shutil.copytree(EXAMPLE, release)
        out = self.ok_json("audit", "repair", "--release", release, "--record", first, "--adjudication",
                           adjudication, "--id", "fixture-1")
        # q1/d02, q2/d06 promoted, q5/d11 demoted, q3/d01 and q4/d11 regraded
        self.assertEqual(out["changed_pairs"], 5)
        self.assertEqual(len(jsonl(release / "repairs" / "fixture-1.jsonl")), 5)
        impact = self.ok_json("audit", "impact", "--release", release, "--repair", "fixture-1")
        runs = cells(impact, "audit_impact_runs")
        # lexical: q1 q4 q5 before (3/6), and q2 after (d06, ranked first, is now a gold)
        self.assertAlmostEqual(runs["example_lexical"]["nclue_score@10|before"], 50.0)
        self.assertAlmostEqual(runs["example_lexical"]["nclue_score@10|after"], 400 / 6)
    COVERS["audit repair"] = test_audit_repair_and_impact
    COVERS["audit impact"] = test_audit_repair_and_impact

    def test_audit_challenge_and_tiebreak(self):
        from nclue.label_audit.packet import read_packet_html
        from nclue.label_audit.spec import read_key
        ch = self.tmp / "ch"
        # tests/test_label_audit_workflow.py: targets q2/d06 and q3/d01, plus two controls
        self.ok("audit", "challenge", "--release", EXAMPLE, "--base", "example_lexical", "--variant",
                "example_pages", "--measure", "nclue_score", "--controls", "2", "--seed", "5", "--out", ch)
        key, _ = read_key(ch / "key.json")
        self.assertEqual(len(key.items), 4)
        self.ok("audit", "packet", "--spec", ch / "spec.json", "--pages", EXAMPLE / "pages.jsonl",
                "--out", ch / "packet.html")
        packet = read_packet_html(ch / "packet.html")
        a, e = fx.construction_answers(key), fx.construction_answers(key)
        target = fx.item_of(key, "q2", "d06")
        free = [p.page for p in key.item(target).conditions[1].pool if p.page not in (2, 6)]
        a[target][1], e[target][1] = free[:1], []    # one split: PGF of q2/d06
        exports = setup.write_exports(ch, packet, {"FIXTURE-A": a, "FIXTURE-E": e})
        self.ok("audit", "import", "--key", ch / "key.json", "--packet", ch / "packet.html", *exports,
                "--out", ch / "record.json")
        out = self.ok_json("audit", "tiebreak", "--release", EXAMPLE, "--record", ch / "record.json",
                           "--out", ch / "tb")
        self.assertEqual((out["queued_pairs"], out["queued_conditions"]), (1, 1))
    COVERS["audit challenge"] = test_audit_challenge_and_tiebreak
    COVERS["audit tiebreak"] = test_audit_challenge_and_tiebreak

    def test_audit_sample_pages(self):
        # a build folder of the example's own pages, with the Debian fields sample-pages reads,
        # and a DEP-5 copyright file for the (made-up) package
        sampled, _, _, _ = self.first_record()
        build, sources = self.tmp / "sp-build", self.tmp / "sp-sources"
        build.mkdir()
        docs = jsonl(EXAMPLE / "corpus.jsonl")
        (build / "documents.jsonl").write_text("".join(json.dumps(dict(
            d, package="example-doc", version="1.0", path=f"usr/share/doc/example-doc/{d['docid']}.pdf")) + "\n"
            for d in docs))
        with gzip.open(build / "pages.jsonl.gz", "wt", encoding="utf-8") as out:
            out.write((EXAMPLE / "pages.jsonl").read_text(encoding="utf-8"))
        (build / "outlines.jsonl").write_text("")
        copyright_file = sources / "example-doc" / "usr" / "share" / "doc" / "example-doc" / "copyright"
        copyright_file.parent.mkdir(parents=True)
        copyright_file.write_text("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                                  "Files: *\nLicense: CC0-1.0\n")
        out = self.ok_json("audit", "sample-pages", "--spec", self.tmp / "first" / "spec.json", "--input", build,
                           "--sources", sources, "--out", self.tmp / "sp")
        spec = json.loads((self.tmp / "first" / "spec.json").read_text())
        shown = {(item["docid"], page) for item in spec["items"] for c in item["conditions"] for page in c["pages"]}
        self.assertEqual(out["shown_pages"], len(shown))
        licenses = {d["license"] for d in json.loads((self.tmp / "sp" / "documents.json").read_text())["documents"].values()}
        self.assertEqual(licenses, {"CC0-1.0"})
    COVERS["audit sample-pages"] = test_audit_sample_pages

    def test_archive(self):
        # a small repository (the example release, the code, its integrity files) as a bag
        from nclue.bag import verify_bag
        from nclue.integrity import write_integrity_files
        repo = self.tmp / "repo"
        shutil.copytree(EXAMPLE, repo / "data" / "example")
        shutil.copytree(ROOT / "nclue", repo / "nclue", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(ROOT / "reproduce.py", repo / "reproduce.py")
        write_integrity_files(repo)
        out = self.ok_json("archive", "--root", repo, "--out", self.tmp / "bag")
        files = sorted(p for p in repo.rglob("*") if p.is_file())
        self.assertEqual(out["payload_files"], len(files))
        self.assertTrue(verify_bag(self.tmp / "bag").ok)
    COVERS["archive"] = test_archive

    def test_export_topics_and_collection(self):
        topics = self.tmp / "topics.tsv"
        self.ok("export", "topics", "--release", EXAMPLE, "--form", "clean", "--out", topics)
        expected = [f"{q['qid']}\t{q['forms']['clean']}" for q in jsonl(EXAMPLE / "queries.jsonl")]
        self.assertEqual(sorted(topics.read_text(encoding="utf-8").splitlines()), sorted(expected))
        out = self.tmp / "collection"
        self.ok("export", "collection", "--release", EXAMPLE, "--pages", EXAMPLE / "pages.jsonl", "--out", out)
        pages = jsonl(out / "pages" / "pages.jsonl")
        corpus = jsonl(EXAMPLE / "corpus.jsonl")
        self.assertEqual(len(pages), sum(d["pages"] for d in corpus))   # 167 pages
        self.assertEqual(len(jsonl(out / "documents" / "documents.jsonl")), len(corpus))
    COVERS["export topics"] = test_export_topics_and_collection
    COVERS["export collection"] = test_export_topics_and_collection

    def test_croissant(self):
        release = self.tmp / "example-croissant"
        shutil.copytree(EXAMPLE, release)
        self.ok("croissant", "--release", release)
        metadata = json.loads((release / "croissant.json").read_text())
        files = {d["contentUrl"]: d["sha256"] for d in metadata["distribution"] if "sha256" in d}
        self.assertEqual(files["qrels.jsonl"], sha256(release / "qrels.jsonl"))
        self.ok("croissant", "--release", release, "--check")
    COVERS["croissant"] = test_croissant


class Coverage(unittest.TestCase):
    def test_every_subcommand_has_a_happy_path(self):
        commands = {" ".join(words) for words in leaf_commands()}
        self.assertEqual(sorted(commands - set(Commands.COVERS)), [], "commands without a happy-path test")
        self.assertEqual(sorted(set(Commands.COVERS) - commands), [], "happy paths of no command")
        self.assertIn("audit sample", commands)   # nested steps are enumerated too


if __name__ == "__main__":
    unittest.main()
