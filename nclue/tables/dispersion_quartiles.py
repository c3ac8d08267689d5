"""Kind ``dispersion_quartiles``: the Multi³IR Table 7 analogue, HC@k by dispersion quartile.

Queries are grouped into four quartiles of how dispersed their positive documents are (the mean
pairwise cosine distance between a query's positive documents, read from a committed facts
file: :func:`nclue.coverage.load_dispersions`; quartile rule :func:`nclue.coverage.quartiles`).
Per method and quartile: HC@k, and the gain over the naive row in the same quartile; two extra
rows give each quartile's query count and its largest dispersion.
"""

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

from .. import coverage
from ..context import ReleaseContext
from ..measures import Measure, MeasureRegistry
from ..table import Column, Table, with_row_decimals
from .label_audit import repository_file
from .multi3ir import MethodRow, PerQuery, check_row_keys, context_vectors, table_failure, vector_of
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class DispersionQuartilesSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`dispersion_quartiles`")
    title: Optional[str] = setting("text", "printed title", None)
    k: int = setting("count", "cutoff of HC@k")
    rows: Tuple[MethodRow, ...] = setting(MethodRow, "the methods, one row each")
    naive: str = setting("text", "key of the row the gains are over")
    dispersions: str = setting("text", "the per-query dispersion facts file (JSONL, relative to "
                                       "the repository)")


def dispersion_quartile_table(table_id: str, title: str, rows: Sequence[MethodRow],
                              naive_key: str, per_query: PerQuery,
                              dispersions: Mapping[str, float], measure: Measure,
                              registry: MeasureRegistry) -> Table:
    """Table 7 analogue: ``measure`` (HC@k) in the four dispersion quartiles (columns ``q1`` ..
    ``q4``) and each row's gain over the row ``naive_key`` in the same quartile (``gain_q1`` ..
    ``gain_q4``; empty on the naive row). Queries without a dispersion are left out. Rows
    ``queries`` (0 decimals) and ``max_dispersion`` (3 decimals) describe the quartiles."""
    check_row_keys(rows)
    by_key = {r.key: r for r in rows}
    if naive_key not in by_key:
        raise ValueError(f"naive row {naive_key!r} is not one of the rows")
    labels = coverage.QUARTILE_LABELS
    columns = tuple([Column(f"q{i + 1}", labels[i], 1) for i in range(4)]
                    + [Column(f"gain_q{i + 1}", f"gain {labels[i]}", 1) for i in range(4)])
    breakdown = {row.key: coverage.quartile_breakdown(vector_of(per_query, row.run, measure),
                                                      dispersions) for row in rows}
    out = []
    naive = breakdown[naive_key]
    for row in rows:
        cells: Dict[str, Optional[float]] = {}
        for i in range(4):
            value = breakdown[row.key][i]["value"]
            cells[f"q{i + 1}"] = value
            base = naive[i]["value"]
            cells[f"gain_q{i + 1}"] = (None if row.key == naive_key or value is None or base is None
                                       else value - base)
        out.append((row.key, row.label, cells))
    out.append(("queries", "queries per quartile",
                {f"q{i + 1}": float(naive[i]["queries"]) for i in range(4)}))
    out.append(("max_dispersion", "largest mean pairwise cosine distance in the quartile",
                {f"q{i + 1}": naive[i]["max_dispersion"] for i in range(4)}))
    note = (f"{registry.header(measure)} (percentage points) by quartile of the mean pairwise "
            "cosine distance between a query's positive documents (<25% = the most clustered); "
            f"gains are over the {by_key[naive_key].label} row in the same quartile.")
    table = Table(table_id, title, columns, tuple(out), note)
    return with_row_decimals(table, {"queries": 0, "max_dispersion": 3})


def build(spec: DispersionQuartilesSpec, ctx: ReleaseContext) -> Table:
    measure = ctx.registry.measure("hc", spec.k)
    dispersions = coverage.load_dispersions(repository_file(ctx, spec.dispersions))
    runs = sorted({row.run for row in spec.rows})
    title = spec_title(spec, f"Multi3IR Table 7 analogue: {ctx.registry.header(measure)} by "
                             "positive-document dispersion quartile")
    try:
        return dispersion_quartile_table(spec.id, title, spec.rows, spec.naive,
                                         context_vectors(ctx, spec.id, runs, [measure]),
                                         dispersions, measure, ctx.registry)
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("dispersion_quartiles", DispersionQuartilesSpec, build,
                "Multi³IR Table 7 analogue: HC@k by positive-document dispersion quartile, gains "
                "over naive.")
