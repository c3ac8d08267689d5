"""Interval expressions over printed values, and the tolerance rule that turns them into verdicts.

Rounding rule (stated once, used everywhere)
-------------------------------------------
Every printed input stands for its rounding interval (:mod:`nclue.paper_audit.printed`). The
interval of an expression is computed by interval arithmetic over the intervals of its inputs, so
for sums and differences the tolerance is the **sum of the half-units of every input** (e.g.
``a - b = c`` with one decimal each: 0.05 + 0.05 for the inputs); products and ratios use the exact
interval bounds. An expression is also evaluated at the printed values (its ``point``).

Verdicts
--------
- ``EXACT``: the relation holds at the printed values (for an equality: the expression evaluated on
  the printed values lies in the interval of the printed result, i.e. it rounds to it, ties either
  way accepted).
- ``WITHIN_ROUNDING``: not exact, but it holds for some unrounded values inside the rounding
  intervals (for an equality: ``|got - expected| <= half-width(got) + half-unit(expected)``).
- ``FAIL``: no choice of unrounded inputs explains the printed result.
- ``NOT_INFORMATIVE``: a whole-count (GRIM-style) check that holds but could not have failed for
  its N and printed precision (:mod:`nclue.paper_audit.relations.counts`); counted separately
  from EXACT, because it carries no evidence.
- ``REVIEW``: a relation that would FAIL, but only under a ``reading`` of the paper that the
  paper itself does not fix (what an undefined column means, which pair an unlabelled value
  belongs to, whether a missing caption is missing from the paper or from its text). It is counted
  apart from FAIL and carries that reading: a reviewer must settle it against the paper.

These are the readings used to audit the n-Clue paper (arXiv 2607.24165) and the Multi3IR paper;
the module knows nothing about either.
"""

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from .printed import Printed

EXACT = "EXACT"
WITHIN = "WITHIN_ROUNDING"
FAIL = "FAIL"
NOT_INFORMATIVE = "NOT_INFORMATIVE"
REVIEW = "REVIEW"
VERDICT_ORDER = (FAIL, REVIEW, WITHIN, EXACT, NOT_INFORMATIVE)


def worst(verdicts: Sequence[str]) -> str:
    """The most severe verdict of several checks that must all hold (FAIL > WITHIN > EXACT)."""
    if FAIL in verdicts:
        return FAIL
    if WITHIN in verdicts:
        return WITHIN
    return EXACT


@dataclass(frozen=True)
class Evaluated:
    """An expression at the printed values (``point``) and over the rounding intervals."""

    point: Fraction
    lo: Fraction
    hi: Fraction
    refs: Tuple[str, ...]
    single: Optional[str] = None  # the value id when the expression is one printed value


def _refs(items: Sequence[Evaluated]) -> Tuple[str, ...]:
    return tuple(r for item in items for r in item.refs)


def _rescaled(items: Sequence[Evaluated]) -> Optional[str]:
    """The value id when the items are one printed value and exact constants (a change of unit)."""
    printed = [i for i in items if i.refs]
    constants = [i for i in items if not i.refs and i.lo == i.hi]
    if len(printed) == 1 and len(constants) == len(items) - 1:
        return printed[0].single
    return None


