#!/bin/sh
# Unpack every .deb of DEB_DIR with `dpkg-deb -x` into SRC_DIR/<package name>/.
# Usage: producers/texlive/unpack.sh DEB_DIR SRC_DIR
set -eu
DEBS="$1"; SRC="$2"
mkdir -p "$SRC"
for f in "$DEBS"/*.deb; do
  name=$(dpkg-deb -f "$f" Package)
  if [ -f "$SRC/$name/.unpacked" ]; then continue; fi
  rm -rf "$SRC/$name"; mkdir -p "$SRC/$name"
  dpkg-deb -x "$f" "$SRC/$name"
  touch "$SRC/$name/.unpacked"
  echo "unpacked $name"
done
