"""``each``: one relation (or one item of a relation) per combination of named ids.

A quantified sentence or an implied bound usually concerns every row or column of a table; rather
than spelling out each cell, a transcription writes one template::

    {"id": "T3.score_le_hit", "kind": "order", "op": "<=",
     "each": {"row": ["bm25_and", "hybrid"]},
     "chain": ["T3.{row}.score", "T3.{row}.hit"]}

which stands for ``T3.score_le_hit.bm25_and`` and ``T3.score_le_hit.hybrid``. Inside a relation,
a list field (``items``, ``over``, ``cells``) may likewise be ``{"each": {...}, <template>}``.
Substitution is plain ``{name}`` replacement in every string; combinations run in the order the
names and their ids are listed (the last name varies fastest).
"""

import itertools
import re
from typing import Any, Dict, List, Mapping, Tuple

from .base import Context

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def bindings(spec: Any, rel: Mapping[str, Any], ctx: Context) -> List[Tuple[str, Dict[str, str]]]:
    """``(label, {name: id})`` for every combination of an ``each`` object."""
    if not isinstance(spec, dict) or not spec:
        raise ctx.error(rel, "each must map names to non-empty lists of ids")
    names = list(spec)
    lists = []
    for name in names:
        ids = spec[name]
        if (not isinstance(name, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name)
                or not isinstance(ids, list) or not ids
                or not all(isinstance(i, str) and re.match(r"^[A-Za-z0-9_+\-]+$", i) for i in ids)):
            raise ctx.error(rel, f"each.{name}: must be a non-empty list of ids (letters, digits, _ + -)")
        if len(set(ids)) != len(ids):
            raise ctx.error(rel, f"each.{name}: repeated id")
        lists.append(ids)
    return [(".".join(combo), dict(zip(names, combo))) for combo in itertools.product(*lists)]


def instantiate(obj: Any, binding: Mapping[str, str], rel: Mapping[str, Any], ctx: Context,
                strict: bool = True) -> Any:
    """``obj`` with every ``{name}`` in its strings replaced by the bound id. A name the binding
    lacks is an error when ``strict``; a relation-level ``each`` leaves it for a list-level one."""
    if isinstance(obj, str):
        def replace(match: "re.Match[str]") -> str:
            name = match.group(1)
            if name not in binding:
                if not strict:
                    return match.group(0)
                raise ctx.error(rel, f"template {obj!r} names {{{name}}}, which each does not bind")
            return binding[name]
        return _FIELD.sub(replace, obj)
    if isinstance(obj, list):
        return [instantiate(x, binding, rel, ctx, strict) for x in obj]
    if isinstance(obj, dict):
        return {k: instantiate(v, binding, rel, ctx, strict) for k, v in obj.items()}
    return obj


def expand_each(rel: Mapping[str, Any], ctx: Context) -> List[Mapping[str, Any]]:
    """A relation with a top-level ``each``: one relation per combination, id ``<id>.<ids>``."""
    template = {k: v for k, v in rel.items() if k not in ("each", "id")}
    out = []
    for label, binding in bindings(rel["each"], rel, ctx):
        item = instantiate(template, binding, rel, ctx, strict=False)
        item["id"] = f"{rel['id']}.{label}"
        out.append(item)
    return out


def listed(raw: Any, rel: Mapping[str, Any], ctx: Context, what: str) -> List[Tuple[str, Any]]:
    """A list field of a relation as ``(label, item)`` pairs: a JSON list (labels are the item's
    ``label`` or its position) or ``{"each": {...}, ...template}`` (labels are the bound ids)."""
    if isinstance(raw, list):
        if not raw:
            raise ctx.error(rel, f"{what} must not be empty")
        out = []
        for index, item in enumerate(raw):
            label = item.get("label") if isinstance(item, dict) else None
            if label is not None and not isinstance(label, str):
                raise ctx.error(rel, f"{what}[{index}].label must be a string")
            out.append((label or str(index), item))
        return out
    if isinstance(raw, dict) and "each" in raw:
        template = {k: v for k, v in raw.items() if k != "each"}
        if not template:
            raise ctx.error(rel, f"{what}: each needs a template beside it")
        return [(label, instantiate(template, binding, rel, ctx))
                for label, binding in bindings(raw["each"], rel, ctx)]
    raise ctx.error(rel, f"{what} must be a list or {{\"each\": ..., <template>}}")


def expressions(raw: Any, rel: Mapping[str, Any], ctx: Context, what: str) -> List[Tuple[str, Any]]:
    """A list of expressions as ``(label, expression)``: each item is an expression, or
    ``{"value": expression, "label": ...}``; a value id labels itself."""
    out = []
    for label, item in listed(raw, rel, ctx, what):
        if isinstance(item, dict) and "value" in item:
            ctx.known(item, ("value", "label"), rel, f"{what} item {label}")
            expr = item["value"]
        else:
            expr = item
        if isinstance(expr, str) and label.isdigit() and not (isinstance(item, dict) and "label" in item):
            label = expr
        out.append((label, expr))
    return out
