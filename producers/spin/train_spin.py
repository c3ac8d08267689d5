"""Train SPIN steering vectors on frozen all-MiniLM-L6-v2 (Multi3IR sec. 4.2, Alg. 1, app. C.3.2).

    nice -n 5 python producers/spin/train_spin.py grid      # lr selection, then the m x layer grid
    nice -n 5 python producers/spin/train_spin.py one --m 5 --layer 3 --lr 1e-2
    nice -n 5 python producers/spin/train_spin.py grid --split heldout   # held-out perspectives

``--split heldout`` trains on ``data/v1/train_queries_heldout.jsonl`` and selects on
``val_queries_heldout.jsonl`` (no query holds a condition of ``data/v1/heldout_conditions.json``,
checked before the first step; rule: provenance/spin/heldout_rule.md), with its own learning-rate
selection, and writes to ``provenance/spin/heldout/`` (same file names).

Data: data/v1/train_queries.jsonl (training) and data/v1/val_queries.jsonl (learning-rate
selection), written by the instrument's construction (split disjoint from the 1,000 test queries
in queries and in conjunctions; checked again here). Input = the query's natural form; targets
T_n = MiniLM embeddings of its conditions rendered as in the clean form ("X", quoted), i.e.
exactly the query vectors of the condition-wise oracle runs.

Hyper-parameters (app. C.3.2 unless stated): AdamW (torch defaults: betas 0.9/0.999, weight
decay 0.01), cosine schedule with 3% warm-up, batch 32, init N(0, 0.01^2), tau 0.1, b 0.5,
in-batch negatives. Chosen here (CPU budget; the paper gives no step count for SPIN): a fixed
number of optimisation steps (``--steps``) over a seeded shuffle of the training queries; the
learning rate is chosen from LR_GRID at m = 1, mid layer (3 of 6), by the noisy-OR loss on the
validation queries, and reused for every grid cell. Layers (1-based outputs of the 6-layer
encoder): early 1, mid 3 (= L/2), late 5 -- the paper's 6/18/30 of 36 scaled to L = 6.

Outputs (small, committed): provenance/spin/spin_m{m}_l{layer}.npy (float32 [m, 384]) and
provenance/spin/spin_m{m}_l{layer}.json (seed, split, hyper-parameters, losses, time, sha256).
A finished cell is skipped on re-run (checkpoint).
"""

import argparse
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

from common import RELEASE, log, minilm_identity, sha256_file  # noqa: E402
from spin_lib import (cosine_schedule, load_minilm, lower_states, noisy_or_loss,  # noqa: E402
                      upper_embeddings)

from nclue.release import load_queries, quote_condition  # noqa: E402

DATA = RELEASE                                   # data/v1 (or the sandbox's, see common.py)
OUT = RELEASE.parent.parent / "provenance" / "spin"
TAU, BIAS, BATCH, INIT_STD, WARMUP = 0.1, 0.5, 32, 0.01, 0.03
LR_GRID = (1e-3, 1e-2, 1e-1)
LAYERS = {"early": 1, "mid": 3, "late": 5}
MS = (1, 3, 5, 7)
SEED = 13
LR_CELL = (1, 3)        # m, layer of the learning-rate selection (m = 1: the cheapest cell; CPU budget)
VAL_QUERIES = 512


def split_path(name):
    """data/v1/<name> or its gzip twin <name>.gz (the release writer gzips big files)."""
    plain = DATA / name
    return plain if plain.exists() else DATA / (name + ".gz")


def read_split(name):
    qs = load_queries(split_path(name))
    return [qs[k] for k in sorted(qs)]


def check_no_heldout(train, val):
    """Held-out split: no training or validation query may hold a held-out condition."""
    held = set(json.load(open(DATA / "heldout_conditions.json"))["condition_ids"])
    for split, qs in (("train", train), ("val", val)):
        bad = sorted({c for q in qs for c in q.condition_ids if c in held})
        if bad:
            raise SystemExit(f"{split} split holds held-out conditions: {bad[:5]}")
    return len(held)


def check_disjoint(train, val, test):
    test_ids = {q.qid for q in test}
    test_conj = {frozenset(q.conditions) for q in test}
    for split, qs in (("train", train), ("val", val)):
        bad_id = sum(q.qid in test_ids for q in qs)
        bad_conj = sum(frozenset(q.conditions) in test_conj for q in qs)
        if bad_id or bad_conj:
            raise SystemExit(f"{split} split overlaps the test queries: {bad_id} ids, "
                             f"{bad_conj} conjunctions")


class Targets:
    """Frozen target embeddings for every condition text (one sorted encode call)."""

    def __init__(self, st, queries):
        texts = sorted({quote_condition(c) for q in queries for c in q.conditions})
        with torch.no_grad():
            emb = st.encode(texts, batch_size=32, convert_to_tensor=True)
        self.ids = {t: i for i, t in enumerate(texts)}
        self.emb = emb.detach().float()

    def batch(self, queries):
        owner, tid = [], []
        for n, q in enumerate(queries):
            for c in q.conditions:
                owner.append(n)
                tid.append(self.ids[quote_condition(c)])
        tid_t = torch.tensor(tid)
        return self.emb[tid_t], torch.tensor(owner), tid_t


