"""``design``: counts the study design implies against the counts the paper reports elsewhere.

Sample sizes, splits and "every retained item was judged" statements fix counts: 13 systems x 3
forms is 39 rankings; three responses that each decide all 94 conditions make 282 decisions; a
train / validation / test split adds up to the whole; a sample retains at most what it was drawn
from. ``planned`` is the design's expression (``{"mul": [13, 3]}``, ``{"add": [...]}``),
``reported`` the count printed elsewhere, ``op`` one of ``== <= >= < >`` (default ``==``: the
reported count equals the planned one; ``<=``: it cannot exceed it).

Equalities follow the ``equal`` rule and orderings the ``compare`` rule
(:mod:`nclue.paper_audit.evaluator`): with exact counts on both sides the verdict is EXACT or
FAIL; a rounded count ("1.0K queries") can give WITHIN_ROUNDING.
"""

from typing import Any, Mapping

from ..evaluator import Evaluator, compare_verdict, equal_verdict, half_width, is_comparison
from ..printed import fmt
from .base import Context, Result, inputs


def evaluate_design(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    op = rel.get("op", "==")
    if op != "==" and not is_comparison(op):
        raise ctx.error(rel, "op must be one of == < <= > >=")
    planned = ev(rel.get("planned"))
    reported = ev(rel.get("reported"))
    verdict = equal_verdict(planned, reported) if op == "==" else compare_verdict(reported, op, planned)
    shown = ctx.values[reported.single].text if reported.single else fmt(reported.point)
    return Result(inputs=inputs(ctx.values, planned.refs + reported.refs), verdict=verdict,
                  expected=f"reported {shown} {op} planned", got=fmt(planned.point),
                  tolerance=fmt(half_width(planned) + half_width(reported)),
                  detail=f"planned [{fmt(planned.lo)}, {fmt(planned.hi)}], reported "
                         f"[{fmt(reported.lo)}, {fmt(reported.hi)}]", **ctx.base(rel))
