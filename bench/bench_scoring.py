"""Benchmark the scorer and cross-check it against trec_eval (via pytrec_eval) when installed.

    python bench/bench_scoring.py                 # synthetic v1-sized release, stdlib only
    /path/to/venv/bin/python bench/bench_scoring.py   # the same plus pytrec_eval / ir_measures checks

Synthetic release: 1,000 queries (80% with 2 conditions), 2,000 documents, ~50 judged documents
per query (1-3 golds), 8 runs of depth 100 with distinct scores (so every tie rule agrees).
Times: loading the release, loading a run, per-query scoring, and aggregation. Cross-check:
graded NDCG@10 must equal trec_eval's ndcg_cut_10 on qrels with grade = clue count, and
Gold-NDCG@10 must equal ndcg_cut_10 on gold-only qrels (same log2 discount, linear gain).
"""

import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nclue.formats import write_jsonl_atomic  # noqa: E402
from nclue.metrics import evaluate, per_query  # noqa: E402
from nclue.release import load_release, render_forms  # noqa: E402
from nclue.runs import load_run  # noqa: E402


def make_release(folder: Path, seed: int = 11, n_queries: int = 1000, n_docs: int = 2000, n_runs: int = 8):
    rng = random.Random(seed)
    docs = [f"doc{i:05d}" for i in range(n_docs)]
    write_jsonl_atomic(folder / "corpus.jsonl", [
        {"docid": d, "pages": rng.randint(10, 300), "source": "synthetic", "sha256": "0" * 64} for d in docs])
    queries, qrels = [], []
    for q in range(n_queries):
        qid = f"q{q:04d}"
        n = 2 if rng.random() < 0.8 else 3
        conditions = tuple(f"c{q}_{i}" for i in range(n))
        queries.append({"qid": qid, "conditions": list(conditions), "forms": render_forms(conditions)})
        judged = rng.sample(docs, rng.randint(10, 90))
        n_gold = rng.randint(1, 3)
        for i, d in enumerate(judged):
            if i < n_gold:
                qrels.append({"qid": qid, "docid": d, "clues": n, "label": "gold"})
            else:
                qrels.append({"qid": qid, "docid": d, "clues": rng.randint(1, n - 1), "label": "subset"})
    write_jsonl_atomic(folder / "queries.jsonl", queries)
    write_jsonl_atomic(folder / "qrels.jsonl", qrels)
    judged_by_query = {}
    for row in qrels:
        judged_by_query.setdefault(row["qid"], []).append(row["docid"])
    runs = []
    for r in range(n_runs):
        rows = []
        for query in queries:
            pool = judged_by_query[query["qid"]]
            chosen = rng.sample(pool, min(len(pool), rng.randint(5, 40)))
            rest = [d for d in rng.sample(docs, 120) if d not in chosen]
            ranked = (chosen + rest)[:100]
            rng.shuffle(ranked)
            scores = sorted((rng.random() for _ in ranked), reverse=True)
            rows.append({"qid": query["qid"], "docs": ranked, "scores": scores})
        path = folder / "runs" / f"run{r}.jsonl.gz"
        write_jsonl_atomic(path, rows)
        runs.append(path)
    return runs


def timed(label, func, repeat=3):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    print(f"{label:<48} {best * 1000:9.1f} ms (best of {repeat})")
    return result


def cross_check(release, run, vectors):
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed: cross-check skipped (install it in a separate venv)")
        return
    graded = {q: {d: j.clues for d, j in per.items()} for q, per in release.judgments.items()}
    gold = {q: {d: 1 for d, j in per.items() if j.is_gold} for q, per in release.judgments.items()}
    results = {q: {d: s for d, s in zip(r.docs, r.scores)} for q, r in run.rankings.items()}
    worst = {}
    for name, qrels, key in (("graded", graded, "graded_ndcg@10"), ("gold", gold, "gold_ndcg@10")):
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
        start = time.perf_counter()
        theirs = evaluator.evaluate(results)
        elapsed = time.perf_counter() - start
        diff = max(abs(theirs[q]["ndcg_cut_10"] - vectors[key][q]) for q in theirs)
        worst[name] = diff
        print(f"pytrec_eval ndcg_cut_10 vs nclue {key:<16} max |diff| = {diff:.2e}  "
              f"(pytrec_eval {elapsed * 1000:.1f} ms)")
    if max(worst.values()) > 1e-6:
        raise SystemExit("cross-check FAILED")


def main():
    tmp = Path(tempfile.mkdtemp())
    try:
        start = time.perf_counter()
        run_paths = make_release(tmp)
        print(f"synthetic release written in {time.perf_counter() - start:.1f} s")
        release = timed("load_release (1,000 queries, ~50k qrels)", lambda: load_release(tmp))
        run = timed("load_run (1,000 x 100, gzip JSONL)", lambda: load_run(run_paths[0], release))
        vectors = timed("per_query (all measures, k=10)", lambda: per_query(release, run))
        timed("evaluate (per-query + aggregate)", lambda: evaluate(release, run))

        def all_runs():
            return [evaluate(release, load_run(p, release)) for p in run_paths]
        timed("8 runs: load + evaluate", all_runs, repeat=1)
        cross_check(release, run, vectors)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
