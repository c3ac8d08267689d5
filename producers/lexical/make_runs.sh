#!/bin/sh
# Produce the lexical and control runs of a release with nclue's plain-Python retrievers.
# Usage: producers/lexical/make_runs.sh data/v1 build/v1/pages.jsonl.gz producers/lexical/plan_v1.json
# Deterministic: rerunning gives byte-identical run files (gzip mtime 0, sorted keys, fixed ties).
set -eu
release=$1; pages=$2; plan=$3
python -m nclue retrieve --release "$release" --pages "$pages" --plan "$plan"
# complementarity within the lexical family (equal-weight RRF k=60 depth 100; round robin)
python -m nclue fuse --release "$release" --method rrf --id rrf_bm25_and+bm25_page_top3.clean \
  --inputs bm25_and.clean bm25_page_top3.clean
python -m nclue fuse --release "$release" --method rrf --id rrf_bm25_or+bm25_sdr.clean \
  --inputs bm25_or.clean bm25_sdr.clean
python -m nclue fuse --release "$release" --method round-robin --id rr_bm25_and+bm25_page_top3.clean \
  --inputs bm25_and.clean bm25_page_top3.clean
