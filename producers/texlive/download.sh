#!/bin/sh
# Download the pinned .deb files listed in a packages file (name=version lines) into DIR,
# recording name, version, size and sha256, and checking each against `apt-cache show`'s SHA256.
# Usage: producers/texlive/download.sh PACKAGES_FILE DEB_DIR
# Requires: apt-get update done once (root), network access to a Debian bookworm mirror.
set -eu
PKGS=$(readlink -f "$1"); DIR="$2"
mkdir -p "$DIR"
cd "$DIR"
grep -v '^#' "$PKGS" | grep -v '^$' | while read -r spec; do
  name="${spec%%=*}"; ver="${spec#*=}"
  fver=$(echo "$ver" | sed 's/:/%3a/')
  f=$(ls "${name}_${fver}"_*.deb 2>/dev/null | head -1 || true)
  if [ -z "$f" ]; then
    apt-get download "$name=$ver"
    f=$(ls "${name}_${fver}"_*.deb | head -1)
  fi
  got=$(sha256sum "$f" | cut -d' ' -f1)
  want=$(apt-cache show "$name=$ver" | awk '/^SHA256:/{print $2; exit}')
  if [ "$got" != "$want" ]; then echo "SHA256 MISMATCH $f got $got want $want" >&2; exit 1; fi
  echo "$name $ver $f $got"
done
