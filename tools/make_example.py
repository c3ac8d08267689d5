"""Write data/example/: a small hand-constructed instrument (6 queries, 12 documents, 3 runs).

Every value here is chosen by hand; the qrels follow from the hand-written inventory below by the
construction rules of the n-Clue paper (sec. 3.2): gold = every condition present, no single page
holding all, and a distinct-page assignment; otherwise a subset (an all-condition subset names the
gate it failed). tests/test_example_release.py re-derives the qrels from this inventory by hand
and works out every score. Run: python tools/make_example.py
"""

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nclue.formats import write_json_atomic, write_jsonl_atomic  # noqa: E402
from nclue.release import render_forms  # noqa: E402

OUT = ROOT / "data" / "example"

# document -> (page count, {condition: support pages})
INVENTORY = {
    "d01": (12, {"Acknowledgements": [2], "TikZ": [5, 6], "beamer": [8]}),
    "d02": (8, {"Acknowledgements": [1], "babel": [3]}),
    "d03": (6, {"Acknowledgements": [3], "TikZ": [3], "microtype": [4]}),
    "d04": (20, {"Bibliography": [1], "PGF": [4], "hyperref": [9]}),
    "d05": (15, {"Bibliography": [2], "PGF": [2, 3], "hyperref": [7]}),
    "d06": (10, {"Bibliography": [6], "hyperref": [2]}),
    "d07": (9, {"PGF": [1]}),
    "d08": (7, {"Bibliography": [5], "PGF": [5], "hyperref": [6]}),
    "d09": (30, {"Index": [28], "beamer": [3, 4]}),
    "d10": (11, {"Introduction": [1], "TikZ": [7], "babel": [9], "beamer": [2]}),
    "d11": (14, {"Introduction": [1], "TikZ": [6], "Examples": [10], "fontspec": [12],
                 "microtype": [13]}),
    "d12": (25, {"Examples": [4], "fontspec": [20], "microtype": [21], "babel": [15]}),
}

QUERIES = {
    "q1": ["Acknowledgements", "TikZ"],
    "q2": ["Bibliography", "PGF", "hyperref"],
    "q3": ["Index", "beamer"],
    "q4": ["Introduction", "TikZ", "babel"],
    "q5": ["Examples", "fontspec"],
    "q6": ["Examples", "microtype"],
}

# Hand-derived judgments: (clues, label, gate). See the module docstring and the test.
QRELS = {
    "q1": {"d01": (2, "gold", None), "d02": (1, "subset", None),
           "d03": (2, "subset", "single_page"), "d10": (1, "subset", None),
           "d11": (1, "subset", None)},
    "q2": {"d04": (3, "gold", None), "d05": (3, "gold", None), "d06": (2, "subset", None),
           "d07": (1, "subset", None), "d08": (3, "subset", "distinct_page")},
    "q3": {"d09": (2, "gold", None), "d01": (1, "subset", None), "d10": (1, "subset", None)},
    "q4": {"d10": (3, "gold", None), "d11": (2, "subset", None), "d12": (1, "subset", None),
           "d01": (1, "subset", None), "d02": (1, "subset", None), "d03": (1, "subset", None)},
    "q5": {"d11": (2, "gold", None), "d12": (2, "gold", None)},
    "q6": {"d11": (2, "gold", None), "d12": (2, "gold", None), "d03": (1, "subset", None)},
}

