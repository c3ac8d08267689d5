"""Kind ``tie_sensitivity``: every contrast under each tie rule, and the queries a tie decides.

RRF and other rank-based fusions hold many exact score ties; the n-Clue paper breaks them by
stable input order (supplement 2), trec_eval by docid descending. Per contrast (variant -
base, ``measure``, points): its value under every rule listed in ``ties`` (``input``,
``trec_eval`` and ``expected``, the exact expectation over uniformly random orders within tie
groups, :mod:`nclue.ties`), the largest difference between rules, and the number of queries
whose n-Clue success or Gold Hit at k a tie decides (its probability over tie orders is
strictly between 0 and 1, :func:`nclue.ties.tie_decides`) in the base run, the variant run,
and either.
"""

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..measures import Measure
from ..tie_rules import TieView
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class TieContrast:
    id: str = setting("text", "row id")
    label: Optional[str] = setting("text", "printed label (default: base -> variant)", None)
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")


@dataclass(frozen=True)
class TieSensitivitySpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`tie_sensitivity`")
    title: Optional[str] = setting("text", "printed title", None)
    ties: Tuple[str, ...] = setting("tie_rules", "tie rules, one column each",
                                    ["input", "trec_eval", "expected"])
    contrasts: Tuple[TieContrast, ...] = setting(TieContrast, "rows")


def build(spec: TieSensitivitySpec, ctx: ReleaseContext) -> Table:
    view = TieView(ctx)
    rows = []
    for item in spec.contrasts:
        cells: Dict[str, Optional[float]] = {}
        values = []
        for rule in spec.ties:
            base = view.vector(item.base, item.measure, rule)
            variant = view.vector(item.variant, item.measure, rule)
            if base is None or variant is None:
                raise InputError(ctx.layout.report_spec, f"table {spec.id!r}, contrast "
                                 f"{item.id!r}: no per-query {item.measure.name!r} for both runs")
            delta = 100 * math.fsum(variant[q] - base[q] for q in base) / len(base)
            cells[f"delta:{rule}"] = delta
            values.append(delta)
        cells["spread"] = max(values) - min(values)
        b, v = view.decided(item.base, ctx.k), view.decided(item.variant, ctx.k)
        cells.update({"tied_base": float(len(b)), "tied_variant": float(len(v)),
                      "tied_either": float(len(b | v))})
        label = item.label or f"{item.base} -> {item.variant}"
        rows.append((item.id, f"{label} [{item.measure}]", cells))
    columns = tuple(Column(f"delta:{rule}", f"Delta ({rule} ties)", 1) for rule in spec.ties) + (
        Column("spread", "largest difference between rules", 1),
        Column("tied_base", "tie-decided queries, base", 0),
        Column("tied_variant", "tie-decided queries, variant", 0),
        Column("tied_either", "tie-decided queries, either", 0))
    note = ("Variant minus base, percentage points, under each tie rule (input: stable file "
            "order, the paper's; trec_eval: docid descending; expected: the exact expectation "
            "over uniformly random orders within tied scores). A query is tie-decided when its "
            "n-Clue success or Gold Hit at k has a probability strictly between 0 and 1 over the "
            "tie orders.")
    return Table(spec.id, spec_title(spec, "Tie-rule sensitivity of the contrasts"), columns,
                 tuple(rows), note, ",".join(spec.ties))


KIND = SpecKind("tie_sensitivity", TieSensitivitySpec, build,
                 "Every listed contrast under each tie rule, with the number of queries whose "
                 "n-Clue outcome a score tie decides.")
