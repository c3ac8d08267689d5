"""Every command in README.md runs as written on a fresh copy of the repository (issue 16), and
prints or writes what the README says it does (issue 23, item 6).

The shell blocks (```sh) run line by line with bash, and the Python blocks (```python) with this
interpreter, in order, in a temporary copy (so files they write land there; the copy's files are
hard links where the file system allows, since no README command writes into the releases, and
every nclue write replaces a file rather than changing it in place). A block preceded by
``<!-- readme-test: skip (reason) -->`` is left out, with its reason printed: the two commands
`.ci/run` runs itself, and the archive, which tests/test_bag.py exercises.

Every shell command has an output check in :data:`CHECKS` (a README command without one fails):
the numbers are the frozen claims of ``data/v1/claims.json`` that ``reproduce.py`` verifies, and
the file contents are compared with the release files read here with json and gzip.

A plain ``python -m nclue ...`` line (at most redirected to a file with ``>``) runs in this process
through :func:`nclue.cli.main`, with its standard output and error captured (and written to the
file it is redirected to), and the releases it loads are loaded once and shared by every command
(:func:`shared_releases`): its exit status, output and files are the command's own, while the
suite saves an interpreter start and a load of v1 per command. A line that needs the shell (a
pipe) runs with bash in a child process, as written.
"""

import contextlib
import gzip
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", "build", "work", "__pycache__", ".venv*", "venv*", "*.pyc")
FENCE = re.compile(r"(?:<!-- readme-test: skip \((?P<why>[^)]*)\) -->\n)?```(?P<lang>sh|python)\n(?P<body>.*?)```",
                   re.S)


def readme_blocks(text: str):
    """(language, body, skip reason or None) of every runnable fenced block, in order."""
    return [(m.group("lang"), m.group("body"), m.group("why")) for m in FENCE.finditer(text)]


