"""`nclue score` of one run, whole process, against pytrec_eval on the same TREC files.

    python bench/bench_score_cli.py --peer-python /path/to/venv/bin/python --out bench/results/score_cli.json

Measures wall time and peak RSS (``resource.getrusage`` of a fresh wrapper process around
each command, so one command's peak cannot mask another's) of:

0. the default job: ``python -m nclue score --release data/v1 RUN.jsonl.gz`` (the release's own
   JSONL run, every default outcome measure, ``--ties input``), against the peer doing what
   trec_eval can of those measures: a fresh ``--peer-python`` process that reads the graded TREC
   qrels, the gold-only TREC qrels (``export-trec --grades gold``) and the TREC run, and evaluates
   ``ndcg_cut.10`` and ``recip_rank`` on the graded qrels and ``ndcg_cut.10`` and ``success.10`` on
   the gold ones (graded NDCG@10, Gold-NDCG@10, Gold Hit@10; n-Clue Score, AUC and the
   first-judged outcomes have no trec_eval measure). Means are not compared here: the tie rules
   differ (job 1 compares them);
1. ``python -m nclue score --release data/v1 --measures ndcg_cut.10 --ties trec_eval RUN.trec`` (graded NDCG@10,
   trec_eval's name; nclue loads only what the measure needs: no evidence file);
2. the peer: a fresh ``--peer-python`` process that imports pytrec_eval, reads the same TREC qrels
   and run, and averages ``ndcg_cut_10`` over the release's queries (pytrec_eval itself skips
   queries absent from the run; the v1 run ranks every query, so the means agree);
3. both again on v1 replicated ``--replicas`` times (every qid suffixed ``~r<i>``; queries,
   qrels and evidence copied, the run's rankings copied per replica), to see how memory grows
   with the instrument.

Each measurement is repeated ``--repeat`` times; the JSON keeps every sample and the median. The
two programs must print the same mean (checked to 1e-12), else the script exits 1.
"""

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = "data/v1/runs/bm25_and.clean.jsonl.gz"

#: the peer programs' TREC readers (whitespace-split, as trec_eval reads)
PEER_READERS = r"""
import sys, pytrec_eval
def read_qrels(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        q, _, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out
def read_run(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, {})[d] = float(s)
    return out
"""

PEER = PEER_READERS + r"""
qrels, run = read_qrels(sys.argv[1]), read_run(sys.argv[2])
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
print(repr(sum(v["ndcg_cut_10"] for v in res.values()) / len(qrels)))
"""


PEER_DEFAULT = PEER_READERS + r"""
run = read_run(sys.argv[3])
graded = pytrec_eval.RelevanceEvaluator(read_qrels(sys.argv[1]), {"ndcg_cut.10", "recip_rank"}).evaluate(run)
gold = pytrec_eval.RelevanceEvaluator(read_qrels(sys.argv[2]), {"ndcg_cut.10", "success.10"}).evaluate(run)
print(len(graded), len(gold))
"""


