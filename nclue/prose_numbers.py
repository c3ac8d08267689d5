"""Numbers quoted in hand-written prose (README.md, DATASHEET.md) must come from a generated file.

A prose block that quotes release values is fenced by HTML comments naming its source::

    <!-- numbers-from: reference_metrics/v1/REPORT.md -->
    ... BM25-AND finds a gold for 79.1% of queries ...
    <!-- /numbers-from -->

Every number in the block must appear, as a number, in the named file, which ``reproduce.py``
itself regenerates and whose values are claims. Matching is by printed value, ignoring sign
(prose says "falls by 36.0" where a table prints -36.0), thousands separators, a trailing % and
trailing zeros after the decimal point (a median printed 17.0 may be quoted as 17: the same
number; 17.4 is not 17).
A block with no numbers, an unknown source or an unterminated fence is itself a problem, so the
check cannot pass vacuously.

A source that stores unrounded values (e.g. ``audit/quote_audit_v1_summary.json``: 98.48) is named
with ``rounded``: ``<!-- numbers-from: FILE rounded -->``. A quoted number with d decimals then
matches a source number that rounds half up to it at d decimals (the claims rule,
:mod:`nclue.claims`): "98.5" matches 98.48, "0.951" matches 0.9509.
"""

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Dict, List, Set, Tuple

_OPEN = re.compile(r"<!--\s*numbers-from:\s*(\S+)(\s+rounded)?\s*-->")
_CLOSE = "<!-- /numbers-from -->"
# A number as printed: digits with optional thousands commas and decimals; not part of a word
# (so "v1", "S2b", "k1" and "sec. 4.2"-style section numbers inside words are not numbers).
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?![\w])")


def _normalised(printed: str) -> str:
    """``1,164`` -> ``1164``; ``17.0`` -> ``17``; ``1.80`` -> ``1.8`` (the same number)."""
    plain = printed.replace(",", "")
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def numbers_in(text: str) -> List[str]:
    """The numbers printed in ``text``, normalised (see :func:`_normalised`), in order."""
    return [_normalised(m.group(0)) for m in _NUMBER.finditer(text)]


def _decimals(printed: str) -> int:
    return len(printed.split(".")[1]) if "." in printed else 0


def _rounded(source_numbers: List[str], places: int) -> Set[str]:
    """The source numbers rounded half up to ``places`` decimals, normalised."""
    unit = Decimal(1).scaleb(-places)
    return {_normalised(str(Decimal(n).quantize(unit, rounding=ROUND_HALF_UP))) for n in source_numbers}


def blocks(text: str, where: str) -> List[Tuple[int, str, bool, str]]:
    """(line, source path, rounded?, block text) of every fenced block; ValueError on a bad fence."""
    out = []
    pos = 0
    while True:
        m = _OPEN.search(text, pos)
        if not m:
            return out
        end = text.find(_CLOSE, m.end())
        line = text.count("\n", 0, m.start()) + 1
        if end < 0:
            raise ValueError(f"{where}:{line}: numbers-from block is not closed with {_CLOSE}")
        out.append((line, m.group(1), bool(m.group(2)), text[m.end():end]))
        pos = end + len(_CLOSE)


def check_file(root: Path, relative: str) -> Tuple[int, List[str]]:
    """(numbers checked, problems) for one prose file under ``root``."""
    path = root / relative
    text = path.read_text(encoding="utf-8")
    checked, problems = 0, []
    try:
        found = blocks(text, relative)
    except ValueError as exc:
        return 0, [str(exc)]
    for line, source, rounded, body in found:
        src = root / source
        if not src.is_file():
            problems.append(f"{relative}:{line}: numbers-from names {source}, which does not exist")
            continue
        source_numbers = [m.group(0).replace(",", "") for m in _NUMBER.finditer(src.read_text(encoding="utf-8"))]
        exact: Set[str] = {_normalised(n) for n in source_numbers}
        by_places: Dict[int, Set[str]] = {}
        quoted = [m.group(0) for m in _NUMBER.finditer(body)]
        if not quoted:
            problems.append(f"{relative}:{line}: numbers-from block quotes no number")
        for printed in quoted:
            checked += 1
            value = _normalised(printed)
            if value in exact:
                continue
            if rounded:
                places = _decimals(printed.replace(",", ""))
                if places not in by_places:
                    by_places[places] = _rounded(source_numbers, places)
                if value in by_places[places]:
                    continue
            what = "printed in" if not rounded else "printed or rounded from a number in"
            problems.append(f"{relative}:{line}: {printed} is not {what} {source}")
    return checked, problems
