"""The held-out-perspective split of a release (Multi3IR paper, Table 2's held-out test split and
Table 3's transfer to unseen questions; rule written down in ``provenance/spin/heldout_rule.md``
before any held-out training).

Multi3IR evaluates on questions whose perspectives the trainer never saw.  In v1 the training
queries share no condition pair with the test queries, but almost every single condition, and so
every perspective's supporting documents, occurs in training.  The held-out split removes whole
conditions from training:

1. ``C`` = the distinct condition ids of the test queries, grouped by kind (the id's prefix before
   the first ``:``), each group sorted.
2. One ``random.Random(seed)``; for each kind in sorted order it draws ``floor(n / 4 + 1/2)`` ids
   of the ``n`` in that kind's sorted list with ``rng.sample``.  The union is the held-out set ``H``.
3. The held-out test queries are the test queries with **at least one** condition in ``H``; the
   queries whose conditions are **all** in ``H`` form a stricter subset, reported beside it.
4. The held-out training and validation files keep, in file order and byte for byte, the lines of
   ``train_queries.jsonl`` / ``val_queries.jsonl`` whose queries hold **no** condition of ``H``.

A training positive may still be a document that also supports a held-out condition (documents
support many conditions); what training never shows is a held-out condition as a perspective.
"""

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Sequence, Tuple

from ..errors import InputError
from ..formats import iter_jsonl, read_bytes

#: the fraction of each kind's conditions held out, as the rule's integer arithmetic uses it
HELD_OUT_QUARTER = 4
FORMAT = "nclue-heldout-conditions"
RULE = ("per condition kind (sorted), floor(n/4 + 1/2) of the n sorted test-query condition ids, "
        "drawn by one random.Random(seed) with sample(); held-out test queries: at least one "
        "held-out condition; held-out train/val queries: none")


@dataclass(frozen=True)
class HeldOutSplit:
    """The held-out condition ids and the qids each part of the split holds."""

    condition_ids: Tuple[str, ...]
    test_any: Tuple[str, ...]
    test_all: Tuple[str, ...]
    train: Tuple[str, ...]
    val: Tuple[str, ...]


def condition_kind(condition_id: str) -> str:
    return condition_id.split(":", 1)[0]


def draw_heldout_conditions(test_condition_ids: Iterable[str], seed: int) -> Tuple[str, ...]:
    """Step 1-2 of the rule (module docstring): the held-out condition ids, sorted."""
    by_kind: Dict[str, List[str]] = {}
    for cid in sorted(set(test_condition_ids)):
        by_kind.setdefault(condition_kind(cid), []).append(cid)
    rng = random.Random(seed)
    held: List[str] = []
    for kind in sorted(by_kind):
        ids = by_kind[kind]
        held.extend(rng.sample(ids, (2 * len(ids) + HELD_OUT_QUARTER) // (2 * HELD_OUT_QUARTER)))
    return tuple(sorted(held))


def _query_conditions(path: Path) -> List[Tuple[int, str, Tuple[str, ...]]]:
    rows = []
    for line, obj in iter_jsonl(path):
        qid, cids = obj.get("qid"), obj.get("condition_ids")
        if not isinstance(qid, str) or not isinstance(cids, list) or not all(isinstance(c, str) for c in cids):
            raise InputError(path, "a query needs a string 'qid' and a list 'condition_ids'", line)
        rows.append((line, qid, tuple(cids)))
    return rows


def kept_lines(path: Path, held: Sequence[str]) -> bytes:
    """Step 4: the lines of a query file whose queries hold no held-out condition, byte for byte."""
    held_set = set(held)
    conditions = {line: cids for line, _qid, cids in _query_conditions(path)}
    out = []
    for number, raw in enumerate(read_bytes(path).splitlines(keepends=True), start=1):
        if number in conditions and not held_set.intersection(conditions[number]):
            out.append(raw)
    return b"".join(out)


def split_of(test: Path, train: Path, val: Path, held: Sequence[str]) -> HeldOutSplit:
    """Steps 3-4 over the release's query files."""
    held_set = set(held)
    tests = _query_conditions(test)
    return HeldOutSplit(
        tuple(held),
        tuple(q for _, q, cids in tests if held_set.intersection(cids)),
        tuple(q for _, q, cids in tests if held_set.issuperset(cids)),
        tuple(q for _, q, cids in _query_conditions(train) if not held_set.intersection(cids)),
        tuple(q for _, q, cids in _query_conditions(val) if not held_set.intersection(cids)))


def heldout_record(test: Path, seed: int) -> Dict[str, Any]:
    """The content of ``heldout_conditions.json`` for a seed."""
    cids = [c for _, _, row in _query_conditions(test) for c in row]
    return {"format": FORMAT, "seed": seed, "rule": RULE, "variant": "at_least_one",
            "condition_ids": list(draw_heldout_conditions(cids, seed))}


def heldout_problems(record: Mapping[str, Any], record_path: Path, seed: int, test: Path, train: Path,
                     val: Path, train_heldout: Path, val_heldout: Path) -> List[str]:
    """Every way the shipped held-out files disagree with the rule: the record's seed against the
    ``seed`` the caller holds from elsewhere (the report spec), its condition list against a fresh
    draw from that seed, and the two held-out query files against steps 3-4 of the rule applied to
    the full split files (no held-out condition in either)."""
    problems = []
    if record.get("format") != FORMAT:
        return [f"{record_path}: not a held-out record ('format' is not {FORMAT!r})"]
    if record.get("seed") != seed:
        problems.append(f"{record_path}: seed {record.get('seed')!r} is not the specified {seed}")
    expected = heldout_record(test, seed)
    for key in ("condition_ids", "rule", "variant"):
        if record.get(key) != expected[key]:
            problems.append(f"{record_path}: {key} differs from the rule's draw with seed {seed}")
    held = expected["condition_ids"]
    for full, shipped in ((train, train_heldout), (val, val_heldout)):
        leaked = sorted({c for _, q, cids in _query_conditions(shipped) for c in cids if c in set(held)})
        if leaked:
            problems.append(f"{shipped}: holds held-out condition(s) {', '.join(leaked[:5])}")
        if read_bytes(shipped) != kept_lines(full, held):
            problems.append(f"{shipped}: differs from the lines of {full.name} without a held-out condition")
    return problems
