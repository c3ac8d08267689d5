"""Kind ``paired_tests``: the Table S4 analogue, query-paired permutation tests per query form.

Per contrast and form: the paired difference (variant - base, points) and the two-sided
query-paired permutation p (every query its own unit, +1 correction), as the n-Clue paper's
SourceShift stress analysis (supplement, Table S4).
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..inference.montecarlo import p_value_se
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class FormContrast:
    id: str = setting("text", "row id")
    label: Optional[str] = setting("text", "printed label (default: the id)", None)
    runs: Tuple[Tuple[str, str, str], ...] = setting("form_pairs", "base and variant run per form")


@dataclass(frozen=True)
class PairedTestsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`paired_tests`")
    title: Optional[str] = setting("text", "printed title", None)
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    seed: int = setting("seed", "permutation seed", inference.DEFAULT_SEED)
    draws: int = setting("count", "permutation draws", inference.DEFAULT_DRAWS)
    forms: Tuple[str, ...] = setting("forms", "column groups, in this order", ["raw", "clean", "natural"])
    contrasts: Tuple[FormContrast, ...] = setting(FormContrast, "the contrasts, one row each")


def build(spec: PairedTestsSpec, ctx: ReleaseContext) -> Table:
    measure = spec.measure
    columns: List[Column] = []
    for form in spec.forms:
        columns += [Column(f"{form}:delta", f"{form} Delta", 1), Column(f"{form}:p", f"{form} p", 4),
                    Column(f"{form}:se", f"{form} MC SE of p", 4)]
    rows = []
    for item in spec.contrasts:
        cells: Dict[str, Optional[float]] = {}
        pairs = {form: (base, variant) for form, base, variant in item.runs}
        for form in spec.forms:
            if form not in pairs:
                continue
            base = _vector(ctx, spec.id, pairs[form][0], measure)
            variant = _vector(ctx, spec.id, pairs[form][1], measure)
            try:
                test = inference.query_permutation_test(base, variant, draws=spec.draws, seed=spec.seed)
            except NclueError as exc:
                raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {exc}") from None
            cells[f"{form}:delta"] = 100 * test.delta
            cells[f"{form}:p"] = test.p
            cells[f"{form}:se"] = p_value_se(test.p, test.draws)
        rows.append((item.id, item.label or item.id, cells))
    note = (f"Percentage points, variant minus base ({measure}). p: two-sided query-paired "
            f"permutation test ({spec.draws} draws, seed {spec.seed}, p = (1 + #{{|T*| >= |T|}})/(1 + draws)); "
            "MC SE of p = sqrt(p (1 - p) / draws).")
    return Table(spec.id, spec_title(spec, "Query-paired differences (Table S4 analogue)"),
                 tuple(columns), tuple(rows), note)


KIND = SpecKind("paired_tests", PairedTestsSpec, build,
                 "Table S4 analogue: query-paired differences and permutation p per query form.")
