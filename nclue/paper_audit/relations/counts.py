"""Whole-count relations (GRIM-style, Brown & Heathers 2017): ``grim``, ``count``,
``count_marked`` and the bulk ``grim_table``.

Count rule
----------
A percentage ``v`` over ``N`` whole items must equal ``100 k / N`` for some whole ``k`` in
``0..N`` that rounds to ``v``: the interval of ``v`` times ``N / 100`` must contain an integer.
``count`` relations go further: they choose one feasible ``k`` per reported percentage and ask
whether some choice makes a linear combination of the ``k`` (a gap, a sum of slices) round to the
printed result. Count relations are ``EXACT`` or ``FAIL`` (whole numbers leave no rounding slack).

Informativeness
---------------
A GRIM-style check can only fail when the printed precision is finer than the count grid: the
values ``k / N`` are ``scale / N`` apart, the rounding interval of a value printed to ``d``
decimals is ``10^-d`` wide, so when ``10^-d * N / |scale| >= 1`` every printed value (inside the
admissible range) contains some ``k / N`` and the check cannot fail (N = 1,000 queries at one
decimal of a percentage: ``0.1 * 1000 / 100 = 1``). Such a check is reported ``NOT_INFORMATIVE``
instead of ``EXACT``, and counted separately. A ``count`` relation is ``NOT_INFORMATIVE`` when every
percentage in it (inputs and result) is uninformative in this sense: each printed value then maps
to its whole count(s) and the relation tests nothing that the printed-value arithmetic does not.
A check that fails is reported ``FAIL`` whatever its informativeness.
"""

import itertools
import math
from fractions import Fraction
from typing import Any, List, Mapping, Optional

from ..evaluator import EXACT, FAIL, NOT_INFORMATIVE, Evaluator
from ..printed import Printed, fmt
from .base import Context, Result, exact_number, inputs

MAX_COMBINATIONS = 200000
MAX_FEASIBLE = 1000000  # more whole counts than this inside one rounding interval is not a GRIM check


def feasible_counts(v: Printed, n: int, scale: Fraction = Fraction(100),
                    offset: Fraction = Fraction(0), kmin: int = 0,
                    kmax: Optional[int] = None) -> List[int]:
    """Whole ``k`` in ``kmin..kmax`` (default 0..n) with ``offset + scale*k/n`` inside v's interval.

    For a percentage (scale 100, offset 0) this is the GRIM test: ``k/n`` must round to ``v``.
    """
    if n <= 0:
        raise ValueError("n must be positive")
    top = n if kmax is None else kmax
    if v.half == 0:
        target = (v.value - offset) * n / scale
        return [int(target)] if target.denominator == 1 and kmin <= target <= top else []
    a = (v.lo - offset) * n / scale
    b = (v.hi - offset) * n / scale
    lo, hi = min(a, b), max(a, b)
    first = max(kmin, math.ceil(lo))
    last = min(top, math.floor(hi))
    return list(range(first, last + 1))


def grid_width(v: Printed, n: int, scale: Fraction = Fraction(100)) -> Fraction:
    """Width of ``v``'s rounding interval in units of one whole count out of ``n``:
    ``2 * half * n / |scale|``; a GRIM check of ``v`` cannot fail when it is at least 1."""
    return 2 * v.half * n / abs(scale)


def _check_width(width: Fraction, rel: Mapping[str, Any], ctx: Context) -> None:
    if width > MAX_FEASIBLE:
        raise ctx.error(rel, f"N is too large for a whole-count check ({fmt(width, 0)} counts "
                             f"fit one rounding interval)")


def _whole(raw: Any, default: Optional[int], rel: Mapping[str, Any], ctx: Context, what: str) -> Optional[int]:
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ctx.error(rel, f"{what} must be a whole number")
    return raw


