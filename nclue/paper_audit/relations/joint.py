"""``joint_counts``: several rates printed over one known set of items must come from one set of
whole counts.

A verifier's pass rate, precision, recall and agreement on the same 300 labelled documents, or an
agreement rate split by stratum, are each a ratio of whole counts of one confusion table. Each
rate alone may pass its GRIM check (:mod:`.counts`) while no single table of whole counts gives
all of them at once. The relation declares the unknown whole counts, the sums that tie them to
the known N (``tp + fp + fn + tn = 300``), and every printed rate as a ratio of sums of counts;
it is EXACT when some whole counts give every printed rate (at its rounding interval) and every
``check`` (a non-linear statistic such as Cohen's kappa, evaluated on the counts), FAIL when none
does. Like the other whole-count relations it has no rounding slack beyond the printed intervals.

Fields:

- ``n`` (optional): the default upper bound of every count;
- ``counts``: ``{name: [min, max]}`` or a list of names (bounds ``[0, n]``); bounds are exact
  expressions (a JSON integer or a count's value id);
- ``sums``: ``[{"of": LINEAR, "equals": LINEAR}]``;
- ``rates``: ``[{"value": id, "num": LINEAR, "den": LINEAR, "scale": 100}]``: ``scale * num / den``
  lies in the printed value's rounding interval (``den`` at least 1; ``scale`` 100 by default, 1
  for a proportion printed as ``0.93``);
- ``checks`` (optional): ``[{"value": id, "expr": expression}]``: the expression, evaluated with
  the counts as exact values (``{"kappa_linear": [["a", "b"], ["c", "d"]]}``), rounds to the value.

``LINEAR`` is a count name, an exact constant (integer or value id), a list of those (their sum),
or ``{name: coefficient}``. The search is exhaustive (bounds propagation over the linear
constraints, then branching), so FAIL means no whole counts exist; when it FAILs, the detail names
each rate or check without which counts would exist.
"""

from fractions import Fraction
from math import gcd
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ...errors import InputError
from ..evaluator import EXACT, FAIL, Evaluator
from ..printed import Printed
from .base import Context, Result, exact_number, inputs

MAX_NODES = 20000  # search nodes per feasibility question (about a second)

# A linear constraint: ({count: coefficient}, constant) meaning sum(coef * x) + constant >= 0.
Linear = Tuple[Dict[str, Fraction], Fraction]
# The same with whole coefficients, zero ones left out: (((count, coefficient), ...), constant).
IntLinear = Tuple[Tuple[Tuple[str, int], ...], int]


class _TooLarge(Exception):
    pass


def _linear(raw: Any, names: Sequence[str], rel: Mapping[str, Any], ctx: Context,
            ev: Evaluator, what: str) -> Linear:
    terms: Dict[str, Fraction] = {}
    constant = Fraction(0)

    def add(item: Any, coef: Fraction) -> None:
        nonlocal constant
        if isinstance(item, str) and item in names:
            terms[item] = terms.get(item, Fraction(0)) + coef
        elif isinstance(item, (str, int)) and not isinstance(item, bool):
            constant += coef * ev.exact_count(item, what)
        else:
            raise ctx.error(rel, f"{what}: {item!r} is neither a count name nor an exact count")

    if isinstance(raw, dict):
        for name, coef in raw.items():
            if isinstance(coef, bool) or not isinstance(coef, (int, float)):
                raise ctx.error(rel, f"{what}: coefficient of {name!r} must be a number")
            add(name, Fraction(repr(coef)) if isinstance(coef, float) else Fraction(coef))
    elif isinstance(raw, list):
        if not raw:
            raise ctx.error(rel, f"{what} must not be empty")
        for item in raw:
            add(item, Fraction(1))
    else:
        add(raw, Fraction(1))
    return terms, constant


def _minus(a: Linear, b: Linear, scale_a: Fraction = Fraction(1), scale_b: Fraction = Fraction(1)) -> Linear:
    """``scale_a * a - scale_b * b``."""
    terms = {k: scale_a * v for k, v in a[0].items()}
    for k, v in b[0].items():
        terms[k] = terms.get(k, Fraction(0)) - scale_b * v
    return terms, scale_a * a[1] - scale_b * b[1]


def _integral(cons: Sequence[Linear]) -> List[IntLinear]:
    """The constraints with whole coefficients: each multiplied by the least common multiple of
    its denominators (a positive factor, so the same whole counts satisfy it), which lets
    :func:`_propagate` work in integers instead of fractions."""
    out: List[IntLinear] = []
    for terms, constant in cons:
        scale = constant.denominator
        for coef in terms.values():
            scale = scale * coef.denominator // gcd(scale, coef.denominator)
        out.append((tuple((v, int(c * scale)) for v, c in terms.items() if c != 0),
                    int(constant * scale)))
    return out


