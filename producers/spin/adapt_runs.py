"""Table 5 analogue: SPIN vs prefix-tuning, LoRA and a bottleneck adapter, from layer 0 and from the
middle layer, all with SPIN's objective and schedule on frozen all-MiniLM-L6-v2 (Multi3IR sec. 6.2).

    nice -n 10 python producers/spin/adapt_runs.py train     # lr selection at layer 3, then both layers
    nice -n 10 python producers/spin/adapt_runs.py infer     # frozen runs data/v1/runs/<id>.jsonl.gz
    nice -n 10 python producers/spin/adapt_runs.py train --methods adapter --layers 3   # one cell
    nice -n 10 python producers/spin/adapt_runs.py train --split heldout   # held-out perspectives
    nice -n 10 python producers/spin/adapt_runs.py infer --split heldout   # ho_<cell>.natural

``--split heldout``: the held-out-perspective split (provenance/spin/heldout_rule.md): training on
train_queries_heldout.jsonl, lr selection on val_queries_heldout.jsonl, metadata in
provenance/spin/heldout/adapt/, weights of at most COMMIT_LIMIT bytes committed beside them (the
others in build/models/adapt_heldout/ with their sha256), runs ``ho_<cell>.natural`` over the
held-out test queries only.

Methods and parameter counts: ``adapt_lib.py``. SPIN itself at the two points is
``spin_m5_l0.natural`` / ``spin_m5_l3.natural`` (``train_spin.py``, ``infer_spin.py``; the same
hook arithmetic as ``adapt_lib``'s ``spin`` method, checked by ``check_adapt.py``).

Training (every method identical except its parameters; train_spin.py's settings): m = 5, the
natural form of the 1,798 training queries as input, the quoted condition texts as targets, the
noisy-OR loss (tau 0.1, b 0.5, in-batch negatives), AdamW (torch defaults, weight decay 0.01),
batch 32, 40 steps over a seeded shuffle (seed 13, the same batches as SPIN), cosine schedule with
3% warm-up. Learning rate: chosen per method from a three-point grid at the middle layer by the
noisy-OR loss on the 250 validation queries (SPIN's protocol, lr_selection.json), then reused from
layer 0: prefix (1e-3, 1e-2, 1e-1) like SPIN; LoRA and adapter (1e-4, 1e-3, 1e-2), a decade lower
because they rescale frozen weight matrices rather than add a hidden-state offset.
Parameter init: a per-cell torch.Generator seeded 13000 + 100 * method index + layer.

Outputs: weights under build/models/adapt/<cell>.npz (git-ignored: LoRA from layer 0 has 3.3 M
parameters) with the sha256 of their arrays; metadata (losses, val loss, seconds, parameter
count, sha256) in provenance/spin/adapt/<cell>.json; prefix weights (19,200 parameters) also
committed as provenance/spin/adapt/<cell>.npz. Run ids: ``{method}_m5_{size}_l{layer}.natural``
(``prefix_m5_k10_l0.natural``, ``lora_m5_r16_l3.natural``, ``adapter_m5_r64_l0.natural``, ...).
Inference: each test query's natural form, m embeddings, best-page lists of depth 100, round
robin (Multi3IR eq. 4) to depth 100: ``infer_spin.rr_rows``.
"""

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "models"))

from adapt_lib import (ADAPTER_R, LORA_R, METHODS, PREFIX_K, Method,  # noqa: E402
                       method_embeddings, parameter_count, state_arrays)
from common import (BUILD, DEPTH, PAGES_TOP_DOCS, RELEASE, input_hashes, log,  # noqa: E402
                    minilm_identity, record_runs, sha256_file, write_run_rows)
from spin_lib import cosine_schedule, load_minilm, lower_states, noisy_or_loss  # noqa: E402
from train_spin import (BATCH, BIAS, INIT_STD, SEED, TAU, VAL_QUERIES, WARMUP, Targets,  # noqa: E402
                        check_disjoint, read_split, split_path)

from nclue.release import load_queries  # noqa: E402

OUT = RELEASE.parent.parent / "provenance" / "spin" / "adapt"
WEIGHTS = BUILD / "adapt"
PRODUCER = "producers/spin/adapt_runs.py"
M = 5
STEPS = 40
SUFFIX = ""
RUN_PREFIX = ""
COMMIT_LIMIT = 4_000_000   # bytes of float32 weights committed in the held-out split
TRAINED = ("prefix", "lora", "adapter")
LR_GRIDS = {"prefix": (1e-3, 1e-2, 1e-1), "lora": (1e-4, 1e-3, 1e-2), "adapter": (1e-4, 1e-3, 1e-2)}
LAYERS = (3, 0)
SIZE = {"prefix": f"k{PREFIX_K}", "lora": f"r{LORA_R}", "adapter": f"r{ADAPTER_R}"}


