"""``superiority``: a claim of superiority or generality checked against **every** row (or column)
of the table it quantifies over.

"X outperforms Y", "a large gap for every approach", "gaps of 6.8–7.3 points", "at least 27.8
points for every displayed system": the sentence is about a whole table, so the relation names the
table and the two cells compared in each of its rows, and the rows are enumerated from the
transcribed table itself. A row can be left out only by name, with the reason
(``"exclude": {"oracle": "an upper bound, not a method"}``), so a claim cannot silently be checked
on the rows that happen to support it; a row without one of the two cells (a dash in the paper)
must be excluded too.

Fields:

- ``table``: the table; ``over``: ``"rows"`` (default), ``"columns"`` or ``"groups"``;
- ``better``, ``worse``: two column ids compared in every row (``over: rows``), two row ids
  compared in every column (``over: columns``), or, with ``over: groups``, two row-id suffixes
  compared in every group of rows (the rows' printed ``group``, e.g. a backbone: ``spin`` and
  ``llm`` pick ``mm_spin`` and ``mm_llm`` in group MM-Embed) at each of the listed ``columns``;
  a group without one of the two rows must be excluded by name. ``worse`` may be a constant
  ("lowers Gold-NDCG for every model": ``"worse": 0``, ``"op": "<"``);
- ``op``: how ``better`` relates to ``worse`` (``>`` default; ``<`` for "lower is better");
- ``gap`` (optional): a claim about ``better - worse`` in every row: ``{"op": ">=", "value": E}``
  ("at least 27.8 points"), or ``{"between": [LO, HI]}`` ("by 6.8–7.3 points": every gap inside
  the range) with ``"tight": true`` when the range's ends are the smallest and largest gap (each
  end must then equal the extreme gap by the ``equal`` rule).

Each row is judged by the comparison rule (EXACT at the printed values, WITHIN_ROUNDING when only
unrounded values inside the rounding intervals make it hold, FAIL otherwise) and the claim takes
the worst verdict; the detail names every row that does not hold exactly.
"""

from typing import Any, Dict, List, Mapping, Tuple

from ..evaluator import EXACT, Evaluator, compare_verdict, equal_verdict, is_comparison, worst
from ..printed import fmt
from .base import Context, Result, inputs

OVER = ("rows", "columns", "groups")


def _exclusions(rel: Mapping[str, Any], ctx: Context, known: List[str]) -> Dict[str, str]:
    raw = rel.get("exclude", {})
    if not isinstance(raw, dict) or not all(isinstance(v, str) and v.strip() for v in raw.values()):
        raise ctx.error(rel, "exclude must map each left-out id to the reason it is left out")
    ctx.ids_of(rel, "exclude", raw, known)
    return dict(raw)