def isolated(cmd, cwd):
    """Run ``cmd`` inside a fresh Python wrapper so its peak RSS is its own."""
    wrapper = ("import resource, subprocess, sys, time, json\n"
               "t = time.perf_counter()\n"
               "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True)\n"
               "w = time.perf_counter() - t\n"
               "r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0\n"
               "print(json.dumps({'wall': w, 'rss_mb': r, 'rc': p.returncode, 'out': p.stdout}))\n")
    proc = subprocess.run([sys.executable, "-c", wrapper, *map(str, cmd)], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = json.loads(proc.stdout)
    if result["rc"] != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {result['rc']}\n{proc.stderr}")
    return result


def replicate_release(src: Path, dst: Path, replicas: int) -> None:
    """v1 with every query copied ``replicas`` times (qid + "~r<i>"); corpus shared. Lines are
    written as nclue writes them (sorted keys, no spaces), so the reader's canonical-line path is
    what is measured, as on the shipped files."""
    dst.mkdir(parents=True)
    shutil.copy(src / "corpus.jsonl", dst / "corpus.jsonl")
    queries = [json.loads(line) for line in open(src / "queries.jsonl", encoding="utf-8")]
    with open(dst / "queries.jsonl", "w", encoding="utf-8") as out:
        for i in range(replicas):
            for q in queries:
                out.write(json.dumps({**q, "qid": f"{q['qid']}~r{i}"}, sort_keys=True,
                                     ensure_ascii=False, separators=(",", ":")) + "\n")
    for name in ("qrels.jsonl.gz", "evidence.jsonl.gz"):
        rows = [json.loads(line) for line in gzip.open(src / name, "rt", encoding="utf-8")]
        with gzip.open(dst / name, "wt", encoding="utf-8", compresslevel=1) as out:
            for i in range(replicas):
                for r in rows:
                    out.write(json.dumps({**r, "qid": f"{r['qid']}~r{i}"}, sort_keys=True,
                                         ensure_ascii=False, separators=(",", ":")) + "\n")


def replicate_trec(src: Path, dst: Path, replicas: int) -> None:
    lines = src.read_text(encoding="utf-8").splitlines()
    with open(dst, "w", encoding="utf-8") as out:
        for i in range(replicas):
            for line in lines:
                q, rest = line.split(" ", 1)
                out.write(f"{q}~r{i} {rest}\n")


def timed(commands, repeat: int, on_output=None):
    """Run each ``(name, command)`` ``repeat`` times, alternating; every sample and the medians.
    ``on_output(name, stdout)`` sees each command's output."""
    samples = {name: [] for name, _ in commands}
    for _ in range(repeat):
        for name, cmd in commands:
            r = isolated(cmd, ROOT)
            samples[name].append({"wall": r["wall"], "rss_mb": r["rss_mb"]})
            if on_output is not None:
                on_output(name, r["out"])
    out = {}
    for name, rows in samples.items():
        out[name] = {"samples": rows,
                     "median_wall_s": statistics.median(r["wall"] for r in rows),
                     "median_rss_mb": statistics.median(r["rss_mb"] for r in rows)}
    out["ratio_wall"] = out["nclue"]["median_wall_s"] / out["pytrec_eval"]["median_wall_s"]
    return out


def bench_default(qrels: Path, gold_qrels: Path, run: Path, peer_python: str, repeat: int):
    """Job 0: ``nclue score`` with its defaults against the peer's nearest job (docstring)."""
    nclue_cmd = [sys.executable, "-m", "nclue", "score", "--release", ROOT / "data" / "v1", "--json",
                 ROOT / RUN]
    peer_cmd = [peer_python, "-c", PEER_DEFAULT, qrels, gold_qrels, run]
    out = timed((("nclue", nclue_cmd), ("pytrec_eval", peer_cmd)), repeat)
    out["paired_ratios"] = [a["wall"] / b["wall"] for a, b in
                            zip(out["nclue"]["samples"], out["pytrec_eval"]["samples"])]
    return out


def bench_pair(release: Path, qrels: Path, run: Path, peer_python: str, repeat: int):
    nclue_cmd = [sys.executable, "-m", "nclue", "score", "--release", release, "--measures",
                 "ndcg_cut.10", "--ties", "trec_eval", "--json", run]
    peer_cmd = [peer_python, "-c", PEER, qrels, run]
    means = {}

    def read_mean(name, text):
        means[name] = json.loads(text)["graded_ndcg@10"] / 100.0 if name == "nclue" else float(text)
    out = timed((("nclue", nclue_cmd), ("pytrec_eval", peer_cmd)), repeat, read_mean)
    out["means"] = means
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-python", required=True, help="a Python with pytrec_eval")
    parser.add_argument("--replicas", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="write the result as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        qrels, run, gold_qrels = tmp / "v1.qrels", tmp / "v1.trec", tmp / "v1.gold.qrels"
        for extra, path in (([], qrels), (["--run", RUN], run), (["--grades", "gold"], gold_qrels)):
            subprocess.run([sys.executable, "-m", "nclue", "export-trec", "--release", "data/v1",
                            *extra, "--out", str(path)], cwd=ROOT, check=True)
        result = {"python": sys.version.split()[0], "cpus": os.cpu_count(),
                  "load_average": list(os.getloadavg()), "run": RUN, "measure": "ndcg_cut.10"}
        result["v1_default"] = bench_default(qrels, gold_qrels, run, args.peer_python,
                                             max(args.repeat, 5))
        result["v1"] = bench_pair(ROOT / "data" / "v1", qrels, run, args.peer_python, args.repeat)
        big = tmp / f"v1x{args.replicas}"
        replicate_release(ROOT / "data" / "v1", big, args.replicas)
        big_qrels, big_run = tmp / "big.qrels", tmp / "big.trec"
        replicate_trec(qrels, big_qrels, args.replicas)
        replicate_trec(run, big_run, args.replicas)
        result[f"v1x{args.replicas}"] = bench_pair(big, big_qrels, big_run, args.peer_python,
                                                   max(1, args.repeat - 2))
    for key in ("v1", f"v1x{args.replicas}"):
        m = result[key]["means"]
        if not isinstance(m["nclue"], float) or abs(m["nclue"] - m["pytrec_eval"]) > 1e-12:
            print(json.dumps(result, indent=2), file=sys.stderr)
            sys.exit(f"{key}: nclue and pytrec_eval disagree: {m}")
    text = json.dumps(result, indent=2, sort_keys=True) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