def cell_name(method: str, layer: int, lr=None) -> str:
    name = f"{method}_m{M}_{SIZE[method]}_l{layer}"
    return name if lr is None else f"{name}_lr{lr:g}"


def arrays_sha256(arrays) -> str:
    """sha256 over (name, shape, float32 bytes) of the arrays in sorted name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name], dtype=np.float32)
        h.update(name.encode() + b"\0" + json.dumps(list(a.shape)).encode() + b"\0")
        h.update(a.tobytes())
    return h.hexdigest()


def new_method(kind, bert, layer):
    gen = torch.Generator().manual_seed(SEED * 1000 + 100 * METHODS.index(kind) + layer)
    return Method(kind, bert, layer, M, gen, INIT_STD)


def batch_loss(st, method, states, queries, idx, targets):
    S = method_embeddings(st, [states[i] for i in idx], method)
    T, owner, tid = targets.batch([queries[i] for i in idx])
    return noisy_or_loss(S, T, owner, tid, TAU, BIAS)


def val_loss(st, method, states, queries, targets):
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(queries), BATCH):
            idx = list(range(i, min(i + BATCH, len(queries))))
            if len(idx) < 2:
                continue
            loss, _, _ = batch_loss(st, method, states, queries, idx, targets)
            total += float(loss) * len(idx)
            n += len(idx)
    return total / n


def train_cell(st, kind, layer, lr, train, val, tstates, vstates, targets):
    """train_spin.train_one's loop with a Method instead of raw vectors (same batches)."""
    method = new_method(kind, st[0].auto_model, layer)
    opt = torch.optim.AdamW(list(method.parameters()), lr=lr)
    warm = max(1, round(WARMUP * STEPS))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_schedule(s, STEPS, warm))
    rng = random.Random(SEED)
    order, losses = [], []
    t0 = time.time()
    for step in range(STEPS):
        if len(order) < BATCH:
            perm = list(range(len(train)))
            rng.shuffle(perm)
            order += perm
        idx = order[:BATCH]
        del order[:BATCH]
        loss, lp, ln = batch_loss(st, method, tstates, train, idx, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append((loss.item(), lp.item(), ln.item()))
        if step % 10 == 0 or step == STEPS - 1:
            log("%s l%d lr=%g step %d/%d loss %.4f (pos %.4f neg %.4f) %.1fs"
                % (kind, layer, lr, step + 1, STEPS, *losses[-1], time.time() - t0))
    secs = time.time() - t0
    vl = val_loss(st, method, vstates, val, targets)
    return method, losses, secs, vl


def save_cell(name, method, meta):
    OUT.mkdir(parents=True, exist_ok=True)
    WEIGHTS.mkdir(parents=True, exist_ok=True)
    arrays = state_arrays(method)
    tmp = WEIGHTS / f".{name}.tmp.npz"
    np.savez(tmp, **arrays)
    os.replace(tmp, WEIGHTS / f"{name}.npz")
    meta["weights_file"] = f"{WEIGHTS.relative_to(RELEASE.parent.parent)}/{name}.npz (not committed)"
    size = sum(np.asarray(a, dtype=np.float32).nbytes for a in arrays.values())
    meta["weights_bytes"] = size
    if method.kind == "prefix" or (SUFFIX and size <= COMMIT_LIMIT):
        tmp = OUT / f".{name}.tmp.npz"
        np.savez(tmp, **arrays)
        os.replace(tmp, OUT / f"{name}.npz")
        meta["weights_file"] = f"{OUT.relative_to(RELEASE.parent.parent)}/{name}.npz"
    meta["weights_sha256"] = arrays_sha256(arrays)
    meta["weights_sha256_rule"] = "sha256 over (name, shape, float32 bytes), names sorted"
    with open(OUT / f"{name}.json", "w") as fh:
        json.dump(meta, fh, indent=2, sort_keys=True)
        fh.write("\n")


def load_cell(name, st, kind, layer):
    method = new_method(kind, st[0].auto_model, layer)
    data = np.load(WEIGHTS / f"{name}.npz")
    arrays = {k: data[k] for k in data.files}
    meta = json.load(open(OUT / f"{name}.json"))
    if arrays_sha256(arrays) != meta["weights_sha256"]:
        raise SystemExit(f"{name}: weights differ from the recorded sha256; retrain")
    with torch.no_grad():
        for k, v in arrays.items():
            method.params[k].copy_(torch.from_numpy(v))
    return method, meta


def train(args):
    torch.set_num_threads(2)
    train_q, val_q, test_q = (read_split(f"train_queries{SUFFIX}.jsonl"), read_split(f"val_queries{SUFFIX}.jsonl"),
                              read_split("queries.jsonl"))
    check_disjoint(train_q, val_q, test_q)
    if SUFFIX:
        from train_spin import check_no_heldout
        log("held-out split: no train/val query holds one of the %d held-out conditions"
            % check_no_heldout(train_q, val_q))
    val_q = val_q[:VAL_QUERIES]
    st = load_minilm(max_seq_length=128)
    targets = Targets(st, train_q + val_q)
    ident = minilm_identity()
    tp, vp = split_path(f"train_queries{SUFFIX}.jsonl"), split_path(f"val_queries{SUFFIX}.jsonl")
    split = {"train_file": f"data/v1/{tp.name}", "train_sha256": sha256_file(tp),
             "train_queries": len(train_q), "val_file": f"data/v1/{vp.name}",
             "val_sha256": sha256_file(vp), "val_queries_used": len(val_q),
             "test_overlap": "none (ids and conjunctions checked)"}
    if SUFFIX:
        split["heldout_conditions_sha256"] = sha256_file(RELEASE / "heldout_conditions.json")
        split["test_overlap"] = "none (ids, conjunctions and held-out conditions checked)"
    hp = {"tau": TAU, "b": BIAS, "batch": BATCH, "init_std": INIT_STD, "warmup": WARMUP,
          "optimizer": "AdamW (torch defaults, weight decay 0.01)", "schedule": "cosine",
          "seed": SEED, "input_form": "natural", "targets": "quoted condition texts",
          "threads": 2, "max_seq_length": 128, "steps": STEPS, "m": M}
    states = {}

    def cached(layer):
        if layer not in states:
            states.clear()
            t = time.time()
            states[layer] = (lower_states(st, [q.forms["natural"] for q in train_q], layer),
                             lower_states(st, [q.forms["natural"] for q in val_q], layer))
            log("layer-%d states cached (%.0f s)" % (layer, time.time() - t))
        return states[layer]

    def meta_of(kind, layer, lr, losses, secs, vl, method, note=None):
        meta = {"method": kind, "m": M, "layer": layer, "layers_total": 6,
                "injected_layers": [j + 1 for j in method.upper], "lr": lr, "steps": STEPS,
                "parameters": method.count(),
                "parameters_closed_form": parameter_count(kind, layer, M),
                "train_seconds": round(secs, 1), "val_loss": round(vl, 6),
                "train_loss_curve": [round(x[0], 5) for x in losses],
                "hyper_parameters": hp, "split": split, "model": ident["model"],
                "weight_sha256": ident["weight_sha256"], "torch": ident["torch"],
                "transformers": ident["transformers"], "producer": PRODUCER}
        if note:
            meta["note"] = note
        return meta

    for kind in args.methods:
        sel_file = OUT / f"lr_selection_{kind}.json"
        if sel_file.exists() and json.load(open(sel_file)).get("split") == split:
            lr = json.load(open(sel_file))["chosen_lr"]
        else:
            trials = {}
            tstates, vstates = cached(3)
            for cand in LR_GRIDS[kind]:
                name = cell_name(kind, 3, cand)
                method, losses, secs, vl = train_cell(st, kind, 3, cand, train_q, val_q, tstates,
                                                      vstates, targets)
                save_cell(name, method, meta_of(kind, 3, cand, losses, secs, vl, method,
                                                "learning-rate trial"))
                trials[f"{cand:g}"] = {"val_loss": round(vl, 6), "train_seconds": round(secs, 1)}
                log("%s lr %g: val loss %.4f (%.0f s)" % (kind, cand, vl, secs))
            lr = min(LR_GRIDS[kind], key=lambda c: trials[f"{c:g}"]["val_loss"])
            OUT.mkdir(parents=True, exist_ok=True)
            with open(sel_file, "w") as fh:
                json.dump({"method": kind, "grid": list(LR_GRIDS[kind]), "layer": 3, "m": M,
                           "criterion": "noisy-OR loss on validation", "steps": STEPS,
                           "trials": trials, "chosen_lr": lr, "split": split}, fh, indent=2,
                          sort_keys=True)
                fh.write("\n")
        log("%s: chosen lr %g" % (kind, lr))
        for layer in args.layers:
            name = cell_name(kind, layer)
            if (OUT / f"{name}.json").exists() and (WEIGHTS / f"{name}.npz").exists() \
                    and json.load(open(OUT / f"{name}.json"))["split"] == split:
                log(f"{name} exists, skipped")
                continue
            trial = cell_name(kind, layer, lr)
            if layer == 3 and (OUT / f"{trial}.json").exists() and (WEIGHTS / f"{trial}.npz").exists():
                method, meta = load_cell(trial, st, kind, layer)
                meta["note"] = f"the chosen learning-rate trial ({trial})"
                save_cell(name, method, meta)
                log(f"{name}: reused the learning-rate trial")
                continue
            tstates, vstates = cached(layer)
            method, losses, secs, vl = train_cell(st, kind, layer, lr, train_q, val_q, tstates,
                                                  vstates, targets)
            save_cell(name, method, meta_of(kind, layer, lr, losses, secs, vl, method))
            log("%s saved (%.0f s, val loss %.4f)" % (name, secs, vl))


def infer(args):
    from dense_lib import PageCollection
    from infer_spin import rr_rows

    torch.set_num_threads(2)
    queries = load_queries(RELEASE / "queries.jsonl")
    qids = sorted(queries)
    if SUFFIX:
        held = set(json.load(open(RELEASE / "heldout_conditions.json"))["condition_ids"])
        qids = [q for q in qids if held.intersection(queries[q].condition_ids)]
    coll = PageCollection()
    ident = minilm_identity()
    st = load_minilm(max_seq_length=128)
    inputs = input_hashes(coll.manifest)
    settings = {"input_form": "natural", "list_depth": DEPTH, "page_aggregation": "best",
                "aggregation": "round robin (Multi3IR eq. 4), scores 1/position",
                "page_max_seq_length": coll.manifest["settings"]["max_seq_length"],
                "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                "score_rounding": "6 significant digits",
                "pages_field": f"top-{PAGES_TOP_DOCS} documents, best page under each steered "
                               "embedding (<= 3)"}
    entries = []
    states = {}
    for kind in args.methods:
        for layer in args.layers:
            name = cell_name(kind, layer)
            method, meta = load_cell(name, st, kind, layer)
            if layer not in states:
                states.clear()
                states[layer] = lower_states(st, [queries[q].forms["natural"] for q in qids], layer)
            t = time.time()
            embs = []
            with torch.no_grad():
                for i in range(0, len(qids), BATCH):
                    embs.append(method_embeddings(st, states[layer][i:i + BATCH], method).numpy())
            emb = np.concatenate(embs, axis=0)
            run_id = f"{RUN_PREFIX}{name}.natural"
            sha = write_run_rows(run_id, rr_rows(coll, qids, list(emb)))
            conf = {"method": kind, "m": M, "layer": layer, "layers_total": 6,
                    "injected_layers": meta["injected_layers"], "parameters": meta["parameters"],
                    "lr": meta["lr"], "steps": meta["steps"], "seed": SEED,
                    "weights_sha256": meta["weights_sha256"],
                    "train_sha256": meta["split"]["train_sha256"],
                    "val_sha256": meta["split"]["val_sha256"],
                    "objective": "SPIN's noisy-OR loss (Algorithm 1), perspective-level targets"}
            if kind == "prefix":
                conf["prefix_tokens"] = PREFIX_K
            elif kind == "lora":
                conf.update(rank=LORA_R, alpha=16, targets="query, key, value, attention output, "
                                                          "both feed-forward projections")
            else:
                conf.update(bottleneck=ADAPTER_R, placement="after the feed-forward output "
                                                            "projection, before the residual LayerNorm",
                            activation="relu")
            entries.append({"id": run_id, "file": f"{run_id}.jsonl.gz", "family": "dense",
                            "operation": f"{kind} (m = {M}, from layer {layer}), round robin",
                            "base": "minilm_joint_best.natural", "form": "natural",
                            "privileged": False, "inputs": inputs,
                            "block": "perspective coverage (adaptation methods)" + (
                                ", held-out perspectives" if SUFFIX else ""),
                            "configuration": conf, "producer": PRODUCER, "model": ident["model"],
                            "package_version": ident["package_version"],
                            "weight_sha256": ident["weight_sha256"], "settings": settings,
                            "sha256": sha, **({"query_scope": "heldout"} if SUFFIX else {})})
            record_runs(entries)
            log("%s written (%.0f s)" % (run_id, time.time() - t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["train", "infer"])
    ap.add_argument("--methods", nargs="+", default=list(TRAINED), choices=list(TRAINED))
    ap.add_argument("--layers", type=int, nargs="+", default=list(LAYERS), choices=list(LAYERS))
    ap.add_argument("--split", choices=["seen", "heldout"], default="seen")
    args = ap.parse_args()
    global OUT, WEIGHTS, SUFFIX, RUN_PREFIX
    if args.split == "heldout":
        OUT, WEIGHTS = OUT.parent / "heldout" / "adapt", BUILD / "adapt_heldout"
        SUFFIX, RUN_PREFIX = "_heldout", "ho_"
    train(args) if args.mode == "train" else infer(args)


if __name__ == "__main__":
    main()
