"""SPIN on the held-out-perspective split: test runs, validation rankings and random-control draws.

    nice -n 10 python producers/spin/infer_heldout.py [--cells spin_m5_l3 ...] [--draws 10]

Rule of the split: provenance/spin/heldout_rule.md. For every cell trained with
``train_spin.py grid --split heldout`` (``provenance/spin/heldout/spin_m{m}_l{layer}.npy``):

* test run ``ho_spin_m{m}_l{layer}.natural``: the held-out test queries only (every v1 test query
  with at least one held-out condition), encoded and merged exactly as ``infer_spin.py`` does
  (natural form, m steered embeddings, best-page lists, round robin, depth 100);
* validation: the same ranking of every held-out validation query; its top 10 are stored in
  ``provenance/spin/heldout/validation_top10.json`` with the queries' supports
  (``split_supports_v1.jsonl.gz``), so the cell chosen by validation HC@10 can be re-derived;
* random controls at the cells of ``--random-layers``: ``--draws`` independent draws per cell,
  draw r using Gaussian directions from numpy ``default_rng(30260 + 1000 r + 10 m + layer)``,
  scaled to the learned vectors' norms; runs ``ho_spin_random_m{m}_l{layer}_r{r}.natural`` and
  vectors ``provenance/spin/heldout/random_m{m}_l{layer}_r{r}.npy``.
"""

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "models"))

from common import RELEASE, input_hashes, log, minilm_identity, record_runs, sha256_file, write_run_rows  # noqa: E402
from dense_lib import PageCollection  # noqa: E402
from infer_spin import rr_rows, steered  # noqa: E402
from spin_lib import load_minilm, lower_states  # noqa: E402

from nclue.release import load_queries  # noqa: E402

ROOT = RELEASE.parent.parent
OUT = ROOT / "provenance" / "spin" / "heldout"
PRODUCER = "producers/spin/infer_heldout.py"
VAL_K = 10


def heldout_test_qids(queries):
    held = set(json.load(open(RELEASE / "heldout_conditions.json"))["condition_ids"])
    return sorted(q for q, v in queries.items() if held.intersection(v.condition_ids))


