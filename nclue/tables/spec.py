"""Typed ``report.json`` entries: each table (and figure) kind declares its spec as a dataclass.

A spec class is a frozen dataclass whose fields are declared with :func:`setting`: a *value
kind* (one of :data:`VALUE_KINDS`, or a nested spec class for lists of objects), a one-line
doc and, optionally, a default (given as it would be written in JSON; it is checked like a
written value). :func:`parse_spec` turns one JSON object into the dataclass, refusing unknown
keys, missing keys, values of the wrong type, unknown run ids, unknown measures and empty lists,
each with one line naming ``report.json``, the table and the key. The reference document
``docs/REPORT_SPEC.md`` is generated from these declarations (:func:`reference_markdown`).
"""

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type

from ..errors import InputError
from ..measures import Measure, MeasureRegistry
from ..release import FORMS
from ..tie_rules import VECTOR_PROVIDERS

_REQUIRED = object()


def setting(kind: Any, doc: str, default: Any = _REQUIRED) -> Any:
    """Declare a spec field: its value kind, its doc line and (optionally) its JSON default."""
    meta: Dict[str, Any] = {"kind": kind, "doc": doc}
    if default is not _REQUIRED:
        meta["default"] = default
    return field(metadata=meta)


@dataclass(frozen=True)
class SpecScope:
    """What a spec is checked against: the file, the release's run ids, the measure registry
    and the report's cutoff."""

    where: Path
    run_ids: Tuple[str, ...]
    fair_run_ids: Tuple[str, ...]
    registry: MeasureRegistry
    k: int
    #: what ``"all"`` selects (runs of every test query); None: every run id
    all_run_ids: Optional[Tuple[str, ...]] = None

    def fail(self, what: str, problem: str) -> InputError:
        return InputError(self.where, f"{what}: {problem}")


# --- value kinds -------------------------------------------------------------------------------

