"""Provenance files checked against the files they describe, not only by their checksum
(issue 23, item 1): editing one of them and refreezing SHA256SUMS no longer passes.

* Model-run records (``provenance/model_runs*.json``, ``runs[]``): each record is exactly the
  ``runs/index.json`` entry of the run it names in some release (plus the producer's library
  versions, ``environment``, which the index does not carry) (whose sha256 is checked against
  the run file when the release loads); its recorded inputs are the sha256 of that release's
  files (``queries``, the training and validation split files, ``heldout_conditions.json``), and
  the vectors or weights it names are those of a weight record below.
* Weight records (``provenance/**/*.json`` with ``vectors_file`` or ``weights_file``): the
  committed weight file has the recorded digest (:mod:`nclue.weights`, the file's sha256 or the
  arrays rule) and the recorded parameter count; random-direction records (``vectors_sha256``
  beside a ``.npy`` of the same name): that file's sha256.
* Query splits (``train_queries.jsonl``, ``val_queries.jsonl`` of a release): the construction's
  rule (:func:`nclue.instrument.enumeration.select_extra`): no condition pair of a query occurs
  in a query of another split, test included; no query (condition set) is in two splits; query
  ids are unique and carry their split's prefix; every condition id is in the construction
  record's inventory. Which candidates the seed picks needs the page text (``nclue
  verify-construction``).

Each function returns ``(files checked, problems)``; each problem names its file.
"""

import re
from itertools import combinations
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from .errors import InputError
from .formats import iter_jsonl, read_json, sha256_file
from .weights import checked_parameter_count, load_weights_record

#: record keys (in ``inputs``, ``configuration``, ``settings``) naming a release file's sha256,
#: with the release files each may be the digest of
RELEASE_INPUTS = {"queries": ("queries.jsonl",),
                  "train_sha256": ("train_queries.jsonl", "train_queries_heldout.jsonl"),
                  "val_sha256": ("val_queries.jsonl", "val_queries_heldout.jsonl"),
                  "heldout_conditions": ("heldout_conditions.json",),
                  "heldout_conditions_sha256": ("heldout_conditions.json",)}
#: keys of a model-run record that its runs/index.json entry does not carry (the producer's
#: library versions)
RECORD_ONLY = ("environment",)
#: record keys naming the digest of a weight record's vectors or weights
WEIGHT_DIGESTS = ("vectors_sha256", "weights_sha256")


def weight_records(root: Path) -> List[Path]:
    """Every JSON record under ``provenance/`` that names weights (sorted)."""
    out = []
    for path in sorted((root / "provenance").rglob("*.json")):
        try:
            obj = read_json(path)
        except InputError:
            out.append(path)  # unreadable: reported by weight_problems
            continue
        if isinstance(obj, dict) and ("vectors_file" in obj or "weights_file" in obj
                                      or ("vectors_sha256" in obj and path.with_suffix(".npy").exists())):
            out.append(path)
    return out


def weight_problems(root: Path, path: Path) -> Tuple[List[str], Optional[str]]:
    """Problems of one weight record, and the digest it vouches for (None when unreadable)."""
    obj = read_json(path)
    if "vectors_file" in obj or "weights_file" in obj:
        record = load_weights_record(path)
        checked_parameter_count(record, root)  # raises InputError naming the record
        return [], record.sha256
    sibling = path.with_suffix(".npy")
    actual = sha256_file(sibling)
    if actual != obj.get("vectors_sha256"):
        return [f"{path}: vectors_sha256 {obj.get('vectors_sha256')!r} is not the sha256 of {sibling.name} "
                f"({actual})"], None
    return [], actual


def _digests_of(folder: Path, names: Iterable[str]) -> Set[str]:
    return {sha256_file(folder / name) for name in names if (folder / name).is_file()}


def _recorded_inputs(record: Mapping[str, Any]) -> Iterable[Tuple[str, str]]:
    for part in ("inputs", "configuration", "settings"):
        section = record.get(part)
        if isinstance(section, dict):
            for key, value in section.items():
                if isinstance(value, str):
                    yield key, value


