"""Copy the measured facts of the model runs into provenance/model_runs.json ("measured").

    python producers/models/summarize.py

Reads build/models/minilm/manifest.json (page embedding: count, settings, pages/s, sha256 of the
embedding matrix, which itself is never committed) and provenance/spin/*.json (training time,
validation loss per cell). Other keys of the provenance file are kept.
"""

import json

from common import BUILD, PROVENANCE, ROOT, read_json, write_json_atomic


def main():
    prov = read_json(PROVENANCE)
    manifest = json.load(open(BUILD / "minilm" / "manifest.json"))
    spin = {}
    for path in sorted((ROOT / "provenance" / "spin").glob("spin_m*_l*.json")):
        meta = json.load(open(path))
        spin[path.stem] = {k: meta.get(k) for k in ("m", "layer", "lr", "steps", "train_seconds",
                                                    "val_loss", "mean_pairwise_cosine",
                                                    "vectors_sha256")}
    lr = json.load(open(ROOT / "provenance" / "spin" / "lr_selection.json"))
    prov["measured"] = {
        "page_embeddings": {k: manifest[k] for k in ("pages", "dim", "settings", "measured",
                                                     "input_sha256", "embeddings_sha256",
                                                     "weight_sha256", "package_version", "torch",
                                                     "transformers", "sentence_transformers")},
        "spin_lr_selection": lr,
        "spin_cells": spin,
        "machine": "shared 2-core CPU (7 engineers), no GPU; times are wall seconds under that load",
    }
    write_json_atomic(PROVENANCE, prov)


if __name__ == "__main__":
    main()