class Evaluator:
    """Evaluates the expressions of one relation (``where``) over a transcription's values.

    An expression is a value id (string), a JSON number (an exact constant) or one operator
    object: ``add``, ``sub``, ``mul``, ``div``, ``pct`` (100·a/b), ``neg``, ``abs``, ``min``,
    ``max``, ``mean``, ``wilson_lo`` / ``wilson_hi``, ``kappa_linear``.
    """

    def __init__(self, values: Mapping[str, Printed], where: str, path: str) -> None:
        self.values = values
        self.where = where
        self.path = path
        self.operators: Dict[str, Callable[[Any], Evaluated]] = {
            "add": self.op_add, "sub": self.op_sub, "neg": self.op_neg, "abs": self.op_abs,
            "mul": self.op_mul, "div": self.op_div, "pct": self.op_pct, "min": self.op_min,
            "max": self.op_max, "mean": self.op_mean, "wilson_lo": self.op_wilson_lo,
            "wilson_hi": self.op_wilson_hi, "kappa_linear": self.op_kappa_linear,
        }

    def error(self, problem: str) -> InputError:
        return InputError(self.path, f"relation {self.where}: {problem}")

    def value(self, ref: Any) -> Printed:
        if not isinstance(ref, str) or ref not in self.values:
            raise self.error(f"unknown value {ref!r}")
        return self.values[ref]

    def __call__(self, expr: Any) -> Evaluated:
        if isinstance(expr, str):
            v = self.value(expr)
            return Evaluated(v.value, v.lo, v.hi, (expr,), expr)
        if isinstance(expr, bool):
            raise self.error("a boolean is not an expression")
        if isinstance(expr, int):
            c = Fraction(expr)
            return Evaluated(c, c, c, ())
        if isinstance(expr, float):
            c = Fraction(repr(expr))
            return Evaluated(c, c, c, ())
        if not isinstance(expr, dict) or len(expr) != 1:
            raise self.error(f"malformed expression {expr!r}")
        (op, args), = expr.items()
        handler = self.operators.get(op)
        if handler is None:
            raise self.error(f"unknown operator {op!r}")
        return handler(args)

    def _many(self, args: Any, least: int) -> List[Evaluated]:
        if not isinstance(args, list) or len(args) < least:
            raise self.error(f"operator needs a list of at least {least} arguments")
        return [self(a) for a in args]

    def op_add(self, args: Any) -> Evaluated:
        items = self._many(args, 1)
        return Evaluated(sum((i.point for i in items), Fraction(0)), sum((i.lo for i in items), Fraction(0)),
                         sum((i.hi for i in items), Fraction(0)), _refs(items))

    def op_sub(self, args: Any) -> Evaluated:
        a, b = self._many(args, 2)[:2]
        if len(args) != 2:
            raise self.error("sub takes exactly two arguments")
        return Evaluated(a.point - b.point, a.lo - b.hi, a.hi - b.lo, _refs([a, b]))

    def op_neg(self, args: Any) -> Evaluated:
        a = self(args)
        return Evaluated(-a.point, -a.hi, -a.lo, a.refs, a.single)

    def op_abs(self, args: Any) -> Evaluated:
        a = self(args)
        if a.lo >= 0:
            lo, hi = a.lo, a.hi
        elif a.hi <= 0:
            lo, hi = -a.hi, -a.lo
        else:
            lo, hi = Fraction(0), max(-a.lo, a.hi)
        return Evaluated(abs(a.point), lo, hi, a.refs)

    def op_mul(self, args: Any) -> Evaluated:
        items = self._many(args, 2)
        acc = items[0]
        for item in items[1:]:
            corners = [acc.lo * item.lo, acc.lo * item.hi, acc.hi * item.lo, acc.hi * item.hi]
            acc = Evaluated(acc.point * item.point, min(corners), max(corners),
                            acc.refs + item.refs)
        return Evaluated(acc.point, acc.lo, acc.hi, acc.refs, _rescaled(items))

    def op_div(self, args: Any) -> Evaluated:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error("div takes exactly two arguments")
        a, b = self(args[0]), self(args[1])
        if b.lo <= 0 <= b.hi:
            raise self.error("divisor interval contains zero")
        corners = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
        single = _rescaled([a, b]) if not b.refs else None
        return Evaluated(a.point / b.point, min(corners), max(corners), _refs([a, b]), single)

    def op_pct(self, args: Any) -> Evaluated:
        """``100 * a / b``."""
        q = self.op_div(args)
        return Evaluated(100 * q.point, 100 * q.lo, 100 * q.hi, q.refs)

    def op_min(self, args: Any) -> Evaluated:
        items = self._many(args, 1)
        return Evaluated(min(i.point for i in items), min(i.lo for i in items),
                         min(i.hi for i in items), _refs(items))

    def op_max(self, args: Any) -> Evaluated:
        items = self._many(args, 1)
        return Evaluated(max(i.point for i in items), max(i.lo for i in items),
                         max(i.hi for i in items), _refs(items))

    def op_mean(self, args: Any) -> Evaluated:
        s = self.op_add(args)
        n = len(args)
        return Evaluated(s.point / n, s.lo / n, s.hi / n, s.refs)

    def exact_count(self, expr: Any, what: str) -> int:
        """An expression that must be one exact whole number (a count)."""
        item = self(expr)
        if item.lo != item.hi or item.point.denominator != 1:
            raise self.error(f"{what} needs exact whole counts")
        return int(item.point)

    def _exact_counts(self, args: Any, what: str) -> List[int]:
        if not isinstance(args, list):
            raise self.error(f"{what} needs a list of whole counts")
        return [self.exact_count(a, what) for a in args]

    def _wilson(self, args: Any, sign: int) -> Evaluated:
        """Wilson score interval bound in percent, z = 1.96 (Wilson 1927)."""
        if not isinstance(args, list) or len(args) != 2:
            raise self.error("wilson takes [successes, trials]")
        k, n = self._exact_counts(args, "wilson")
        if n <= 0 or not 0 <= k <= n:
            raise self.error("wilson needs 0 <= k <= n, n > 0")
        z = 1.96
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        bound = Fraction(100 * (centre + sign * half))
        refs = tuple(r for a in args for r in self(a).refs)
        return Evaluated(bound, bound, bound, refs)

    def op_wilson_lo(self, args: Any) -> Evaluated:
        return self._wilson(args, -1)

    def op_wilson_hi(self, args: Any) -> Evaluated:
        return self._wilson(args, +1)

    def op_kappa_linear(self, args: Any) -> Evaluated:
        """Linearly weighted Cohen's kappa of a square confusion matrix of whole counts (Cohen 1968).

        Weights ``w_ij = 1 - |i - j| / (K - 1)``; kappa = (p_o - p_e) / (1 - p_e).
        """
        if not isinstance(args, list) or not args or not all(isinstance(r, list) for r in args):
            raise self.error("kappa_linear takes a matrix (list of rows)")
        size = len(args)
        if any(len(r) != size for r in args) or size < 2:
            raise self.error("kappa_linear needs a square matrix of size >= 2")
        counts = [self._exact_counts(r, "kappa_linear") for r in args]
        total = sum(map(sum, counts))
        if total <= 0:
            raise self.error("kappa_linear needs a positive total count")
        rows = [sum(r) for r in counts]
        cols = [sum(counts[i][j] for i in range(size)) for j in range(size)]
        w = [[1 - Fraction(abs(i - j), size - 1) for j in range(size)] for i in range(size)]
        p_o = sum(w[i][j] * counts[i][j] for i in range(size) for j in range(size)) / total
        p_e = sum(w[i][j] * rows[i] * cols[j] for i in range(size) for j in range(size)) / total ** 2
        if p_e == 1:
            raise self.error("kappa_linear is undefined when chance agreement is 1")
        kappa = (p_o - p_e) / (1 - p_e)
        refs = tuple(r for row in args for a in row for r in self(a).refs)
        return Evaluated(kappa, kappa, kappa, refs)