RUNS = {
    # lexical-like run with a score tie in q1 (input order: gold first; trec_eval: d02 first),
    # a no-gold ranking (q3) and a missing query (q6).
    "example_lexical": {
        "q1": [("d01", 5.0), ("d02", 5.0), ("d03", 4.0), ("d07", 1.0)],
        "q2": [("d06", 9.0), ("d04", 8.0), ("d07", 7.0), ("d05", 6.0)],
        "q3": [("d01", 3.0), ("d10", 2.0)],
        "q4": [("d10", 7.5), ("d11", 7.0), ("d12", 1.0)],
        "q5": [("d03", 2.0), ("d12", 1.5), ("d11", 1.0)],
    },
    "example_dense": {
        "q1": [("d10", 0.9), ("d11", 0.8), ("d03", 0.7), ("d02", 0.6), ("d01", 0.5)],
        "q2": [("d05", 0.9), ("d08", 0.8), ("d04", 0.7)],
        "q3": [("d09", 0.9)],
        "q4": [("d02", 0.9), ("d10", 0.8)],
        "q5": [("d12", 0.9), ("d11", 0.8)],
        "q6": [("d03", 0.9), ("d11", 0.8), ("d12", 0.7)],
    },
    "example_pages": {
        "q1": [("d01", 0.9), ("d02", 0.8)],
        "q2": [("d04", 0.9), ("d05", 0.8), ("d06", 0.7)],
        "q3": [("d09", 0.9)],
        "q4": [("d11", 0.9), ("d10", 0.8)],
        "q5": [("d07", 0.5)],
        "q6": [("d12", 0.9), ("d11", 0.8)],
    },
}

PAGES = {  # page scores of the page-scored run: (qid, docid) -> [[page, score], ...]
    ("q1", "d01"): [[2, 0.9], [5, 0.8], [9, 0.1]],
    ("q2", "d04"): [[1, 0.9], [4, 0.8], [3, 0.7], [9, 0.6]],
    ("q2", "d05"): [[7, 0.5], [2, 0.5], [3, 0.4]],
    ("q3", "d09"): [[28, 0.2], [1, 0.9], [2, 0.8], [5, 0.7]],
    ("q4", "d10"): [[1, 0.9], [1, 0.8], [7, 0.8], [9, 0.7], [2, 0.6]],
    ("q6", "d12"): [[4, 0.9], [21, 0.9]],
}

RUN_INFO = {
    "example_lexical": {"family": "lexical", "operation": "joint query", "base": None},
    "example_dense": {"family": "dense", "operation": "joint query", "base": "example_lexical"},
    "example_pages": {"family": "visual", "operation": "page MaxSim", "base": None},
}


def fake_sha(docid: str) -> str:
    """The example's documents are imaginary: their 'sha256' hashes the docid, stated as such."""
    return hashlib.sha256(f"nclue example document {docid}".encode()).hexdigest()


def main() -> None:
    write_jsonl_atomic(OUT / "queries.jsonl", [
        {"qid": q, "conditions": c, "forms": render_forms(tuple(c))} for q, c in QUERIES.items()])
    write_jsonl_atomic(OUT / "corpus.jsonl", [
        {"docid": d, "pages": n, "source": "example:hand-made", "sha256": fake_sha(d)}
        for d, (n, _) in sorted(INVENTORY.items())])
    qrel_rows, evidence_rows = [], []
    for qid, judged in QRELS.items():
        for docid, (clues, label, gate) in sorted(judged.items()):
            row = {"qid": qid, "docid": docid, "clues": clues, "label": label}
            if gate:
                row["gate"] = gate
            qrel_rows.append(row)
            support = INVENTORY[docid][1]
            evidence_rows.append({"qid": qid, "docid": docid,
                                  "pages": [support.get(c, []) for c in QUERIES[qid]]})
    write_jsonl_atomic(OUT / "qrels.jsonl", qrel_rows)
    write_jsonl_atomic(OUT / "evidence.jsonl", evidence_rows)
    index = []
    for run_id, rankings in RUNS.items():
        rows = []
        for qid, ranked in sorted(rankings.items()):
            row = {"qid": qid, "docs": [d for d, _ in ranked], "scores": [s for _, s in ranked]}
            pages = {d: PAGES[(qid, d)] for d, _ in ranked if (qid, d) in PAGES}
            if run_id == "example_pages":
                row["pages"] = pages
            rows.append(row)
        path = OUT / "runs" / f"{run_id}.jsonl.gz"
        write_jsonl_atomic(path, rows)
        info = dict(RUN_INFO[run_id])
        index.append({"id": run_id, "file": f"{run_id}.jsonl.gz", "form": "clean",
                      "configuration": {}, "producer": "tools/make_example.py (hand-made)",
                      "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), **info})
    write_json_atomic(OUT / "runs" / "index.json", {"runs": index})


if __name__ == "__main__":
    main()
