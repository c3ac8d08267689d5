#!/bin/sh
# Dev check: validate the committed Croissant metadata of v1 and v2 with mlcroissant, and read the
# first records of every record set through it. Not part of the tests (mlcroissant is a dev tool).
#   python3 -m venv .venv-croissant && .venv-croissant/bin/pip install mlcroissant==1.1.1
#   sh bench/croissant_check.sh > bench/results/croissant_check.txt 2>&1
set -e
PY=${PY:-.venv-croissant/bin/python}
for release in v1 v2; do
  python3 -m nclue croissant --release data/$release --check
  echo "== mlcroissant validate --jsonld data/$release/croissant.json"
  .venv-croissant/bin/mlcroissant validate --jsonld data/$release/croissant.json 2>&1 | sed 's/^[IWE][0-9]* [0-9:.]* *[0-9]* //'
  echo "== first record of each record set (data/$release)"
  "$PY" - "data/$release/croissant.json" <<'PYEOF' 2>&1 | grep -v '^[IW][0-9]\{4\} '
import itertools, sys
import mlcroissant as mlc
ds = mlc.Dataset(jsonld=sys.argv[1])
for rs in ("queries", "qrels", "corpus", "evidence", "runs"):
    first = next(iter(ds.records(record_set=rs)))
    short = {k: (v[:3] + ["..."] if isinstance(v, list) and len(v) > 3 else v) for k, v in first.items()}
    print(rs, short)
PYEOF
done
echo "mlcroissant $("$PY" -c 'from importlib.metadata import version; print(version("mlcroissant"))')"
