"""Kind ``validation_selection``: the SPIN cell the held-out report calls "SPIN", chosen on
validation, never on test (Multi³IR app. C: settings chosen on the validation split).

``producers/spin/infer_heldout.py`` stores, for every trained cell, the top 10 of each held-out
validation query and the queries' per-condition supporting documents
(``provenance/spin/heldout/validation_top10.json``). This kind recomputes validation HC@10 of
every cell from those rankings (Multi³IR eq. 5, :func:`nclue.coverage.hard_coverage`), checks
each cell's recorded vector sha256 against the committed vector file, picks the cell with the
highest validation HC@10 (ties: fewer vectors m, then the lower layer) and refuses the release
when the spec's ``reported`` cell is another one.
"""

import math
from dataclasses import dataclass
from typing import Optional

from ..context import ReleaseContext
from ..coverage import hard_coverage
from ..errors import InputError
from ..formats import read_json, sha256_file
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class ValidationSelectionSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`validation_selection`")
    title: Optional[str] = setting("text", "printed title", None)
    rankings: str = setting("text", "the validation rankings file, relative to the repository")
    vectors: str = setting("text", "the folder of the cells' vector files, relative to the repository")
    reported: str = setting("text", "the cell the report calls SPIN (e.g. spin_m5_l3)")


def build(spec: ValidationSelectionSpec, ctx: ReleaseContext) -> Table:
    root = ctx.layout.folder.parent.parent
    path = root / spec.rankings
    if not path.is_file():
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {spec.rankings} not found")
    data = read_json(path)
    k, queries, supports, cells = data.get("k"), data.get("queries"), data.get("supports"), data.get("cells")
    if not (isinstance(k, int) and isinstance(queries, list) and queries and isinstance(supports, dict)
            and isinstance(cells, dict) and cells):
        raise InputError(path, "needs 'k', 'queries', 'supports' and 'cells'")
    scored = []
    for name in sorted(cells):
        cell = cells[name]
        vector_file = root / spec.vectors / f"{name}.npy"
        if not vector_file.is_file() or sha256_file(vector_file) != cell.get("vectors_sha256"):
            raise InputError(path, f"cell {name!r}: its vector file {vector_file.name} is absent or "
                                   "differs from the recorded sha256")
        top = cell.get("top10") or {}
        if sorted(top) != sorted(queries):
            raise InputError(path, f"cell {name!r}: rankings do not cover the validation queries")
        hc = math.fsum(hard_coverage(supports[q], top[q], k) for q in queries) / len(queries)
        scored.append((name, int(cell["m"]), int(cell["layer"]), hc))
    best = sorted(scored, key=lambda s: (-s[3], s[1], s[2]))[0][0]
    if spec.reported != best:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: the report calls {spec.reported!r} "
                                                 f"SPIN, but validation HC@{k} selects {best!r}")
    rows = tuple((name, f"m={m}, layer {layer}", {"val_hc": 100.0 * hc, "selected": float(name == best)})
                 for name, m, layer, hc in sorted(scored, key=lambda s: (s[2], s[1])))
    note = (f"Validation HC@{k} (percentage points) of every held-out SPIN cell over the {len(queries)} "
            "held-out validation queries, recomputed from the stored top-10 rankings; 'selected' = 1 "
            "for the cell with the highest value (ties: fewer vectors, then the lower layer), which the "
            "held-out tables report as SPIN. Test queries play no part in the choice.")
    return Table(spec.id, spec_title(spec, "SPIN cell chosen on validation (held-out perspectives)"),
                 (Column("val_hc", f"val HC@{k}", 1), Column("selected", "selected", 0)), rows, note)


KIND = SpecKind("validation_selection", ValidationSelectionSpec, build,
                "The held-out SPIN cell chosen on validation HC@10, recomputed from stored rankings.")
