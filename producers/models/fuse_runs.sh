#!/bin/sh
# Lexical-model fusion runs (equal-weight RRF, k = 60, depth 100, stable input order), fused by
# nclue itself from the frozen lexical and model runs: rerunning rewrites the same files.
# Usage (repository root): sh producers/models/fuse_runs.sh [minilm|splade|all]
# The release is data/v1 unless NCLUE_PRODUCER_RELEASE=v2 (as for the other producers).
set -eu
which=${1:-all}
release=data/${NCLUE_PRODUCER_RELEASE:-v1}
fuse() {  # fuse ID BASE INPUT...
  id=$1; base=$2; shift 2
  python -m nclue fuse --release "$release" --method rrf --block complementarity --id "$id" \
    --base "$base" --inputs "$@"
}
for family in minilm splade; do
  [ "$which" = all ] || [ "$which" = "$family" ] || continue
  for form in clean raw natural; do
    fuse "rrf_bm25_and+${family}_joint_top3.$form" "${family}_joint_top3.$form" \
      "bm25_and.$form" "${family}_joint_top3.$form"
  done
  fuse "rrf_bm25_or+${family}_joint_best.clean" "${family}_joint_best.clean" \
    bm25_or.clean "${family}_joint_best.clean"
  fuse "rrf_bm25_and+${family}_cond_hmean_best.clean" "${family}_cond_hmean_best.clean" \
    bm25_and.clean "${family}_cond_hmean_best.clean"
done
