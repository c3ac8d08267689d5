"""Checked statements: the words around a verdict, held to the numbers (issue 22).

The explanation printed after a finding, the report's introduction and its figure captions are
written in ``report.json``; this module holds them to the same standard as the table cells.
The rule, in full:

1. **Numbers are bound.** A statement prints a number only as a placeholder that the report
   fills from its own cells: ``{table/row/column}`` (the cell at its printed precision) or
   ``{+table/row/column}`` (with its sign). A number may also be a fixed setting, written
   ``{=3}`` (printed as ``3``: a parameter such as m = 3, not a measurement). Digits that belong
   to a name are not numbers: after a letter, ``_``, ``@``, or a letter and ``-`` or ``=``
   (``BM25``, ``L6``, ``hc@10``, ``top-3``, ``n-1``, ``r=16``), before a hyphen and a letter
   (``3-condition``), or the number of a reference (``Table 7``, ``sec. 4.2``, ``Figure 2(a)``,
   ``eq. 5``). Any other digit in a statement is refused.
2. **Comparatives name their evidence.** An ``observed`` statement that compares (``more``,
   ``fewer``, ``higher``, ``below``, ``beyond``, ``falls``, ...; :data:`COMPARATIVES`) carries
   ``checks``: relations between cells (``["scorecard/a/gold_hit@10", "<",
   "scorecard/b/gold_hit@10"]``, or a cell against a number, or ``"in"`` a list of verdict
   codes). Every check is evaluated when the report is built.
3. **A mechanism nothing tested is labelled.** A statement with ``role`` ``possible reason`` is
   printed as "a possible reason, not tested here: ..."; it may compare without checks, since
   it claims nothing the data show.
4. **"No effect" needs an equivalence verdict.** "not better", "not larger", "no effect",
   "unchanged", "about as much" and the other phrases of :data:`NULL_PHRASES` are printed only
   by a statement that checks an equivalence verdict (a ``verdict`` cell equal to 1 in a row
   with a margin); otherwise the words are "... is not shown".
5. **Facts about the release are generated.** What the release includes, excludes or does not
   have yet is never a literal: phrases such as "not in this release", "not yet", "excluded"
   and "included" (:data:`RELEASE_FACT_PHRASES`) are refused in written text, and such facts
   come from generated placeholders (``{fact:ties}``, ``{tables:PREFIX}``; see
   :func:`release_facts`) or from the figure kind itself (Figure 2(a)'s point selection).
6. **An explanation is written for verdicts.** It declares ``written_for``, the verdict codes it
   explains; when the verdict is another, or a check fails, the explanation is not printed and
   the report records a problem, which fails ``reproduce.py``.

Rules 1, 2, 4 and 5 are checked when the spec is parsed (:func:`problems`); rules 2 and 6 again,
against the cells, when the report is built (:func:`render`).
"""

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..claims import format_fixed
from .spec import setting

ROLES = ("observed", "possible reason")
POSSIBLE_REASON = "a possible reason, not tested here: "

PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
#: Reference words whose number names a part of a paper or of this report.
REFERENCE = re.compile(r"(?:\b(?:Tables?|Figures?|Fig\.|[Ss]ec\.|[Ss]ections?|[Ee]q\.|Algorithm|"
                       r"Appendix|app\.|supplement)\s+S?)$")
COMPARATIVES = re.compile(
    r"(?i)\b(more|less|fewer|higher|lower|larger|smaller|greater|better|worse|beyond|above|below|"
    r"exceeds?|exceeding|falls?|falling|fell|rises?|rising|raises?|lowers?|reach(?:es)?|"
    r"narrower|wider|weaker|stronger|weak|strong|far|most|least|beats?|outperforms?|"
    r"increases?|decreases?|drops?|gains?|loses?|unlike|identical|equal)\b")
