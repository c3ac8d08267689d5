"""``same``: one quantity printed more than once (two tables, or a table and the prose).

Two prints of one number are roundings of the same real value, so they leave no rounding slack:

- at the same precision they must be **identical** (``26.8`` and ``26.9`` FAIL, although their
  rounding intervals touch at 26.85: one real number cannot be printed both ways by one rounding
  rule);
- at different precisions the more precise print must lie in the closed rounding interval of the
  less precise one (``.5714`` and ``.571`` are EXACT; ``63.45`` and ``63.4`` are EXACT, a tie).

So ``same`` is EXACT or FAIL, never WITHIN_ROUNDING, unlike ``equal``, which lets a one-unit
difference pass as WITHIN_ROUNDING. A print may be rescaled by an exact constant (``"scale": 100``
for a fraction printed elsewhere as a percentage, ``-1`` for "lowers by 6.1" against ``-6.1``).
"""

from fractions import Fraction
from typing import Any, List, Mapping, Tuple

from ..evaluator import EXACT, FAIL, Evaluator
from ..printed import fmt
from .base import Context, Result, exact_number, inputs


def _print(raw: Any, rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Tuple[str, Fraction, Fraction]:
    """(value id, value, half-unit) of one print, after its exact rescaling."""
    if isinstance(raw, dict):
        ctx.known(raw, ("value", "scale"), rel, "a print")
        vid = raw.get("value")
        scale = exact_number(raw.get("scale"), 1, rel, ctx, "scale")
        if scale == 0:
            raise ctx.error(rel, "scale must not be zero")
    else:
        vid, scale = raw, Fraction(1)
    v = ev.value(vid)
    return v.vid, v.value * scale, v.half * abs(scale)


def consistent(a: Tuple[Fraction, Fraction], b: Tuple[Fraction, Fraction]) -> bool:
    """Two prints ``(value, half-unit)`` of one quantity: identical at the same precision, else the
    finer one inside the coarser one's closed interval."""
    (va, ha), (vb, hb) = a, b
    if ha == hb:
        return va == vb
    (vf, _), (vc, hc) = (a, b) if ha < hb else (b, a)
    return vc - hc <= vf <= vc + hc


def evaluate_same(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    raw = rel.get("values")
    if not isinstance(raw, list) or len(raw) < 2:
        raise ctx.error(rel, "values must list at least two prints of the quantity")
    prints = [_print(r, rel, ctx, ev) for r in raw]
    bad: List[str] = []
    for i in range(len(prints)):
        for j in range(i + 1, len(prints)):
            if not consistent(prints[i][1:], prints[j][1:]):
                bad.append(f"{prints[i][0]}={fmt(prints[i][1])} vs {prints[j][0]}={fmt(prints[j][1])}")
    verdict = FAIL if bad else EXACT
    first = prints[0]
    detail = ("differ: " + "; ".join(bad)) if bad else "all prints agree"
    return Result(inputs=inputs(ctx.values, [p[0] for p in prints]), verdict=verdict,
                  expected=fmt(first[1]), got=", ".join(fmt(p[1]) for p in prints[1:]),
                  tolerance="0 (one quantity)", detail=detail, **ctx.base(rel))


def expand_same_table(rel: Mapping[str, Any], ctx: Context) -> List[Mapping[str, Any]]:
    """One ``same`` per cell: table ``b`` reprints table ``a`` (optional ``rows`` / ``columns`` maps)."""
    a = ctx.table(rel, "a")
    b = ctx.table(rel, "b")
    maps = []
    for key, default in (("rows", a["rows"]), ("columns", a["columns"])):
        raw = rel.get(key)
        if raw is None:
            maps.append({x: x for x in default})
        elif isinstance(raw, dict) and all(isinstance(v, str) for v in raw.values()):
            maps.append(raw)
        else:
            raise ctx.error(rel, f"{key} must map ids of table a to ids of table b")
    rowmap, colmap = maps
    ctx.ids_of(rel, "rows", rowmap.keys(), a["rows"])
    ctx.ids_of(rel, "rows", rowmap.values(), b["rows"])
    ctx.ids_of(rel, "columns", colmap.keys(), a["columns"])
    ctx.ids_of(rel, "columns", colmap.values(), b["columns"])
    out = []
    for ra, rb in rowmap.items():
        for ca, cb in colmap.items():
            va, vb = f"{rel['a']}.{ra}.{ca}", f"{rel['b']}.{rb}.{cb}"
            if va not in ctx.values and vb not in ctx.values:
                continue
            out.append({"id": f"{rel['id']}.{ra}.{ca}", "kind": "same", "values": [va, vb],
                        "category": rel.get("category", "copy"), "note": rel.get("note", ""),
                        "where": rel.get("where", "")})
    return out