def _text(value: Any, scope: SpecScope, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise scope.fail(what, "must be a non-empty string")
    return value


def _paragraphs(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise scope.fail(what, "must be a list of non-empty strings")
    return tuple(value)


def _integer(value: Any, scope: SpecScope, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise scope.fail(what, f"must be an integer >= {minimum}")
    return value


def _seed(value: Any, scope: SpecScope, what: str) -> int:
    return _integer(value, scope, what, 0)


def _count(value: Any, scope: SpecScope, what: str) -> int:
    return _integer(value, scope, what, 1)


def _count0(value: Any, scope: SpecScope, what: str) -> int:
    return _integer(value, scope, what, 0)


def _level(value: Any, scope: SpecScope, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise scope.fail(what, "must be a number strictly between 0 and 1")
    return float(value)


def _run(value: Any, scope: SpecScope, what: str) -> str:
    if not isinstance(value, str):
        raise scope.fail(what, f"must be a run id, got {value!r}")
    if value not in scope.run_ids:
        raise scope.fail(what, f"unknown run id {value!r} (not in runs/index.json)")
    return value


def _run_list(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise scope.fail(what, "must be a non-empty list of run ids")
    runs = tuple(_run(v, scope, what) for v in value)
    if len(set(runs)) != len(runs):
        raise scope.fail(what, "lists a run twice")
    return runs


def _runs(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if value == "all":
        ids = scope.run_ids if scope.all_run_ids is None else scope.all_run_ids
        if not ids:
            raise scope.fail(what, "\"all\" selects no run: the release has none")
        return ids
    return _run_list(value, scope, what)


def _runs_or_fair(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if value == "fair":
        if not scope.fair_run_ids:
            raise scope.fail(what, "\"fair\" selects no run")
        return scope.fair_run_ids
    return _runs(value, scope, what)


def _measure(value: Any, scope: SpecScope, what: str) -> Measure:
    try:
        return scope.registry.parse(value, default_k=scope.k)
    except InputError as exc:
        raise scope.fail(what, exc.problem) from None


def _measures(value: Any, scope: SpecScope, what: str) -> Tuple[Measure, ...]:
    if not isinstance(value, list) or not value:
        raise scope.fail(what, "must be a non-empty list of measure names")
    return tuple(_measure(v, scope, what) for v in value)


def _ks(value: Any, scope: SpecScope, what: str) -> Tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise scope.fail(what, "must be a non-empty list of positive integers")
    ks = tuple(_integer(v, scope, what, 1) for v in value)
    return tuple(sorted(set(ks)))


def _counts(value: Any, scope: SpecScope, what: str) -> Tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise scope.fail(what, "must be a non-empty list of distinct integers >= 1")
    counts = tuple(_integer(v, scope, what, 1) for v in value)
    if len(set(counts)) != len(counts):
        raise scope.fail(what, "lists a value twice")
    return counts


def _embeddings(value: Any, scope: SpecScope, what: str) -> Any:
    if value == "perspectives":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise scope.fail(what, "must be an integer >= 1 or \"perspectives\"")
    return value


def _counts0(value: Any, scope: SpecScope, what: str) -> Tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise scope.fail(what, "must be a non-empty list of integers >= 0")
    return tuple(_integer(v, scope, what, 0) for v in value)


def _forms(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(v in FORMS for v in value):
        raise scope.fail(what, f"must be a non-empty list of forms among {', '.join(FORMS)}")
    return tuple(value)


def _direction(value: Any, scope: SpecScope, what: str) -> str:
    if value not in ("+", "-", "0"):
        raise scope.fail(what, "must be '+', '-' or '0'")
    return value


def _form_pairs(value: Any, scope: SpecScope, what: str) -> Tuple[Tuple[str, str, str], ...]:
    """``{form: [base, variant]}`` -> ((form, base, variant), ...) in :data:`FORMS` order."""
    if not isinstance(value, dict) or not value:
        raise scope.fail(what, "must be a non-empty object {form: [base run, variant run]}")
    out = []
    for form in value:
        if form not in FORMS:
            raise scope.fail(what, f"unknown form {form!r}")
    for form in FORMS:
        if form in value:
            pair = value[form]
            if not isinstance(pair, list) or len(pair) != 2:
                raise scope.fail(f"{what}[{form!r}]", "must be [base run, variant run]")
            out.append((form, _run(pair[0], scope, what), _run(pair[1], scope, what)))
    return tuple(out)


def _points(value: Any, scope: SpecScope, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e6:
        raise scope.fail(what, "must be a positive number")
    return float(value)


def _ratio(value: Any, scope: SpecScope, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value < 1e6:
        raise scope.fail(what, "must be a number >= 1")
    return float(value)


def _tie_rules(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if (not isinstance(value, list) or not value or len(set(value)) != len(value)
            or not all(v in VECTOR_PROVIDERS for v in value)):
        raise scope.fail(what, "must be a non-empty list of distinct tie rules among "
                               f"{', '.join(VECTOR_PROVIDERS)}")
    return tuple(value)


def _names(value: Any, scope: SpecScope, what: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise scope.fail(what, "must be a non-empty list of non-empty strings")
    return tuple(value)


def _object(value: Any, scope: SpecScope, what: str) -> Dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise scope.fail(what, "must be a non-empty object")
    return dict(value)


def _release_name(value: Any, scope: SpecScope, what: str) -> str:
    if not isinstance(value, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", value):
        raise scope.fail(what, "must be a release folder name (letters, digits, '_', '.', '-')")
    return value


RELATION_OPS = ("<", "<=", ">", ">=", "=", "!=", "in")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _relations(value: Any, scope: SpecScope, what: str) -> Tuple[Tuple[str, str, Any], ...]:
    """``[[cell, op, cell or number], ...]`` (``[cell, "in", [numbers]]``): checked statements."""
    if not isinstance(value, list) or not value:
        raise scope.fail(what, "must be a non-empty list of [cell, op, cell or number]")
    out = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 3 or not isinstance(item[0], str)
                or item[1] not in RELATION_OPS):
            raise scope.fail(what, f"{item!r} is not [cell address, op, value] with op among "
                                   f"{' '.join(RELATION_OPS)}")
        other = item[2]
        if item[1] == "in":
            if not isinstance(other, list) or not other or not all(_number(v) for v in other):
                raise scope.fail(what, f"{item!r}: 'in' needs a non-empty list of numbers")
            other = tuple(other)
        elif not (_number(other) or (isinstance(other, str) and other)):
            raise scope.fail(what, f"{item!r}: the value must be a cell address or a number")
        out.append((item[0], item[1], other))
    return tuple(out)


#: Verdict codes of the findings and observations kinds (nclue.tables.findings).
VERDICT_CODES = (1, 0, -1, -2, -3)


def _verdicts(value: Any, scope: SpecScope, what: str) -> Tuple[int, ...]:
    if (not isinstance(value, list) or not value or len(set(value)) != len(value)
            or not all(v in VERDICT_CODES and not isinstance(v, bool) for v in value)):
        raise scope.fail(what, "must be a non-empty list of distinct verdict codes among "
                               f"{', '.join(map(str, VERDICT_CODES))}")
    return tuple(value)


Validator = Callable[[Any, SpecScope, str], Any]

#: The scalar and list value kinds a spec field may declare, with their documentation.
VALUE_KINDS: Mapping[str, Tuple[Validator, str]] = {
    "text": (_text, "non-empty string"),
    "paragraphs": (_paragraphs, "list of strings"),
    "seed": (_seed, "integer >= 0"),
    "count": (_count, "integer >= 1"),
    "count0": (_count0, "integer >= 0"),
    "level": (_level, "number in (0, 1)"),
    "run": (_run, "run id of runs/index.json"),
    "run_list": (_run_list, "non-empty list of run ids"),
    "runs": (_runs, "non-empty list of run ids, or \"all\""),
    "runs_or_fair": (_runs_or_fair, "list of run ids, \"all\", or \"fair\" (no controls)"),
    "measure": (_measure, "measure name (`nclue_score`, `gold_hit@10`, `hc@10`, `auc`, ...)"),
    "measures": (_measures, "non-empty list of measure names"),
    "ks": (_ks, "non-empty list of cutoffs >= 1"),
    "counts": (_counts, "non-empty list of distinct integers >= 1, in order"),
    "counts0": (_counts0, "non-empty list of integers >= 0"),
    "embeddings": (_embeddings, "integer >= 1, or \"perspectives\" (the mean number of a query's "
                                "perspectives)"),
    "forms": (_forms, "non-empty list of query forms (raw, clean, natural)"),
    "direction": (_direction, "\"+\", \"-\" or \"0\""),
    "form_pairs": (_form_pairs, "object {form: [base run, variant run]}"),
    "points": (_points, "positive number (percentage points)"),
    "ratio": (_ratio, "number >= 1"),
    "tie_rules": (_tie_rules, "non-empty list of tie rules (`input`, `trec_eval`, `expected`)"),
    "names": (_names, "non-empty list of strings (ids)"),
    "release": (_release_name, "a sibling release folder name under `data/` (e.g. `v2`)"),
    "object": (_object, "a JSON object (a nested table entry, parsed when the table is built)"),
    "relations": (_relations, "list of `[cell, op, cell or number]` relations"),
    "verdicts": (_verdicts, "non-empty list of verdict codes (1, 0, -1, -2, -3)"),
}


def _ids_unique(items: Sequence[Any], scope: SpecScope, what: str) -> None:
    seen = set()
    for item in items:
        item_id = getattr(item, "id", None)
        if item_id is None:
            continue
        if item_id in seen:
            raise scope.fail(what, f"duplicate id {item_id!r}")
        seen.add(item_id)


def _convert(kind: Any, value: Any, scope: SpecScope, what: str) -> Any:
    if isinstance(kind, type):  # a list of nested spec objects
        if not isinstance(value, list) or not value:
            raise scope.fail(what, "must be a non-empty list of objects")
        items = tuple(parse_spec(kind, item, scope, f"{what} item {number}")
                      for number, item in enumerate(value, start=1))
        _ids_unique(items, scope, what)
        return items
    return VALUE_KINDS[kind][0](value, scope, what)


def parse_spec(cls: Type[Any], obj: Any, scope: SpecScope, what: str) -> Any:
    """Build spec dataclass ``cls`` from one JSON object (see the module docstring)."""
    if not isinstance(obj, dict):
        raise scope.fail(what, "must be an object")
    declared = fields(cls)
    known = [f.name for f in declared]
    unknown = sorted(set(obj) - set(known))
    if unknown:
        raise scope.fail(what, f"unknown key {unknown[0]!r} (known: {', '.join(known)})")
    values: Dict[str, Any] = {}
    for f in declared:
        if f.name in obj:
            raw = obj[f.name]
        elif "default" in f.metadata:
            raw = f.metadata["default"]
        else:
            raise scope.fail(what, f"missing key {f.name!r}")
        values[f.name] = None if raw is None else _convert(f.metadata["kind"], raw, scope,
                                                           f"{what}, key {f.name!r}")
    return cls(**values)


#: Value kinds parsed by the report itself (a list of entries, each parsed by its own kind).
ENTRY_LISTS = {"table_specs": "list of table objects (the table kinds below)",
               "figure_specs": "list of figure objects (the figure kinds below)"}


def kind_doc(kind: Any) -> str:
    if isinstance(kind, type):
        return f"list of `{kind.__name__}` objects"
    if kind in ENTRY_LISTS:
        return ENTRY_LISTS[kind]
    return VALUE_KINDS[kind][1]


def fields_markdown(cls: Type[Any]) -> List[str]:
    """Markdown rows ``| key | value | default | meaning |`` of a spec class."""
    rows = []
    for f in fields(cls):
        default = f.metadata.get("default", _REQUIRED)
        shown = "required" if default is _REQUIRED else ("none" if default is None
                                                         else f"`{_json(default)}`")
        rows.append(f"| `{f.name}` | {kind_doc(f.metadata['kind'])} | {shown} | "
                    f"{f.metadata['doc']} |")
    return rows


def nested_classes(cls: Type[Any]) -> List[Type[Any]]:
    """Nested spec classes used by ``cls``'s fields (depth first, without repeats)."""
    out: List[Type[Any]] = []
    for f in fields(cls):
        kind = f.metadata["kind"]
        if isinstance(kind, type) and kind not in out:
            out.append(kind)
            out += [c for c in nested_classes(kind) if c not in out]
    return out


def _json(value: Any) -> str:
    import json
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class SpecKind:
    """One ``report.json`` kind (a table or a figure): its name, spec class, builder, summary."""

    name: str
    spec: Type[Any]
    build: Callable[[Any, Any], Any]
    summary: str


def spec_title(spec: Any, default: str) -> str:
    """A table's printed title: the spec's, else the kind's default."""
    return spec.title if spec.title is not None else default


def reference_markdown(table_kinds: Sequence[SpecKind], figure_kinds: Sequence[SpecKind],
                       report_cls: Optional[Type[Any]] = None) -> str:
    """``docs/REPORT_SPEC.md``: every kind's keys, generated from the spec declarations."""
    lines = ["# `report.json` reference", "",
             # a generated reference holds definitions only (types, defaults, exit statuses, the
             # paper tables each kind is an analogue of): one 'fixed' region (docs/CONVENTIONS.md)
             "<!-- numbers: fixed (generated definitions: key types, defaults, exit statuses, "
             "paper table names; no results) -->", "",
             "Generated from the spec declarations in `nclue/tables/` and `nclue/report/` by "
             "`python tools/make_docs.py`; a test checks that this file is current.", "",
             "Every key is checked when a release is reproduced: an unknown key, a missing "
             "required key, a value of the wrong type, an unknown run id or measure, an empty "
             "list and a table that would report no claim are each refused with one line "
             "naming `report.json`, the table and the key (exit 2).", ""]
    if report_cls is not None:
        lines += ["## The report", "", "| key | value | default | meaning |",
                  "| --- | --- | --- | --- |"] + fields_markdown(report_cls) + [""]
    for heading, kinds in (("Table kinds", table_kinds), ("Figure kinds", figure_kinds)):
        lines += [f"## {heading}", ""]
        for kind in kinds:
            lines += [f"### `{kind.name}`", "", kind.summary, "", "| key | value | default | meaning |",
                      "| --- | --- | --- | --- |"] + fields_markdown(kind.spec) + [""]
            for nested in nested_classes(kind.spec):
                lines += [f"`{nested.__name__}` objects:", "", "| key | value | default | meaning |",
                          "| --- | --- | --- | --- |"] + fields_markdown(nested) + [""]
    lines += ["<!-- /numbers -->"]
    return "\n".join(lines).rstrip("\n") + "\n"