NULL_PHRASES = re.compile(
    r"(?i)\b(not better|not larger|not largest|not greater|not higher|not lower|not smaller|"
    r"no effect|no difference|no change|no gain|no loss|no flip|unchanged|null change|"
    r"within noise|about as much|as much as|(?:does|do|did) not (?:beat|help|change|raise|"
    r"improve|hurt|matter|lower)|the same as)\b")
RELEASE_FACT_PHRASES = re.compile(
    r"(?i)\b(not (?:yet )?in this (?:release|report)|not yet|excluded|included|"
    r"is not there|are not there|not available here|still missing)\b")


@dataclass(frozen=True)
class Statement:
    text: str = setting("text", "the sentence; numbers only as `{table/row/column}` placeholders "
                                "(`{+table/row/column}`: signed; `{=3}`: a fixed setting), release "
                                "facts only as `{fact:...}` / `{tables:PREFIX}` (nclue.report."
                                "statements)")
    checks: Optional[Tuple[Tuple[str, str, Any], ...]] = setting(
        "relations", "relations the statement rests on, each `[cell, op, cell or number]` (op "
        "`<`, `<=`, `>`, `>=`, `=`, `!=`; or `[cell, \"in\", [numbers]]`), evaluated when the "
        "report is built", None)
    role: str = setting("text", "`observed` (what the data show: a comparative needs checks) or "
                                "`possible reason` (a mechanism nothing here tests; printed as "
                                "such)", "observed")


def _is_name(text: str, start: int, end: int) -> bool:
    before, after = text[:start], text[end:]
    if before and (before[-1].isalpha() or before[-1] in "_@"):
        return True  # BM25, L6, hc@10, run_2
    if len(before) >= 2 and before[-1] in "-=" and before[-2].isalpha():
        return True  # top-3, n-1, r=16
    if len(after) >= 2 and after[0] == "-" and after[1].isalpha():
        return True  # 3-condition
    return bool(REFERENCE.search(before))


def literal_numbers(text: str) -> List[str]:
    """The digits of ``text`` outside placeholders that are neither names nor references."""
    masked = PLACEHOLDER.sub(lambda m: " " * len(m.group(0)), text)
    out = []
    for match in NUMBER.finditer(masked):
        if _is_name(masked, match.start(), match.end()):
            continue
        out.append(match.group(0).rstrip(",."))
    return out


def _literal(text: str) -> str:
    """The written words of a template (placeholders removed)."""
    return PLACEHOLDER.sub(" ", text)


def has_equivalence_check(statement: Statement) -> bool:
    return any(op == "=" and cell.endswith("/verdict") and value == 1
               for cell, op, value in statement.checks or ())


def problems(statement: Statement) -> List[str]:
    """Rule violations of one statement that need no cell (rules 1-5), one line each."""
    out = []
    if statement.role not in ROLES:
        out.append(f"role {statement.role!r} is not one of {', '.join(ROLES)}")
    for key in PLACEHOLDER.findall(statement.text):
        if not (key.startswith(("fact:", "tables:", "=")) or _address(key.lstrip("+"))):
            out.append(f"placeholder {{{key}}} is not table/row/column, =N, fact:NAME or "
                       "tables:PREFIX")
        if key.startswith("=") and not NUMBER.fullmatch(key[1:]):
            out.append(f"fixed setting {{{key}}} is not a number")
    words = _literal(statement.text)
    for number in literal_numbers(statement.text):
        out.append(f"the number {number!r} is bound to no cell (write {{table/row/column}}, or "
                   f"{{={number}}} for a fixed setting)")
    match = RELEASE_FACT_PHRASES.search(words)
    if match:
        out.append(f"{match.group(0)!r} states a fact about the release: generate it "
                   "({fact:...} or {tables:PREFIX}) instead of writing it")
    match = NULL_PHRASES.search(words)
    if match and not has_equivalence_check(statement):
        out.append(f"{match.group(0)!r} claims no effect without an equivalence verdict (check a "
                   "verdict cell = 1 of a row with a margin, or write 'is not shown')")
    match = COMPARATIVES.search(words)
    if match and statement.role == "observed" and not statement.checks:
        out.append(f"the comparative {match.group(0)!r} names no cells it rests on (give "
                   "'checks', or role 'possible reason' for an untested mechanism)")
    for check in statement.checks or ():
        for side in (check[0], check[2]) if check[1] != "in" else (check[0],):
            if isinstance(side, str) and not _address(side):
                out.append(f"check {list(check)!r}: {side!r} is not a table/row/column address")
    return out