def hc(supports, ranking, k):
    top = set(ranking[:k])
    return sum(1 for s in supports if top.intersection(s)) / len(supports)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", nargs="*", default=None)
    ap.add_argument("--random-layers", type=int, nargs="*", default=[3])
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--skip-trained", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(2)
    queries = load_queries(RELEASE / "queries.jsonl")
    qids = heldout_test_qids(queries)
    val = load_queries(RELEASE / "val_queries_heldout.jsonl")
    supports = {}
    with gzip.open(OUT / "split_supports_v1.jsonl.gz", "rt") as fh:
        for line in fh:
            o = json.loads(line)
            if o["split"] == "val":
                supports[o["qid"]] = o["supports"]
    vqids = sorted(val)
    if sorted(supports) != vqids:
        raise SystemExit("split_supports_v1.jsonl.gz does not match val_queries_heldout.jsonl")
    coll = PageCollection()
    ident = minilm_identity()
    st = load_minilm(max_seq_length=128)
    settings = {"input_form": "natural", "list_depth": 100, "page_aggregation": "best",
                "aggregation": "round robin (Multi3IR eq. 4), scores 1/position",
                "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                "score_rounding": "6 significant digits",
                "queries": "held-out test queries (at least one held-out condition)",
                "heldout_conditions_sha256": sha256_file(RELEASE / "heldout_conditions.json")}
    inputs = input_hashes(coll.manifest, heldout_conditions=sha256_file(RELEASE / "heldout_conditions.json"))

    def entry(run_id, sha, operation, configuration):
        return {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "dense", "operation": operation,
                "base": "minilm_joint_best.natural", "form": "natural", "privileged": False,
                "inputs": inputs, "block": "perspective coverage (SPIN, held-out perspectives)",
                "configuration": configuration, "producer": PRODUCER, "model": ident["model"],
                "package_version": ident["package_version"], "weight_sha256": ident["weight_sha256"],
                "settings": settings, "sha256": sha, "query_scope": "heldout"}

    val_file = OUT / "validation_top10.json"
    validation = json.load(open(val_file)) if val_file.exists() else {
        "k": VAL_K, "queries": vqids, "supports": {q: supports[q] for q in vqids}, "cells": {}}
    names = args.cells or sorted(p.stem for p in OUT.glob("spin_m*_l*.npy") if "_lr" not in p.stem)
    cache = {}
    for name in names:
        meta = json.load(open(OUT / f"{name}.json"))
        m, layer = meta["m"], meta["layer"]
        vectors = np.load(OUT / f"{name}.npy")
        if layer not in cache:
            cache.clear()
            t = time.time()
            cache[layer] = (lower_states(st, [queries[q].forms["natural"] for q in qids], layer),
                            lower_states(st, [val[q].forms["natural"] for q in vqids], layer))
            log("layer-%d states of %d test + %d val queries (%.0f s)" % (layer, len(qids), len(vqids), time.time() - t))
        states, vstates = cache[layer]
        entries = []
        if not args.skip_trained:
            t = time.time()
            sha = write_run_rows(f"ho_{name}.natural", rr_rows(coll, qids, list(steered(st, states, layer, vectors))))
            vrows = rr_rows(coll, vqids, list(steered(st, vstates, layer, vectors)))
            top = {r["qid"]: r["docs"][:VAL_K] for r in vrows}
            score = sum(hc(supports[q], top[q], VAL_K) for q in vqids) / len(vqids)
            validation["cells"][name] = {"m": m, "layer": layer, "top10": top,
                                         "vectors_sha256": sha256_file(OUT / f"{name}.npy"),
                                         "hc10_percent": round(100 * score, 4)}
            tmp = val_file.with_suffix(".tmp")
            with open(tmp, "w") as fh:
                json.dump(validation, fh, indent=1, sort_keys=True)
                fh.write("\n")
            tmp.replace(val_file)
            conf = {"m": m, "layer": layer, "layers_total": 6, "kind": "trained", "split": "heldout",
                    "vectors": f"provenance/spin/heldout/{name}.npy",
                    "vectors_sha256": sha256_file(OUT / f"{name}.npy"),
                    "train_sha256": meta["split"]["train_sha256"], "val_sha256": meta["split"]["val_sha256"],
                    "lr": meta["lr"], "steps": meta["steps"], "seed": meta["hyper_parameters"]["seed"]}
            entries.append(entry(f"ho_{name}.natural", sha, "SPIN (held-out perspectives): m steered "
                                 "embeddings, round robin", conf))
            log("ho_%s: val HC@10 %.2f (%.0f s)" % (name, 100 * score, time.time() - t))
        if layer in args.random_layers:
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            for r in range(args.draws):
                seed = 30260 + 1000 * r + 10 * m + layer
                rname = f"random_m{m}_l{layer}_r{r}"
                run_id = f"ho_spin_{rname}.natural"
                d = np.random.default_rng(seed).standard_normal(vectors.shape)
                d /= np.linalg.norm(d, axis=1, keepdims=True)
                rand = (d * norms).astype(np.float32)
                np.save(OUT / f"{rname}.npy", rand)
                with open(OUT / f"{rname}.json", "w") as fh:
                    json.dump({"m": m, "layer": layer, "draw": r, "control_for": name, "seed": seed,
                               "rule": "Gaussian directions scaled to the learned vectors' norms",
                               "generator": "numpy default_rng",
                               "vectors_sha256": sha256_file(OUT / f"{rname}.npy")}, fh, indent=2, sort_keys=True)
                    fh.write("\n")
                t = time.time()
                sha = write_run_rows(run_id, rr_rows(coll, qids, list(steered(st, states, layer, rand))))
                conf = {"m": m, "layer": layer, "layers_total": 6, "kind": "random", "split": "heldout",
                        "draw": r, "seed": seed, "vectors": f"provenance/spin/heldout/{rname}.npy",
                        "vectors_sha256": sha256_file(OUT / f"{rname}.npy"), "control_for": f"ho_{name}.natural"}
                entries.append(entry(run_id, sha, "control: random vectors of the learned norms, round robin "
                                     "(held-out perspectives)", conf))
                log("%s written (%.0f s)" % (run_id, time.time() - t))
        record_runs(entries)
    log("done")


if __name__ == "__main__":
    main()
