"""Per-condition supporting documents of the held-out-perspective validation and training queries.

    nice -n 10 python producers/spin/heldout_supports.py      # standard library only (nclue), ~1-2 min

The release ships no judgments for its training/validation queries. As ``split_qrels.py`` does,
this re-runs the release's own construction over ``build/v1`` (preset v1, the recorded seed),
checks that it rebuilds the committed test qrels, and judges the queries of
``data/v1/val_queries_heldout.jsonl`` and ``train_queries_heldout.jsonl`` with the construction's
rule (``qrels_for``, label version P0, the release's). Condition i of a query is supported by
every judged document whose evidence for i is non-empty, and by every gold (Multi3IR's
perspective reading, ``nclue.coverage.derive_perspectives``).

Output (committed, small): ``provenance/spin/heldout/split_supports_v1.jsonl.gz``, one line per
query: ``{"qid", "split", "condition_ids", "golds", "supports": [[docids] per condition]}``.
Validation HC@k of the held-out cells (model selection) is computed from it by
``infer_heldout.py`` and re-checked by ``reproduce.py``.
"""

import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from nclue.formats import iter_jsonl, write_jsonl_atomic  # noqa: E402
from nclue.instrument.config import preset  # noqa: E402
from nclue.instrument.construction import construct, qrels_for  # noqa: E402
from nclue.instrument.inputs import read_build  # noqa: E402

OUT = ROOT / "provenance" / "spin" / "heldout" / "split_supports_v1.jsonl.gz"


def main():
    t0 = time.time()
    construction = construct(read_build(ROOT / "build" / "v1"), preset("v1"))
    committed = sorted((o["qid"], o["docid"], o["clues"], o["label"])
                       for _, o in iter_jsonl(ROOT / "data" / "v1" / "qrels.jsonl.gz"))
    if committed != sorted((r.qid, r.docid, r.clues, r.label) for r in construction.qrels):
        raise SystemExit("rebuilt test qrels differ from data/v1/qrels.jsonl.gz")
    rows = []
    for split in ("val", "train"):
        path = ROOT / "data" / "v1" / f"{split}_queries_heldout.jsonl"
        mine = {o["qid"]: o for _, o in iter_jsonl(path)}
        extra = {q.qid: q for q in construction.extra[split]}
        for qid in sorted(mine):
            q = extra[qid]
            if list(q.names) != mine[qid]["conditions"]:
                raise SystemExit(f"{qid}: rebuilt conditions differ from {path}")
            qrels = qrels_for(construction.inventory, qid, q.cids, construction.config.page_gates)
            n = len(q.cids)
            rows.append({"qid": qid, "split": split, "condition_ids": list(q.cids),
                         "golds": sorted(r.docid for r in qrels if r.label == "gold"),
                         "supports": [sorted(r.docid for r in qrels if r.label == "gold" or r.pages[i])
                                      for i in range(n)]})
    write_jsonl_atomic(OUT, rows)
    print(json.dumps({"file": str(OUT.relative_to(ROOT)), "sha256": hashlib.sha256(OUT.read_bytes()).hexdigest(),
                      "queries": len(rows), "seconds": round(time.time() - t0, 1)}, sort_keys=True))


if __name__ == "__main__":
    main()