def run_record_problems(path: Path, releases: Mapping[str, Path],
                        weight_digests: Set[str]) -> Tuple[int, List[str]]:
    """``(records checked, problems)`` of a model-run record file against the releases' run
    indexes and files (``releases``: name -> release folder)."""
    document = read_json(path)
    runs = document.get("runs") if isinstance(document, dict) else None
    if not isinstance(runs, list):
        raise InputError(path, "expected an object with a 'runs' list")
    indexes: Dict[str, Dict[str, Any]] = {}
    for name, folder in releases.items():
        index_path = folder / "runs" / "index.json"
        if index_path.is_file():
            entries = read_json(index_path).get("runs") or []
            indexes[name] = {e.get("id"): e for e in entries if isinstance(e, dict)}
    problems: List[str] = []
    for number, record in enumerate(runs, start=1):
        where = f"{path}: run record {number}"
        if not isinstance(record, dict):
            problems.append(f"{where}: not an object")
            continue
        indexed = {k: v for k, v in record.items() if k not in RECORD_ONLY}
        homes = [name for name, entries in sorted(indexes.items()) if entries.get(record.get("id")) == indexed]
        if not homes:
            listed = [name for name, entries in sorted(indexes.items()) if record.get("id") in entries]
            problems.append(f"{where} ({record.get('id')!r}): " + (
                f"differs from its runs/index.json entry in {', '.join(listed)}" if listed
                else "names a run that no release's runs/index.json lists"))
            continue
        folder = releases[homes[0]]
        for key, value in _recorded_inputs(record):
            if key in RELEASE_INPUTS and re.match(r"^[0-9a-f]{64}$", value):
                if value not in _digests_of(folder, RELEASE_INPUTS[key]):
                    problems.append(f"{where} ({record['id']!r}): {key} {value[:12]}... is the sha256 of "
                                    f"none of {', '.join(RELEASE_INPUTS[key])} in {folder.name}")
            elif key in WEIGHT_DIGESTS and value not in weight_digests:
                problems.append(f"{where} ({record['id']!r}): {key} {value[:12]}... is the digest of no "
                                f"weight record under provenance/")
    return len(runs), problems


def split_problems(folder: Path, construction: Optional[Path]) -> Tuple[int, List[str]]:
    """``(split files checked, problems)`` of a release's training and validation query files
    against the construction's split rule (module docstring)."""
    splits: Dict[str, Path] = {"test": folder / "queries.jsonl"}
    for name in ("val", "train"):
        if (folder / f"{name}_queries.jsonl").is_file():
            splits[name] = folder / f"{name}_queries.jsonl"
    if len(splits) == 1:
        return 0, []
    inventory: Optional[Set[str]] = None
    if construction is not None and construction.is_file():
        record = read_json(construction)
        inventory = {c.get("id") for c in record.get("conditions") or [] if isinstance(c, dict)}
    owner: Dict[Tuple[str, str], str] = {}
    sets: Dict[frozenset, str] = {}
    qids: Set[str] = set()
    test_prefix = None
    problems: List[str] = []
    for name, path in splits.items():
        for line, obj in iter_jsonl(path):
            qid, cids = obj.get("qid"), obj.get("condition_ids") or []
            if not isinstance(qid, str) or qid in qids:
                problems.append(f"{path}:{line}: query id {qid!r} repeated or missing")
            qids.add(qid)
            if name == "test" and test_prefix is None and isinstance(qid, str):
                test_prefix = qid.rsplit("_", 1)[0] + "_" if "_" in qid else ""
            elif name != "test" and isinstance(qid, str) and test_prefix is not None \
                    and not qid.startswith(f"{test_prefix}{name}_"):
                problems.append(f"{path}:{line}: query id {qid!r} lacks the prefix {test_prefix}{name}_")
            if inventory is not None and name != "test":
                unknown = [c for c in cids if c not in inventory]
                if unknown:
                    problems.append(f"{path}:{line}: condition {unknown[0]!r} is not in the construction's inventory")
            key = frozenset(cids)
            if key in sets and sets[key] != name:
                problems.append(f"{path}:{line}: the conditions of {qid!r} form a query of the {sets[key]} split too")
            sets.setdefault(key, name)
            for pair in combinations(sorted(cids), 2):
                first = owner.setdefault(pair, name)
                if first != name:
                    problems.append(f"{path}:{line}: condition pair {pair[0]} + {pair[1]} of {qid!r} occurs "
                                    f"in the {first} split too")
    return len(splits) - 1, problems


__all__ = ["run_record_problems", "split_problems", "weight_problems", "weight_records"]