def evaluate_grim(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    """``offset + scale*k/n`` rounds to the printed value for some whole ``k``."""
    v = ev.value(rel.get("value"))
    n = ctx.count(rel.get("n"), rel, ev)
    scale = exact_number(rel.get("scale"), 100, rel, ctx, "scale")
    offset = exact_number(rel.get("offset"), 0, rel, ctx, "offset")
    if scale == 0:
        raise ctx.error(rel, "scale must not be zero")
    kmin = _whole(rel.get("kmin"), 0, rel, ctx, "kmin")
    kmax = _whole(rel.get("kmax"), None, rel, ctx, "kmax")
    width = grid_width(v, n, scale)
    _check_width(width, rel, ctx)
    ks = feasible_counts(v, n, scale, offset, kmin, kmax)
    verdict = FAIL if not ks else (NOT_INFORMATIVE if width >= 1 else EXACT)
    # nearest representable values, to show what the count allows
    centre = (v.value - offset) * n / scale
    near = sorted({math.floor(centre), math.ceil(centre)})
    shown = ", ".join(f"{k}/{n}->{fmt(offset + scale * Fraction(k, n), v.decimals + 3)}"
                      for k in (ks or near))
    return Result(inputs=inputs(ctx.values, [v.vid]), verdict=verdict, expected=v.text,
                  got=(f"k in {ks}" if ks else "no whole k"),
                  tolerance=fmt(v.half), detail=f"N={n}; {shown}; {_width_text(width)}",
                  **ctx.base(rel))


def _width_text(width: Fraction) -> str:
    if width >= 1:
        return f"cannot fail: the rounding interval spans {fmt(width, 3)} whole counts (>= 1)"
    return f"informative: the rounding interval spans {fmt(width, 3)} of a whole count (< 1)"


def evaluate_count(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    """Choose one feasible whole count per percentage; test a linear combination of them.

    ``vars``: ``{name: {"value": id, "n": N}}`` or ``{name: {"count": id-or-int}}``;
    ``combine``: ``{name: coefficient}``; ``result``: ``{"value": id, "n": N}`` (the combination
    divided by N, times 100, must round to the printed value) or ``{"count": id-or-int}``.
    """
    variables = rel.get("vars")
    combine = rel.get("combine")
    result = rel.get("result")
    if not isinstance(variables, dict) or not isinstance(combine, dict) or not isinstance(result, dict):
        raise ctx.error(rel, "needs vars, combine and result")
    for name, coef in combine.items():
        if name not in variables:
            raise ctx.error(rel, f"unknown variable {name!r}")
        if isinstance(coef, bool) or not isinstance(coef, (int, float)):
            raise ctx.error(rel, f"coefficient of {name!r} must be a number")
    names = sorted(variables)
    options: List[List[int]] = []
    refs: List[str] = []
    detail_parts = []
    widths: List[Fraction] = []
    for name in names:
        spec = variables[name]
        if not isinstance(spec, dict):
            raise ctx.error(rel, f"variable {name!r} must be an object")
        ctx.known(spec, ("count",) if "count" in spec else ("value", "n", "scale"), rel, f"variable {name!r}")
        if "count" in spec:
            k = ctx.count(spec["count"], rel, ev, zero_ok=True)
            options.append([k])
            if isinstance(spec["count"], str):
                refs.append(spec["count"])
            detail_parts.append(f"{name}={k}")
            continue
        v = ev.value(spec.get("value"))
        n = ctx.count(spec.get("n"), rel, ev)
        vscale = exact_number(spec.get("scale"), 100, rel, ctx, "scale")
        if vscale == 0:
            raise ctx.error(rel, "scale must not be zero")
        widths.append(grid_width(v, n, vscale))
        _check_width(widths[-1], rel, ctx)
        ks = feasible_counts(v, n, vscale)
        refs.append(v.vid)
        options.append(ks)
        detail_parts.append(f"{name}: {v.text} of {n} -> k in {ks}")
    ctx.known(result, ("count",) if "count" in result else ("value", "n", "scale"), rel, "result")
    if "count" in result:
        target_n = None
        target_count = ctx.count(result["count"], rel, ev, zero_ok=True)
        if isinstance(result["count"], str):
            refs.append(result["count"])
        expected_text = str(target_count)
    else:
        rv = ev.value(result.get("value"))
        refs.append(rv.vid)
        target_n = ctx.count(result.get("n"), rel, ev)
        rscale = exact_number(result.get("scale"), 100, rel, ctx, "scale")
        if rscale == 0:
            raise ctx.error(rel, "scale must not be zero")
        widths.append(grid_width(rv, target_n, rscale))
        expected_text = rv.text
    size = 1
    for o in options:
        size *= max(1, len(o))
    if size > MAX_COMBINATIONS:
        raise ctx.error(rel, "too many count combinations")
    coefficient = {name: Fraction(repr(c)) if isinstance(c, float) else Fraction(c)
                   for name, c in combine.items()}
    matches = []
    for choice in itertools.product(*options):
        total = sum(coefficient.get(name, 0) * k for name, k in zip(names, choice))
        if target_n is None:
            ok = total == target_count
        else:
            x = rscale * total / target_n
            ok = rv.lo <= x <= rv.hi
        if ok:
            matches.append(dict(zip(names, choice)))
    if any(not o for o in options):
        verdict, got = FAIL, "a percentage has no whole count (GRIM)"
    elif matches:
        verdict = NOT_INFORMATIVE if widths and all(w >= 1 for w in widths) else EXACT
        first = matches[0]
        total = sum(coefficient.get(n, 0) * first[n] for n in names)
        got = (f"{fmt(total)}" if target_n is None
               else f"{fmt(total)}/{target_n} -> {fmt(rscale * total / target_n, 4)}")
    else:
        verdict = FAIL
        got = "no combination of whole counts matches"
    detail = "; ".join(detail_parts)
    if matches:
        detail += f"; matching choice {matches[0]}"
    if widths:
        detail += "; " + _width_text(min(widths))
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict, expected=expected_text,
                  got=got, tolerance="0 (whole counts)", detail=detail, **ctx.base(rel))


def evaluate_count_marked(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    """The number of ``cells`` carrying ``marker`` (e.g. ``*`` significance) equals ``expected``."""
    cells = rel.get("cells")
    marker = rel.get("marker")
    if not isinstance(cells, list) or not isinstance(marker, str) or not marker:
        raise ctx.error(rel, "needs cells and marker")
    marked = [c for c in cells if marker in ev.value(c).markers]
    exp = ev(rel.get("expected"))
    verdict = EXACT if exp.lo <= len(marked) <= exp.hi else FAIL
    return Result(inputs=inputs(ctx.values, list(cells) + list(exp.refs)), verdict=verdict,
                  expected=fmt(exp.point), got=str(len(marked)), tolerance="0",
                  detail=f"marked: {', '.join(marked) or 'none'}", **ctx.base(rel))


def expand_grim_table(rel: Mapping[str, Any], ctx: Context) -> List[Mapping[str, Any]]:
    """One ``grim`` per cell of ``table`` in ``columns`` (``{column: N}``)."""
    table = ctx.table(rel, "table")
    columns = rel.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise ctx.error(rel, "columns must map id -> N")
    rows = rel.get("rows", table["rows"])
    if not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
        raise ctx.error(rel, "rows must be a list of row ids")
    ctx.ids_of(rel, "rows", rows, table["rows"])
    ctx.ids_of(rel, "columns", columns, table["columns"])
    out = []
    for rid in rows:
        for cid, n in columns.items():
            vid = f"{rel['table']}.{rid}.{cid}"
            if vid not in ctx.values:
                continue
            out.append({"id": f"{rel['id']}.{rid}.{cid}", "kind": "grim", "value": vid, "n": n,
                        "category": rel.get("category", "grim"), "note": rel.get("note", ""),
                        "where": rel.get("where", "")})
    return out
