"""Benchmark: nclue's plain-Python BM25 against rank_bm25 and bm25s on the same page collection.

Not part of the test suite and never imported by ``nclue``. The peers run in their own
environment (``--peer-python``, e.g. a venv with ``pip install rank_bm25==0.2.2 bm25s==0.3.16
numpy scipy``); nclue runs under the interpreter that runs this script.

Protocol (one subprocess per system, so peak memory is measured per system):

- Collection: every non-empty page of ``--pages`` is one retrieval unit (page level, the largest
  index the matrix uses). All systems get the same tokens: nclue's analyzer
  (:func:`nclue.retrieval.tokenize.tokenize`), applied by each worker to the page text.
- Parameters: k1 = 0.9, b = 0.4 for all. nclue and bm25s (``method="lucene"``, ``dtype="float64"``)
  compute the same Lucene formula, so their scores and top-100 lists are compared. rank_bm25's
  ``BM25Okapi`` uses another idf (``ln((N - n + 0.5)/(n + 0.5))`` with an epsilon floor) and the
  ``(k1 + 1)`` factor, so only its speed is compared.
- Queries: the clean form of every query in ``--queries`` (a release's queries.jsonl), top 100.
  rank_bm25 scores every unit per query in Python, so it runs on the first ``--rank-bm25-queries``.
- Ties: bm25s's candidates are ordered with nclue's tie rule (score descending, then docid, then
  page), applied over every unit scoring at least the 100th score, so that "identical top-100"
  compares the rankings and not two tie conventions.
- Reported: index build time (nclue from page text, tokenization included; peers from
  pre-tokenized lists, tokenization time reported separately), queries/s (single process, single
  thread; wall clock and CPU time, the latter being less sensitive to a loaded shared machine),
  peak RSS (``resource.getrusage().ru_maxrss``) and the RSS growth of the build.

Usage::

    python bench/bench_bm25.py --pages build/v1/pages.jsonl.gz --queries data/v1/queries.jsonl \\
        --peer-python /work/venv-bench/bin/python --out bench/results/bm25_v1.json
"""

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nclue.retrieval.tokenize import tokenize  # noqa: E402

K1, B, DEPTH = 0.9, 0.4, 100


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def read_pages(path):
    """[(docid, page, text)] in file order (page-per-line or document-per-line JSONL)."""
    opener = gzip.open if path.endswith(".gz") else open
    out = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            obj = json.loads(line)
            if "text" in obj:
                out.append((obj["docid"], obj["page"], obj["text"]))
            else:
                for number, text in enumerate(obj["pages"], start=1):
                    out.append((obj["docid"], number, text))
    return out


def read_queries(path, limit=None):
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                obj = json.loads(line)
                rows.append((obj["qid"], obj["forms"]["clean"]))
    rows.sort()
    return rows[:limit] if limit else rows


# ------------------------------------------------------------------ workers

def worker_nclue(args):
    from nclue.retrieval.index import build_indexes, iter_page_records
    queries = read_queries(args.queries)
    base = current_rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    collection, index, _ = build_indexes(iter_page_records(args.pages), K1, B, args.pages,
                                         doc_level=False)
    build, build_cpu = time.perf_counter() - started, time.process_time() - cpu
    after = current_rss_mb()
    keys = [f"{collection.docids[collection.unit_doc[u]]}#{collection.unit_page[u]}"
            for u in range(collection.n_pages)]
    analyzed = [(qid, tokenize(text)) for qid, text in queries]
    started, cpu = time.perf_counter(), time.process_time()
    results = {qid: index.search(terms, DEPTH) for qid, terms in analyzed}
    seconds, query_cpu = time.perf_counter() - started, time.process_time() - cpu
    postings = sum(len(ids) for ids, _ in index.postings.values())
    return {"system": "nclue", "build_s": build, "build_cpu_s": build_cpu, "query_s": seconds,
            "query_cpu_s": query_cpu, "queries": len(analyzed), "qps": len(analyzed) / seconds,
            "qps_cpu": len(analyzed) / query_cpu, "units": index.n_units, "terms": len(index.postings),
            "postings": postings, "rss_build_growth_mb": after - base, "peak_rss_mb": rss_mb(),
            "results": {qid: [[keys[u], s] for u, s in hits] for qid, hits in results.items()}}


