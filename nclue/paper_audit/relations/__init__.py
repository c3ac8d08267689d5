"""Relation kinds: the checks a transcription declares between printed numbers.

Each kind is a pure function ``evaluate(rel, ctx, ev) -> Result`` registered by name in
:data:`KINDS`; a bulk kind (:data:`EXPANDERS`) first expands into several plain relations. The
field layout of every kind is documented in ``claims/papers/README.md``.
"""

import dataclasses
from typing import Any, Callable, Dict, List, Mapping, Tuple

from ...errors import InputError
from ...formats import dumps_canonical
from ..evaluator import FAIL, REVIEW, Evaluator
from ..transcription import Transcription
from . import (aggregates, arithmetic, copies, counts, design, distinct, joint, ordering, quantified,
               references, structure, superiority)
from .base import Context, Result
from .counts import feasible_counts
from .templates import expand_each

Evaluate = Callable[[Mapping[str, Any], Context, Evaluator], Result]
Expand = Callable[[Mapping[str, Any], Context], List[Mapping[str, Any]]]

KINDS: Dict[str, Evaluate] = {
    "equal": arithmetic.evaluate_equal,
    "compare": arithmetic.evaluate_compare,
    "grim": counts.evaluate_grim,
    "count": counts.evaluate_count,
    "count_marked": counts.evaluate_count_marked,
    "same": copies.evaluate_same,
    "aggregate": aggregates.evaluate_aggregate,
    "tally": structure.evaluate_tally,
    "quantified": quantified.evaluate_quantified,
    "order": ordering.evaluate_order,
    "bound": ordering.evaluate_bound,
    "sign": ordering.evaluate_sign,
    "design": design.evaluate_design,
    "superiority": superiority.evaluate_superiority,
    "distinct": distinct.evaluate_distinct,
    "joint_counts": joint.evaluate_joint_counts,
    "xref": references.evaluate_xref,
}

EXPANDERS: Dict[str, Expand] = {
    "grim_table": counts.expand_grim_table,
    "equal_table": arithmetic.expand_equal_table,
    "same_table": copies.expand_same_table,
}

#: Fields every relation may have, and the fields of each kind (anything else is refused).
COMMON_FIELDS = ("id", "kind", "category", "note", "where", "review", "reading")
FIELDS: Dict[str, Tuple[str, ...]] = {
    "equal": ("got", "expected"),
    "compare": ("left", "op", "right"),
    "grim": ("value", "n", "scale", "offset", "kmin", "kmax"),
    "count": ("vars", "combine", "result"),
    "count_marked": ("cells", "marker", "expected"),
    "same": ("values",),
    "aggregate": ("whole", "parts", "weights"),
    "tally": ("expected", "rows", "columns", "cells", "words", "items", "filled", "exclude", "condition", "of"),
    "quantified": ("quantifier", "items", "only", "claim", "over", "strict"),
    "order": ("op", "chain", "chains"),
    "bound": ("bound", "op", "over"),
    "sign": ("values", "word", "printed"),
    "design": ("planned", "reported", "op"),
    "superiority": ("table", "over", "better", "worse", "columns", "op", "gap", "exclude"),
    "distinct": ("distinct", "parts", "partition", "memberships"),
    "joint_counts": ("n", "counts", "sums", "rates", "checks"),
    "xref": ("context", "refs"),
    "grim_table": ("table", "columns", "rows"),
    "equal_table": ("a", "b", "rows", "columns"),
    "same_table": ("a", "b", "rows", "columns"),
}

__all__ = ["KINDS", "EXPANDERS", "FIELDS", "COMMON_FIELDS", "Context", "Result", "audit", "expand", "evaluate",
           "feasible_counts"]


def _relation_id(rel: Mapping[str, Any], ctx: Context) -> str:
    rid = rel.get("id")
    if not isinstance(rid, str) or not rid:
        raise InputError(ctx.tr.path, f"relation without id: {dumps_canonical(rel)[:80]}")
    return rid


def _check_fields(rel: Mapping[str, Any], ctx: Context) -> None:
    rid = _relation_id(rel, ctx)
    kind = rel.get("kind")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise InputError(ctx.tr.path, f"relation {rid}: unknown kind {kind!r} "
                                      f"(known: {', '.join(sorted(FIELDS))})")
    ctx.known(rel, COMMON_FIELDS + ("each",) + FIELDS[kind], rel, kind)


def expand(ctx: Context) -> List[Mapping[str, Any]]:
    """The transcription's relations with bulk kinds expanded; duplicate ids are refused."""
    out: List[Mapping[str, Any]] = []
    for raw in ctx.tr.relations:
        _check_fields(raw, ctx)
        if "each" in raw:
            _relation_id(raw, ctx)
            generated = expand_each(raw, ctx)
        else:
            generated = [raw]
        for rel in generated:
            out.extend(_expand_bulk(rel, ctx))
    seen, dupes = set(), set()
    for rel in out:
        rid = _relation_id(rel, ctx)
        if rid in seen:
            dupes.add(rid)
        seen.add(rid)
    if dupes:
        raise InputError(ctx.tr.path, f"duplicate relation ids: {', '.join(sorted(dupes))}")
    return out


def _expand_bulk(rel: Mapping[str, Any], ctx: Context) -> List[Mapping[str, Any]]:
    kind = rel.get("kind")
    expander = EXPANDERS.get(kind) if isinstance(kind, str) else None
    if expander is None:
        return [rel]
    _relation_id(rel, ctx)
    generated = expander(rel, ctx)
    for key in ("review", "reading"):  # a bulk relation's review applies to every cell it expands into
        if key in rel:
            generated = [dict(g, **{key: rel[key]}) for g in generated]
    return generated


def evaluate(rel: Mapping[str, Any], ctx: Context) -> Result:
    """Evaluate one (expanded) relation."""
    rid = _relation_id(rel, ctx)
    kind = rel.get("kind")
    handler = KINDS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InputError(ctx.tr.path, f"relation {rid}: unknown kind {kind!r}")
    reading = rel.get("reading")
    if reading is not None and (not isinstance(reading, str) or not reading.strip() or "\n" in reading):
        raise ctx.error(rel, "reading must be one non-empty line (the interpretation under which "
                             "the relation fails)")
    result = handler(rel, ctx, ctx.evaluator(rel))
    if result.verdict == FAIL and reading:
        # the failure rests on an interpretation the paper does not fix: counted apart from FAIL
        return dataclasses.replace(result, verdict=REVIEW)
    return result


def audit(tr: Transcription) -> List[Result]:
    """Evaluate every relation of a transcription (bulk relations expanded)."""
    ctx = Context(tr)
    return [evaluate(rel, ctx) for rel in expand(ctx)]
