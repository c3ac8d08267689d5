"""``tally``: a count named in the prose against the structure of the tables it describes.

"five categories", "ten sub-classes each", "three of five systems", "all four rerankers": the
sentence's count is compared with what the tables show, counted one of four ways:

- ``"rows": T`` (optionally ``"exclude": [row ids]``, e.g. a total row): the rows of table T;
- ``"columns": T`` (optionally ``"exclude"``): the columns of table T;
- ``"cells": [expressions]`` with an optional ``"condition": {"op": "<", "than": 0}``: how many of
  the cells satisfy it ("three of five lower it");
- ``"words": [word ids]`` with ``"condition": {"is": "flip"}``: how many printed words equal a word;
- ``"items": [list ids]``: how many entries the printed lists hold ("ten sub-classes each");
- ``"filled": "T.row"`` (optionally ``"of": [column ids]``): how many cells of a row are printed
  (a dash in the paper is an absent cell: "the grade-2 subset retains two conditions").

A structural count is exact, so the verdict is EXACT or FAIL. A count of cells satisfying a
condition can depend on rounding (a printed ``0.0`` may be slightly negative): EXACT when the count
at the printed values matches, WITHIN_ROUNDING when some unrounded values give the printed count,
FAIL otherwise.
"""

from typing import Any, List, Mapping, Tuple

from ..evaluator import EXACT, FAIL, WITHIN, Evaluator, compare_verdict, is_comparison
from ..printed import fmt
from .base import Context, Result, inputs
from .templates import expressions

WAYS = ("rows", "columns", "cells", "words", "items", "filled")


def _exclude(rel: Mapping[str, Any], ctx: Context, known: List[str]) -> List[str]:
    raw = rel.get("exclude", [])
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise ctx.error(rel, "exclude must be a list of ids")
    for x in raw:
        if x not in known:
            raise ctx.error(rel, f"exclude names {x!r}, which the table does not have")
    return raw


def _count_cells(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Tuple[int, int, int, List[str], str]:
    cells = expressions(rel.get("cells"), rel, ctx, "cells")
    where = rel.get("condition")
    if where is None:
        return len(cells), len(cells), len(cells), [r for _, e in cells for r in ev(e).refs], "cells listed"
    if not isinstance(where, dict) or not is_comparison(where.get("op")) or "than" not in where:
        raise ctx.error(rel, "condition must be {\"op\": one of < <= > >=, \"than\": expression}")
    ctx.known(where, ("op", "than"), rel, "condition")
    than = ev(where["than"])
    at_print = surely = possibly = 0
    refs: List[str] = list(than.refs)
    shown = []
    for label, expr in cells:
        item = ev(expr)
        refs += list(item.refs)
        verdict = compare_verdict(item, where["op"], than)
        opposite = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[where["op"]]
        holds_everywhere = compare_verdict(item, opposite, than) == FAIL
        at_print += verdict == EXACT
        possibly += verdict != FAIL
        surely += holds_everywhere
        shown.append(f"{label}={fmt(item.point)}{'' if verdict == EXACT else ' (no)'}")
    return at_print, surely, possibly, refs, f"{where['op']} {fmt(than.point)}: " + ", ".join(shown)


def _count_words(rel: Mapping[str, Any], ctx: Context) -> Tuple[int, str]:
    raw = rel.get("words")
    where = rel.get("condition")
    if not isinstance(raw, list) or not raw or not all(isinstance(w, str) for w in raw):
        raise ctx.error(rel, "words must be a non-empty list of word ids")
    if not isinstance(where, dict) or not isinstance(where.get("is"), str):
        raise ctx.error(rel, "counting words needs condition: {\"is\": word}")
    ctx.known(where, ("is",), rel, "condition")
    for w in raw:
        if w not in ctx.tr.words:
            raise ctx.error(rel, f"unknown word {w!r}")
    hits = [w for w in raw if ctx.tr.words[w] == where["is"]]
    return len(hits), f"{where['is']!r}: {', '.join(hits) or 'none'}"


def _count_items(rel: Mapping[str, Any], ctx: Context) -> Tuple[int, str]:
    raw = rel.get("items")
    if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
        raise ctx.error(rel, "items must be a non-empty list of list ids")
    for x in raw:
        if x not in ctx.tr.lists:
            raise ctx.error(rel, f"unknown list {x!r}")
    sizes = [len(ctx.tr.lists[x]) for x in raw]
    return sum(sizes), "entries of " + ", ".join(f"{x} ({n})" for x, n in zip(raw, sizes))


def _count_filled(rel: Mapping[str, Any], ctx: Context) -> Tuple[int, str]:
    raw = rel.get("filled")
    if not isinstance(raw, str) or raw.count(".") != 1:
        raise ctx.error(rel, "filled names one row as 'table.row'")
    tid, rid = raw.split(".")
    if tid not in ctx.tr.tables or rid not in ctx.tr.tables[tid]["rows"]:
        raise ctx.error(rel, f"unknown row {raw!r}")
    columns = ctx.tr.tables[tid]["columns"]
    of = rel.get("of", columns)
    if not isinstance(of, list) or not of or not all(isinstance(c, str) and c in columns for c in of):
        raise ctx.error(rel, f"of must list columns of table {tid}")
    present = [c for c in of if f"{raw}.{c}" in ctx.values]
    return len(present), f"printed cells of {raw}: {', '.join(present) or 'none'}"


def evaluate_tally(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    ways = [w for w in WAYS if w in rel]
    if len(ways) != 1:
        raise ctx.error(rel, f"tally counts exactly one of {', '.join(WAYS)}")
    way = ways[0]
    refs: List[str] = []
    if way in ("rows", "columns"):
        table = ctx.table(rel, way)
        ids = table[way]
        dropped = _exclude(rel, ctx, ids)
        n = len([x for x in ids if x not in dropped])
        low = high = n
        detail = f"{way} of {rel[way]}" + (f" without {', '.join(dropped)}" if dropped else "")
    elif way == "cells":
        n, low, high, refs, detail = _count_cells(rel, ctx, ev)
    else:
        counter = {"words": _count_words, "items": _count_items, "filled": _count_filled}[way]
        n, detail = counter(rel, ctx)
        low = high = n
    expected = ev.exact_count(rel.get("expected"), "tally")
    refs += list(ev(rel.get("expected")).refs)
    if n == expected:
        verdict = EXACT
    elif low <= expected <= high:
        verdict = WITHIN
    else:
        verdict = FAIL
    got = str(n) if low == high else f"{n} (between {low} and {high} over the rounding intervals)"
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict, expected=str(expected), got=got,
                  tolerance="0 (a count)", detail=detail, **ctx.base(rel))
