"""The draws documented in docs/inference.md reproduce a shipped interval bit for bit (issue 27).

This test follows the text of docs/inference.md, "The draws, exactly", step by step, and
imports nothing from ``nclue``: it reads the v1 release's files itself (queries, gold qrels, two
run files), forms the exact-gold-set families as the document states (sorted gold docids joined
by "|", ordered by that string, not by families.jsonl), draws the replicates from one
``random.Random(11)`` with ``choices(range(F), k=F)``, takes the type-7 quantiles at
``(1 - 0.95) / 2`` and its complement, and compares ``100 * bound`` with the shipped
``reference_metrics/v1/tables.json`` cells of the finding ``page_top3_discovery`` (Gold Hit@10,
minilm_joint_best.clean -> minilm_joint_top3.clean) with ``==``.
"""

import gzip
import json
import math
import random
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / "data" / "v1"
SHIPPED = ROOT / "reference_metrics" / "v1" / "tables.json"
BASE, VARIANT, K = "minilm_joint_best.clean", "minilm_joint_top3.clean", 10
SEED, REPLICATES, LEVEL = 11, 1000, 0.95


def _lines(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def gold_hit(run_file, golds, qids):
    """Step 1: Gold Hit@10 per query; ranking = docs by descending score, ties in file order."""
    ranked = {}
    for row in _lines(run_file):
        order = sorted(range(len(row["docs"])), key=lambda i: -row["scores"][i])  # stable sort
        ranked[row["qid"]] = [row["docs"][i] for i in order]
    return {q: int(any(d in golds.get(q, ()) for d in ranked.get(q, [])[:K])) for q in qids}


def type7(sorted_values, q):
    """Step 5: h = (B - 1) q, j = floor(h), t_(j) + (h - j)(t_(j+1) - t_(j))."""
    h = (len(sorted_values) - 1) * q
    j = math.floor(h)
    if j + 1 >= len(sorted_values):
        return sorted_values[-1]
    return sorted_values[j] + (h - j) * (sorted_values[j + 1] - sorted_values[j])


class DocumentedDraws(unittest.TestCase):
    def test_documented_procedure_gives_the_shipped_interval(self):
        qids = [row["qid"] for row in _lines(RELEASE / "queries.jsonl")]
        golds = {}
        for row in _lines(RELEASE / "qrels.jsonl.gz"):
            if row["label"] == "gold":
                golds.setdefault(row["qid"], set()).add(row["docid"])
        base = gold_hit(RELEASE / "runs" / f"{BASE}.jsonl.gz", golds, qids)
        variant = gold_hit(RELEASE / "runs" / f"{VARIANT}.jsonl.gz", golds, qids)
        d = {q: variant[q] - base[q] for q in qids}
        # step 2: family string per query, families sorted by that string
        family = {q: "|".join(sorted(golds[q])) if golds.get(q) else f"nogold:{q}" for q in qids}
        names = sorted(set(family.values()))
        index = {name: i for i, name in enumerate(names)}
        sums, sizes = [0] * len(names), [0] * len(names)
        for q in qids:
            sums[index[family[q]]] += d[q]
            sizes[index[family[q]]] += 1
        # steps 3-4: one generator, B calls of choices(range(F), k=F); sum / size per replicate
        rng = random.Random(SEED)
        stats = []
        for _ in range(REPLICATES):
            drawn = rng.choices(range(len(names)), k=len(names))
            stats.append(sum(sums[i] for i in drawn) / sum(sizes[i] for i in drawn))
        stats.sort()
        a = (1 - LEVEL) / 2
        lo, hi = 100.0 * type7(stats, a), 100.0 * type7(stats, 1 - a)
        shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
        table = next(t for t in shipped["tables"] if t["id"] == "findings")
        cells = next(r["cells"] for r in table["rows"] if r["row"] == "page_top3_discovery")
        self.assertEqual((lo, hi), (cells["ci_lo"], cells["ci_hi"]))
        self.assertEqual(100.0 * sum(d.values()) / len(d), cells["delta"])

    def test_families_jsonl_order_would_give_other_draws(self):
        # the documented order matters: families.jsonl numbers families by their first query
        rows = _lines(RELEASE / "families.jsonl")
        by_file = ["|".join(sorted(r["golds"])) for r in rows]
        self.assertNotEqual(by_file, sorted(by_file))


if __name__ == "__main__":
    unittest.main()
