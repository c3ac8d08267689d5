"""Arithmetic relations: ``equal`` (an expression against a printed value), ``compare`` (an
ordering claim), and the bulk ``equal_table`` (a table printed twice, cell by cell).

Verdicts follow the tolerance rule of :mod:`nclue.paper_audit.evaluator`.
"""

from typing import Any, List, Mapping

from ..evaluator import Evaluator, compare_verdict, equal_verdict, half_width, is_comparison
from ..printed import fmt
from .base import Context, Result, inputs


def evaluate_equal(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    """``got`` (an expression) equals the printed ``expected`` value."""
    got = ev(rel.get("got"))
    exp = ev(rel.get("expected"))
    verdict = equal_verdict(got, exp)
    tol = half_width(got) + half_width(exp)
    exp_text = (ctx.values[exp.single].text if exp.single else fmt(exp.point))
    detail = f"diff {fmt(got.point - exp.point)}; got interval [{fmt(got.lo)}, {fmt(got.hi)}]"
    return Result(inputs=inputs(ctx.values, got.refs + exp.refs), verdict=verdict,
                  expected=exp_text, got=fmt(got.point), tolerance=fmt(tol), detail=detail,
                  **ctx.base(rel))


def evaluate_compare(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    """``left op right`` with ``op`` one of ``< <= > >=``."""
    left, right = ev(rel.get("left")), ev(rel.get("right"))
    op = rel.get("op")
    if not is_comparison(op):
        raise ctx.error(rel, "op must be one of < <= > >=")
    verdict = compare_verdict(left, op, right)
    return Result(inputs=inputs(ctx.values, left.refs + right.refs), verdict=verdict,
                  expected=f"{op} {fmt(right.point)}", got=fmt(left.point),
                  tolerance=fmt(half_width(left) + half_width(right)),
                  detail=f"{fmt(left.point)} {op} {fmt(right.point)}", **ctx.base(rel))


def _str_map(rel: Mapping[str, Any], ctx: Context, key: str) -> Mapping[str, str]:
    raw = rel.get(key)
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise ctx.error(rel, f"{key} must map ids to ids")
    return raw


def expand_equal_table(rel: Mapping[str, Any], ctx: Context) -> List[Mapping[str, Any]]:
    """One ``equal`` per cell of table ``a`` against the same cell of table ``b``."""
    a = ctx.table(rel, "a")
    b = ctx.table(rel, "b")
    colmap = _str_map(rel, ctx, "columns") or {c: c for c in a["columns"]}
    rowmap = _str_map(rel, ctx, "rows") or {r: r for r in a["rows"]}
    ctx.ids_of(rel, "rows", rowmap.keys(), a["rows"])
    ctx.ids_of(rel, "rows", rowmap.values(), b["rows"])
    ctx.ids_of(rel, "columns", colmap.keys(), a["columns"])
    ctx.ids_of(rel, "columns", colmap.values(), b["columns"])
    out = []
    for ra, rb in rowmap.items():
        for ca, cb in colmap.items():
            va = f"{rel['a']}.{ra}.{ca}"
            vb = f"{rel['b']}.{rb}.{cb}"
            if va not in ctx.values and vb not in ctx.values:
                continue
            out.append({"id": f"{rel['id']}.{ra}.{ca}", "kind": "equal", "got": va,
                        "expected": vb, "category": rel.get("category", "crossref"),
                        "note": rel.get("note", ""), "where": rel.get("where", "")})
    return out
