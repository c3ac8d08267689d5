"""Relation kinds: the checks a transcription declares between printed numbers.

Each kind is a pure function ``evaluate(rel, ctx, ev) -> Result`` registered by name in
:data:`KINDS`; a bulk kind (:data:`EXPANDERS`) first expands into several plain relations. The
field layout of every kind is documented in ``claims/papers/README.md``.
"""

from typing import Any, Callable, Dict, List, Mapping

from ...errors import InputError
from ...formats import dumps_canonical
from ..evaluator import Evaluator
from ..transcription import Transcription
from . import arithmetic, counts
from .base import Context, Result
from .counts import feasible_counts

Evaluate = Callable[[Mapping[str, Any], Context, Evaluator], Result]
Expand = Callable[[Mapping[str, Any], Context], List[Mapping[str, Any]]]

KINDS: Dict[str, Evaluate] = {
    "equal": arithmetic.evaluate_equal,
    "compare": arithmetic.evaluate_compare,
    "grim": counts.evaluate_grim,
    "count": counts.evaluate_count,
    "count_marked": counts.evaluate_count_marked,
}

EXPANDERS: Dict[str, Expand] = {
    "grim_table": counts.expand_grim_table,
    "equal_table": arithmetic.expand_equal_table,
}

__all__ = ["KINDS", "EXPANDERS", "Context", "Result", "audit", "expand", "evaluate",
           "feasible_counts"]


def _relation_id(rel: Mapping[str, Any], ctx: Context) -> str:
    rid = rel.get("id")
    if not isinstance(rid, str) or not rid:
        raise InputError(ctx.tr.path, f"relation without id: {dumps_canonical(rel)[:80]}")
    return rid


def expand(ctx: Context) -> List[Mapping[str, Any]]:
    """The transcription's relations with bulk kinds expanded; duplicate ids are refused."""
    out: List[Mapping[str, Any]] = []
    for rel in ctx.tr.relations:
        kind = rel.get("kind")
        expander = EXPANDERS.get(kind) if isinstance(kind, str) else None
        if expander is None:
            out.append(rel)
            continue
        _relation_id(rel, ctx)
        out.extend(expander(rel, ctx))
    seen, dupes = set(), set()
    for rel in out:
        rid = _relation_id(rel, ctx)
        if rid in seen:
            dupes.add(rid)
        seen.add(rid)
    if dupes:
        raise InputError(ctx.tr.path, f"duplicate relation ids: {', '.join(sorted(dupes))}")
    return out


def evaluate(rel: Mapping[str, Any], ctx: Context) -> Result:
    """Evaluate one (expanded) relation."""
    rid = _relation_id(rel, ctx)
    kind = rel.get("kind")
    handler = KINDS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InputError(ctx.tr.path, f"relation {rid}: unknown kind {kind!r}")
    return handler(rel, ctx, ctx.evaluator(rel))


def audit(tr: Transcription) -> List[Result]:
    """Evaluate every relation of a transcription (bulk relations expanded)."""
    ctx = Context(tr)
    return [evaluate(rel, ctx) for rel in expand(ctx)]
