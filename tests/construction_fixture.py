"""A hand-made build folder for the construction and verifier tests (not a test module).

Six short documents whose page sets, labels and gates are worked out by hand in
tests/test_construction.py.  Entities: BibTeX, PostScript, TikZ (given explicitly);
sections from outlines, including the alias merges Acknowledgments -> acknowledgements and
Bibliography -> references.
"""

import gzip
import json
import os

DOCS = {
    "dA": ["Introduction to the package.", "Use BibTeX for references.",
           "Output as PostScript files.", "Drawing with TikZ.", "Acknowledgments\nThanks to all."],
    "dB": ["Overview", "BibTeX and PostScript together.", "References\n[1] A book."],
    # p3 is an index page (ignored for entities); p4 holds near misses only.
    "dC": ["Contents\nBibTeX with TikZ", "PostScript and TikZ", "BibTeX, 2; PostScript, 3; TikZ, 4",
           "bibtex PostScripts pdfTikZ TikZ_x"],
    # p2 is a table-of-contents page (ignored for entities).
    "dD": ["Plain text about ConTeXt.", "BibTeX ........ 3", "TikZ pictures."],
    "dE": ["BibTeX-based workflow.", "Acknowledgements\nWe thank."],
    "dF": ["Introduction.", "Nothing here.", "Bibliography\nBibTeX entries."],
}
FLAGS = {("dC", 3): ["index"], ("dD", 2): ["toc"]}
OUTLINES = {
    "dA": [("1 Introduction", 1, 1), ("Acknowledgments", 5, 1)],
    "dB": [("References", 3, 1)],
    "dC": [("Contents", 1, 1)],
    "dE": [("3 Acknowledgements", 2, 1)],
    "dF": [("Bibliography", 3, 1)],
}
TERMS = ("BibTeX", "PostScript", "TikZ")
TEST_CONFIG = {"entity_terms": list(TERMS), "min_df": 2, "max_df_fraction": 1.0,
               "max_gold_per_doc": 100, "max_queries_per_condition": 100, "max_holders": 5,
               "n_queries": 12, "three_fraction": 1 / 3, "n_train": 0, "n_val": 0, "seed": 7}


def write_build(folder: str, docs=None, flags=None, outlines=None) -> None:
    docs = DOCS if docs is None else docs
    flags = FLAGS if flags is None else flags
    outlines = OUTLINES if outlines is None else outlines
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "documents.jsonl"), "w", encoding="utf-8") as out:
        for docid, pages in sorted(docs.items()):
            out.write(json.dumps({"docid": docid, "pages": len(pages), "source": "test",
                                  "sha256": "0" * 64, "text_sha256": "1" * 64,
                                  "language": "en", "title": docid}) + "\n")
    lines = []
    for docid, pages in sorted(docs.items()):
        for number, text in enumerate(pages, start=1):
            lines.append(json.dumps({"docid": docid, "page": number, "text": text,
                                     "flags": flags.get((docid, number), [])}) + "\n")
    with gzip.open(os.path.join(folder, "pages.jsonl.gz"), "wt", encoding="utf-8") as out:
        out.write("".join(lines))
    with open(os.path.join(folder, "outlines.jsonl"), "w", encoding="utf-8") as out:
        for docid, items in sorted(outlines.items()):
            out.write(json.dumps({"docid": docid, "method": "outline",
                                  "items": [{"title": t, "page": p, "level": lv}
                                            for t, p, lv in items]}) + "\n")
