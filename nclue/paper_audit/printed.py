"""Printed numbers: the text a paper prints, its exact decimal value and its rounding interval.

A printed number with ``d`` decimals stands for every real number within half a unit of its last
printed place: ``26.8`` is the closed interval ``[26.75, 26.85]``, ``104.9K`` is
``[104850, 104950]``; a value declared ``count`` (a whole number of items) is exact. This is the
reading of every table cell and prose number of the two audited papers (n-Clue, arXiv 2607.24165;
Multi3IR / SPIN), whose numbers are printed rounded to a fixed number of decimals.
"""

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from ..errors import InputError
from ..formats import PathLike

KINDS = ("measure", "count")
_SUFFIX = {"K": 10 ** 3, "M": 10 ** 6, "B": 10 ** 9}
_MARKERS = "*†‡"
_NUMBER = re.compile(r"^([+-]?)(\d[\d,]*)?(?:\.(\d+))?([KMB])?$")


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


def fmt(x: Fraction, digits: int = 6) -> str:
    """A readable decimal for a Fraction (exact when it terminates within ``digits`` places)."""
    if x.denominator == 1:
        return str(x.numerator)
    text = f"{float(x):.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"