def paragraph_problems(text: str) -> List[str]:
    """Rules 1 and 5 for a written paragraph (an introduction paragraph, a caption)."""
    return problems(Statement(text=text, checks=None, role="possible reason"))


def explanation_problems(statements: Sequence[Statement], written_for: Optional[Sequence[int]],
                         codes: Sequence[int]) -> List[str]:
    """Every rule violation of one explanation (rules 1-6 that need no cell)."""
    out = []
    if not written_for:
        out.append("an explanation needs 'written_for': the verdict codes it was written for")
    else:
        bad = [c for c in written_for if c not in codes]
        if bad:
            out.append(f"written_for {bad[0]} is not a verdict code ({', '.join(map(str, codes))})")
    for number, statement in enumerate(statements, start=1):
        out += [f"statement {number}: {p}" for p in problems(statement)]
    return out


# --- rendering against the report's cells ------------------------------------------------------

Cells = Mapping[Tuple[str, str, str], float]


def _address(key: str) -> Optional[Tuple[str, str, str]]:
    parts = key.split("/")
    if len(parts) < 3 or not all(parts):
        return None
    return parts[0], "/".join(parts[1:-1]), parts[-1]


def format_cell(value: float, decimals: int, signed: bool = False) -> str:
    """A cell as the report prints it; whole counts of 1000 or more with thousands separators."""
    if decimals == 0 and abs(value) >= 1000 and float(value).is_integer():
        text = f"{int(value):,}"
    else:
        text = format_fixed(value, decimals)
    return ("+" + text) if signed and not text.startswith("-") else text


@dataclass(frozen=True)
class Rendered:
    """A statement list rendered: its text (None when it may not be printed) and why not."""

    text: Optional[str]
    problems: Tuple[str, ...]


def _value(side: Any, cells: Cells) -> Optional[float]:
    if isinstance(side, (int, float)) and not isinstance(side, bool):
        return float(side)
    address = _address(side) if isinstance(side, str) else None
    return cells.get(address) if address else None


def check_holds(check: Tuple[str, str, Any], cells: Cells) -> Tuple[bool, str]:
    """Whether one relation holds on the cells, and the values it compared."""
    cell, op, other = check
    left = _value(cell, cells)
    if left is None:
        return False, f"{cell} is no cell of the report"
    if op == "in":
        return left in [float(v) for v in other], f"{cell} = {left:g}, not in {list(other)}"
    right = _value(other, cells)
    if right is None:
        return False, f"{other} is no cell of the report"
    holds = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right,
             "=": math.isclose(left, right, rel_tol=0, abs_tol=1e-12), "!=": left != right}[op]
    return holds, f"{cell} = {left:g} {op} {other if isinstance(other, str) else ''} {right:g}".replace("  ", " ")


def fill(text: str, cells: Cells, decimals: Mapping[Tuple[str, str, str], int],
         facts: Mapping[str, str]) -> Tuple[str, List[str]]:
    """``text`` with its placeholders filled; the problems of those that cannot be."""
    missing: List[str] = []

    def one(match: "re.Match[str]") -> str:
        key = match.group(1)
        if key.startswith("="):
            return key[1:]
        if key.startswith(("fact:", "tables:")):
            if key not in facts:
                missing.append(f"{{{key}}}: the release generates no such fact")
                return match.group(0)
            return facts[key]
        signed = key.startswith("+")
        address = _address(key.lstrip("+"))
        if address is None or address not in cells:
            missing.append(f"{{{key}}} is no cell of the report")
            return match.group(0)
        return format_cell(cells[address], decimals.get(address, 1), signed)

    return PLACEHOLDER.sub(one, text), missing