def _is_constant(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _group_pairs(rel: Mapping[str, Any], ctx: Context, table: Mapping[str, Any], tid: str,
                 better: str, worse: Any) -> Tuple[List[Tuple[str, Any, Any]], Dict[str, str]]:
    """Per group of rows (a backbone) and listed column: the row ending in ``_<better>`` against
    the row ending in ``_<worse>``."""
    columns = rel.get("columns")
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        raise ctx.error(rel, "over groups needs columns: the column ids compared in every group")
    ctx.ids_of(rel, "columns", columns, table["columns"])
    names: List[str] = []
    for rid in table["rows"]:
        group = table["groups"].get(rid)
        if group is not None and group not in names:
            names.append(group)
    if not names:
        raise ctx.error(rel, f"table {tid} has no row groups")
    excluded = _exclusions(rel, ctx, names)
    pairs = []
    for group in names:
        if group in excluded:
            continue
        members = [r for r in table["rows"] if table["groups"].get(r) == group]
        found = {}
        for role, suffix in (("better", better), ("worse", worse)):
            if _is_constant(suffix):
                continue
            hits = [r for r in members if r.endswith("_" + suffix)]
            if len(hits) != 1:
                raise ctx.error(rel, f"group {group!r} has {len(hits)} rows ending in _{suffix} "
                                     "(exclude it, with the reason)")
            found[role] = hits[0]
        for column in columns:
            b = f"{tid}.{found['better']}.{column}"
            w = worse if _is_constant(worse) else f"{tid}.{found['worse']}.{column}"
            pairs.append((f"{group}:{column}", b, w))
    return pairs, excluded


def _pairs(rel: Mapping[str, Any], ctx: Context) -> Tuple[List[Tuple[str, Any, Any]], Dict[str, str]]:
    """(label, better value id, worse value id or constant) for every row, column or group not
    excluded."""
    tid = rel.get("table")
    table = ctx.table(rel, "table")
    over = rel.get("over", "rows")
    if over not in OVER:
        raise ctx.error(rel, "over must be 'rows', 'columns' or 'groups'")
    better, worse = rel.get("better"), rel.get("worse")
    other = {"rows": "columns", "columns": "rows", "groups": "row suffixes"}[over]
    if not isinstance(better, str) or not better:
        raise ctx.error(rel, f"better must name one of the table's {other}")
    if not (isinstance(worse, str) and worse) and not _is_constant(worse):
        raise ctx.error(rel, f"worse must name one of the table's {other}, or be a constant")
    if better == worse:
        raise ctx.error(rel, "better and worse must differ")
    if over == "groups":
        pairs, excluded = _group_pairs(rel, ctx, table, tid, better, worse)
    else:
        if "columns" in rel:
            raise ctx.error(rel, "columns is only for over: groups")
        named = [x for x in (better, worse) if isinstance(x, str)]
        ctx.ids_of(rel, f"better/worse ({other} of {tid})", named, table[other])
        excluded = _exclusions(rel, ctx, table[over])
        pairs = []
        for ident in table[over]:
            if ident in excluded:
                continue
            if over == "rows":
                b = f"{tid}.{ident}.{better}"
                w = worse if _is_constant(worse) else f"{tid}.{ident}.{worse}"
            else:
                b = f"{tid}.{better}.{ident}"
                w = worse if _is_constant(worse) else f"{tid}.{worse}.{ident}"
            pairs.append((ident, b, w))
    for label, b, w in pairs:
        missing = [v for v in (b, w) if isinstance(v, str) and v not in ctx.values]
        if missing:
            raise ctx.error(rel, f"{label!r} has no printed {missing[0]} (exclude it, with the reason)")
    if not pairs:
        raise ctx.error(rel, f"every {over[:-1]} of {tid} is excluded")
    return pairs, excluded


def evaluate_superiority(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    op = rel.get("op", ">")
    if not is_comparison(op):
        raise ctx.error(rel, "op must be one of < <= > >=")
    pairs, excluded = _pairs(rel, ctx)
    gap = rel.get("gap")
    if gap is not None:
        if not isinstance(gap, dict):
            raise ctx.error(rel, "gap must be {\"op\", \"value\"} or {\"between\": [lo, hi]}")
        ctx.known(gap, ("op", "value") if "between" not in gap else ("between", "tight"), rel, "gap")
    verdicts: List[str] = []
    refs: List[str] = []
    misses: List[str] = []
    diffs = []
    for label, b, w in pairs:
        better, worse = ev(b), ev(w)
        refs += [x for x in (b, w) if isinstance(x, str)]
        checks = [(f"{fmt(better.point)} {op} {fmt(worse.point)}", compare_verdict(better, op, worse))]
        if gap is not None:
            diff = ev({"sub": [b, w]})
            diffs.append(({"sub": [b, w]}, diff))
            if "between" in gap:
                ends = gap.get("between")
                if not isinstance(ends, list) or len(ends) != 2:
                    raise ctx.error(rel, "gap.between must be [lo, hi]")
                lo, hi = ev(ends[0]), ev(ends[1])
                checks.append((f"gap {fmt(diff.point)} >= {fmt(lo.point)}", compare_verdict(diff, ">=", lo)))
                checks.append((f"gap {fmt(diff.point)} <= {fmt(hi.point)}", compare_verdict(diff, "<=", hi)))
            else:
                if not is_comparison(gap.get("op")):
                    raise ctx.error(rel, "gap.op must be one of < <= > >=")
                bound = ev(gap.get("value"))
                checks.append((f"gap {fmt(diff.point)} {gap['op']} {fmt(bound.point)}",
                               compare_verdict(diff, gap["op"], bound)))
        for text, verdict in checks:
            verdicts.append(verdict)
            if verdict != EXACT:
                misses.append(f"{label}: {text} is {verdict}")
    if gap is not None:
        if "between" in gap:
            refs += [r for e in gap["between"] for r in ev(e).refs]
        else:
            refs += list(ev(gap.get("value")).refs)
        tight = gap.get("tight", False)
        if not isinstance(tight, bool):
            raise ctx.error(rel, "gap.tight must be true or false")
        if tight:
            lo_end, hi_end = ev(gap["between"][0]), ev(gap["between"][1])
            smallest = ev({"min": [e for e, _ in diffs]})
            largest = ev({"max": [e for e, _ in diffs]})
            for name, extreme, end in (("smallest", smallest, lo_end), ("largest", largest, hi_end)):
                verdict = equal_verdict(extreme, end)
                verdicts.append(verdict)
                if verdict != EXACT:
                    misses.append(f"{name} gap {fmt(extreme.point)} vs printed end "
                                  f"{fmt(end.point)} is {verdict}")
    verdict = worst(verdicts)
    over = rel.get("over", "rows")
    claim = f"{rel.get('better')} {op} {rel.get('worse')} in every {over[:-1]} of {rel.get('table')}"
    if gap is not None:
        claim += (f", gap in [{gap['between'][0]}, {gap['between'][1]}]" if "between" in gap
                  else f", gap {gap['op']} {gap.get('value')}")
    holding = len(pairs) - len({m.split(':')[0] for m in misses if not m.startswith(('smallest', 'largest'))})
    detail = f"{holding}/{len(pairs)} {over} hold exactly"
    if excluded:
        detail += "; excluded: " + "; ".join(f"{k} ({v})" for k, v in excluded.items())
    if misses:
        detail += "; " + "; ".join(misses)
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict, expected=claim,
                  got=f"{len(pairs)} {over} checked", tolerance="per row (comparison rule)",
                  detail=detail, **ctx.base(rel))
