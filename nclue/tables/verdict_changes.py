"""Kind ``verdict_changes``: which findings change verdict under another label version.

n-Clue supplement, Table S14: a label repair is reported by its impact on every result, and "which
findings change verdict" is part of that impact. The inner table (``table``: a ``findings`` or
``observations`` object, parsed exactly as at the top level) is built twice on views of the same
context (:func:`nclue.tables.scoped.scoped_context`): once on the released labels (P0) and once on
``label_version``, over the same query scope. A row's verdict *changes* when its verdict code
differs, or when it is a no-effect row (one with an equivalence margin) on one side only. Rows
that are not testable on both sides are kept, with ``changed`` 0. The last row counts the changed
rows; the note names them with both verdicts in words (generated from the codes).
"""

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from ..context import ReleaseContext
from ..errors import InputError
from ..table import Column, Table
from .findings import is_equivalence_row, verdict_text
from .scoped import QUERY_SCOPES, scoped_context
from .spec import SpecKind, setting, spec_title

VERDICT_KINDS = ("findings", "observations")


@dataclass(frozen=True)
class VerdictChangesSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`verdict_changes`")
    table: Any = setting("object", "the inner findings table (kind `findings` or `observations`)")
    label_version: str = setting("text", "the repair id compared with the released labels (P0)")
    queries: str = setting("text", "query scope: " + ", ".join(f"`{q}`" for q in QUERY_SCOPES), "all")
    title: Optional[str] = setting("text", "printed title", None)


def changed(base: Mapping[str, Optional[float]], variant: Mapping[str, Optional[float]]) -> bool:
    """True when a findings row's verdict differs between two label versions."""
    if base.get("verdict") is None or variant.get("verdict") is None:
        return base.get("verdict") != variant.get("verdict")
    return (int(base["verdict"]) != int(variant["verdict"])
            or is_equivalence_row(base) != is_equivalence_row(variant))


def build(spec: VerdictChangesSpec, ctx: ReleaseContext) -> Table:
    from .kinds import table_from_dict
    inner: Dict[str, Any] = dict(spec.table)
    if inner.get("kind") not in VERDICT_KINDS:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: the inner table must be of kind "
                                                 f"{' or '.join(VERDICT_KINDS)}")
    inner["id"] = spec.id
    base_view, _ = scoped_context(ctx, spec.queries, None)
    variant_view, sentence = scoped_context(ctx, spec.queries, spec.label_version)
    base = {row: (label, cells) for row, label, cells in table_from_dict(inner, base_view).rows}
    variant = {row: cells for row, _, cells in table_from_dict(inner, variant_view).rows}
    rows, names = [], []
    for row, (label, cells) in base.items():
        other = variant.get(row, {})
        flag = changed(cells, other)
        rows.append((row, label, {"verdict_p0": cells.get("verdict"), "verdict_variant": other.get("verdict"),
                                  "changed": 1.0 if flag else 0.0}))
        if flag:
            names.append(f"{row} ({verdict_text(cells) if cells.get('verdict') is not None else 'absent'} -> "
                         f"{verdict_text(other) if other.get('verdict') is not None else 'absent'})")
    rows.append(("total", "Findings whose verdict changed", {"changed": float(len(names))}))
    columns = (Column("verdict_p0", "Verdict on P0 (released labels)", 0),
               Column("verdict_variant", f"Verdict on {spec.label_version}", 0),
               Column("changed", "Changed", 0))
    note = (f"{sentence} Verdict codes as in the findings table. "
            + (f"{len(names)} of {len(base)} findings change verdict: " + "; ".join(names) + "."
               if names else f"No finding of {len(base)} changes verdict."))
    return Table(spec.id, spec_title(spec, f"Findings whose verdict changes under label version {spec.label_version}"),
                 columns, tuple(rows), note)


KIND = SpecKind("verdict_changes", VerdictChangesSpec, build,
                "A findings table built on the released labels and on another label version, "
                "and which rows change verdict (Table S14's 'findings that change').")
