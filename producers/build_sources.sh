#!/bin/sh
# Rebuild the v1 and v2 source pools (build/v1, build/v2) from pinned Debian packages.
# Run as root on Debian bookworm from the repository root:  sh producers/build_sources.sh
# Needs network access to a bookworm mirror (or snapshot.debian.org) and about 8 GB of disk.
# Logs go to build/logs/. See provenance/RECONSTRUCT.md and provenance/extraction_rules.md.
set -eu
mkdir -p build/logs build/debs
apt-get update
apt-get install -y poppler-utils qpdf
for rel in v1 v2; do
  producers/texlive/download.sh "producers/texlive/packages_$rel.txt" "build/debs/$rel" \
    > "build/debs/$rel.manifest"
  producers/texlive/unpack.sh "build/debs/$rel" "build/sources/$rel" > "build/logs/unpack_$rel.log"
done
nice -n 10 python3 producers/texlive/build_v1.py extract 2> build/logs/extract_v1.log
nice -n 10 python3 producers/texlive/build_v1.py assemble --provenance build/sources_v1.rebuilt.json \
  2> build/logs/assemble_v1.log
nice -n 10 python3 producers/v2/build_v2.py extract 2> build/logs/extract_v2.log
nice -n 10 python3 producers/v2/build_v2.py assemble --provenance build/sources_v2.rebuilt.json \
  2> build/logs/assemble_v2.log
python3 producers/check_sources.py v1
python3 producers/check_sources.py v2
