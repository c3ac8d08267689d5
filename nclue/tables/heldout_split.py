"""Kind ``heldout_split``: the held-out-perspective split, re-derived and checked.

Rule: ``provenance/spin/heldout_rule.md`` (:mod:`nclue.instrument.heldout`). Building the table
re-derives the held-out conditions from the spec's ``seed`` (never the file's own) and the two
held-out training files from the full split files, and refuses the release with one line when
any training or validation query of the held-out runs holds a held-out condition, or when a file
differs from the rule. The rows count what the split holds; the two leak rows are 0 by the check.
"""

from dataclasses import dataclass
from typing import Optional

from ..context import ReleaseContext
from ..errors import InputError
from ..formats import iter_jsonl, read_json
from ..instrument.heldout import heldout_problems, split_of
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class HeldOutSplitSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`heldout_split`")
    title: Optional[str] = setting("text", "printed title", None)
    seed: int = setting("seed", "the seed the rule was fixed with (provenance/spin/heldout_rule.md)")


def _conditions(path):
    return {c for _, obj in iter_jsonl(path) for c in obj.get("condition_ids", [])}


def build(spec: HeldOutSplitSpec, ctx: ReleaseContext) -> Table:
    layout = ctx.layout
    record_path = layout.folder / "heldout_conditions.json"
    train_h, val_h = layout.folder / "train_queries_heldout.jsonl", layout.folder / "val_queries_heldout.jsonl"
    for path in (record_path, train_h, val_h, layout.train_queries, layout.val_queries):
        if not path.is_file():
            raise InputError(layout.report_spec, f"table {spec.id!r}: {path} not found")
    record = read_json(record_path)
    problems = heldout_problems(record, record_path, spec.seed, layout.queries, layout.train_queries,
                                layout.val_queries, train_h, val_h)
    if problems:
        raise InputError(record_path, problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    held = set(record["condition_ids"])
    split = split_of(layout.queries, layout.train_queries, layout.val_queries, sorted(held))
    test_conditions = _conditions(layout.queries)
    trained = _conditions(train_h) | _conditions(val_h)
    trained_full = _conditions(layout.train_queries) | _conditions(layout.val_queries)
    count = (Column("count", "count", 0),)
    rows = [
        ("conditions_test", "Conditions of the test queries", len(test_conditions)),
        ("conditions_heldout", "Held-out conditions", len(held)),
        ("conditions_seen", "Test conditions the held-out training/validation queries show", len(test_conditions & trained)),
        ("conditions_seen_full", "Test conditions the full training/validation queries show (seen-perspective runs)",
         len(test_conditions & trained_full)),
        ("heldout_in_training", "Held-out conditions the held-out training/validation queries show", len(held & trained)),
        ("test_queries", "Test queries", len(ctx.release.queries)),
        ("test_any", "Held-out test queries (at least one held-out condition)", len(split.test_any)),
        ("test_all", "Held-out test queries (every condition held out)", len(split.test_all)),
        ("train_full", "Training queries (seen-perspective runs)", sum(1 for _ in iter_jsonl(layout.train_queries))),
        ("train_heldout", "Training queries without a held-out condition (held-out runs)", len(split.train)),
        ("val_full", "Validation queries (seen-perspective runs)", sum(1 for _ in iter_jsonl(layout.val_queries))),
        ("val_heldout", "Validation queries without a held-out condition (held-out runs)", len(split.val)),
    ]
    note = (f"Rule (provenance/spin/heldout_rule.md, seed {spec.seed}): a quarter of each condition "
            "kind of the test queries is held out; the held-out runs train and select on queries "
            "without a held-out condition; reproduce.py re-derives the list and both files.")
    return Table(spec.id, spec_title(spec, "Held-out-perspective split (Multi3IR held-out evaluation)"),
                 count, tuple((k, label, {"count": n}) for k, label, n in rows), note)


KIND = SpecKind("heldout_split", HeldOutSplitSpec, build,
                "The held-out-perspective split re-derived from its rule and seed, with its counts "
                "(refused when a training query holds a held-out condition).")
