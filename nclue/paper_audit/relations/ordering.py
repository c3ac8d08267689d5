"""Ordering and bound relations a paper implies without stating them as a sentence.

- ``order``: a ``chain`` of expressions (or several, ``chains``), each in relation ``op`` to the
  next: a score bounded by
  its hit rate (n-Clue Score@10 <= Gold Hit@10, arXiv 2607.24165 sec. 3.1: a complete-first
  success needs a top-10 gold), coverage non-decreasing in k (HC@5 <= HC@10 <= HC@20 <= HC@100,
  Multi3IR eq. 5: the top-k sets are nested).
- ``bound``: one expression (an oracle, an upper bound) in relation ``op`` to every expression of
  ``over`` (the methods it bounds).
- ``sign``: a printed direction word against the signs of the numbers beside it: ``"same"`` /
  ``"flip"`` for two values (Table 7 of the n-Clue paper, arXiv 2607.24165), ``"positive"`` /
  ``"negative"`` (or ``"+"`` / ``"-"``) for one.

Each step is judged by the comparison rule (EXACT at the printed values, WITHIN_ROUNDING when only
unrounded values inside the rounding intervals make it hold, FAIL otherwise); the relation takes
the worst verdict of its steps.
"""

from fractions import Fraction
from typing import Any, List, Mapping, Tuple

from ..evaluator import EXACT, FAIL, WITHIN, Evaluated, Evaluator, compare_verdict, is_comparison, worst
from ..printed import fmt
from .base import Context, Result, inputs
from .templates import expressions, listed

SAME_WORDS = ("same",)
FLIP_WORDS = ("flip", "opposite", "reversed")
POSITIVE_WORDS = ("positive", "+", "up", "higher", "gain")
NEGATIVE_WORDS = ("negative", "-", "down", "lower", "drop")


def _op(rel: Mapping[str, Any], ctx: Context) -> str:
    op = rel.get("op")
    if not is_comparison(op):
        raise ctx.error(rel, "op must be one of < <= > >=")
    return op


def _chains(rel: Mapping[str, Any], ctx: Context) -> List[Tuple[str, List[Tuple[str, Any]]]]:
    """``chain`` (one chain) or ``chains`` (a list of chains, or ``{"each": ..., "chain": [...]}``)."""
    if ("chain" in rel) == ("chains" in rel):
        raise ctx.error(rel, "order takes one of chain or chains")
    if "chain" in rel:
        raw = [("", rel["chain"])]
    else:
        raw = []
        for label, item in listed(rel["chains"], rel, ctx, "chains"):
            if isinstance(item, dict):
                ctx.known(item, ("chain", "label"), rel, f"chains item {label}")
                item = item.get("chain")
            raw.append((label, item))
    out = []
    for label, chain in raw:
        exprs = expressions(chain, rel, ctx, "chain")
        if len(exprs) < 2:
            raise ctx.error(rel, "a chain needs at least two expressions")
        out.append((label, exprs))
    return out


def evaluate_order(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    op = _op(rel, ctx)
    chains = _chains(rel, ctx)
    verdicts, misses, refs, shown = [], [], [], []
    for name, chain in chains:
        items = [ev(expr) for _, expr in chain]
        labels = [label for label, _ in chain]
        refs += [r for i in items for r in i.refs]
        for i in range(len(items) - 1):
            a, b = items[i], items[i + 1]
            v = compare_verdict(a, op, b)
            verdicts.append(v)
            if v != EXACT:
                misses.append(f"{labels[i]}={fmt(a.point)} {op} {labels[i + 1]}={fmt(b.point)} is {v}")
        shown.append((f"{name}: " if name else "") + f" {op} ".join(fmt(i.point) for i in items))
    verdict = worst(verdicts)
    got = shown[0] if len(shown) == 1 else f"{sum(v == EXACT for v in verdicts)}/{len(verdicts)} steps hold"
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict,
                  expected=f"chain {op}" if len(chains) == 1 else f"{len(chains)} chains {op}", got=got,
                  tolerance="per step", detail="; ".join(misses) or "every step holds", **ctx.base(rel))


def evaluate_bound(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    op = _op(rel, ctx)
    bound = ev(rel.get("bound"))
    over = expressions(rel.get("over"), rel, ctx, "over")
    verdicts, misses, refs = [], [], list(bound.refs)
    for label, expr in over:
        item = ev(expr)
        refs += list(item.refs)
        v = compare_verdict(bound, op, item)
        verdicts.append(v)
        if v != EXACT:
            misses.append(f"{label}={fmt(item.point)} is {v}")
    verdict = worst(verdicts)
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict,
                  expected=f"{fmt(bound.point)} {op} each of {len(over)}",
                  got=f"{sum(v == EXACT for v in verdicts)}/{len(over)} hold", tolerance="per item",
                  detail="; ".join(misses) or "the bound holds for every item", **ctx.base(rel))


def _sign_verdict(item: Evaluated, positive: bool) -> str:
    """EXACT when the printed value has the sign, WITHIN_ROUNDING when only some value inside its
    rounding interval has it (the interval straddles zero), FAIL otherwise."""
    zero = Evaluated(Fraction(0), Fraction(0), Fraction(0), ())
    return compare_verdict(item, ">" if positive else "<", zero)


def _word(rel: Mapping[str, Any], ctx: Context) -> Tuple[str, str]:
    """The direction word (from a transcribed table word, or printed in the relation) and its source."""
    if "word" in rel:
        wid = rel["word"]
        if not isinstance(wid, str) or wid not in ctx.tr.words:
            raise ctx.error(rel, f"unknown word {wid!r}")
        return ctx.tr.words[wid].strip().lower(), wid
    printed = rel.get("printed")
    if not isinstance(printed, str) or not printed.strip():
        raise ctx.error(rel, "sign needs a word id (word) or a printed direction word (printed)")
    return printed.strip().lower(), ""


def evaluate_sign(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    word, source = _word(rel, ctx)
    raw = rel.get("values")
    if not isinstance(raw, list) or len(raw) not in (1, 2):
        raise ctx.error(rel, "values must list one or two expressions")
    items = [ev(x) for x in raw]
    refs = [r for i in items for r in i.refs]
    if len(items) == 2:
        if word not in SAME_WORDS + FLIP_WORDS:
            raise ctx.error(rel, f"a pair takes 'same' or 'flip', got {word!r}")
        a, b = items
        same = word in SAME_WORDS
        # same: both positive or both negative; flip: one of each; the best of the two readings
        options = ([(True, True), (False, False)] if same else [(True, False), (False, True)])
        verdicts = [worst([_sign_verdict(a, sa), _sign_verdict(b, sb)]) for sa, sb in options]
        verdict = EXACT if EXACT in verdicts else (WITHIN if WITHIN in verdicts else FAIL)
        got = f"{fmt(a.point)}, {fmt(b.point)}"
    else:
        if word not in POSITIVE_WORDS + NEGATIVE_WORDS:
            raise ctx.error(rel, f"one value takes 'positive' or 'negative', got {word!r}")
        verdict = _sign_verdict(items[0], word in POSITIVE_WORDS)
        got = fmt(items[0].point)
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict, expected=word, got=got,
                  tolerance="sign within the rounding interval",
                  detail=f"direction word {word!r}" + (f" ({source})" if source else " (printed)"),
                  **ctx.base(rel))
