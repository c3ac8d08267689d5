"""``aggregate``: a breakdown (quartiles, categories, sources, splits) against the whole it breaks down.

A mean over a population split into groups is the group means weighted by group sizes:
``whole = sum(w_i * part_i) / sum(w_i)``.

- With ``weights`` (group sizes the paper gives, e.g. 42 / 44 / 125 / 14 queries per source, or
  equal weights for quartiles), the weighted mean is evaluated at the printed values and over the
  rounding intervals of parts and weights.
- Without ``weights`` (the paper does not give the group sizes), every positive weighting is
  admissible, so the whole must lie between the smallest and the largest part. A weight may also be
  bounded, ``{"between": [lo, hi]}`` (e.g. a quartile of N = 1,000 queries holds 250 of them, one
  of 997 queries 249 or 250).

The verdict follows the tolerance rule: EXACT when some admissible weighting of the printed parts
rounds to the printed whole; WITHIN_ROUNDING when only unrounded parts (or weights) inside their
rounding intervals do; FAIL otherwise. The extremes of a weighted mean over a box of weights are
found exactly (a weighted mean is extreme when the weights sit at their bounds, split by a
threshold on the sorted parts), so the bound is tight, not a grid search.
"""

from fractions import Fraction
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from ..evaluator import EXACT, FAIL, WITHIN, Evaluator
from ..printed import fmt
from .base import Context, Result, inputs
from .templates import expressions

Interval = Tuple[Fraction, Fraction]


def mean_range(values: Sequence[Fraction], weights: Sequence[Interval], lowest: bool) -> Fraction:
    """The least (``lowest``) or greatest weighted mean of ``values`` over weights in their boxes.

    The extreme puts the upper weight bound on every value below (for the least mean) a threshold
    and the lower bound on every value above it; trying every threshold of the sorted values is
    exact (Dinkelbach's lemma for a ratio of linear functions over a box).
    """
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=not lowest)
    best: Optional[Fraction] = None
    for cut in range(len(order) + 1):
        num = Fraction(0)
        den = Fraction(0)
        for rank, i in enumerate(order):
            w = weights[i][1] if rank < cut else weights[i][0]
            num += w * values[i]
            den += w
        if den <= 0:
            continue
        m = num / den
        if best is None or (m < best if lowest else m > best):
            best = m
    if best is None:
        raise ValueError("every admissible weighting has zero total weight")
    return best


def _weights(rel: Mapping[str, Any], ctx: Context, ev: Evaluator, n: int
             ) -> Tuple[Optional[List[Fraction]], List[Interval], List[str], str]:
    """(printed weights or None, weight boxes, value ids used, description)."""
    raw = rel.get("weights")
    if raw is None:
        return None, [(Fraction(0), Fraction(1))] * n, [], "any positive weights (group sizes not given)"
    if not isinstance(raw, list) or len(raw) != n:
        raise ctx.error(rel, f"weights must list one weight per part ({n})")
    points: Optional[List[Fraction]] = []
    boxes: List[Interval] = []
    refs: List[str] = []
    shown = []
    for item in raw:
        if isinstance(item, dict) and "between" in item:
            ctx.known(item, ("between",), rel, "weight")
            pair = item["between"]
            if not isinstance(pair, list) or len(pair) != 2:
                raise ctx.error(rel, "between takes [lowest, highest]")
            lo, hi = ev(pair[0]), ev(pair[1])
            refs += list(lo.refs + hi.refs)
            boxes.append((lo.lo, hi.hi))
            points = None
            shown.append(f"[{fmt(lo.point)}, {fmt(hi.point)}]")
        else:
            w = ev(item)
            refs += list(w.refs)
            boxes.append((w.lo, w.hi))
            if points is not None:
                points.append(w.point)
            shown.append(fmt(w.point))
    for lo, hi in boxes:
        if lo < 0 or hi < lo:
            raise ctx.error(rel, "weights must be non-negative")
    if all(hi == 0 for _, hi in boxes):
        raise ctx.error(rel, "weights must not all be zero")
    return points, boxes, refs, "weights " + ", ".join(shown)


def evaluate_aggregate(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    parts = expressions(rel.get("parts"), rel, ctx, "parts")
    if len(parts) < 2:
        raise ctx.error(rel, "parts must list at least two group values")
    items = [ev(expr) for _, expr in parts]
    whole = ev(rel.get("whole"))
    points, boxes, wrefs, described = _weights(rel, ctx, ev, len(items))
    at_print = [i.point for i in items]
    if points is not None:
        total = sum(points, Fraction(0))
        if total <= 0:
            raise ctx.error(rel, "weights must not sum to zero")
        point: Optional[Fraction] = sum((w * v for w, v in zip(points, at_print)), Fraction(0)) / total
        p_lo = p_hi = point
    else:
        point = None
        p_lo, p_hi = mean_range(at_print, boxes, True), mean_range(at_print, boxes, False)
    i_lo = mean_range([i.lo for i in items], boxes, True)
    i_hi = mean_range([i.hi for i in items], boxes, False)
    if p_lo <= whole.hi and whole.lo <= p_hi:
        verdict = EXACT
    elif i_lo <= whole.hi and whole.lo <= i_hi:
        verdict = WITHIN
    else:
        verdict = FAIL
    got = fmt(point) if point is not None else f"[{fmt(p_lo)}, {fmt(p_hi)}]"
    detail = (f"{described}; admissible over rounding [{fmt(i_lo)}, {fmt(i_hi)}]; parts "
              + ", ".join(f"{label}={fmt(i.point)}" for (label, _), i in zip(parts, items)))
    refs = [r for i in items for r in i.refs] + wrefs + list(whole.refs)
    expected = ctx.values[whole.single].text if whole.single else fmt(whole.point)
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict, expected=expected, got=got,
                  tolerance=fmt((i_hi - i_lo) / 2 + (whole.hi - whole.lo) / 2),
                  detail=detail, **ctx.base(rel))