def _peer_corpus(args):
    pages = read_pages(args.pages)
    started = time.perf_counter()
    keys, corpus = [], []
    for docid, page, text in pages:
        tokens = tokenize(text)
        if tokens:  # Lucene's docCount: only units with a term (as nclue)
            keys.append(f"{docid}#{page}")
            corpus.append(tokens)
    del pages
    return keys, corpus, time.perf_counter() - started


def worker_bm25s(args):
    import bm25s
    import numpy as np
    keys, corpus, tokenize_s = _peer_corpus(args)
    queries = read_queries(args.queries)
    base = current_rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    model = bm25s.BM25(method="lucene", k1=K1, b=B, dtype=args.dtype)
    model.index(corpus, show_progress=False)
    build, build_cpu = time.perf_counter() - started, time.process_time() - cpu
    after = current_rss_mb()
    vocab = model.vocab_dict
    analyzed = [(qid, [vocab[t] for t in tokenize(text) if t in vocab]) for qid, text in queries]
    # nclue's tie rule (docid ascending, then page) as a rank per unit, to compare like with like
    order = sorted(range(len(keys)), key=lambda i: (keys[i].rsplit("#", 1)[0],
                                                   int(keys[i].rsplit("#", 1)[1])))
    tie_rank = np.empty(len(keys), dtype=np.int64)
    tie_rank[np.asarray(order)] = np.arange(len(keys))
    started, cpu = time.perf_counter(), time.process_time()
    results = {}
    for qid, ids in analyzed:
        if not ids:
            results[qid] = []
            continue
        scores = model.get_scores(ids)
        k = min(DEPTH, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        threshold = scores[top].min()
        pool = np.nonzero((scores >= threshold) & (scores > 0))[0]
        pool = pool[np.lexsort((tie_rank[pool], -scores[pool]))][:k]
        results[qid] = [[keys[i], float(scores[i])] for i in pool]
    seconds, query_cpu = time.perf_counter() - started, time.process_time() - cpu
    # bm25s's own batched retrieve() (its documented entry point), same queries
    batch = [[t for t in tokenize(text) if t in vocab] for _, text in queries]
    batch = [q for q in batch if q]
    started = time.perf_counter()
    model.retrieve(batch, k=DEPTH, show_progress=False, n_threads=1)
    retrieve_s = time.perf_counter() - started
    del corpus
    return {"system": f"bm25s {bm25s.__version__} lucene {args.dtype}", "tokenize_s": tokenize_s,
            "build_s": build, "build_cpu_s": build_cpu, "query_s": seconds,
            "query_cpu_s": query_cpu, "queries": len(analyzed), "qps": len(analyzed) / seconds,
            "qps_cpu": len(analyzed) / query_cpu, "retrieve_batch_qps": len(batch) / retrieve_s,
            "rss_build_growth_mb": after - base, "peak_rss_mb": rss_mb(), "results": results}


def worker_rank_bm25(args):
    import numpy as np
    import rank_bm25
    from importlib.metadata import version
    keys, corpus, tokenize_s = _peer_corpus(args)
    queries = read_queries(args.queries, args.rank_bm25_queries)
    base = current_rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    model = rank_bm25.BM25Okapi(corpus, k1=K1, b=B)
    build, build_cpu = time.perf_counter() - started, time.process_time() - cpu
    after = current_rss_mb()
    analyzed = [(qid, tokenize(text)) for qid, text in queries]
    started, cpu = time.perf_counter(), time.process_time()
    for _, terms in analyzed:
        scores = model.get_scores(terms)
        np.argsort(-scores, kind="stable")[:DEPTH]
    seconds, query_cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"system": f"rank_bm25 {version('rank_bm25')} BM25Okapi", "tokenize_s": tokenize_s,
            "build_s": build, "build_cpu_s": build_cpu, "query_s": seconds,
            "query_cpu_s": query_cpu, "queries": len(analyzed), "qps": len(analyzed) / seconds,
            "qps_cpu": len(analyzed) / query_cpu, "rss_build_growth_mb": after - base,
            "peak_rss_mb": rss_mb()}


