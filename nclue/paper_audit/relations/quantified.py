"""``quantified``: a quantified sentence ("best", "all", "every", "only", "falls below",
"outperforms") checked against **every** table cell it quantifies over, not only the cell the
sentence was written from.

- ``"quantifier": "all"``: every item ``{"left", "op", "right"}`` holds ("SPIN outperforms
  LLM-Expansion on every backbone"; "all four rerankers lower Gold-NDCG");
- ``"none"``: no item holds;
- ``"only"``: the items named in ``"only"`` (by label) hold and every other item does not ("the
  only exception is MM-Embed at HC@100": the items are "SPIN does not beat naive", the exception
  is the only one that holds);
- ``"best"`` / ``"worst"``: ``claim`` is strictly above (below) every expression of ``over``
  (``"strict": false`` allows ties).

Items may be listed or generated with ``{"each": {...}, "left": ..., "op": ..., "right": ...}``.
Each item is judged by the comparison rule (EXACT at the printed values, WITHIN_ROUNDING when only
unrounded values inside the rounding intervals make it hold, FAIL otherwise); the sentence takes
the worst verdict of its items, and the detail names every item that does not hold exactly.
"""

from typing import Any, List, Mapping, Tuple

from ..evaluator import EXACT, FAIL, Evaluator, compare_verdict, is_comparison, worst
from ..printed import fmt
from .base import Context, Result, inputs
from .templates import expressions, listed

NEGATION = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
QUANTIFIERS = ("all", "none", "only", "best", "worst")


def _items(rel: Mapping[str, Any], ctx: Context) -> List[Tuple[str, Any, str, Any]]:
    q = rel.get("quantifier")
    if q in ("best", "worst"):
        strict = rel.get("strict", True)
        if not isinstance(strict, bool):
            raise ctx.error(rel, "strict must be true or false")
        op = (">" if strict else ">=") if q == "best" else ("<" if strict else "<=")
        claim = rel.get("claim")
        # the claimed cell may sit in a generated ``over`` list: it is not compared with itself
        return [(label, claim, op, expr) for label, expr in expressions(rel.get("over"), rel, ctx, "over")
                if expr != claim]
    out = []
    for label, item in listed(rel.get("items"), rel, ctx, "items"):
        if not isinstance(item, dict) or not is_comparison(item.get("op")):
            raise ctx.error(rel, f"item {label}: needs left, op (< <= > >=) and right")
        ctx.known(item, ("label", "left", "op", "right"), rel, f"item {label}")
        out.append((label, item.get("left"), item["op"], item.get("right")))
    return out


def evaluate_quantified(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    q = rel.get("quantifier")
    if q not in QUANTIFIERS:
        raise ctx.error(rel, f"quantifier must be one of {', '.join(QUANTIFIERS)}")
    items = _items(rel, ctx)
    labels = [label for label, *_ in items]
    if len(set(labels)) != len(labels):
        raise ctx.error(rel, "item labels must be distinct")
    only = rel.get("only", [])
    if q == "only":
        if not isinstance(only, list) or not only or not all(isinstance(x, str) for x in only):
            raise ctx.error(rel, "only must list the labels of the items that hold")
        for x in only:
            if x not in labels:
                raise ctx.error(rel, f"only names {x!r}, which is not an item label")
    verdicts: List[str] = []
    refs: List[str] = []
    misses: List[str] = []
    for label, left_expr, op, right_expr in items:
        left, right = ev(left_expr), ev(right_expr)
        refs += list(left.refs + right.refs)
        must_hold = q in ("all", "best", "worst") or (q == "only" and label in only)
        want = op if must_hold else NEGATION[op]
        verdict = compare_verdict(left, want, right)
        verdicts.append(verdict)
        if verdict != EXACT:
            misses.append(f"{label}: {fmt(left.point)} {want} {fmt(right.point)} is {verdict}")
    verdict = worst(verdicts)
    holding = sum(v == EXACT for v in verdicts)
    detail = (f"{holding}/{len(items)} items as claimed"
              + (("; " + "; ".join(misses)) if misses else ""))
    claimed = {"all": "every item holds", "none": "no item holds",
               "only": f"only {', '.join(only)} hold" if q == "only" else "",
               "best": "claim above every other", "worst": "claim below every other"}[q]
    failing = sum(v == FAIL for v in verdicts)
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict, expected=claimed,
                  got=f"{len(items) - failing}/{len(items)} consistent", tolerance="per item",
                  detail=detail, **ctx.base(rel))