def jsonl(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


@contextlib.contextmanager
def shared_releases():
    """While active, ``load_release`` of the same folder with the same arguments returns the
    release loaded the first time (the commands only read a release)."""
    import nclue.commands.registry  # noqa: F401 -- every command module, so that all are patched
    from nclue import release as release_module
    original, loaded = release_module.load_release, {}

    def load_release(path, *args, **kwargs):
        key = (str(Path(path).resolve()), args, tuple(sorted(kwargs.items())))
        if key not in loaded:
            loaded[key] = original(path, *args, **kwargs)
        return loaded[key]

    with contextlib.ExitStack() as stack:
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("nclue") and \
                    getattr(module, "load_release", None) is original:
                stack.enter_context(mock.patch.object(module, "load_release", load_release))
        yield


def in_process(command: str):
    """``argv`` and the redirect target of a ``python -m nclue ...`` line that needs no shell
    (``> FILE`` at most), or None."""
    words = shlex.split(command, comments=True)
    target = None
    if len(words) >= 2 and words[-2] == ">":
        words, target = words[:-2], words[-1]
    if words[:3] != ["python", "-m", "nclue"] or any(w in ("|", "&&", ";", ">", "<", ">>") for w in words):
        return None
    return words[3:], target


def run_nclue(argv, target, cwd: Path):
    """:func:`nclue.cli.main` run in ``cwd``: (exit status, standard output, standard error);
    standard output goes to ``target`` (a path relative to ``cwd``) when one is given."""
    from nclue.cli import main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(here)
    if target is not None:
        (cwd / target).write_text(out.getvalue(), encoding="utf-8")
        return code, "", err.getvalue()
    return code, out.getvalue(), err.getvalue()


class Checks:
    """The output check of each README command (by the command's text, as written there)."""

    def __init__(self, test: unittest.TestCase, copy: Path):
        self.t, self.copy = test, copy
        self.claims = {(c["table"], c["row"], c["column"]): c["value"]
                       for c in json.loads((copy / "data" / "v1" / "claims.json").read_text())["claims"]}
        self.judged = {(r["qid"], r["docid"], r["clues"], r["label"])
                      for r in jsonl(copy / "data" / "v1" / "qrels.jsonl.gz")}

    def near(self, value, table, row, column, scale=1.0):
        """``value`` rounds to the claim (printed at one decimal: within half a unit)."""
        claim = self.claims[(table, row, column)]
        self.t.assertLessEqual(abs(value * scale - claim), 0.05 + 1e-9, (table, row, column, value))

    def printed(self, out, measure):
        return float(re.search(rf"^\s+{re.escape(measure)}\s+(-?[0-9.]+)", out, re.M).group(1))

    def summary(self, out, ties):
        self.t.assertIn(f"ties={ties}", out.splitlines()[0])
        for measure in ("nclue_score@10", "gold_hit@10", "gold_ndcg@10", "graded_ndcg@10"):
            self.near(self.printed(out, measure), "scorecard", "bm25_and.clean", measure)
        self.near(self.printed(out, "subset_first@10"), "outcomes", "bm25_and.clean", "subset_first@10")

    def trec_run(self, out):
        rows = jsonl(self.copy / "data" / "v1" / "runs" / "bm25_and.clean.jsonl.gz")
        lines = [line.split() for line in (self.copy / "my_run.trec").read_text().splitlines()]
        self.t.assertEqual(len(lines), sum(len(r["docs"]) for r in rows))
        expected = [(r["qid"], d, str(rank)) for r in rows for rank, d in enumerate(r["docs"], start=1)]
        self.t.assertEqual([(q, d, rank) for q, _, d, rank, _, _ in lines], expected)
        self.t.assertEqual({(z, tag) for _, z, _, _, _, tag in lines}, {("Q0", "bm25_and.clean")})

    def json_score(self, out):
        result = json.loads(out)
        for measure in ("nclue_score@10", "gold_hit@10", "gold_ndcg@10"):
            self.near(result[measure], "scorecard", "bm25_or.clean", measure)
        self.t.assertEqual((result["queries"], result["ties"]), (1000, "input"))

    def per_query(self, out):
        rows = [line.split("\t") for line in (self.copy / "per_query.tsv").read_text().splitlines()]
        by = {}
        for measure, qid, value in rows:
            by.setdefault(measure, {})[qid] = float(value)
        self.t.assertEqual(sorted(by), ["gold_hit@10", "graded_ndcg@10"])   # nDCG@10 = graded_ndcg@10
        for measure, values in by.items():
            self.t.assertEqual(len(values), 1001)   # 1,000 queries and 'all'
            self.near(values["all"], "scorecard", "bm25_and.clean", measure, 100)
        self.t.assertEqual(set(by["gold_hit@10"].values()) - {by["gold_hit@10"]["all"]}, {0.0, 1.0})

    def compare_two(self, out):
        result = json.loads(out)
        for key in ("delta", "ci_lo", "ci_hi"):
            self.near(result[key], "findings", "lexical_distinct_page", key)
        self.t.assertEqual((result["base"], result["variant"]), ("bm25_and.clean", "bm25_sdr.clean"))

    def compare_latex(self, out):
        self.t.assertIn("\\begin{tabular}", out)
        for letter, run in zip("abc", ("bm25_or.clean", "bm25_and.clean", "bm25_sdr.clean")):
            line = next(x for x in out.splitlines() if x.startswith(f"({letter}) {run.replace('_', chr(92) + '_')} &"))
            score, hit = (float(re.match(r"\s*(-?[0-9.]+)", cell).group(1)) for cell in line.split("&")[1:3])
            self.near(score, "scorecard", run, "nclue_score@10")
            self.near(hit, "scorecard", run, "gold_hit@10")

    def coverage(self, out):
        hc = re.search(r"^\s+HC\s+([0-9.]+)\s+([0-9.]+)", out, re.M)
        self.near(float(hc.group(1)), "coverage", "bm25_and.clean", "hc@10")
        self.near(float(hc.group(2)), "coverage", "bm25_and.clean", "hc@100")

    def qrels_file(self, name, grade):
        lines = [line.split() for line in (self.copy / name).read_text().splitlines()]
        self.t.assertEqual(len(lines), 1800 + 136505)   # the README's gold and subset qrels
        self.t.assertEqual({(q, d, int(g)) for q, _, d, g in lines},
                           {(q, d, grade(clues, label)) for q, d, clues, label in self.judged})

    def qrels(self, out):
        self.qrels_file("qrels.txt", lambda clues, label: clues)

    def qrels_head(self, out):
        self.t.assertEqual(out.splitlines(), (self.copy / "qrels.txt").read_text().splitlines()[:3])

    def gold_qrels(self, out):
        self.qrels_file("gold.qrels", lambda clues, label: 1 if label == "gold" else 0)

    def topics(self, out):
        queries = jsonl(self.copy / "data" / "v1" / "queries.jsonl")
        self.t.assertEqual((self.copy / "topics.tsv").read_text(encoding="utf-8").splitlines(),
                           [f"{q['qid']}\t{q['forms']['clean']}" for q in queries])

    def topics_trec(self, out):
        """TREC topics: <num> is the qid's position in qid order (v1's qids are not integers),
        <title> the clean form (README, "TREC topics")."""
        queries = sorted(jsonl(self.copy / "data" / "v1" / "queries.jsonl"), key=lambda q: q["qid"])
        text = (self.copy / "topics.trec").read_text(encoding="utf-8")
        self.t.assertEqual(re.findall(r"^<num> Number: (\d+)$", text, re.M),
                           [str(i) for i in range(1, len(queries) + 1)])
        self.t.assertEqual(re.findall(r"^<title> (.*)$", text, re.M), [q["forms"]["clean"] for q in queries])

    def topic_numbers(self, out):
        qids = sorted(q["qid"] for q in jsonl(self.copy / "data" / "v1" / "queries.jsonl"))
        self.t.assertEqual((self.copy / "topic_numbers.tsv").read_text(encoding="utf-8").splitlines(),
                           [f"{i}\t{qid}" for i, qid in enumerate(qids, start=1)])

    def trec_eval_q(self, out):
        """trec_eval -q shape: name, qid, value at four decimals; the 'all' lines equal the
        scorecard's graded nDCG@10 and Gold Hit@10 (gold-only success@10)."""
        rows = [line.split() for line in (self.copy / "trec_eval_q.txt").read_text().splitlines()]
        self.t.assertTrue(all(len(r) == 3 and re.fullmatch(r"\d+\.\d{4}", r[2]) for r in rows))
        self.t.assertEqual(len(rows), 2 * (1000 + 1))
        total = {name: float(value) for name, qid, value in rows if qid == "all"}
        self.near(total["ndcg_cut_10"], "scorecard", "bm25_and.clean", "graded_ndcg@10", 100)
        self.near(total["success_10"], "scorecard", "bm25_and.clean", "gold_hit@10", 100)


#: README command (as written, comment cut) -> the name of its check in :class:`Checks`
CHECKS = {
    "python -m nclue export-trec --release data/v1 --run data/v1/runs/bm25_and.clean.jsonl.gz --out my_run.trec": "trec_run",
    "python -m nclue score my_run.trec --release data/v1": lambda c, out: c.summary(out, "input"),
    "python -m nclue score data/v1/runs/bm25_or.clean.jsonl.gz --release data/v1 --json": "json_score",
    "python -m nclue score my_run.trec --release data/v1 --ties trec_eval": lambda c, out: c.summary(out, "trec_eval"),
    "python -m nclue score my_run.trec --release data/v1 --ties expected": lambda c, out: c.summary(out, "expected"),
    "python -m nclue score my_run.trec --release data/v1 --measures nDCG@10 gold:Success@10 --per-query tsv > per_query.tsv": "per_query",
    "python -m nclue compare bm25_and.clean bm25_sdr.clean --release data/v1 --json": "compare_two",
    "python -m nclue compare bm25_or.clean bm25_and.clean bm25_sdr.clean --release data/v1 --format latex": "compare_latex",
    "python -m nclue coverage my_run.trec --release data/v1 --k 10 100": "coverage",
    "python -m nclue export-trec --release data/v1 --out qrels.txt": "qrels",
    "python -m nclue export-trec --release data/v1 --out - | head -n 3": "qrels_head",
    "python -m nclue export-trec --release data/v1 --grades gold --out gold.qrels": "gold_qrels",
    "python -m nclue export topics --release data/v1 --form clean --out topics.tsv": "topics",
    "python -m nclue export topics --release data/v1 --format trec --out topics.trec": "topics_trec",
    "python -m nclue export topics --release data/v1 --format numbers --out topic_numbers.tsv # number<TAB>qid": "topic_numbers",
    "python -m nclue score my_run.trec --release data/v1 --measures ndcg_cut.10 gold:success.10 --per-query trec_eval > trec_eval_q.txt": "trec_eval_q",
}


def shell_commands(blocks):
    for lang, body, why in blocks:
        if lang == "sh" and why is None:
            for line in body.splitlines():
                command = line.split("  #")[0].strip()
                if command and not command.startswith("#"):
                    yield command


class CheckList(unittest.TestCase):
    def test_every_readme_command_has_an_output_check(self):
        commands = list(shell_commands(readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))))
        self.assertEqual([c for c in commands if c not in CHECKS], [], "README commands without an output check")
        self.assertEqual([c for c in CHECKS if c not in commands], [], "checks of no README command")


