"""SPIN inference on v1 (Multi3IR eq. 2-4) plus its controls; writes frozen runs.

    nice -n 5 python producers/spin/infer_spin.py [--cells spin_m5_l3 ...] [--random-layers 3]

For every trained cell provenance/spin/spin_m{m}_l{layer}.npy: each test query's natural form
(never its condition list) is encoded m times with vector j added at the injection layer
(eq. 2; split forward, equal to the hook to 1.5e-7, see check_split.py); each embedding ranks
the documents by their best page (page MaxSim, the same page scorer as the MiniLM matrix runs)
to depth 100 (eq. 3); the m lists are merged by round robin (eq. 4,
``nclue.retrieval.fusion.round_robin``: scores 1/position) to depth 100.

Controls:
Run ids: ``spin_m{m}_l{layer}.natural``.

* ``spin_random_m{m}_l{layer}.natural``: untrained random vectors with the same norms as the learned
  ones (Gaussian directions from numpy's default_rng(seed 20260 + 10 m + layer)); stored as
  provenance/spin/random_m{m}_l{layer}.npy with their sha256.
* ``minilm_cond_rr.clean``: the oracle that embeds each condition separately (quoted, as the
  SPIN targets and the clean form render it) and merges the best-page condition lists by the
  same round robin (the MiniLM twin of bm25_cond_rr.clean).
* The naive m = 1 baseline is ``minilm_joint_best.natural`` (score_minilm.py).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "models"))

from common import (DEPTH, PAGES_TOP_DOCS, RELEASE, input_hashes, log,  # noqa: E402
                    minilm_identity, record_runs, sha256_file, write_run_rows)
from dense_lib import PageCollection, ranked_list, ranked_row  # noqa: E402
from spin_lib import load_minilm, lower_states, upper_embeddings  # noqa: E402

from nclue.release import load_queries, quote_condition  # noqa: E402
from nclue.retrieval.fusion import round_robin  # noqa: E402

OUT = RELEASE.parent.parent / "provenance" / "spin"
PRODUCER = "producers/spin/infer_spin.py"


def rr_rows(coll, qids, vectors_per_query, chunk=64):
    """vectors_per_query[i]: [m_i, H] array -> run rows (round robin of m_i best-page lists).

    Page scores are computed with one matrix product per chunk of queries."""
    rows = []
    doc_pos = {d: j for j, d in enumerate(coll.docs)}
    for start in range(0, len(qids), chunk):
        block = vectors_per_query[start:start + chunk]
        S = coll.page_scores(np.concatenate(block, axis=0))
        col = 0
        for qid, vecs in zip(qids[start:start + chunk], block):
            lists, mats = [], []
            for v in vecs:
                docs, _, m = ranked_list(coll, None, "best", DEPTH, S[:, col])
                col += 1
                lists.append(docs)
                mats.append(m)
            fused = round_robin(lists, DEPTH)
            pages = {}
            for d, _ in fused[:PAGES_TOP_DOCS]:
                best = {}
                for m in mats:
                    p, v = coll.top_pages(m, doc_pos[d], 1)[0]
                    best[p] = max(best.get(p, v), v)
                pages[d] = sorted(best.items(), key=lambda x: (-x[1], x[0]))[:3]
            rows.append(ranked_row(qid, [d for d, _ in fused], [v for _, v in fused], pages))
    return rows


def steered(st, states, layer, vectors, batch=32):
    out = []
    with torch.no_grad():
        for i in range(0, len(states), batch):
            out.append(upper_embeddings(st, states[i:i + batch], layer,
                                        torch.from_numpy(vectors)).numpy())
    return np.concatenate(out, axis=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", nargs="*", default=None, help="names like spin_m5_l3 (default: all)")
    ap.add_argument("--random-layers", type=int, nargs="*", default=[3])
    ap.add_argument("--skip-oracle", action="store_true")
    ap.add_argument("--random-only", action="store_true",
                    help="write only the random-vector controls of the given cells (their trained "
                         "runs are already frozen)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    queries = load_queries(RELEASE / "queries.jsonl")
    qids = sorted(queries)
    coll = PageCollection()
    ident = minilm_identity()
    st = load_minilm(max_seq_length=128)
    settings = {"input_form": "natural", "list_depth": DEPTH, "page_aggregation": "best",
                "aggregation": "round robin (Multi3IR eq. 4), scores 1/position",
                "page_max_seq_length": coll.manifest["settings"]["max_seq_length"],
                "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                "score_rounding": "6 significant digits",
                "pages_field": f"top-{PAGES_TOP_DOCS} documents, best page under each steered "
                               "embedding (<= 3)"}

    inputs = input_hashes(coll.manifest)

    def entry(run_id, sha, operation, base, configuration, family="dense", extra=None):
        return {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": family,
                "operation": operation, "base": base, "form": run_id.rsplit(".", 1)[1],
                "privileged": False, "inputs": inputs,
                "block": "perspective coverage (SPIN)", "configuration": configuration,
                "producer": PRODUCER, "model": ident["model"],
                "package_version": ident["package_version"],
                "weight_sha256": ident["weight_sha256"], "settings": dict(settings, **(extra or {})),
                "sha256": sha}

    entries = []
    if not args.skip_oracle:
        t = time.time()
        texts = sorted({quote_condition(c) for q in queries.values() for c in q.conditions})
        emb = st.encode(texts, batch_size=32, convert_to_numpy=True)
        vec = {x: emb[i] for i, x in enumerate(texts)}
        per_q = [np.stack([vec[quote_condition(c)] for c in queries[q].conditions]) for q in qids]
        run_id = "minilm_cond_rr.clean"
        sha = write_run_rows(run_id, rr_rows(coll, qids, per_q))
        entries.append(entry(run_id, sha, "condition lists (MiniLM best page) + round robin "
                             "(Multi3IR eq. 4; SPIN's oracle)", "minilm_joint_best.clean",
                             {"conditions": "quoted, embedded separately (reads the condition "
                                            "list, like every condition-wise run)"},
                             extra={"input_form": "condition list (quoted, clean rendering)"}))
        record_runs(entries)
        log("%s written (%.0f s)" % (run_id, time.time() - t))

    names = args.cells
    if names is None:
        names = sorted(p.stem for p in OUT.glob("spin_m*_l*.npy") if "_lr" not in p.stem)
    states_cache = {}
    for name in names:
        meta = json.load(open(OUT / f"{name}.json"))
        m, layer = meta["m"], meta["layer"]
        vectors = np.load(OUT / f"{name}.npy")
        if layer not in states_cache:
            states_cache.clear()
            t = time.time()
            states_cache[layer] = lower_states(st, [queries[q].forms["natural"] for q in qids],
                                               layer)
            log("layer-%d states of %d test queries (%.0f s)" % (layer, len(qids), time.time() - t))
        states = states_cache[layer]
        variants = [] if args.random_only else [(f"{name}.natural", vectors, "trained")]
        if layer in args.random_layers:
            rng = np.random.default_rng(20260 + 10 * m + layer)
            d = rng.standard_normal(vectors.shape)
            d /= np.linalg.norm(d, axis=1, keepdims=True)
            rand = (d * np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
            rname = f"random_m{m}_l{layer}"
            np.save(OUT / f"{rname}.npy", rand)
            with open(OUT / f"{rname}.json", "w") as fh:
                json.dump({"m": m, "layer": layer, "control_for": name,
                           "rule": "Gaussian directions scaled to the learned vectors' norms",
                           "seed": 20260 + 10 * m + layer, "generator": "numpy default_rng",
                           "vectors_sha256": sha256_file(OUT / f"{rname}.npy")}, fh, indent=2,
                          sort_keys=True)
                fh.write("\n")
            variants.append((f"spin_random_m{m}_l{layer}.natural", rand, "random"))
        for run_id, vecs, kind in variants:
            t = time.time()
            emb = steered(st, states, layer, vecs)
            sha = write_run_rows(run_id, rr_rows(coll, qids, list(emb)))
            vfile = f"provenance/spin/{name if kind == 'trained' else 'random_m%d_l%d' % (m, layer)}.npy"
            conf = {"m": m, "layer": layer, "layers_total": 6, "vectors": vfile,
                    "train_sha256": meta.get("split", {}).get("train_sha256"),
                    "val_sha256": meta.get("split", {}).get("val_sha256"),
                    "vectors_sha256": sha256_file(RELEASE.parent.parent / vfile),
                    "kind": kind, "lr": meta.get("lr"), "steps": meta.get("steps"),
                    "seed": meta.get("hyper_parameters", {}).get("seed")}
            op = ("SPIN: m steered embeddings, round robin" if kind == "trained"
                  else "control: random vectors of the learned norms, round robin")
            entries.append(entry(run_id, sha, op, "minilm_joint_best.natural", conf))
            record_runs(entries)
            log("%s written (%.0f s)" % (run_id, time.time() - t))
    log("done: %d runs" % len(entries))


if __name__ == "__main__":
    main()
