"""Paper audit: check a paper's printed numbers against each other, against whole counts, and data.

Input is a hand-made transcription (``claims/papers/<paper>.json``, layout in
``claims/papers/README.md``): every numeric table cell and prose claim kept as its *printed string*,
plus relations between them declared as data. Nothing here knows about a particular paper.

Rounding rule (stated once, used everywhere)
-------------------------------------------
A printed number with ``d`` decimals stands for every real number within half a unit of its last
printed place: ``26.8`` means the closed interval ``[26.75, 26.85]``; ``104.9K`` means
``[104850, 104950]``; a value declared ``count`` (a whole number of items) is exact. The interval of
an expression is computed by interval arithmetic over the intervals of its inputs, so for sums and
differences the tolerance is the **sum of the half-units of every input** (e.g. ``a - b = c`` with
one decimal each: 0.05 + 0.05 for the inputs); products and ratios use the exact interval bounds.
An ``equal`` relation compares the expression (``got``) with a printed ``expected`` value:

- ``EXACT``: the expression evaluated on the printed values lies in the interval of ``expected``
  (i.e. it rounds to the printed value; ties in either direction accepted). When both sides are a
  single printed value (possibly rescaled by an exact constant, e.g. ``0.99 * 100`` against
  ``99.1``), the relation is symmetric: it is EXACT when either value rounds to the other.
- ``WITHIN_ROUNDING``: not exact, but the two intervals intersect, i.e.
  ``|got - expected| <= tolerance`` with ``tolerance = half-width(got) + half-unit(expected)``.
- ``FAIL``: the intervals are disjoint; no choice of unrounded inputs explains the printed result.

Count rule (GRIM-style, Brown & Heathers 2017)
----------------------------------------------
A percentage ``v`` over ``N`` whole items must equal ``100 k / N`` for some whole ``k`` in
``0..N`` that rounds to ``v``: the interval of ``v`` times ``N / 100`` must contain an integer.
``count`` relations go further: they choose one feasible ``k`` per reported percentage and ask
whether some choice makes a linear combination of the ``k`` (a gap, a sum of slices) round to the
printed result. Count relations are ``EXACT`` or ``FAIL`` (whole numbers leave no rounding slack).

Comparisons (``a < b``) are ``EXACT`` when they hold at the printed values, ``WITHIN_ROUNDING``
when they fail there but hold for some values inside the rounding intervals, else ``FAIL``.

The module is pure standard library; :func:`verify_frozen_verdicts` and :func:`summary_line` are
what ``reproduce.py`` calls.
"""

import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .errors import InputError
from .formats import PathLike, dumps_canonical, read_json

SCHEMA = "nclue.paper-transcription/1"
VERDICTS_SCHEMA = "nclue.paper-verdicts/1"
EXACT = "EXACT"
WITHIN = "WITHIN_ROUNDING"
FAIL = "FAIL"
VERDICT_ORDER = (FAIL, WITHIN, EXACT)
KINDS = ("measure", "count")
_SUFFIX = {"K": 10 ** 3, "M": 10 ** 6, "B": 10 ** 9}
_MARKERS = "*†‡"
_NUMBER = re.compile(r"^([+-]?)(\d[\d,]*)?(?:\.(\d+))?([KMB])?$")
_MAX_COMBINATIONS = 200000


# --------------------------------------------------------------------------------------------
# Printed values
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Printed:
    """One printed number: its text, exact decimal value, decimals, and rounding half-unit."""

    vid: str
    text: str
    value: Fraction
    decimals: int
    half: Fraction  # 0 for exact counts
    kind: str
    markers: str = ""

    @property
    def lo(self) -> Fraction:
        return self.value - self.half

    @property
    def hi(self) -> Fraction:
        return self.value + self.half


def normalize_text(text: str) -> str:
    """Strip the typography around a printed number: LaTeX ``$``, unicode minus, ``%``, ``×``."""
    out = text.strip().replace("$", "").replace("\u2212", "-").replace("\u2013", "-")
    out = out.replace("\\times", "").replace("^{*}", "*").replace("{", "").replace("}", "")
    out = out.replace(" ", "").replace("\u00a0", "")
    for tail in ("%", "\u00d7", "x", "pp", "points"):
        if out.endswith(tail) and len(out) > len(tail):
            out = out[: -len(tail)]
    return out