def render(statements: Sequence[Statement], written_for: Sequence[int], verdict: Optional[int],
           cells: Cells, decimals: Mapping[Tuple[str, str, str], int],
           facts: Mapping[str, str] = {}, describe: Callable[[int], str] = str,
           capitalize: bool = True) -> Rendered:
    """The explanation's text when the verdict is one it was written for and every check holds;
    otherwise no text and the reasons (rule 6)."""
    found: List[str] = []
    if verdict is not None and verdict not in written_for:
        found.append(f"written for {' / '.join(describe(c) for c in written_for)}, but the "
                     f"verdict is now {describe(verdict)}")
    parts = []
    for number, statement in enumerate(statements, start=1):
        text, missing = fill(statement.text, cells, decimals, facts)
        found += [f"statement {number}: {m}" for m in missing]
        for check in statement.checks or ():
            holds, shown = check_holds(check, cells)
            if not holds:
                found.append(f"statement {number}: check {shown} fails")
        parts.append(POSSIBLE_REASON + text if statement.role == "possible reason" else text)
    if found:
        return Rendered(None, tuple(found))
    text = "; ".join(parts)
    return Rendered(text[:1].upper() + text[1:] if capitalize else text, ())


def render_paragraph(text: str, cells: Cells, decimals: Mapping[Tuple[str, str, str], int],
                     facts: Mapping[str, str]) -> Rendered:
    filled, missing = fill(text, cells, decimals, facts)
    return Rendered(None if missing else filled, tuple(missing))


# --- generated facts about the release ---------------------------------------------------------

RULE_WORDS = {"input": "input (stable file order)", "trec_eval": "trec_eval (docid descending)"}


def _join(words: Sequence[str]) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def release_facts(table_specs: Sequence[Any], tables: Sequence[Any]) -> Dict[str, str]:
    """The generated facts a written paragraph may name: ``{fact:ties}`` (what the tie table
    gives), ``{fact:label_version_tables}`` (the tables on another label version) and
    ``{tables:PREFIX}`` for every prefix up to the first ``_`` of a table id (the tables whose
    id starts with it)."""
    facts: Dict[str, str] = {}
    built = {t.table_id: t for t in tables}
    ties = [s for s in table_specs if getattr(s, "kind", None) == "tie_sensitivity"
            and s.id in built]
    if ties:
        spec = ties[0]
        rules = [r for r in spec.ties if r != "expected"]
        rows = built[spec.id].rows
        decided = max((cells.get("tied_either") or 0.0) for _, _, cells in rows) if rows else 0.0
        text = (f"the tie table ({spec.id}) gives its {len(rows)} contrasts under the "
                f"{_join([RULE_WORDS.get(r, r) for r in rules])} tie rule"
                f"{'s' if len(rules) > 1 else ''}")
        if "expected" in spec.ties:
            text += " and as the exact expectation over uniformly random orders within tied scores"
        else:
            text += "; the exact expectation over random tie orders is not computed in this report"
        text += (f", and counts the queries a tie decides (at most {format_cell(decided, 0)} "
                 "for one contrast)")
        facts["fact:ties"] = text
    versions = [s.id for s in table_specs if getattr(s, "label_version", None)
                or str(getattr(s, "kind", "")).startswith("repair_")]
    if versions:
        facts["fact:label_version_tables"] = "tables " + _join(versions)
    ids = [s.id for s in table_specs]
    for table_id in ids:
        if "_" in table_id:
            prefix = table_id.split("_")[0] + "_"
            facts.setdefault(f"tables:{prefix}", "tables " + _join(
                [i for i in ids if i.startswith(prefix)]))
    return facts
