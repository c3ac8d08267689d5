"""Claims: every value a release reports, with its printed precision, and their verification.

``claims.json`` of a release::

    {"release": "v1", "claims": [{"table": "scorecard", "row": "bm25_or", "column": "nclue_score@10",
                                  "value": 26.8, "decimals": 1}, ...]}

A claim passes when the value recomputed from data rounds to the printed one: the absolute
difference is at most half a unit in the last printed place, ``0.5 * 10**-decimals``
(plus 1e-9 for binary floating point). Counts are claims with ``decimals`` 0.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import InputError
from .formats import PathLike, field, finite_number, read_json

FLOAT_SLACK = 1e-9


@dataclass(frozen=True)
class Claim:
    """One reported value: table/row/column address, printed value and its decimals."""

    release: str
    table: str
    row: str
    column: str
    value: float
    decimals: int

    @property
    def address(self) -> str:
        return f"{self.release}/{self.table}/{self.row}/{self.column}"


def format_fixed(value: float, decimals: int) -> str:
    """Print ``value`` with ``decimals`` places, rounding half away from zero on its decimal repr."""
    quantum = Decimal(1).scaleb(-decimals)
    text = str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))
    return "0" + text[2:] if text.startswith("-0") and Decimal(text) == 0 else text


def tolerance(decimals: int) -> float:
    """Half a unit in the last printed place."""
    return 0.5 * 10.0 ** (-decimals)


def claim_holds(claim: Claim, recomputed: float) -> bool:
    """True when ``recomputed`` rounds to the printed value (see module docstring)."""
    return abs(recomputed - claim.value) <= tolerance(claim.decimals) + FLOAT_SLACK


def load_claims(path: PathLike) -> List[Claim]:
    """Read and validate a ``claims.json`` file."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise InputError(path, "expected an object with a 'claims' list")
    release = data.get("release")
    if not isinstance(release, str):
        raise InputError(path, "missing string field 'release'")
    claims = []
    seen = set()
    for number, item in enumerate(data["claims"], start=1):
        where = f"claim {number}"
        if not isinstance(item, dict):
            raise InputError(path, f"{where}: expected an object")
        try:
            table = field(item, "table", str, path, number)
            row = field(item, "row", str, path, number)
            column = field(item, "column", str, path, number)
            decimals = field(item, "decimals", int, path, number)
            value = finite_number(item.get("value"), "value", path, number)
        except InputError as exc:
            raise InputError(path, f"{where}: {exc.problem}") from None
        if not 0 <= decimals <= 6:
            raise InputError(path, f"{where}: decimals must be 0..6")
        key = (table, row, column)
        if key in seen:
            raise InputError(path, f"{where}: duplicate claim {'/'.join(key)}")
        seen.add(key)
        claims.append(Claim(release, table, row, column, value, decimals))
    return claims


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    recomputed: Optional[float]
    ok: bool

    def describe(self, path: str) -> str:
        got = "missing" if self.recomputed is None else format_fixed(self.recomputed, self.claim.decimals + 3)
        return (f"{self.claim.address}: expected {format_fixed(self.claim.value, self.claim.decimals)}"
                f" (+-{tolerance(self.claim.decimals):g}), got {got} [{path}]")


Cells = Mapping[Tuple[str, str, str], float]


def check_claims(claims: Sequence[Claim], cells: Cells) -> List[ClaimResult]:
    """Check every claim against recomputed cells ``{(table, row, column): value}``."""
    results = []
    for claim in claims:
        value = cells.get((claim.table, claim.row, claim.column))
        ok = value is not None and claim_holds(claim, value)
        results.append(ClaimResult(claim, value, ok))
    return results


def freeze_claims(release: str, cells: Cells, decimals: Mapping[Tuple[str, str, str], int]) -> Dict:
    """Build a ``claims.json`` document from recomputed cells and their printed decimals.

    Used by maintainers when a release is cut (``python reproduce.py --freeze``); verification
    then recomputes every cell independently of this file.
    """
    rows = []
    for key in sorted(cells):
        places = decimals[key]
        printed = float(format_fixed(cells[key], places))
        rows.append({"table": key[0], "row": key[1], "column": key[2], "value": printed,
                     "decimals": places})
    return {"release": release, "claims": rows}