def parse_printed(text: str, vid: str, kind: Optional[str], path: PathLike) -> Printed:
    """Parse a printed number (``"1,000"``, ``"-3.9"``, ``"+.1718"``, ``"104.9K"``, ``"-4.6*"``).

    ``kind`` is ``"count"`` (exact whole number) or ``"measure"`` (rounded); when None, a number
    printed with decimals or a K/M/B suffix is a measure and a bare integer is a count.
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(path, f"value {vid!r}: printed text must be a non-empty string")
    body = normalize_text(text)
    markers = "".join(ch for ch in body if ch in _MARKERS)
    body = "".join(ch for ch in body if ch not in _MARKERS)
    match = _NUMBER.match(body)
    if not match or (match.group(2) is None and match.group(3) is None):
        raise InputError(path, f"value {vid!r}: cannot read a number from {text!r}")
    sign, whole, frac, suffix = match.groups()
    if whole and "," in whole and not re.match(r"^\d{1,3}(,\d{3})+$", whole):
        raise InputError(path, f"value {vid!r}: misplaced thousands separator in {text!r}")
    digits = (whole or "0").replace(",", "")
    decimals = len(frac) if frac else 0
    value = Fraction(int(digits + (frac or "")), 10 ** decimals)
    scale = _SUFFIX.get(suffix or "", 1)
    value *= scale
    if sign == "-":
        value = -value
    if kind is None:
        kind = "measure" if (frac is not None or suffix) else "count"
    if kind not in KINDS:
        raise InputError(path, f"value {vid!r}: kind must be 'measure' or 'count', got {kind!r}")
    if kind == "count":
        if value.denominator != 1:
            raise InputError(path, f"value {vid!r}: a count must be a whole number, got {text!r}")
        half = Fraction(0)
    else:
        half = Fraction(scale, 2 * 10 ** decimals)
    return Printed(vid, text, value, decimals, half, kind, markers)


# --------------------------------------------------------------------------------------------
# Transcription
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Transcription:
    """A loaded transcription: values by id, tables (for bulk relations), relations, release map."""

    path: str
    paper: str
    seed: str
    values: Mapping[str, Printed]
    tables: Mapping[str, Mapping[str, Any]]
    relations: Tuple[Mapping[str, Any], ...]
    release_map: Tuple[Mapping[str, Any], ...]
    not_transcribed: Tuple[Mapping[str, Any], ...]


def _check_id(ident: Any, what: str, path: PathLike) -> str:
    if not isinstance(ident, str) or not re.match(r"^[A-Za-z0-9_+\-]+$", ident):
        raise InputError(path, f"{what} id {ident!r} must use letters, digits, _ + - only")
    return ident


def _cell(raw: Any, vid: str, default_kind: Optional[str], path: PathLike) -> Printed:
    if isinstance(raw, dict):
        text = raw.get("s")
        kind = raw.get("kind", default_kind)
        return parse_printed(text, vid, kind, path)
    return parse_printed(raw, vid, default_kind, path)


def load_transcription(path: PathLike) -> Transcription:
    """Read and validate a transcription file (see ``claims/papers/README.md``)."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(path, f"not a paper transcription (expected schema {SCHEMA!r})")
    for key in ("paper", "seed"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise InputError(path, f"missing field {key!r}")
    values: Dict[str, Printed] = {}
    tables: Dict[str, Mapping[str, Any]] = {}
    for table in doc.get("tables", []):
        tid = _check_id(table.get("id"), "table", path)
        if tid in tables:
            raise InputError(path, f"duplicate table id {tid!r}")
        columns = table.get("columns")
        if not isinstance(columns, list) or not columns:
            raise InputError(path, f"table {tid}: columns must be a non-empty list")
        col_ids = []
        col_kind: Dict[str, Optional[str]] = {}
        for col in columns:
            cid = _check_id(col.get("id"), f"table {tid} column", path)
            col_ids.append(cid)
            col_kind[cid] = col.get("kind", table.get("kind"))
        row_ids = []
        for row in table.get("rows", []):
            rid = _check_id(row.get("id"), f"table {tid} row", path)
            if rid in row_ids:
                raise InputError(path, f"table {tid}: duplicate row id {rid!r}")
            row_ids.append(rid)
            if not isinstance(row.get("label"), str):
                raise InputError(path, f"table {tid} row {rid}: missing printed label")
            cells = row.get("cells", {})
            for cid, raw in cells.items():
                if cid not in col_kind:
                    raise InputError(path, f"table {tid} row {rid}: unknown column {cid!r}")
                vid = f"{tid}.{rid}.{cid}"
                kind = row.get("kind", col_kind[cid])
                values[vid] = _cell(raw, vid, kind, path)
        tables[tid] = {"columns": col_ids, "rows": row_ids, "caption": table.get("caption", "")}
    for item in doc.get("prose", []):
        pid = _check_id(item.get("id"), "prose", path)
        vid = f"p.{pid}"
        if vid in values:
            raise InputError(path, f"duplicate prose id {pid!r}")
        if not isinstance(item.get("context"), str):
            raise InputError(path, f"prose {pid}: missing context (the sentence it comes from)")
        values[vid] = parse_printed(item.get("s"), vid, item.get("kind"), path)
    relations = doc.get("relations", [])
    if not isinstance(relations, list):
        raise InputError(path, "relations must be a list")
    release_map = doc.get("release_map", [])
    if not isinstance(release_map, list):
        raise InputError(path, "release_map must be a list")
    return Transcription(str(path), doc["paper"], doc["seed"], values, tables, tuple(relations),
                         tuple(release_map), tuple(doc.get("not_transcribed", [])))


# --------------------------------------------------------------------------------------------
# Interval expressions
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Evaluated:
    """An expression at the printed values (``point``) and over the rounding intervals."""

    point: Fraction
    lo: Fraction
    hi: Fraction
    refs: Tuple[str, ...]
    single: Optional[str] = None  # the value id when the expression is one printed value


class _Eval:
    def __init__(self, values: Mapping[str, Printed], where: str, path: str) -> None:
        self.values = values
        self.where = where
        self.path = path

    def error(self, problem: str) -> InputError:
        return InputError(self.path, f"relation {self.where}: {problem}")

    def value(self, ref: str) -> Printed:
        if ref not in self.values:
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
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            raise self.error(f"unknown operator {op!r}")
        return handler(args)

    def _many(self, args: Any, least: int) -> List[Evaluated]:
        if not isinstance(args, list) or len(args) < least:
            raise self.error(f"operator needs a list of at least {least} arguments")
        return [self(a) for a in args]

    @staticmethod
    def _refs(items: Sequence[Evaluated]) -> Tuple[str, ...]:
        return tuple(r for item in items for r in item.refs)

    def op_add(self, args: Any) -> Evaluated:
        items = self._many(args, 1)
        return Evaluated(sum((i.point for i in items), Fraction(0)), sum((i.lo for i in items), Fraction(0)),
                         sum((i.hi for i in items), Fraction(0)), self._refs(items))

    def op_sub(self, args: Any) -> Evaluated:
        a, b = self._many(args, 2)[:2]
        if len(args) != 2:
            raise self.error("sub takes exactly two arguments")
        return Evaluated(a.point - b.point, a.lo - b.hi, a.hi - b.lo, self._refs([a, b]))

    def op_neg(self, args: Any) -> Evaluated:
        a = self(args)
        return Evaluated(-a.point, -a.hi, -a.lo, a.refs, a.single)

    @staticmethod
    def _rescaled(items: Sequence[Evaluated]) -> Optional[str]:
        """The value id when the items are one printed value and exact constants (a change of unit)."""
        printed = [i for i in items if i.refs]
        constants = [i for i in items if not i.refs and i.lo == i.hi]
        if len(printed) == 1 and len(constants) == len(items) - 1:
            return printed[0].single
        return None

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
        return Evaluated(acc.point, acc.lo, acc.hi, acc.refs, self._rescaled(items))

    def op_div(self, args: Any) -> Evaluated:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error("div takes exactly two arguments")
        a, b = self(args[0]), self(args[1])
        if b.lo <= 0 <= b.hi:
            raise self.error("divisor interval contains zero")
        corners = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
        single = self._rescaled([a, b]) if not b.refs else None
        return Evaluated(a.point / b.point, min(corners), max(corners), self._refs([a, b]), single)

    def op_pct(self, args: Any) -> Evaluated:
        """``100 * a / b``."""
        q = self.op_div(args)
        return Evaluated(100 * q.point, 100 * q.lo, 100 * q.hi, q.refs)

    def op_min(self, args: Any) -> Evaluated:
        items = self._many(args, 1)
        return Evaluated(min(i.point for i in items), min(i.lo for i in items),
                         min(i.hi for i in items), self._refs(items))

    def op_max(self, args: Any) -> Evaluated:
        items = self._many(args, 1)
        return Evaluated(max(i.point for i in items), max(i.lo for i in items),
                         max(i.hi for i in items), self._refs(items))

    def op_mean(self, args: Any) -> Evaluated:
        s = self.op_add(args)
        n = len(args)
        return Evaluated(s.point / n, s.lo / n, s.hi / n, s.refs)

    def _exact_counts(self, args: Any, what: str) -> List[int]:
        items = [self(a) for a in args]
        out = []
        for item in items:
            if item.lo != item.hi or item.point.denominator != 1:
                raise self.error(f"{what} needs exact whole counts")
            out.append(int(item.point))
        return out

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
        rows = [sum(r) for r in counts]
        cols = [sum(counts[i][j] for i in range(size)) for j in range(size)]
        w = [[1 - Fraction(abs(i - j), size - 1) for j in range(size)] for i in range(size)]
        p_o = sum(w[i][j] * counts[i][j] for i in range(size) for j in range(size)) / total
        p_e = sum(w[i][j] * rows[i] * cols[j] for i in range(size) for j in range(size)) / total ** 2
        kappa = (p_o - p_e) / (1 - p_e)
        refs = tuple(r for row in args for a in row for r in self(a).refs)
        return Evaluated(kappa, kappa, kappa, refs)


# --------------------------------------------------------------------------------------------
# Relations
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """One evaluated relation: the report line."""

    rid: str
    kind: str
    category: str
    verdict: str
    inputs: Tuple[Tuple[str, str], ...]  # (value id, printed text)
    expected: str
    got: str
    tolerance: str
    detail: str = ""
    note: str = ""
    where: str = ""

    def as_dict(self) -> Dict[str, Any]:
        return {"id": self.rid, "kind": self.kind, "category": self.category,
                "verdict": self.verdict, "inputs": [list(i) for i in self.inputs],
                "expected": self.expected, "got": self.got, "tolerance": self.tolerance,
                "detail": self.detail, "note": self.note, "where": self.where}


def fmt(x: Fraction, digits: int = 6) -> str:
    """A readable decimal for a Fraction (exact when it terminates within ``digits`` places)."""
    if x.denominator == 1:
        return str(x.numerator)
    text = f"{float(x):.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _inputs(values: Mapping[str, Printed], refs: Iterable[str]) -> Tuple[Tuple[str, str], ...]:
    seen: List[str] = []
    for r in refs:
        if r not in seen:
            seen.append(r)
    return tuple((r, values[r].text) for r in seen)


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


class Auditor:
    """Evaluates the relations of one transcription."""

    def __init__(self, tr: Transcription) -> None:
        self.tr = tr
        self.values = tr.values

    # expansion of bulk relations ---------------------------------------------------------
    def expand(self) -> List[Mapping[str, Any]]:
        out: List[Mapping[str, Any]] = []
        for rel in self.tr.relations:
            kind = rel.get("kind")
            if kind == "grim_table":
                out.extend(self._expand_grim_table(rel))
            elif kind == "equal_table":
                out.extend(self._expand_equal_table(rel))
            else:
                out.append(rel)
        ids = [r.get("id") for r in out]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise InputError(self.tr.path, f"duplicate relation ids: {', '.join(map(str, dupes))}")
        return out

    def _table(self, rel: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        tid = rel.get(key)
        if tid not in self.tr.tables:
            raise InputError(self.tr.path, f"relation {rel.get('id')}: unknown table {tid!r}")
        return self.tr.tables[tid]

    def _expand_grim_table(self, rel: Mapping[str, Any]) -> List[Mapping[str, Any]]:
        table = self._table(rel, "table")
        columns = rel.get("columns")
        if not isinstance(columns, dict) or not columns:
            raise InputError(self.tr.path, f"relation {rel.get('id')}: columns must map id -> N")
        rows = rel.get("rows", table["rows"])
        out = []
        for rid in rows:
            for cid, n in columns.items():
                vid = f"{rel['table']}.{rid}.{cid}"
                if vid not in self.values:
                    continue
                out.append({"id": f"{rel['id']}.{rid}.{cid}", "kind": "grim", "value": vid, "n": n,
                            "category": rel.get("category", "grim"), "note": rel.get("note", ""),
                            "where": rel.get("where", "")})
        return out

    def _expand_equal_table(self, rel: Mapping[str, Any]) -> List[Mapping[str, Any]]:
        a = self._table(rel, "a")
        self._table(rel, "b")
        colmap = rel.get("columns") or {c: c for c in a["columns"]}
        rowmap = rel.get("rows") or {r: r for r in a["rows"]}
        out = []
        for ra, rb in rowmap.items():
            for ca, cb in colmap.items():
                va = f"{rel['a']}.{ra}.{ca}"
                vb = f"{rel['b']}.{rb}.{cb}"
                if va not in self.values and vb not in self.values:
                    continue
                out.append({"id": f"{rel['id']}.{ra}.{ca}", "kind": "equal", "got": va,
                            "expected": vb, "category": rel.get("category", "crossref"),
                            "note": rel.get("note", ""), "where": rel.get("where", "")})
        return out

    # evaluation -------------------------------------------------------------------------
    def run(self) -> List[Result]:
        return [self.evaluate(rel) for rel in self.expand()]

    def evaluate(self, rel: Mapping[str, Any]) -> Result:
        rid = rel.get("id")
        if not isinstance(rid, str) or not rid:
            raise InputError(self.tr.path, f"relation without id: {dumps_canonical(rel)[:80]}")
        kind = rel.get("kind")
        handler = getattr(self, f"rel_{kind}", None)
        if handler is None:
            raise InputError(self.tr.path, f"relation {rid}: unknown kind {kind!r}")
        return handler(rel, _Eval(self.values, rid, self.tr.path))

    def _base(self, rel: Mapping[str, Any]) -> Dict[str, str]:
        return {"rid": rel["id"], "kind": rel["kind"], "category": rel.get("category", rel["kind"]),
                "note": rel.get("note", ""), "where": rel.get("where", "")}

    def rel_equal(self, rel: Mapping[str, Any], ev: _Eval) -> Result:
        got = ev(rel.get("got"))
        exp = ev(rel.get("expected"))
        if exp.lo <= got.point <= exp.hi:
            verdict = EXACT
        elif got.single is not None and exp.single is not None and got.lo <= exp.point <= got.hi:
            verdict = EXACT  # two printed copies: the less precise one is the other one rounded
        elif got.lo <= exp.hi and exp.lo <= got.hi:
            verdict = WITHIN
        else:
            verdict = FAIL
        tol = (got.hi - got.lo) / 2 + (exp.hi - exp.lo) / 2
        exp_text = (self.values[exp.single].text if exp.single else fmt(exp.point))
        detail = f"diff {fmt(got.point - exp.point)}; got interval [{fmt(got.lo)}, {fmt(got.hi)}]"
        return Result(inputs=_inputs(self.values, got.refs + exp.refs), verdict=verdict,
                      expected=exp_text, got=fmt(got.point), tolerance=fmt(tol), detail=detail,
                      **self._base(rel))

    def rel_compare(self, rel: Mapping[str, Any], ev: _Eval) -> Result:
        left, right = ev(rel.get("left")), ev(rel.get("right"))
        op = rel.get("op")
        tests = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
                 ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
        if op not in tests:
            raise InputError(self.tr.path, f"relation {rel['id']}: op must be one of < <= > >=")
        test = tests[op]
        if test(left.point, right.point):
            verdict = EXACT
        else:
            # the most favourable values inside the rounding intervals
            a = left.lo if op in ("<", "<=") else left.hi
            b = right.hi if op in ("<", "<=") else right.lo
            verdict = WITHIN if test(a, b) else FAIL
        return Result(inputs=_inputs(self.values, left.refs + right.refs), verdict=verdict,
                      expected=f"{op} {fmt(right.point)}", got=fmt(left.point),
                      tolerance=fmt((left.hi - left.lo) / 2 + (right.hi - right.lo) / 2),
                      detail=f"{fmt(left.point)} {op} {fmt(right.point)}", **self._base(rel))

    def _n(self, raw: Any, rel: Mapping[str, Any], ev: _Eval, zero_ok: bool = False) -> int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            n = raw
        else:
            item = ev(raw)
            if item.lo != item.hi or item.point.denominator != 1:
                raise InputError(self.tr.path, f"relation {rel['id']}: N must be an exact count")
            n = int(item.point)
        if n < 0 or (n == 0 and not zero_ok):
            raise InputError(self.tr.path, f"relation {rel['id']}: N must be positive")
        return n

    @staticmethod
    def _frac(raw: Any, default: int) -> Fraction:
        if raw is None:
            return Fraction(default)
        return Fraction(repr(raw)) if isinstance(raw, float) else Fraction(raw)

    def rel_grim(self, rel: Mapping[str, Any], ev: _Eval) -> Result:
        v = ev.value(rel.get("value"))
        n = self._n(rel.get("n"), rel, ev)
        scale = self._frac(rel.get("scale"), 100)
        offset = self._frac(rel.get("offset"), 0)
        kmax = rel.get("kmax")
        ks = feasible_counts(v, n, scale, offset, int(rel.get("kmin", 0)), kmax)
        verdict = EXACT if ks else FAIL
        # nearest representable values, to show what the count allows
        centre = (v.value - offset) * n / scale
        near = sorted({math.floor(centre), math.ceil(centre)})
        shown = ", ".join(f"{k}/{n}->{fmt(offset + scale * Fraction(k, n), v.decimals + 3)}"
                          for k in (ks or near))
        return Result(inputs=_inputs(self.values, [v.vid]), verdict=verdict, expected=v.text,
                      got=(f"k in {ks}" if ks else "no whole k"),
                      tolerance=fmt(v.half), detail=f"N={n}; {shown}", **self._base(rel))

    def rel_count(self, rel: Mapping[str, Any], ev: _Eval) -> Result:
        """Choose one feasible whole count per percentage; test a linear combination of them.

        ``vars``: ``{name: {"value": id, "n": N}}`` or ``{name: {"count": id-or-int}}``;
        ``combine``: ``{name: coefficient}``; ``result``: ``{"value": id, "n": N}`` (the combination
        divided by N, times 100, must round to the printed value) or ``{"count": id-or-int}``.
        """
        variables = rel.get("vars")
        combine = rel.get("combine")
        result = rel.get("result")
        if not isinstance(variables, dict) or not isinstance(combine, dict) or not isinstance(result, dict):
            raise InputError(self.tr.path, f"relation {rel['id']}: needs vars, combine and result")
        names = sorted(variables)
        options: List[List[int]] = []
        refs: List[str] = []
        detail_parts = []
        for name in names:
            spec = variables[name]
            if "count" in spec:
                k = self._n(spec["count"], rel, ev, zero_ok=True)
                options.append([k])
                if isinstance(spec["count"], str):
                    refs.append(spec["count"])
                detail_parts.append(f"{name}={k}")
                continue
            v = ev.value(spec.get("value"))
            n = self._n(spec.get("n"), rel, ev)
            ks = feasible_counts(v, n, self._frac(spec.get("scale"), 100))
            refs.append(v.vid)
            options.append(ks)
            detail_parts.append(f"{name}: {v.text} of {n} -> k in {ks}")
        for name in combine:
            if name not in variables:
                raise InputError(self.tr.path, f"relation {rel['id']}: unknown variable {name!r}")
        if "count" in result:
            target_n = None
            target_count = self._n(result["count"], rel, ev, zero_ok=True)
            if isinstance(result["count"], str):
                refs.append(result["count"])
            expected_text = str(target_count)
        else:
            rv = ev.value(result.get("value"))
            refs.append(rv.vid)
            target_n = self._n(result.get("n"), rel, ev)
            rscale = self._frac(result.get("scale"), 100)
            expected_text = rv.text
        size = 1
        for o in options:
            size *= max(1, len(o))
        if size > _MAX_COMBINATIONS:
            raise InputError(self.tr.path, f"relation {rel['id']}: too many count combinations")
        matches = []
        for choice in itertools.product(*options):
            total = sum(Fraction(combine.get(name, 0)) * k for name, k in zip(names, choice))
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
            verdict = EXACT
            first = matches[0]
            total = sum(Fraction(combine.get(n, 0)) * first[n] for n in names)
            got = (f"{fmt(total)}" if target_n is None
                   else f"{fmt(total)}/{target_n} -> {fmt(rscale * total / target_n, 4)}")
        else:
            verdict = FAIL
            got = "no combination of whole counts matches"
        detail = "; ".join(detail_parts)
        if matches:
            detail += f"; matching choice {matches[0]}"
        return Result(inputs=_inputs(self.values, refs), verdict=verdict, expected=expected_text,
                      got=got, tolerance="0 (whole counts)", detail=detail, **self._base(rel))

    def rel_count_marked(self, rel: Mapping[str, Any], ev: _Eval) -> Result:
        cells = rel.get("cells")
        marker = rel.get("marker")
        if not isinstance(cells, list) or not isinstance(marker, str) or not marker:
            raise InputError(self.tr.path, f"relation {rel['id']}: needs cells and marker")
        marked = [c for c in cells if marker in ev.value(c).markers]
        exp = ev(rel.get("expected"))
        verdict = EXACT if exp.lo <= len(marked) <= exp.hi else FAIL
        return Result(inputs=_inputs(self.values, list(cells) + list(exp.refs)), verdict=verdict,
                      expected=fmt(exp.point), got=str(len(marked)), tolerance="0",
                      detail=f"marked: {', '.join(marked) or 'none'}", **self._base(rel))


def audit(tr: Transcription) -> List[Result]:
    """Evaluate every relation of a transcription (bulk relations expanded)."""
    return Auditor(tr).run()


def verdict_counts(results: Sequence[Result]) -> Dict[str, int]:
    counts = {v: 0 for v in VERDICT_ORDER}
    for r in results:
        counts[r.verdict] += 1
    return counts


def summary_line(paper: str, results: Sequence[Result]) -> str:
    """``paper audit nclue: 123 relations: 100 EXACT, 20 WITHIN_ROUNDING, 3 FAIL``."""
    c = verdict_counts(results)
    return (f"paper audit {paper}: {len(results)} relations: {c[EXACT]} EXACT, "
            f"{c[WITHIN]} WITHIN_ROUNDING, {c[FAIL]} FAIL")


def _ordered(results: Sequence[Result]) -> List[Result]:
    rank = {v: i for i, v in enumerate(VERDICT_ORDER)}
    return sorted(results, key=lambda r: (rank[r.verdict], r.rid))


# --------------------------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------------------------

def report_json(tr: Transcription, results: Sequence[Result],
                reproduction: Optional[Sequence[Mapping[str, Any]]] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {
        "paper": tr.paper, "seed": tr.seed, "transcription": tr.path,
        "values": len(tr.values), "relations": len(results),
        "summary": verdict_counts(results), "summary_line": summary_line(tr.paper, results),
        "results": [r.as_dict() for r in _ordered(results)],
        "not_transcribed": list(tr.not_transcribed),
    }
    if reproduction is not None:
        out["reproduction"] = list(reproduction)
        out["reproduction_summary"] = _repro_counts(reproduction)
    return out


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(tr: Transcription, results: Sequence[Result],
                    reproduction: Optional[Sequence[Mapping[str, Any]]] = None) -> str:
    c = verdict_counts(results)
    lines = [f"# Paper audit: {tr.paper}", "",
             f"Transcription `{tr.path}` ({len(tr.values)} printed values) of seed `{tr.seed}`.", "",
             f"**{summary_line(tr.paper, results)}**", "",
             "| verdict | relations |", "| --- | --- |"]
    for v in VERDICT_ORDER:
        lines.append(f"| {v} | {c[v]} |")
    lines += ["", "Tolerance rule: each printed input contributes half a unit in its last printed "
              "place (counts contribute 0); an `equal` relation is EXACT when the value computed "
              "from the printed inputs rounds to the printed result, WITHIN_ROUNDING when "
              "|got - expected| <= tolerance (sum of the half-units of every input and of the "
              "result; exact interval bounds for products and ratios), FAIL otherwise. `grim` and "
              "`count` relations require whole counts k out of N.", ""]
    lines += ["| id | category | verdict | inputs | expected | got | tolerance | detail |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in _ordered(results):
        inputs = ", ".join(f"{vid}={text}" for vid, text in r.inputs)
        detail = r.detail + (f" — {r.note}" if r.note else "")
        lines.append("| " + " | ".join(_md_cell(x) for x in (
            r.rid, r.category, r.verdict, inputs, r.expected, r.got, r.tolerance, detail)) + " |")
    if tr.not_transcribed:
        lines += ["", "## Not transcribed", ""]
        for item in tr.not_transcribed:
            lines.append(f"- {item.get('id')}: {item.get('reason')}")
    if reproduction is not None:
        rc = _repro_counts(reproduction)
        lines += ["", "## Reproduction from release data", "",
                  f"{rc['reproduced']} reproduced, {rc['not_reproduced']} not reproduced, "
                  f"{rc['no_input']} without inputs in the release.", "",
                  "| value | printed | run | measure | slice | recomputed | status |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for item in reproduction:
            lines.append("| " + " | ".join(_md_cell(x) for x in (
                item["value"], item["printed"], item["run"], item["measure"],
                item.get("slice") or "all", item.get("recomputed", ""), item["status"])) + " |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Frozen verdicts
# --------------------------------------------------------------------------------------------

def verdicts_document(tr: Transcription, results: Sequence[Result]) -> Dict[str, Any]:
    """The frozen-verdict file for a transcription: one verdict per relation id."""
    return {"schema": VERDICTS_SCHEMA, "paper": tr.paper,
            "summary_line": summary_line(tr.paper, results),
            "verdicts": {r.rid: r.verdict for r in results}}


def verdicts_path(repo_root: PathLike, paper: str) -> Path:
    return Path(repo_root) / "audit" / "papers" / f"{paper}.verdicts.json"


def check_verdicts(results: Sequence[Result], frozen: Mapping[str, Any], where: str) -> List[str]:
    """Differences between freshly computed verdicts and a frozen-verdict document."""
    stored = frozen.get("verdicts") if isinstance(frozen, dict) else None
    if not isinstance(stored, dict):
        return [f"{where}: no 'verdicts' object"]
    problems = []
    fresh = {r.rid: r.verdict for r in results}
    for rid in sorted(set(fresh) | set(stored)):
        if rid not in stored:
            problems.append(f"{where}: relation {rid} has no frozen verdict (now {fresh[rid]})")
        elif rid not in fresh:
            problems.append(f"{where}: frozen relation {rid} no longer exists")
        elif stored[rid] != fresh[rid]:
            problems.append(f"{where}: relation {rid} frozen {stored[rid]}, now {fresh[rid]}")
    return problems


def verify_frozen_verdicts(repo_root: PathLike) -> Tuple[int, List[str]]:
    """Re-audit every ``claims/papers/*.json`` and compare with ``audit/papers/*.verdicts.json``.

    Returns ``(number of relations checked, mismatch descriptions)``; a transcription without a
    frozen file (or the reverse) is a mismatch. Bad input raises InputError.
    """
    root = Path(repo_root)
    checked = 0
    problems: List[str] = []
    transcriptions = sorted((root / "claims" / "papers").glob("*.json"))
    papers = set()
    for path in transcriptions:
        tr = load_transcription(path)
        papers.add(tr.paper)
        results = audit(tr)
        frozen_path = verdicts_path(root, tr.paper)
        if not frozen_path.exists():
            problems.append(f"{frozen_path}: missing frozen verdicts for {path.name}")
            continue
        problems.extend(check_verdicts(results, read_json(frozen_path), str(frozen_path)))
        checked += len(results)
    for frozen_path in sorted((root / "audit" / "papers").glob("*.verdicts.json")):
        paper = frozen_path.name[: -len(".verdicts.json")]
        if paper not in papers:
            problems.append(f"{frozen_path}: no transcription claims/papers/*.json for {paper}")
    return checked, problems


def summary_lines(repo_root: PathLike) -> List[str]:
    """The summary line of every transcription under ``claims/papers/`` (printed by reproduce.py)."""
    root = Path(repo_root)
    return [summary_line(tr.paper, audit(tr)) for tr in
            (load_transcription(p) for p in sorted((root / "claims" / "papers").glob("*.json")))]


# --------------------------------------------------------------------------------------------
# Reproduction from a release
# --------------------------------------------------------------------------------------------

SLICES = ("all", "n=2", "n=3", "lmin<=30", "lmin>100", "dplus<=25", "dplus>50")


def slice_qids(release: Any, name: Optional[str]) -> Optional[List[str]]:
    """Query ids of a named slice (n-Clue paper, Table 6); None means all queries.

    n=2 / n=3: condition count. lmin: page count of the query's shortest gold (queries without a
    gold belong to no length slice). dplus: number of nonzero qrels of the query.
    """
    if name in (None, "all"):
        return None
    out = []
    for qid in sorted(release.queries):
        query = release.queries[qid]
        judged = release.judgments.get(qid, {})
        golds = [d for d, j in judged.items() if j.is_gold]
        lmin = min(release.corpus[d].pages for d in golds) if golds else None
        dplus = len(judged)
        keep = {
            "n=2": len(query.conditions) == 2,
            "n=3": len(query.conditions) == 3,
            "lmin<=30": lmin is not None and lmin <= 30,
            "lmin>100": lmin is not None and lmin > 100,
            "dplus<=25": dplus <= 25,
            "dplus>50": dplus > 50,
        }
        if name not in keep:
            raise ValueError(f"unknown slice {name!r}")
        if keep[name]:
            out.append(qid)
    return out


def resolve_release_folder(path: PathLike) -> Path:
    """Our layout (``queries.jsonl`` in PATH) or the original n-Clue release (``PATH/data/v1``).

    Supplement 13 of the n-Clue paper places CrossPage under ``data/v1/`` (queries, compact qrels,
    corpus metadata, top-10 rankings); that folder is read with the nclue release format.
    """
    folder = Path(path)
    for candidate in (folder, folder / "data" / "v1"):
        if any((candidate / n).exists() for n in ("queries.jsonl", "queries.jsonl.gz")):
            return candidate
    raise InputError(folder, "no release here (expected queries.jsonl, or data/v1/queries.jsonl)")


def _find_run(folder: Path, run_id: str) -> Optional[Path]:
    """``runs/index.json``'s file for the id when listed there, else ``runs/<id>.<ext>``."""
    index = folder / "runs" / "index.json"
    if index.exists():
        listed = read_json(index)
        entries = listed.get("runs", []) if isinstance(listed, dict) else []
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") == run_id and isinstance(entry.get("file"), str):
                candidate = folder / "runs" / entry["file"]
                if candidate.exists():
                    return candidate
    for suffix in (".jsonl.gz", ".jsonl", ".trec.gz", ".trec", ".txt"):
        candidate = folder / "runs" / f"{run_id}{suffix}"
        if candidate.exists():
            return candidate
    return None


def reproduce_from_release(tr: Transcription, release_path: PathLike) -> List[Dict[str, Any]]:
    """Recompute every ``release_map`` entry for which the release holds the run.

    Each entry is ``{"value": id, "run": run_id, "measure": name, "slice": optional}``; the value is
    reproduced when the recomputed aggregate (percentage points, :func:`nclue.metrics.evaluate`)
    lies in the rounding interval of the printed value.
    """
    from .metrics import aggregate, per_query  # imported lazily: the audit itself needs no release
    from .release import load_release
    from .runs import load_run

    folder = resolve_release_folder(release_path)
    release = load_release(folder)
    cache: Dict[str, Any] = {}
    out: List[Dict[str, Any]] = []
    for entry in tr.release_map:
        vid, run_id, measure = entry.get("value"), entry.get("run"), entry.get("measure")
        if vid not in tr.values or not isinstance(run_id, str) or not isinstance(measure, str):
            raise InputError(tr.path, f"release_map entry {dumps_canonical(entry)[:80]} is malformed")
        printed = tr.values[vid]
        item: Dict[str, Any] = {"value": vid, "printed": printed.text, "run": run_id,
                                "measure": measure, "slice": entry.get("slice")}
        run_path = _find_run(folder, run_id)
        if run_path is None:
            item["status"] = "no_input"
            out.append(item)
            continue
        if run_id not in cache:
            cache[run_id] = per_query(release, load_run(run_path, release))
        qids = slice_qids(release, entry.get("slice"))
        aggregated = aggregate(cache[run_id], qids)
        if measure not in aggregated:
            item["status"] = "no_input"
            out.append(item)
            continue
        value = Fraction(aggregated[measure]) * Fraction(repr(entry.get("scale", 1)))
        item["recomputed"] = fmt(value, printed.decimals + 3)
        item["status"] = "reproduced" if printed.lo <= value <= printed.hi else "not_reproduced"
        out.append(item)
    return out


def _repro_counts(items: Sequence[Mapping[str, Any]]) -> Dict[str, int]:
    counts = {"reproduced": 0, "not_reproduced": 0, "no_input": 0}
    for item in items:
        counts[item["status"]] += 1
    return counts


audit_summaries = summary_lines  # earlier name
