"""Sensitivity check: every learning-rate grid of Table 5 was won by its largest value; train each
method once more at ten times that value (SPIN 1.0, prefix 1.0, LoRA 0.1, adapter 0.1; m = 5,
middle layer, the same 40 steps and batches) and record the validation noisy-OR loss next to the
grid's. Nothing is frozen from these trainings (no runs, no weights); the result says whether the
grid edge was binding.

    nice -n 10 python producers/spin/lr_edge_check.py     # -> provenance/spin/adapt/lr_edge_check.json
"""

import json
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "models"))

from adapt_runs import OUT, train_cell  # noqa: E402
from spin_lib import load_minilm, lower_states  # noqa: E402
from train_spin import (LR_GRID, VAL_QUERIES, Targets, check_disjoint, read_split,  # noqa: E402
                        train_one)

import train_spin  # noqa: E402


def main():
    torch.set_num_threads(2)
    train_q, val_q, test_q = (read_split("train_queries.jsonl"), read_split("val_queries.jsonl"),
                              read_split("queries.jsonl"))
    check_disjoint(train_q, val_q, test_q)
    val_q = val_q[:VAL_QUERIES]
    st = load_minilm(max_seq_length=128)
    targets = Targets(st, train_q + val_q)
    tstates = lower_states(st, [q.forms["natural"] for q in train_q], 3)
    vstates = lower_states(st, [q.forms["natural"] for q in val_q], 3)
    out = {"note": __doc__.split("\n\n")[0].replace("\n", " "), "layer": 3, "m": 5, "steps": 40,
           "trials": {}}
    # SPIN through train_spin's own loop (the frozen cells' code path)
    split_t = train_spin.Split.__new__(train_spin.Split)
    split_t.queries, split_t.states = train_q, tstates
    split_v = train_spin.Split.__new__(train_spin.Split)
    split_v.queries, split_v.states = val_q, vstates
    grid_best = json.load(open(OUT.parent / "spin_m5_l3.json"))["val_loss"]
    t = time.time()
    _, _, secs, vl = train_one(st, 5, 3, 10 * max(LR_GRID), 40, split_t, split_v, targets)
    out["trials"]["spin"] = {"grid_max_lr": max(LR_GRID), "grid_max_val_loss": grid_best,
                             "lr": 10 * max(LR_GRID), "val_loss": round(vl, 6),
                             "train_seconds": round(secs, 1)}
    for kind in ("prefix", "lora", "adapter"):
        sel = json.load(open(OUT / f"lr_selection_{kind}.json"))
        top = max(sel["grid"])
        _, _, secs, vl = train_cell(st, kind, 3, 10 * top, train_q, val_q, tstates, vstates, targets)
        out["trials"][kind] = {"grid_max_lr": top,
                               "grid_max_val_loss": sel["trials"][f"{top:g}"]["val_loss"],
                               "lr": 10 * top, "val_loss": round(vl, 6),
                               "train_seconds": round(secs, 1)}
    out["seconds"] = round(time.time() - t, 1)
    with open(OUT / "lr_edge_check.json", "w") as fh:
        json.dump(out, fh, indent=2, sort_keys=True)
        fh.write("\n")
    print(json.dumps(out["trials"], indent=1))


if __name__ == "__main__":
    main()
