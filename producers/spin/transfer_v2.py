"""Transfer (Multi3IR Table 3 analogue): v1-trained held-out SPIN, FT-Doc and PEFT applied to v2.

    NCLUE_PRODUCER_RELEASE=v2 nice -n 10 python producers/spin/transfer_v2.py

Multi3IR trains SPIN on its own data and applies it, without retraining, to unseen open-ended
benchmarks (its Table 3). Here the models trained on v1's held-out-perspective split
(provenance/spin/heldout/: the cell chosen on validation HC@10, its random-direction draws, the
held-out FT-Doc encoder and the held-out prefix / LoRA / adapter weights) are applied, unchanged,
to the 225 v2 queries (Python, Perl and PDF manuals: another source and another vocabulary), with
v2's MiniLM page embeddings (build/models/v2/minilm). The v2 naive baseline is v2's
``minilm_joint_best.natural``; the oracle ``minilm_cond_rr.clean`` (conditions as queries, round
robin) is written here for v2 as ``infer_spin.py`` writes it for v1.

Run ids (data/v2/runs): ``v1ho_spin_m{m}_l{layer}.natural``, ``v1ho_spin_random_m{m}_l{layer}_r{r}.natural``,
``v1ho_minilm_ftdoc_joint_best.natural``, ``v1ho_{method}_m5_{size}_l3.natural``, ``minilm_cond_rr.clean``.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "models"))

if os.environ.get("NCLUE_PRODUCER_RELEASE") != "v2":
    raise SystemExit("run with NCLUE_PRODUCER_RELEASE=v2")

from common import (BUILD, DEPTH, RELEASE, ROOT, input_hashes, log, minilm_identity,  # noqa: E402
                    record_runs, sha256_file, write_run_rows)
from dense_lib import PageCollection, joint_row  # noqa: E402
from infer_spin import rr_rows, steered  # noqa: E402
from spin_lib import load_minilm, lower_states  # noqa: E402

from nclue.coverage import hard_coverage  # noqa: E402
from nclue.release import load_queries, quote_condition  # noqa: E402

HO = ROOT / "provenance" / "spin" / "heldout"
PRODUCER = "producers/spin/transfer_v2.py"


def selected_cell():
    """The v1 held-out cell with the highest validation HC@10 (ties: fewer vectors, lower layer),
    the rule of nclue/tables/validation_selection.py."""
    data = json.load(open(HO / "validation_top10.json"))
    k, qs, sup = data["k"], data["queries"], data["supports"]
    scored = [(name, c["m"], c["layer"], sum(hard_coverage(sup[q], c["top10"][q], k) for q in qs) / len(qs))
              for name, c in data["cells"].items()]
    return sorted(scored, key=lambda s: (-s[3], s[1], s[2]))[0][0]


def main():
    torch.set_num_threads(2)
    queries = load_queries(RELEASE / "queries.jsonl")
    qids = sorted(queries)
    coll = PageCollection()
    ident = minilm_identity()
    st = load_minilm(max_seq_length=128)
    inputs = input_hashes(coll.manifest)
    settings = {"input_form": "natural", "list_depth": DEPTH, "page_aggregation": "best",
                "aggregation": "round robin (Multi3IR eq. 4), scores 1/position",
                "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                "score_rounding": "6 significant digits", "trained_on": "v1 held-out-perspective split"}

    def entry(run_id, sha, operation, configuration, base="minilm_joint_best.natural"):
        return {"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "dense", "operation": operation,
                "base": base, "form": run_id.rsplit(".", 1)[1], "privileged": False, "inputs": inputs,
                "block": "perspective coverage (transfer from v1, Multi3IR Table 3)",
                "configuration": configuration, "producer": PRODUCER, "model": ident["model"],
                "package_version": ident["package_version"], "weight_sha256": ident["weight_sha256"],
                "settings": settings, "sha256": sha}

    entries = []
    # the oracle on v2
    t = time.time()
    texts = sorted({quote_condition(c) for q in queries.values() for c in q.conditions})
    emb = st.encode(texts, batch_size=32, convert_to_numpy=True)
    vec = {x: emb[i] for i, x in enumerate(texts)}
    sha = write_run_rows("minilm_cond_rr.clean", rr_rows(coll, qids, [
        np.stack([vec[quote_condition(c)] for c in queries[q].conditions]) for q in qids]))
    entries.append(entry("minilm_cond_rr.clean", sha, "condition lists (MiniLM best page) + round robin "
                         "(Multi3IR eq. 4; SPIN's oracle)", {"conditions": "quoted, embedded separately"},
                         base="minilm_joint_best.clean"))
    log("oracle written (%.0f s)" % (time.time() - t))
    # SPIN: the cell chosen on v1 validation, and its random draws
    name = selected_cell()
    meta = json.load(open(HO / f"{name}.json"))
    m, layer = meta["m"], meta["layer"]
    states = lower_states(st, [queries[q].forms["natural"] for q in qids], layer)
    variants = [(f"v1ho_{name}.natural", HO / f"{name}.npy", "trained", None)]
    for path in sorted(HO.glob(f"random_m{m}_l{layer}_r*.npy")):
        variants.append((f"v1ho_spin_{path.stem}.natural", path, "random", json.load(open(path.with_suffix(".json")))))
    for run_id, path, kind, rmeta in variants:
        t = time.time()
        sha = write_run_rows(run_id, rr_rows(coll, qids, list(steered(st, states, layer, np.load(path)))))
        conf = {"m": m, "layer": layer, "kind": kind, "vectors": str(path.relative_to(ROOT)),
                "vectors_sha256": sha256_file(path), "selected_on": "v1 held-out validation HC@10"}
        if rmeta:
            conf.update(draw=rmeta["draw"], seed=rmeta["seed"])
        entries.append(entry(run_id, sha, "SPIN trained on v1 (held-out perspectives), applied to v2"
                             if kind == "trained" else "control: random vectors of the learned norms", conf))
        log("%s written (%.0f s)" % (run_id, time.time() - t))
    # FT-Doc (held-out) encoder
    from train_ftdoc import load_encoder, state_sha256
    fmeta = json.load(open(HO / "ftdoc.json"))
    enc = load_encoder()
    enc.load_state_dict(torch.load(ROOT / "build" / "models" / "ftdoc_heldout" / "model.pt"))
    if state_sha256(enc) != fmeta["model_state_sha256"]:
        raise SystemExit("build/models/ftdoc_heldout/model.pt differs from its record")
    enc.eval()
    E = enc.encode([queries[q].forms["natural"] for q in qids], batch_size=32, convert_to_numpy=True)
    S = coll.page_scores(E)
    sha = write_run_rows("v1ho_minilm_ftdoc_joint_best.natural",
                         [joint_row(coll, q, None, "best", DEPTH, S[:, i]) for i, q in enumerate(qids)])
    entries.append(entry("v1ho_minilm_ftdoc_joint_best.natural", sha, "FT-Doc trained on v1 (held-out "
                         "perspectives), applied to v2", {"model_state_sha256": fmeta["model_state_sha256"]}))
    # PEFT (held-out) at the middle layer
    import adapt_runs
    from adapt_lib import method_embeddings
    adapt_runs.OUT, adapt_runs.WEIGHTS = HO / "adapt", ROOT / "build" / "models" / "adapt_heldout"
    lower = {}
    for kind in adapt_runs.TRAINED:
        cell = adapt_runs.cell_name(kind, 3)
        method, ameta = adapt_runs.load_cell(cell, st, kind, 3)
        if 3 not in lower:
            lower[3] = lower_states(st, [queries[q].forms["natural"] for q in qids], 3)
        with torch.no_grad():
            emb = np.concatenate([method_embeddings(st, lower[3][i:i + 32], method).numpy()
                                  for i in range(0, len(qids), 32)], axis=0)
        run_id = f"v1ho_{cell}.natural"
        sha = write_run_rows(run_id, rr_rows(coll, qids, list(emb)))
        entries.append(entry(run_id, sha, f"{kind} trained on v1 (held-out perspectives), applied to v2",
                             {"method": kind, "weights_sha256": ameta["weights_sha256"], "layer": 3, "m": 5}))
        log("%s written" % run_id)
    record_runs(entries)
    log("done: %d runs" % len(entries))


if __name__ == "__main__":
    main()
