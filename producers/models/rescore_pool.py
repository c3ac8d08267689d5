"""Fixed-pool re-scoring with MiniLM (the reranking block's dense counterpart).

    nice -n 5 python producers/models/rescore_pool.py --pool bm25_or.clean --form clean

The candidate pool is the top 100 of a frozen lexical run (data/v1/runs/<pool>.jsonl.gz, the
retrieval engineer's BM25); each pooled document is re-scored by MiniLM with the query form
``--form`` encoded once and the document's best page (``--aggregation best``) or 3-best-page mean
(``top3``); documents outside the pool are never added (n-Clue paper, supplement 2: "text
reranking uses a fixed top-100 pool"). Ties: score desc, then docid asc. Run id:
``minilm_pool_{aggregation}_{pool system}.{form}`` (e.g. minilm_pool_best_bm25_or.clean).
"""

import argparse
import time

import numpy as np

from common import DEPTH, PAGES_TOP_DOCS, RELEASE, RUNS_DIR, input_hashes, log, minilm_identity, \
    record_runs, sha256_file, write_run_rows
from dense_lib import PAGES_DELIVERED, PageCollection, ranked_row
from page_runs import all_query_texts
from score_minilm import BUILD, encode_texts

from nclue.release import load_queries
from nclue.runs import load_run

PRODUCER = "producers/models/rescore_pool.py"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pool", required=True, help="run id of the candidate pool (top 100 used)")
    ap.add_argument("--form", default="clean", choices=["raw", "clean", "natural"])
    ap.add_argument("--aggregation", default="best", choices=["best", "top3"])
    args = ap.parse_args()
    queries = load_queries(RELEASE / "queries.jsonl")
    pool_path = RUNS_DIR / f"{args.pool}.jsonl.gz"
    pool = load_run(pool_path)
    inputs = input_hashes({"input_sha256": PageCollection.manifest_of()["input_sha256"]},
                          pool=sha256_file(pool_path))
    coll = PageCollection()
    doc_pos = {d: j for j, d in enumerate(coll.docs)}
    vec = encode_texts(all_query_texts(queries), BUILD / "minilm")
    t = time.time()
    rows = []
    for qid in sorted(queries):
        m = coll.page_matrix(vec[queries[qid].forms[args.form]])
        s = coll.doc_scores(m, args.aggregation)
        ranking = pool.rankings.get(qid)
        cands = list(ranking.docs[:DEPTH]) if ranking else []
        scored = sorted(((float(s[doc_pos[d]]), d) for d in cands), key=lambda x: (-x[0], x[1]))
        pages = {d: coll.top_pages(m, doc_pos[d], PAGES_DELIVERED) for _, d in scored[:PAGES_TOP_DOCS]}
        rows.append(ranked_row(qid, [d for _, d in scored], [v for v, _ in scored], pages))
    run_id = f"minilm_pool_{args.aggregation}_{args.pool.split('.')[0]}.{args.form}"
    sha = write_run_rows(run_id, rows)
    ident = minilm_identity()
    entry = {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "dense",
             "operation": "fixed-pool re-scoring", "base": args.pool, "form": args.form,
             "block": "reranking", "producer": PRODUCER, "privileged": False, "model": ident["model"],
             "configuration": {"pool": args.pool, "pool_depth": DEPTH,
                               "pool_sha256": sha256_file(pool_path),
                               "page_aggregation": args.aggregation},
             "package_version": ident["package_version"], "weight_sha256": ident["weight_sha256"],
             "settings": {"page_max_seq_length": coll.manifest["settings"]["max_seq_length"],
                          "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                          "score_rounding": "6 significant digits",
                          "ties": "score desc, then docid asc"},
             "sha256": sha, "inputs": inputs}
    record_runs([entry])
    log("%s written (%.1f s)" % (run_id, time.time() - t))


if __name__ == "__main__":
    main()
