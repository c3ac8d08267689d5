"""What every relation kind shares: the evaluated :class:`Result` and the :class:`Context`.

A relation is a JSON object of a transcription (``{"id", "kind", "category", ...}``); its kind
module turns it into one :class:`Result` (the report line). Kind modules are pure functions
``evaluate(rel, ctx) -> Result``; bulk kinds expand into several plain relations first.
"""

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Tuple

from ...errors import InputError
from ...formats import dumps_canonical
from ..evaluator import Evaluator
from ..printed import Printed
from ..transcription import Transcription


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
    review: str = ""  # the reviewer's one-line explanation of a FAIL, read against the paper
    reading: str = ""  # the interpretation, not fixed by the paper, under which the relation fails

    def as_dict(self) -> Dict[str, Any]:
        return {"id": self.rid, "kind": self.kind, "category": self.category,
                "verdict": self.verdict, "inputs": [list(i) for i in self.inputs],
                "expected": self.expected, "got": self.got, "tolerance": self.tolerance,
                "detail": self.detail, "note": self.note, "where": self.where,
                "review": self.review, "reading": self.reading}


@dataclass(frozen=True)
class Context:
    """The transcription a relation is evaluated against, and located error messages."""

    tr: Transcription

    @property
    def values(self) -> Mapping[str, Printed]:
        return self.tr.values

    def error(self, rel: Mapping[str, Any], problem: str) -> InputError:
        return InputError(self.tr.path, f"relation {rel.get('id')}: {problem}")

    def evaluator(self, rel: Mapping[str, Any]) -> Evaluator:
        return Evaluator(self.values, str(rel.get("id")), self.tr.path)

    def base(self, rel: Mapping[str, Any]) -> Dict[str, str]:
        """The fields of a Result that come straight from the relation."""
        out = {"rid": rel["id"], "kind": rel["kind"], "category": rel.get("category", rel["kind"]),
               "note": rel.get("note", ""), "where": rel.get("where", ""),
               "review": rel.get("review", ""), "reading": rel.get("reading", "")}
        for key in ("category", "note", "where", "review", "reading"):
            if not isinstance(out[key], str):
                raise self.error(rel, f"{key} must be a string")
        return out

    def table(self, rel: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        tid = rel.get(key)
        if not isinstance(tid, str) or tid not in self.tr.tables:
            raise self.error(rel, f"unknown table {tid!r}")
        return self.tr.tables[tid]

    def ids_of(self, rel: Mapping[str, Any], key: str, ids: Iterable[Any], known: Iterable[str]) -> None:
        """Refuse a row or column id that the table does not have (it would silently match no cell)."""
        known = list(known)
        for i in ids:
            if i not in known:
                raise self.error(rel, f"{key}: {i!r} is not an id of the table (known: {', '.join(known)})")

    def count(self, raw: Any, rel: Mapping[str, Any], ev: Evaluator, zero_ok: bool = False) -> int:
        """A whole count given as a JSON integer or as an exact expression (``N``)."""
        if isinstance(raw, int) and not isinstance(raw, bool):
            n = raw
        else:
            item = ev(raw)
            if item.lo != item.hi or item.point.denominator != 1:
                raise self.error(rel, "N must be an exact count")
            n = int(item.point)
        if n < 0 or (n == 0 and not zero_ok):
            raise self.error(rel, "N must be positive")
        return n

    def describe(self, rel: Mapping[str, Any]) -> str:
        return dumps_canonical(rel)[:80]

    def known(self, obj: Mapping[str, Any], allowed: Iterable[str], rel: Mapping[str, Any], what: str) -> None:
        """Refuse a key ``obj`` may not have (a misspelt ``weight`` would silently mean "no weights")."""
        allowed = tuple(allowed)
        unknown = sorted(str(k) for k in obj if k not in allowed)
        if unknown:
            raise self.error(rel, f"{what}: unknown field {unknown[0]!r} (known: {', '.join(allowed)})")


def inputs(values: Mapping[str, Printed], refs: Iterable[str]) -> Tuple[Tuple[str, str], ...]:
    """The distinct value ids of a relation, in first-use order, with their printed texts."""
    seen: List[str] = []
    for r in refs:
        if r not in seen:
            seen.append(r)
    return tuple((r, values[r].text) for r in seen)


def exact_number(raw: Any, default: int, rel: Mapping[str, Any], ctx: Context, what: str) -> Fraction:
    """An exact JSON constant (``scale``, ``offset``) as a Fraction."""
    if raw is None:
        return Fraction(default)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ctx.error(rel, f"{what} must be a number")
    return Fraction(repr(raw)) if isinstance(raw, float) else Fraction(raw)