@slow
class ReadmeCommands(unittest.TestCase):
    def test_every_block_runs_and_prints_what_it_says(self):
        blocks = readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
        self.assertGreaterEqual(sum(1 for _, _, why in blocks if why is None), 2)
        with tempfile.TemporaryDirectory() as tmp, shared_releases():
            copy = Path(tmp) / "repo"
            shutil.copytree(ROOT, copy, ignore=SKIP, copy_function=link_or_copy)
            checks = Checks(self, copy)
            for lang, body, why in blocks:
                if why is not None:
                    print(f"\nREADME block not run here ({why}):\n{body}", file=sys.stderr)
                    continue
                if lang == "python":
                    proc = subprocess.run([sys.executable, "-c", body], cwd=copy,
                                          capture_output=True, text=True, timeout=300)
                    self.assertEqual(proc.returncode, 0, f"{body}\n{proc.stderr[-3000:]}")
                    if "to_markdown()" in body:   # the API block prints the comparison table:
                        # n-Clue Score@10 by hand: lexical 3 of 6 queries; "mine" ranks q1's gold
                        # d01 first and nothing else, 1 of 6
                        self.assertIn("| (a) example_lexical | 50.0 |", proc.stdout)
                        self.assertIn("| (b) mine | 16.7 |", proc.stdout)
                    continue
                for command in shell_commands([(lang, body, None)]):
                    direct = in_process(command)
                    if direct is not None:
                        code, stdout, stderr = run_nclue(*direct, copy)
                    else:
                        run = command
                        if run.startswith("python "):
                            run = f"{sys.executable} " + run[len("python "):]
                        proc = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=copy,
                                              capture_output=True, text=True, timeout=300)
                        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
                    self.assertEqual(code, 0, f"{command}\n{stderr[-3000:]}")
                    self.assertNotIn("Traceback", stderr, command)
                    check = CHECKS[command]
                    with self.subTest(command=command):
                        (getattr(checks, check) if isinstance(check, str) else
                         (lambda out, f=check: f(checks, out)))(stdout)


if __name__ == "__main__":
    unittest.main()