def _propagate(cons: Sequence[IntLinear], lo: Dict[str, int], hi: Dict[str, int]) -> bool:
    """Tighten the bounds to bounds consistency; False when some domain becomes empty.

    For ``sum(c * x_v) + constant >= 0``, ``best`` is the left side's largest value over the
    bounds. Tightening ``x_v`` moves the bound ``best`` does not use (``lo`` for ``c > 0``, ``hi``
    for ``c < 0``), so ``best`` holds for the whole pass over the constraint's terms."""
    changed = True
    while changed:
        changed = False
        for terms, constant in cons:
            best = constant
            for v, c in terms:
                best += c * (hi[v] if c > 0 else lo[v])
            if best < 0:
                return False
            for v, c in terms:
                if c > 0:  # c * x_v + rest >= 0, rest = best - c * hi[v]: x_v >= ceil(-rest / c)
                    bound = -((best - c * hi[v]) // c)
                    if bound > lo[v]:
                        lo[v] = bound
                        changed = True
                else:      # rest = best - c * lo[v] >= -c * x_v: x_v <= floor(rest / -c)
                    bound = (best - c * lo[v]) // -c
                    if bound < hi[v]:
                        hi[v] = bound
                        changed = True
                if lo[v] > hi[v]:
                    return False
    return True


def _solve(cons: Sequence[IntLinear], lo: Dict[str, int], hi: Dict[str, int],
           accept, budget: List[int]) -> Optional[Dict[str, int]]:
    """A whole-count solution of the constraints for which ``accept`` holds, or None."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge()
    lo, hi = dict(lo), dict(hi)
    if not _propagate(cons, lo, hi):
        return None
    open_vars = [v for v in lo if lo[v] < hi[v]]
    if not open_vars:
        return dict(lo) if accept(lo) else None
    v = min(open_vars, key=lambda name: (hi[name] - lo[name], name))
    if hi[v] - lo[v] < 16:
        branches = [(x, x) for x in range(lo[v], hi[v] + 1)]
    else:
        mid = (lo[v] + hi[v]) // 2
        branches = [(lo[v], mid), (mid + 1, hi[v])]
    for a, b in branches:
        sub_lo, sub_hi = dict(lo), dict(hi)
        sub_lo[v], sub_hi[v] = a, b
        found = _solve(cons, sub_lo, sub_hi, accept, budget)
        if found is not None:
            return found
    return None


def _check_expression(expr: Any, names: Sequence[str], rel: Mapping[str, Any], ctx: Context,
                      ev: Evaluator, what: str) -> None:
    """Refuse a check expression that names something other than counts and values, or an unknown
    operator (it is evaluated only at candidate counts, so a slip would otherwise go unseen)."""
    if isinstance(expr, str):
        if expr not in names and expr not in ctx.values:
            raise ctx.error(rel, f"{what}: {expr!r} is neither a count name nor a value id")
    elif isinstance(expr, list):
        for item in expr:
            _check_expression(item, names, rel, ctx, ev, what)
    elif isinstance(expr, dict):
        if len(expr) != 1 or next(iter(expr)) not in ev.operators:
            raise ctx.error(rel, f"{what}: malformed expression {expr!r}")
        _check_expression(next(iter(expr.values())), names, rel, ctx, ev, what)
    elif isinstance(expr, bool) or not isinstance(expr, (int, float)):
        raise ctx.error(rel, f"{what}: malformed expression {expr!r}")


def _value_ids(obj: Any, ctx: Context) -> List[str]:
    """Every value id named anywhere in ``obj`` (for the report's inputs)."""
    if isinstance(obj, str):
        return [obj] if obj in ctx.values else []
    if isinstance(obj, list):
        return [v for x in obj for v in _value_ids(x, ctx)]
    if isinstance(obj, dict):
        return [v for k, x in obj.items() if k not in ("id", "note", "where", "review", "reading")
                for v in _value_ids(x, ctx) + _value_ids(k, ctx)]
    return []


def evaluate_joint_counts(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    raw_counts = rel.get("counts")
    default_max = rel.get("n")
    if isinstance(raw_counts, list):
        if not all(isinstance(name, str) for name in raw_counts) or len(set(raw_counts)) != len(raw_counts):
            raise ctx.error(rel, "counts must be distinct names")
        if default_max is None:
            raise ctx.error(rel, "counts given as names need n (their upper bound)")
        raw_counts = {name: [0, default_max] for name in raw_counts}
    if not isinstance(raw_counts, dict) or not raw_counts:
        raise ctx.error(rel, "counts must name the unknown whole counts")
    names = list(raw_counts)
    for name in names:
        if not isinstance(name, str) or not name.isidentifier() or name in ctx.values:
            raise ctx.error(rel, f"count name {name!r} must be a plain identifier, not a value id")
    lo: Dict[str, int] = {}
    hi: Dict[str, int] = {}
    refs: List[str] = []
    for name, bounds in raw_counts.items():
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise ctx.error(rel, f"counts.{name} must be [min, max]")
        lo[name] = ev.exact_count(bounds[0], f"counts.{name}")
        hi[name] = ev.exact_count(bounds[1], f"counts.{name}")
        if lo[name] < 0 or hi[name] < lo[name]:
            raise ctx.error(rel, f"counts.{name}: [min, max] must satisfy 0 <= min <= max")
        refs += [b for b in bounds if isinstance(b, str)]
    labelled: List[Tuple[str, List[Linear]]] = []  # (label, constraints) per printed fact
    base: List[Linear] = []
    sums = rel.get("sums", [])
    if not isinstance(sums, list):
        raise ctx.error(rel, "sums must be a list")
    for index, item in enumerate(sums):
        if not isinstance(item, dict):
            raise ctx.error(rel, f"sums[{index}] must be an object")
        ctx.known(item, ("of", "equals"), rel, f"sums[{index}]")
        diff = _minus(_linear(item.get("of"), names, rel, ctx, ev, f"sums[{index}].of"),
                      _linear(item.get("equals"), names, rel, ctx, ev, f"sums[{index}].equals"))
        base += [diff, ({k: -v for k, v in diff[0].items()}, -diff[1])]
        refs += [x for x in (item.get("equals"),) if isinstance(x, str) and x in ctx.values]
    rates = rel.get("rates", [])
    if not isinstance(rates, list) or not rates:
        raise ctx.error(rel, "rates must list the printed rates")
    shown: List[str] = []
    for index, item in enumerate(rates):
        where = f"rates[{index}]"
        if not isinstance(item, dict):
            raise ctx.error(rel, f"{where} must be an object")
        ctx.known(item, ("value", "num", "den", "scale"), rel, where)
        value = ev.value(item.get("value"))
        refs.append(value.vid)
        scale = exact_number(item.get("scale"), 100, rel, ctx, f"{where}.scale")
        if scale <= 0:
            raise ctx.error(rel, f"{where}.scale must be positive")
        num = _linear(item.get("num"), names, rel, ctx, ev, f"{where}.num")
        den = _linear(item.get("den"), names, rel, ctx, ev, f"{where}.den")
        # value.lo <= scale * num / den <= value.hi, den >= 1
        lower = _minus(num, den, scale, value.lo)
        upper = _minus(den, num, value.hi, scale)
        positive = (dict(den[0]), den[1] - 1)
        labelled.append((value.vid, [lower, upper, positive]))
        shown.append(f"{value.vid}={value.text}")
    checks = rel.get("checks", [])
    if not isinstance(checks, list):
        raise ctx.error(rel, "checks must be a list")
    check_items: List[Tuple[str, Any, Printed]] = []
    for index, item in enumerate(checks):
        if not isinstance(item, dict):
            raise ctx.error(rel, f"checks[{index}] must be an object")
        ctx.known(item, ("value", "expr"), rel, f"checks[{index}]")
        value = ev.value(item.get("value"))
        refs.append(value.vid)
        _check_expression(item.get("expr"), names, rel, ctx, ev, f"checks[{index}].expr")
        check_items.append((value.vid, item.get("expr"), value))
        shown.append(f"{value.vid}={value.text}")
    path = ctx.tr.path

    undefined: List[str] = []  # a check undefined at some counts (chance agreement 1, a zero divisor)

    def accept_with(active: Sequence[Tuple[str, Any, Printed]]):
        def accept(solution: Mapping[str, int]) -> bool:
            values = dict(ctx.values)
            for name, k in solution.items():
                values[name] = Printed(name, str(k), Fraction(k), 0, Fraction(0), "count")
            local = Evaluator(values, str(rel.get("id")), path)
            for _, expr, printed in active:
                try:
                    got = local(expr)
                except InputError as exc:
                    undefined.append(str(exc))
                    return False
                if not printed.lo <= got.point <= printed.hi:
                    return False
            return True
        return accept

    def feasible(skip: Optional[str] = None) -> Optional[Dict[str, int]]:
        cons = list(base) + [c for label, group in labelled if label != skip for c in group]
        active = [c for c in check_items if c[0] != skip]
        try:
            return _solve(_integral(cons), lo, hi, accept_with(active), [MAX_NODES])
        except _TooLarge:
            raise ctx.error(rel, f"whole-count search exceeds {MAX_NODES} nodes "
                                 "(tighten the bounds or split the relation)") from None

    solution = feasible()
    if solution is None and undefined:
        raise ctx.error(rel, f"a check is undefined for some whole counts ({undefined[0]})")
    if solution is not None:
        verdict = EXACT
        got = "whole counts exist: " + ", ".join(f"{k}={solution[k]}" for k in names)
        detail = "; ".join(shown)
    else:
        verdict = FAIL
        got = "no whole counts give every printed value"
        culprits = [label for label in [lab for lab, _ in labelled] + [c[0] for c in check_items]
                    if feasible(skip=label) is not None]
        detail = "; ".join(shown) + ("; counts exist without any one of: " + ", ".join(culprits)
                                     if culprits else "; no single value explains it")
    refs += _value_ids(rel, ctx)
    return Result(inputs=inputs(ctx.values, refs), verdict=verdict,
                  expected=f"{len(labelled)} rates, {len(check_items)} checks from one set of counts",
                  got=got, tolerance="0 (whole counts)", detail=detail, **ctx.base(rel))

