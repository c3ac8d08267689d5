#!/usr/bin/env python3
"""v1 source producer: TeX Live documentation PDFs -> build/v1/ (issue 4).

Usage (from the repository root, after download.sh and unpack.sh):
    nice -n 10 python3 producers/texlive/build_v1.py extract   # pdfinfo + pdftotext + outlines
    nice -n 10 python3 producers/texlive/build_v1.py assemble  # language, quality, dedup, budget
Options: --build DIR (default build), --workers N (default 2).

Outputs (git-ignored): build/v1/{documents.jsonl, pages.jsonl.gz, outlines.jsonl,
excluded.jsonl, provenance.json, READY}; the committed record is provenance/sources_v1.json.
Rules: provenance/extraction_rules.md. nclue never imports this file.
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from producers import pdfpipe, pool  # noqa: E402
from producers.textrules import make_docid  # noqa: E402

MIN_PAGES, MAX_PAGES = 10, 300
DOC_PREFIX = "usr/share/doc/texlive-doc/"


def docid_for(row) -> str:
    return make_docid("tl", row["path"], strip_prefixes=(DOC_PREFIX, "usr/share/doc/"))


def load_inventory(build: Path, workers: int):
    manifest = pdfpipe.read_manifest(build / "debs" / "v1.manifest")
    cache = build / "cache" / "v1"
    inv_path = cache / "inventory.json"
    if inv_path.exists():
        return json.loads(inv_path.read_text()), cache
    rows = pdfpipe.inventory(build / "sources" / "v1", manifest, cache, workers=workers)
    for r in rows:
        r["docid"] = docid_for(r)
    inv_path.write_text(json.dumps(rows, sort_keys=True))
    return rows, cache


def cmd_extract(args) -> int:
    build = Path(args.build)
    t0 = time.time()
    rows, cache = load_inventory(build, args.workers)
    t_inv = time.time() - t0
    reps = pool.exact_representatives(rows)
    todo = sorted({(r["abspath"], r["sha256"]) for r in rows
                   if r["docid"] == reps[r["sha256"]]
                   and MIN_PAGES <= int(r.get("pages", 0)) <= MAX_PAGES},
                  key=lambda t: t[1])
    t1 = time.time()
    pdfpipe.extract(todo, cache, workers=args.workers)
    timing = {"inventory_s": round(t_inv, 1), "extract_s": round(time.time() - t1, 1),
              "pdfs": len(rows), "extracted": len(todo)}
    (cache / "timing_extract.json").write_text(json.dumps(timing, sort_keys=True))
    print(json.dumps(timing), file=sys.stderr)
    return 0


def cmd_assemble(args) -> int:
    build = Path(args.build)
    rows, cache = load_inventory(build, args.workers)
    manifest = pdfpipe.read_manifest(build / "debs" / "v1.manifest")
    for r in rows:
        r["source"] = f"texlive:{r['package']}"
    config = pool.PoolConfig(release="v1", min_pages=MIN_PAGES, max_pages=MAX_PAGES,
                             page_budget=args.page_budget, seed=args.seed)
    out = Path(args.out) if args.out else build / "v1"
    prov = Path(args.provenance) if args.provenance else ROOT / "provenance" / "sources_v1.json"
    pool.assemble_pdf_release(rows, cache, out, config, manifest, pdfpipe.tool_versions(), prov)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("stage", choices=["extract", "assemble"])
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--page-budget", type=int, default=30000)
    p.add_argument("--seed", type=int, default=20260401)
    p.add_argument("--out", default=None, help="output folder (default BUILD/v1)")
    p.add_argument("--provenance", default=None,
                   help="provenance JSON to write (default provenance/sources_v1.json)")
    args = p.parse_args(argv)
    return cmd_extract(args) if args.stage == "extract" else cmd_assemble(args)


if __name__ == "__main__":
    sys.exit(main())
