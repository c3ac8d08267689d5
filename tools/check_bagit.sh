#!/usr/bin/env bash
# Dev check (not a test; needs the network once): the bag written by `nclue archive` validates
# with the reference BagIt implementation, the `bagit` package of the Library of Congress,
# installed in its own virtual environment (.venv-bagit, git-ignored; never imported by nclue).
# Also runs reproduce.py inside the extracted payload (the bag must stay valid) and checks that
# bagit.py rejects a tampered copy, so that this check can fail.
#   bash tools/check_bagit.sh            # prints the record kept in bench/results/bagit_check.txt
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV="$PWD/.venv-bagit"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "bagit==1.9.0"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "\$ python -m nclue archive --out nclue-v1.tar"
"$PY" -m nclue archive --out "$work/nclue-v1.tar" 2>&1 | sed "s#$work/##"
echo "\$ sha256sum nclue-v1.tar"
(cd "$work" && sha256sum nclue-v1.tar)
mkdir "$work/x"
tar -xf "$work/nclue-v1.tar" -C "$work/x"
echo "\$ bagit.py --validate nclue-v1    # bagit $("$VENV/bin/python" -c 'import bagit; print(bagit.VERSION)'); per-file INFO lines left out"
(cd "$work/x" && "$VENV/bin/bagit.py" --validate nclue-v1 2>&1 | grep -v " - INFO - Verifying checksum" | sed -E 's/^[0-9-]+ [0-9:,]+ - //')
echo "\$ python -c 'bagit.Bag(\"nclue-v1\").validate(); print(is_valid, payload files, Payload-Oxum)'"
(cd "$work/x" && "$VENV/bin/python" -c '
import bagit
bag = bagit.Bag("nclue-v1")
bag.validate()
print("valid:", bag.is_valid(), "| payload files:", len(list(bag.payload_files())),
      "| Payload-Oxum:", bag.info["Payload-Oxum"], "| BagIt", bag.version)')
echo "\$ cd nclue-v1/data && python -I -S reproduce.py    # last 2 lines"
(cd "$work/x/nclue-v1/data" && "$PY" -I -S reproduce.py 2>/dev/null | tail -n 2)
echo "\$ bagit.py --quiet --validate nclue-v1    # after reproduce.py ran inside it"
(cd "$work/x" && "$VENV/bin/bagit.py" --quiet --validate nclue-v1 2>&1 && echo "valid")
echo "\$ (change one payload byte, same size) bagit.py --quiet --validate nclue-v1"
"$PY" -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[10] ^= 1; open(p, "wb").write(b)' \
  "$work/x/nclue-v1/data/data/example/queries.jsonl"
if (cd "$work/x" && "$VENV/bin/bagit.py" --quiet --validate nclue-v1 2>&1 | sed -E 's/^[0-9-]+ [0-9:,]+ - //'; exit "${PIPESTATUS[0]}"); then
  echo "FAIL: bagit accepted a tampered bag"; exit 1
else
  echo "bagit.py rejected the tampered copy (expected)"
fi
