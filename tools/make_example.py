"""Write data/example/: a small hand-constructed instrument (6 queries, 12 documents, 3 runs).

Every value here is chosen by hand; the qrels follow from the hand-written inventory below by the
construction rules of the n-Clue paper (sec. 3.2): gold = every condition present, no single page
holding all, and a distinct-page assignment; otherwise a subset (an all-condition subset names the
gate it failed). tests/test_example_release.py re-derives the qrels from this inventory by hand
and works out every score. Run: python tools/make_example.py

It also writes the example's own page text (``pages.jsonl``, the format of ``build/<release>/``:
``docid``, ``page``, ``text``, ``flags``) and the audit rubric of its conditions (``rubric.json``),
so that the offline label audit (``nclue audit``, docs/AUDIT.md) runs end to end on a release
that ships its text. The documents are imaginary and the text is written here, by this project:
each condition occurs, as a section heading or as a whole-word mention, exactly on the pages the
inventory lists, and a few pages hold deliberate near misses (a lower-case macro name, a
table-of-contents line, the word in running text) that the rubric says do not count.
"""

import hashlib
import random
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


# Condition kinds of the audit rubric: a section condition is a heading, an entity a whole-word,
# case-sensitive mention (the v1 rules, provenance/conditions_v1.md).
SECTIONS = {  # name -> (accepted alternative titles, body line written under the heading)
    "Acknowledgements": (["Acknowledgement", "Acknowledgments", "Acknowledgment", "Thanks"],
                         "The author is grateful to the people who tested early versions."),
    "Bibliography": (["References"], "[1] A. Writer. Typesetting with care. Small Press, 2019."),
    "Index": (["General Index"], "alignment, 4\ncolumns, 7\nmargins, 12"),
    "Introduction": (["Intro"], "This manual describes what the package does and how to load it."),
    "Examples": (["Example"], "The listing below shows a minimal document that loads the package."),
}
ENTITIES = {  # name -> sentence mentioning it
    "TikZ": "Diagrams in this manual are drawn with TikZ.",
    "PGF": "The drawing layer is built on PGF.",
    "hyperref": "Load hyperref last to get working links.",
    "beamer": "The package also works in beamer slides.",
    "babel": "Language settings are taken from babel.",
    "fontspec": "With XeLaTeX, fonts are chosen with fontspec.",
    "microtype": "Character protrusion is provided by microtype.",
}
FILLER = (  # none of these holds a condition name, an alternative title or a spelling of one
    "The package defines a small set of commands for page layout.",
    "Options are passed in the usual key=value form.",
    "Each command takes one mandatory argument and an optional one.",
    "The default values are chosen for A4 paper.",
    "Spacing between paragraphs can be changed with \\setlength.",
    "A warning is written to the log file when a value is out of range.",
    "The implementation keeps all internal macros in a private namespace.",
    "Fonts are selected through the standard interface.",
    "Tables may span several pages when the long format is used.",
    "Colours are defined once in the preamble and reused later.",
    "The package has been tested with the current kernel release.",
    "Counters are reset at the start of every chapter.",
    "Margins follow the settings of the document class.",
    "Line numbers can be switched on for draft copies.",
    "A future version may add support for right-to-left scripts.",
    "Compilation with the draft option skips all images.",
    "Error messages name the command that caused them.",
    "Lists can be nested up to four levels deep.",
    "The manual uses a monospaced font for code.",
    "Footnotes are numbered per page in this layout.",
)
# Near misses that do not count under the rubric: (docid, page) -> (line, flags)
NEAR_MISSES = {
    ("d02", 5): ("\\usetikzlibrary{positioning} % loads a drawing library", []),
    ("d12", 3): ("Commutative diagrams need the tikz-cd library.", []),
    ("d06", 1): ("Contents\n1 Overview ........ 2\n2 Bibliography ........ 6", ["toc"]),
    ("d03", 5): ("For example, set the width to half the line.", []),
    ("d01", 11): ("Terms are listed in the index at the end of this manual.", []),
    ("d10", 10): ("Thanks go to the reviewers of the first draft.", []),
}


def page_rows() -> list:
    """The example's page text, written by hand rules (module docstring); deterministic."""
    rows = []
    for docid, (count, support) in sorted(INVENTORY.items()):
        on_page = {}
        for condition, pages in support.items():
            for page in pages:
                on_page.setdefault(page, []).append(condition)
        number = 0
        for page in range(1, count + 1):
            rng = random.Random(f"nclue example page {docid} {page}")
            lines = [f"Sample manual {docid}{' ' * 20}{page}", ""]
            chosen = rng.sample(FILLER, 5)
            body, tail = chosen[:3], chosen[3:]
            for condition in sorted(on_page.get(page, []), key=lambda c: (c not in SECTIONS, c)):
                if condition in SECTIONS:
                    number += 1
                    lines += [f"{number} {condition}", SECTIONS[condition][1]]
                else:
                    body.insert(1, ENTITIES[condition])
            flags = []
            if (docid, page) in NEAR_MISSES:
                line, flags = NEAR_MISSES[(docid, page)]
                body.insert(0 if "toc" in flags else len(body), line)
            lines += body + tail
            rows.append({"docid": docid, "page": page, "text": "\n".join(lines) + "\n",
                         "flags": flags})
    return rows


def rubric() -> dict:
    """Audit rubric of the example's conditions (the format nclue.label_audit.rubric reads)."""
    conditions = []
    for name, (aliases, _) in sorted(SECTIONS.items()):
        conditions.append({"name": name, "kind": "section", "aliases": aliases})
    for name in sorted(ENTITIES):
        conditions.append({"name": name, "kind": "entity", "variants": [name]})
    return {"format": "nclue-audit-rubric", "version": 1, "release": "example",
            "page_gates": True, "excluded_page_flags": ["empty", "garbage", "index", "toc"],
            "conditions": conditions}


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
    write_jsonl_atomic(OUT / "pages.jsonl", page_rows())
    write_json_atomic(OUT / "rubric.json", rubric())


if __name__ == "__main__":
    main()