class Split:
    """Queries of one split with their cached hidden states leaving the injection layer."""

    def __init__(self, st, queries, layer):
        self.queries = queries
        self.states = lower_states(st, [q.forms["natural"] for q in queries], layer)


def batch_loss(st, layer, vectors, split, idx, targets):
    S = upper_embeddings(st, [split.states[i] for i in idx], layer, vectors)
    T, owner, tid = targets.batch([split.queries[i] for i in idx])
    return noisy_or_loss(S, T, owner, tid, TAU, BIAS)


def val_loss(st, layer, vectors, val, targets):
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(val.queries), BATCH):
            idx = list(range(i, min(i + BATCH, len(val.queries))))
            if len(idx) < 2:
                continue
            loss, _, _ = batch_loss(st, layer, vectors, val, idx, targets)
            total += float(loss) * len(idx)
            n += len(idx)
    return total / n


def train_one(st, m, layer, lr, steps, train, val, targets, seed=SEED):
    """Algorithm 1 with the split forward (spin_lib.upper_embeddings; equal to the hooked
    forward to 1.5e-7, check_split.py). Returns (vectors, losses, seconds, val loss)."""
    torch.manual_seed(seed * 1000 + m * 10 + layer)
    vectors = torch.nn.Parameter(torch.randn(m, st.get_embedding_dimension()) * INIT_STD)
    opt = torch.optim.AdamW([vectors], lr=lr)
    warm = max(1, round(WARMUP * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_schedule(s, steps, warm))
    rng = random.Random(seed)
    order = []
    losses = []
    t0 = time.time()
    for step in range(steps):
        if len(order) < BATCH:
            perm = list(range(len(train.queries)))
            rng.shuffle(perm)
            order += perm
        idx = order[:BATCH]
        del order[:BATCH]
        loss, lp, ln = batch_loss(st, layer, vectors, train, idx, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append((loss.item(), lp.item(), ln.item()))
        if step % 10 == 0 or step == steps - 1:
            log("m=%d layer=%d lr=%g step %d/%d loss %.4f (pos %.4f neg %.4f) %.1fs"
                % (m, layer, lr, step + 1, steps, *losses[-1], time.time() - t0))
    train_s = time.time() - t0
    v = vectors.detach()
    vl = val_loss(st, layer, v, val, targets)
    return v.numpy().astype(np.float32), losses, train_s, vl


def save(name, vec, meta):
    OUT.mkdir(parents=True, exist_ok=True)
    npy = OUT / f"{name}.npy"
    tmp = OUT / f".{name}.tmp.npy"
    np.save(tmp, vec)
    os.replace(tmp, npy)
    meta["vectors_file"] = f"{OUT.relative_to(RELEASE.parent.parent).as_posix()}/{name}.npy"
    meta["vectors_sha256"] = sha256_file(npy)
    meta["vector_norms"] = [round(float(np.linalg.norm(x)), 6) for x in vec]
    if len(vec) > 1:
        u = vec / np.linalg.norm(vec, axis=1, keepdims=True)
        c = u @ u.T
        meta["mean_pairwise_cosine"] = round(float(c[np.triu_indices(len(vec), 1)].mean()), 6)
    with open(OUT / f"{name}.json", "w") as fh:
        json.dump(meta, fh, indent=2, sort_keys=True)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["grid", "one", "lr"])
    ap.add_argument("--m", type=int, default=5)
    ap.add_argument("--layer", type=int, default=3)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--lr-steps", type=int, default=None, help="steps of each lr trial")
    ap.add_argument("--ms", type=int, nargs="+", default=list(MS))
    ap.add_argument("--layers", type=int, nargs="+", default=[3, 1, 5])
    ap.add_argument("--split", choices=["seen", "heldout"], default="seen",
                    help="heldout: train/select on the held-out-perspective split")
    args = ap.parse_args()
    global OUT
    suffix = "_heldout" if args.split == "heldout" else ""
    if args.split == "heldout":
        OUT = OUT / "heldout"
    torch.set_num_threads(2)
    train, val, test = (read_split(f"train_queries{suffix}.jsonl"), read_split(f"val_queries{suffix}.jsonl"),
                        read_split("queries.jsonl"))
    check_disjoint(train, val, test)
    if args.split == "heldout":
        log("held-out split: %d train, %d val queries, none holds one of the %d held-out conditions"
            % (len(train), len(val), check_no_heldout(train, val)))
    val = val[:VAL_QUERIES]
    st = load_minilm(max_seq_length=128)
    targets = Targets(st, train + val)
    cache = {}

    def splits(layer):
        if layer not in cache:
            cache.clear()
            t = time.time()
            cache[layer] = (Split(st, train, layer), Split(st, val, layer))
            log("cached layer-%d states of %d + %d queries in %.0f s"
                % (layer, len(train), len(val), time.time() - t))
        return cache[layer]
    ident = minilm_identity()
    tp, vp = split_path(f"train_queries{suffix}.jsonl"), split_path(f"val_queries{suffix}.jsonl")
    split = {"train_file": f"data/v1/{tp.name}", "train_sha256": sha256_file(tp),
             "train_queries": len(train),
             "val_file": f"data/v1/{vp.name}", "val_sha256": sha256_file(vp),
             "val_queries_used": len(val), "test_overlap": "none (ids and conjunctions checked)"}
    if args.split == "heldout":
        hp = DATA / "heldout_conditions.json"
        split["heldout_conditions_file"] = "data/v1/heldout_conditions.json"
        split["heldout_conditions_sha256"] = sha256_file(hp)
        split["test_overlap"] = "none (ids, conjunctions and held-out conditions checked)"
    base_hp = {"tau": TAU, "b": BIAS, "batch": BATCH, "init_std": INIT_STD, "warmup": WARMUP,
               "optimizer": "AdamW (torch defaults, weight decay 0.01)", "schedule": "cosine",
               "seed": SEED, "input_form": "natural", "targets": "quoted condition texts",
               "threads": 2, "max_seq_length": 128}

    def meta_of(m, layer, lr, steps, losses, secs, vl, note=None):
        meta = {"m": m, "layer": layer, "layers_total": 6, "lr": lr, "steps": steps,
                "train_seconds": round(secs, 1), "val_loss": round(vl, 6),
                "train_loss_curve": [round(x[0], 5) for x in losses],
                "hyper_parameters": base_hp, "split": split, "model": ident["model"],
                "weight_sha256": ident["weight_sha256"],
                "package_version": ident["package_version"], "torch": ident["torch"],
                "transformers": ident["transformers"], "producer": "producers/spin/train_spin.py"}
        if note:
            meta["note"] = note
        return meta

    lr_file = OUT / "lr_selection.json"
    lr = args.lr
    if args.mode in ("grid", "lr") and lr is None:
        old = json.load(open(lr_file)) if lr_file.exists() else None
        if old and old.get("train_sha256") == split["train_sha256"] \
                and old.get("val_sha256") == split["val_sha256"]:
            lr = old["chosen_lr"]
        else:
            trials = {}
            m0, l0 = LR_CELL
            for cand in LR_GRID:
                vec, losses, secs, vl = train_one(st, m0, l0, cand, args.steps, *splits(l0),
                                                  targets)
                trials[f"{cand:g}"] = {"val_loss": round(vl, 6), "train_seconds": round(secs, 1)}
                save(f"spin_m{m0}_l{l0}_lr{cand:g}", vec,
                     meta_of(m0, l0, cand, args.steps, losses, secs, vl, "learning-rate trial"))
                log("lr %g: val loss %.4f (%.0f s)" % (cand, vl, secs))
            lr = min(LR_GRID, key=lambda c: trials[f"{c:g}"]["val_loss"])
            OUT.mkdir(parents=True, exist_ok=True)
            with open(lr_file, "w") as fh:
                json.dump({"grid": list(LR_GRID), "criterion": "noisy-OR loss on validation",
                           "cell": {"m": m0, "layer": l0}, "steps": args.steps,
                           "trials": trials, "chosen_lr": lr,
                           "train_sha256": split["train_sha256"],
                           "val_sha256": split["val_sha256"]}, fh, indent=2, sort_keys=True)
                fh.write("\n")
        log("chosen lr %g" % lr)
        if args.mode == "lr":
            return
    cells = [(args.m, args.layer)] if args.mode == "one" else \
        [(m, layer) for layer in args.layers for m in args.ms]
    for m, layer in cells:
        name = f"spin_m{m}_l{layer}"
        if (OUT / f"{name}.json").exists() and (OUT / f"{name}.npy").exists():
            if json.load(open(OUT / f"{name}.json"))["split"] == split:
                log(f"{name} exists, skipped")
                continue
            log(f"{name} was trained on another split: retrained")
        trial_npy, trial_json = OUT / f"{name}_lr{lr:g}.npy", OUT / f"{name}_lr{lr:g}.json"
        if trial_npy.exists() and trial_json.exists():
            tm = json.load(open(trial_json))
            if tm["steps"] == args.steps and tm["lr"] == lr and tm["split"] == split:
                tm["note"] = f"the chosen learning-rate trial ({trial_npy.name})"
                save(name, np.load(trial_npy), tm)
                log(f"{name}: reused the learning-rate trial")
                continue
        vec, losses, secs, vl = train_one(st, m, layer, lr, args.steps, *splits(layer), targets)
        save(name, vec, meta_of(m, layer, lr, args.steps, losses, secs, vl))
        log("%s saved (%.0f s, val loss %.4f)" % (name, secs, vl))


if __name__ == "__main__":
    main()
