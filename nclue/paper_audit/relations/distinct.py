"""``distinct``: a count of distinct items against the sum of its per-category counts.

"77 sites across five categories", "1,753 World Bank PDFs and 268 PMC OA articles" (2,021
documents), "membership rows are not mutually exclusive": when every item falls in one category
(a partition) the distinct count must equal the sum of the per-category counts; when an item may
fall in several, the sum counts memberships, so it lies between ``min`` and ``max`` memberships per
item times the distinct count, and no category can hold more distinct items than there are.

Fields:

- ``distinct``: the printed count of distinct items (an expression);
- ``parts``: the per-category counts (a list of expressions, or ``{"each": ...}``);
- ``partition`` (default false): every item is in exactly one category;
- ``memberships`` (when not a partition, optional): ``{"min": E, "max": E}``, the number of
  categories one item can be in (defaults: ``min`` 1, every item is in some category; ``max`` the
  number of categories).

A partition follows the ``equal`` rule (``sum(parts) == distinct``); the bounds
``min * distinct <= sum(parts) <= max * distinct`` and ``part <= distinct`` follow the ``compare``
rule; the relation takes the worst verdict.
"""

from typing import Any, List, Mapping

from ..evaluator import EXACT, Evaluator, compare_verdict, equal_verdict, worst
from ..printed import fmt
from .base import Context, Result, inputs
from .templates import expressions


def evaluate_distinct(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    distinct = ev(rel.get("distinct"))
    parts = expressions(rel.get("parts"), rel, ctx, "parts")
    partition = rel.get("partition", False)
    if not isinstance(partition, bool):
        raise ctx.error(rel, "partition must be true or false")
    members = rel.get("memberships")
    if partition and members is not None:
        raise ctx.error(rel, "a partition has one membership per item: drop memberships")
    if members is None:
        members = {}
    if not isinstance(members, dict):
        raise ctx.error(rel, "memberships must be {\"min\": E, \"max\": E}")
    ctx.known(members, ("min", "max"), rel, "memberships")
    total = ev({"add": [e for _, e in parts]})
    refs: List[str] = list(distinct.refs) + list(total.refs)
    checks = []
    if partition:
        checks.append((f"sum {fmt(total.point)} == distinct {fmt(distinct.point)}",
                       equal_verdict(total, distinct)))
    else:
        low = ev(members.get("min", 1))
        high = ev(members.get("max", len(parts)))
        refs += list(low.refs) + list(high.refs)
        floor = ev({"mul": [members.get("min", 1), rel.get("distinct")]})
        ceiling = ev({"mul": [members.get("max", len(parts)), rel.get("distinct")]})
        checks.append((f"sum {fmt(total.point)} >= {fmt(low.point)} x {fmt(distinct.point)}",
                       compare_verdict(total, ">=", floor)))
        checks.append((f"sum {fmt(total.point)} <= {fmt(high.point)} x {fmt(distinct.point)}",
                       compare_verdict(total, "<=", ceiling)))
        for label, expr in parts:
            part = ev(expr)
            checks.append((f"{label} {fmt(part.point)} <= distinct {fmt(distinct.point)}",
                           compare_verdict(part, "<=", distinct)))
    verdict = worst([v for _, v in checks])
    misses = [f"{text} is {v}" for text, v in checks if v != EXACT]
    shape = ("a partition" if partition else
             f"{fmt(ev(members.get('min', 1)).point)}-{fmt(ev(members.get('max', len(parts))).point)} "
             "memberships per item")
    detail = f"{len(parts)} categories, {shape}; " + (
        "; ".join(misses) if misses else "every check holds at the printed values")
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict,
                  expected=f"distinct {fmt(distinct.point)}", got=f"sum of parts {fmt(total.point)}",
                  tolerance=fmt((total.hi - total.lo) / 2 + (distinct.hi - distinct.lo) / 2),
                  detail=detail, **ctx.base(rel))
