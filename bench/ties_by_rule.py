"""How much the tie rule moves each frozen run of a release (stdlib only; not a test).

For every run in ``<release>/runs/index.json``: the n-Clue Score@10, Gold Hit@10, Gold-NDCG@10,
graded NDCG@10 and AUC under the tie rules ``input``, ``trec_eval`` and ``expected``, and the
number of queries whose n-Clue or Gold Hit outcome a score tie decides (:mod:`nclue.ties`).

Usage: ``python bench/ties_by_rule.py data/v1 bench/results/ties_v1.json``
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nclue.formats import write_json_atomic  # noqa: E402
from nclue.metrics import aggregate, outcomes, per_query_from_outcomes, query_facts  # noqa: E402
from nclue.release import load_release  # noqa: E402
from nclue.runs import TIE_RULES, load_run  # noqa: E402
from nclue.ties import tie_decided_queries  # noqa: E402

MEASURES = ("nclue_score@10", "gold_hit@10", "gold_ndcg@10", "graded_ndcg@10", "auc")


def main(release_dir: str, out: str) -> None:
    release = load_release(release_dir)
    facts = query_facts(release)
    index = json.load(open(os.path.join(release_dir, "runs", "index.json")))["runs"]
    runs = {}
    for entry in index:
        path = os.path.join(release_dir, "runs", entry["file"])
        row = {}
        for rule in TIE_RULES:
            run = load_run(path, release, ties=rule)
            scores = aggregate(per_query_from_outcomes(outcomes(release, run, 10, facts), 10))
            row[rule] = {m: scores[m] for m in MEASURES}
        row["tie_decided_queries"] = len(tie_decided_queries(facts, run, 10))
        runs[entry["id"]] = row
    moved = sorted(r for r, v in runs.items()
                   if abs(v["input"]["nclue_score@10"] - v["trec_eval"]["nclue_score@10"]) >= 0.05)
    summary = {"runs": len(runs),
               "runs_with_tie_decided_queries": sum(1 for v in runs.values() if v["tie_decided_queries"]),
               "runs_nclue_moves_0.05_input_vs_trec_eval": len(moved),
               "max_abs_nclue_input_minus_expected": max(
                   abs(v["input"]["nclue_score@10"] - v["expected"]["nclue_score@10"]) for v in runs.values())}
    write_json_atomic(out, {"release": release.name, "k": 10, "summary": summary, "runs": runs})
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
