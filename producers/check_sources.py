#!/usr/bin/env python3
"""Check a rebuilt build/<release>/ against the committed provenance/sources_<release>.json.

Usage: python3 producers/check_sources.py v1 [--build build]
Compares the sha256 of documents.jsonl, pages.jsonl.gz, outlines.jsonl and excluded.jsonl, and
every kept document's sha256 / text_sha256; prints the differences and exits 1 if any.
Standard library only.
"""

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("release", choices=["v1", "v2"])
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--provenance", default=None)
    args = p.parse_args(argv)
    prov_path = Path(args.provenance or ROOT / "provenance" / f"sources_{args.release}.json")
    prov = json.loads(prov_path.read_text())
    out = Path(args.build) / args.release
    problems = []
    for name, want in sorted(prov["files_sha256"].items()):
        f = out / name
        got = hashlib.sha256(f.read_bytes()).hexdigest() if f.exists() else "missing"
        if got != want:
            problems.append(f"{name}: sha256 {got} != recorded {want}")
    docs = {}
    doc_file = out / "documents.jsonl"
    if doc_file.exists():
        for line in doc_file.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            docs[row["docid"]] = row
    for d in prov["documents"]:
        row = docs.get(d["docid"])
        if row is None:
            problems.append(f"{d['docid']}: missing from documents.jsonl")
            continue
        for key in ("sha256", "text_sha256", "pages"):
            if row[key] != d[key]:
                problems.append(f"{d['docid']}: {key} {row[key]} != recorded {d[key]}")
    extra = sorted(set(docs) - {d["docid"] for d in prov["documents"]})
    problems += [f"{d}: not in the recorded provenance" for d in extra]
    for line in problems[:50]:
        print(line)
    print(f"{args.release}: {len(prov['documents'])} recorded documents, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
