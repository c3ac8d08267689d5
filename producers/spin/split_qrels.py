"""Positive documents of the v1 training and validation queries (for FT-Doc and ARE).

    nice -n 10 python producers/spin/split_qrels.py      # standard library only (nclue), ~1 min

The release ships the training/validation queries without judgments (``data/v1/train_queries.jsonl``,
``val_queries.jsonl``: conditions and forms only). The document-supervised baselines of Multi3IR
(FT-Doc: "we concatenate positive documents across all perspectives per query into a single
positive set"; ARE: Hungarian matching to the gold documents) need them, so this script re-runs
the release's own construction (``nclue.instrument.construction.construct`` over
``build/v1/``, preset v1, the recorded seed) and judges every training and validation query with
the construction's rule (``qrels_for``: every document holding at least one condition, its clue
count and label), exactly as the test queries were judged.

Checks before writing (exit 1 on any failure): the rebuilt test queries and their qrels equal
``data/v1/queries.jsonl`` / ``qrels.jsonl.gz`` row for row, and the rebuilt val/train queries
equal the committed split files (qids, conditions, forms).

Output (committed, small): ``provenance/spin/split_positives_v1.jsonl.gz``, one line per query of
the val and train splits, ``{"qid", "split", "golds": [docids], "positives": [docids]}``. Positives follow Multi3IR's perspective reading
used by ``nclue.coverage.derive_perspectives``: a judged document supports condition i when its
evidence for i is non-empty (a gold supports every condition); ``positives`` is the union.
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

OUT = ROOT / "provenance" / "spin" / "split_positives_v1.jsonl.gz"


def positives_row(qid, split, qrels):
    n = len(qrels[0].pages) if qrels else 0
    supports = [sorted(r.docid for r in qrels if r.label == "gold" or r.pages[i])
                for i in range(n)]
    return {"qid": qid, "split": split,
            "golds": sorted(r.docid for r in qrels if r.label == "gold"),
            "positives": sorted({d for s in supports for d in s})}


def main():
    t0 = time.time()
    inputs = read_build(ROOT / "build" / "v1")
    construction = construct(inputs, preset("v1"))
    print(f"construction rebuilt in {time.time() - t0:.0f} s", file=sys.stderr)
    # 1. the test split must be the committed one
    test = {o["qid"]: o for _, o in iter_jsonl(ROOT / "data" / "v1" / "queries.jsonl")}
    got = {q.qid: q for q in construction.queries}
    if sorted(test) != sorted(got) or any(list(got[k].names) != test[k]["conditions"]
                                          or dict(got[k].forms) != test[k]["forms"] for k in test):
        raise SystemExit("rebuilt test queries differ from data/v1/queries.jsonl")
    committed = sorted((o["qid"], o["docid"], o["clues"], o["label"])
                       for _, o in iter_jsonl(ROOT / "data" / "v1" / "qrels.jsonl.gz"))
    rebuilt = sorted((r.qid, r.docid, r.clues, r.label) for r in construction.qrels)
    if committed != rebuilt:
        raise SystemExit("rebuilt test qrels differ from data/v1/qrels.jsonl.gz")
    rows = []
    for split in ("val", "train"):
        path = ROOT / "data" / "v1" / f"{split}_queries.jsonl"
        mine = {o["qid"]: o for _, o in iter_jsonl(path)}
        extra = {q.qid: q for q in construction.extra[split]}
        if sorted(mine) != sorted(extra) or any(list(extra[k].names) != mine[k]["conditions"]
                                                or dict(extra[k].forms) != mine[k]["forms"]
                                                for k in mine):
            raise SystemExit(f"rebuilt {split} queries differ from {path}")
        for qid in sorted(extra):
            q = extra[qid]
            qrels = qrels_for(construction.inventory, qid, q.cids, construction.config.page_gates)
            rows.append(positives_row(qid, split, qrels))
    write_jsonl_atomic(OUT, rows)
    digest = hashlib.sha256(OUT.read_bytes()).hexdigest()
    npos = [len(r["positives"]) for r in rows]
    print(json.dumps({"file": str(OUT.relative_to(ROOT)), "sha256": digest, "queries": len(rows),
                      "mean_positives": round(sum(npos) / len(npos), 2),
                      "queries_without_gold": sum(1 for r in rows if not r["golds"]),
                      "seconds": round(time.time() - t0, 1)}, sort_keys=True))


if __name__ == "__main__":
    main()
