"""Per-query dispersion of the positive documents of v1 (Multi3IR Table 7), a committed fact file.

    nice -n 10 python producers/spin/positive_dispersion.py

Multi3IR Table 7 groups queries "by how dispersed their positive documents are in the embedding
space (average pairwise cosine distance)". Here:

* embedding space: the SPIN backbone's (all-MiniLM-L6-v2, the frozen page embeddings of
  build/models/minilm/pages.npy); a document's vector is the mean of its L2-normalised page
  embeddings (documents have 1-300 pages; a recorded choice: the mean keeps every page, the
  cosine ignores its length), in float64;
* positive documents: the union of the query's perspective supports
  (``nclue.coverage.perspectives_from_release``: every judged document, 39-451 per query);
* dispersion: ``nclue.coverage.query_dispersions`` (the package's own function, standard
  library), cross-checked here against a numpy computation of the mean of 1 - cos over all pairs
  (the largest difference is printed and recorded), then rounded to 6 significant digits (the
  float32 model arithmetic is not bit-stable beyond that across BLAS builds).

Output: data/v1/facts/dispersion_minilm.jsonl (``{"qid", "dispersion", "positives"}``, one line
per test query, sorted by qid) and provenance/spin/dispersion_minilm.json (rule, the sha256 of
the document-vector matrix and of the page embeddings, the cross-check, seconds). The document
vectors themselves stay in build/ (1,164 x 384 floats).
"""

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "models"))

from common import RELEASE, ROOT, log, round6, sha256_file, write_json_atomic  # noqa: E402
from dense_lib import PageCollection  # noqa: E402

from nclue.coverage import perspectives_from_release, query_dispersions  # noqa: E402
from nclue.formats import write_jsonl_atomic  # noqa: E402
from nclue.release import load_release  # noqa: E402

OUT = RELEASE / "facts" / "dispersion_minilm.jsonl"
META = ROOT / "provenance" / "spin" / "dispersion_minilm.json"


def main():
    t0 = time.time()
    coll = PageCollection()
    emb = np.asarray(coll.emb, dtype=np.float64)
    docvec = np.stack([emb[s:s + c].mean(axis=0) for s, c in zip(coll.starts, coll.counts)])
    vectors = {d: tuple(float(x) for x in docvec[j]) for j, d in enumerate(coll.docs)}
    queries = perspectives_from_release(load_release(RELEASE))
    values = query_dispersions(queries, vectors, where="document vectors")
    # numpy cross-check of the definition (mean over pairs of 1 - cos)
    unit = docvec / np.linalg.norm(docvec, axis=1, keepdims=True)
    pos = {d: j for j, d in enumerate(coll.docs)}
    worst = 0.0
    for qid, q in queries.items():
        idx = [pos[d] for d in sorted(q.positives)]
        u = unit[idx]
        c = u @ u.T
        n = len(idx)
        ref = 1.0 - (c.sum() - np.trace(c)) / (n * (n - 1))
        worst = max(worst, abs(ref - values[qid]))
    rows = [{"qid": qid, "dispersion": round6(values[qid]), "positives": len(queries[qid].positives)}
            for qid in sorted(values)]
    write_jsonl_atomic(OUT, rows)
    h = hashlib.sha256(np.ascontiguousarray(docvec).tobytes()).hexdigest()
    meta = {"file": str(OUT.relative_to(ROOT)), "sha256": sha256_file(OUT), "queries": len(rows),
            "undefined": len(queries) - len(values),
            "embedding": "all-MiniLM-L6-v2 page embeddings (build/models/minilm/pages.npy)",
            "document_vector": "mean of the document's L2-normalised page embeddings (float64)",
            "document_vectors_sha256": h, "document_vectors_shape": list(docvec.shape),
            "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
            "positives": "union of the perspective supports (nclue.coverage.perspectives_from_release)",
            "dispersion": "nclue.coverage.query_dispersions (mean pairwise 1 - cos), rounded to 6 "
                          "significant digits",
            "numpy_cross_check_max_abs_diff": float("%.3g" % worst),
            "seconds": round(time.time() - t0, 1),
            "producer": "producers/spin/positive_dispersion.py"}
    write_json_atomic(META, meta)
    log("%d dispersions written (numpy cross-check %.2e, %.0f s)" % (len(rows), worst,
                                                                    time.time() - t0))


if __name__ == "__main__":
    main()