# --------------------------------------------------------------------------------------------
# The tolerance rule
# --------------------------------------------------------------------------------------------

def equal_verdict(got: Evaluated, exp: Evaluated) -> str:
    """EXACT / WITHIN_ROUNDING / FAIL for ``got == expected`` (module docstring).

    When both sides are a single printed value (possibly rescaled by an exact constant, e.g.
    ``0.99 * 100`` against ``99.1``), the relation is symmetric: EXACT when either value rounds to
    the other.
    """
    if exp.lo <= got.point <= exp.hi:
        return EXACT
    if got.single is not None and exp.single is not None and got.lo <= exp.point <= got.hi:
        return EXACT  # two printed copies: the less precise one is the other one rounded
    if got.lo <= exp.hi and exp.lo <= got.hi:
        return WITHIN
    return FAIL


COMPARISONS: Dict[str, Callable[[Fraction, Fraction], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def is_comparison(op: object) -> bool:
    """Whether ``op`` is one of ``< <= > >=``."""
    return isinstance(op, str) and op in COMPARISONS


def compare_verdict(left: Evaluated, op: str, right: Evaluated) -> str:
    """EXACT when ``left op right`` holds at the printed values, WITHIN_ROUNDING when it fails there
    but holds for the most favourable values inside the rounding intervals, else FAIL."""
    test = COMPARISONS[op]
    if test(left.point, right.point):
        return EXACT
    a = left.lo if op in ("<", "<=") else left.hi
    b = right.hi if op in ("<", "<=") else right.lo
    return WITHIN if test(a, b) else FAIL


def half_width(item: Evaluated) -> Fraction:
    return (item.hi - item.lo) / 2