WORKERS = {"nclue": worker_nclue, "bm25s": worker_bm25s, "rank_bm25": worker_rank_bm25}


# ------------------------------------------------------------------ driver

def agreement(ours, theirs):
    """Top-100 identity and score differences between two result maps (same queries)."""
    identical = tie_only = differ = 0
    max_abs = 0.0
    max_rel = 0.0
    for qid, hits in ours.items():
        other = theirs.get(qid, [])
        mine = dict((k, s) for k, s in hits)
        peer = dict((k, s) for k, s in other)
        for key in set(mine) & set(peer):
            diff = abs(mine[key] - peer[key])
            max_abs = max(max_abs, diff)
            max_rel = max(max_rel, diff / max(abs(peer[key]), 1e-300))
        if [k for k, _ in hits] == [k for k, _ in other]:
            identical += 1
            continue
        # same documents above the cut-off score, order differing only among (near-)equal scores
        def canon(items):
            return sorted(((round(s, 9), k) for k, s in items), key=lambda x: (-x[0], x[1]))
        a, b = canon(hits), canon(other)
        cut = min(a[-1][0] if a else 0.0, b[-1][0] if b else 0.0)
        if [x for x in a if x[0] > cut] == [x for x in b if x[0] > cut]:
            tie_only += 1
        else:
            differ += 1
    return {"queries": len(ours), "identical_top100": identical,
            "same_up_to_score_ties": tie_only, "different": differ,
            "max_abs_score_diff": max_abs, "max_rel_score_diff": max_rel}


def run_worker(python, name, args, workdir):
    out = os.path.join(workdir, f"{name}.json")
    command = [python, os.path.abspath(__file__), "--worker", name, "--pages", args.pages,
               "--queries", args.queries, "--rank-bm25-queries", str(args.rank_bm25_queries),
               "--dtype", args.dtype, "--worker-out", out]
    print(f"bench: running {name} ...", file=sys.stderr, flush=True)
    subprocess.run(command, check=True)
    with open(out) as handle:
        return json.load(handle)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--peer-python", help="interpreter with rank_bm25, bm25s, numpy")
    parser.add_argument("--rank-bm25-queries", type=int, default=50)
    parser.add_argument("--dtype", default="float64", help="bm25s score dtype")
    parser.add_argument("--systems", default="nclue,bm25s,rank_bm25")
    parser.add_argument("--out", help="write the summary JSON here")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        result = WORKERS[args.worker](args)
        with open(args.worker_out, "w") as handle:
            json.dump(result, handle)
        return 0

    systems = args.systems.split(",")
    results = {}
    with tempfile.TemporaryDirectory() as workdir:
        for name in systems:
            python = sys.executable if name == "nclue" else (args.peer_python or sys.executable)
            results[name] = run_worker(python, name, args, workdir)
    summary = {"pages": args.pages, "queries": args.queries, "k1": K1, "b": B, "depth": DEPTH,
               "cpu": os.cpu_count(), "python": sys.version.split()[0], "systems": {}}
    for name, result in results.items():
        summary["systems"][name] = {k: v for k, v in result.items() if k != "results"}
    if "nclue" in results and "bm25s" in results:
        summary["nclue_vs_bm25s"] = agreement(results["nclue"]["results"],
                                              results["bm25s"]["results"])
    if "nclue" in results and "rank_bm25" in results:
        summary["qps_ratio_nclue_over_rank_bm25"] = (results["nclue"]["qps"]
                                                     / results["rank_bm25"]["qps"])
        summary["qps_cpu_ratio_nclue_over_rank_bm25"] = (results["nclue"]["qps_cpu"]
                                                         / results["rank_bm25"]["qps_cpu"])
    if "nclue" in results and "bm25s" in results:
        summary["qps_ratio_nclue_over_bm25s"] = results["nclue"]["qps"] / results["bm25s"]["qps"]
        summary["qps_cpu_ratio_nclue_over_bm25s"] = (results["nclue"]["qps_cpu"]
                                                     / results["bm25s"]["qps_cpu"])
    text = json.dumps(summary, indent=2, sort_keys=True)
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
