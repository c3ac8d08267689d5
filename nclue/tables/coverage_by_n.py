"""Kind ``page_coverage_by_n``: stored-page evidence coverage split by condition count (n-Clue
paper, sec. 4.4, Table 8 prose: "for 2B, full coverage falls from 21.2% on two-condition hits
to 5.1% on three-condition hits").

Per page-scored run and condition count n: the queries with a top-k gold (the denominator of
the conditional measures), condition coverage and full coverage over them.
"""

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class CoverageByNSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`page_coverage_by_n`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("run_list", "page-scored runs, one row each")


def build(spec: CoverageByNSpec, ctx: ReleaseContext) -> Table:
    full = ctx.registry.measure("full_coverage", ctx.k)
    cond = ctx.registry.measure("condition_coverage", ctx.k)
    counts = sorted({len(q.conditions) for q in ctx.release.queries.values()})
    by_n = {n: {q for q, query in ctx.release.queries.items() if len(query.conditions) == n}
            for n in counts}
    rows = []
    for run_id in spec.runs:
        f = ctx.vector(run_id, full)
        c = ctx.vector(run_id, cond)
        if f is None or c is None:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: run {run_id!r} has no "
                                                     "page scores")
        cells: Dict[str, Optional[float]] = {}
        for n in counts:
            hits = sorted(q for q in f if q in by_n[n])
            cells[f"n{n}:queries"] = float(len(hits))
            if hits:
                cells[f"n{n}:cond"] = 100 * math.fsum(c[q] for q in hits) / len(hits)
                cells[f"n{n}:full"] = 100 * math.fsum(f[q] for q in hits) / len(hits)
        rows.append((run_id, ctx.label(run_id), cells))
    columns = []
    for n in counts:
        columns += [Column(f"n{n}:queries", f"n={n} queries with a gold", 0),
                    Column(f"n{n}:cond", f"n={n} Cond. coverage", 1),
                    Column(f"n{n}:full", f"n={n} Full coverage", 1)]
    note = ("Percent of the queries of each condition count that have a top-k gold (the "
            "conditional denominator of Table 8).")
    return Table(spec.id, spec_title(spec, "Page coverage by condition count"), tuple(columns),
                 tuple(rows), note)


KIND = SpecKind("page_coverage_by_n", CoverageByNSpec, build,
                 "Table 8 prose analogue: condition and full page coverage conditional on a top-k "
                 "gold, split by condition count.")
