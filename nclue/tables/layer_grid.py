"""Kind ``layer_grid``: the Multi³IR Table 4 analogue, HC@k across m and the injection layer.

SPIN (Multi³IR sec. 4.2) on the frozen backbone with m steering vectors injected after a layer;
at every cell the random-vector control (untrained Gaussian directions scaled to the learned
vectors' norms: the control for "multiple query vectors alone") and the difference. Three rows
per layer (learned, random, learned minus random), one column per m; a cell the spec does not
give is empty. A cell may name several random-vector runs (one per random draw): the random row
then shows the mean of their HC@k.
"""

import math
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

from ..context import ReleaseContext
from ..measures import Measure, MeasureRegistry
from ..table import Column, Table
from .multi3ir import PerQuery, context_vectors, mean_points, table_failure, vector_of
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class GridLayer:
    key: str = setting("text", "layer key (row keys: key, key_random, key_learned_minus_random)")
    label: str = setting("text", "printed layer label")


@dataclass(frozen=True)
class GridCell:
    layer: str = setting("text", "the cell's layer key")
    m: int = setting("count", "the cell's number of steering vectors")
    learned: str = setting("run", "the trained SPIN run of the cell")
    random: Optional[Tuple[str, ...]] = setting("run_list", "its random-vector control runs (one "
                                                            "per draw; the row shows their mean)",
                                                None)


@dataclass(frozen=True)
class LayerGridSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`layer_grid`")
    title: Optional[str] = setting("text", "printed title", None)
    k: int = setting("count", "cutoff of HC@k")
    layers: Tuple[GridLayer, ...] = setting(GridLayer, "the injection layers, one row group each")
    ms: Tuple[int, ...] = setting("counts", "the columns: numbers of steering vectors m")
    cells: Tuple[GridCell, ...] = setting(GridCell, "the trained cells and their controls")


def _cell_points(per_query: PerQuery, runs: Sequence[str], measure: Measure) -> float:
    """HC@k of one run, or the mean over several random draws (percentage points)."""
    values = [mean_points(vector_of(per_query, run, measure)) for run in runs]
    return values[0] if len(values) == 1 else math.fsum(values) / len(values)


def layer_grid_table(table_id: str, title: str, layers: Sequence[GridLayer], ms: Sequence[int],
                     cells: Sequence[GridCell], per_query: PerQuery, measure: Measure,
                     registry: MeasureRegistry) -> Table:
    """Table 4 analogue: ``measure`` (HC@k) across m (columns ``m{m}``) and the injection layers
    (three rows per layer: learned, random vectors, learned minus random)."""
    by_cell: Dict[Tuple[str, int], GridCell] = {}
    layer_keys = {layer.key for layer in layers}
    for cell in cells:
        if cell.layer not in layer_keys or cell.m not in ms:
            raise ValueError(f"cell (layer {cell.layer!r}, m={cell.m}) is not in the grid's "
                             "layers and ms")
        if (cell.layer, cell.m) in by_cell:
            raise ValueError(f"cell (layer {cell.layer!r}, m={cell.m}) is given twice")
        by_cell[(cell.layer, cell.m)] = cell
    columns = tuple(Column(f"m{m}", f"m={m}", 1) for m in ms)
    out = []
    for layer in layers:
        learned: Dict[str, Optional[float]] = {}
        random: Dict[str, Optional[float]] = {}
        diff: Dict[str, Optional[float]] = {}
        for m in ms:
            cell = by_cell.get((layer.key, m))
            a = None if cell is None else _cell_points(per_query, [cell.learned], measure)
            b = (None if cell is None or not cell.random
                 else _cell_points(per_query, cell.random, measure))
            learned[f"m{m}"], random[f"m{m}"] = a, b
            diff[f"m{m}"] = a - b if a is not None and b is not None else None
        out.append((layer.key, layer.label, learned))
        out.append((f"{layer.key}_random", f"{layer.label}, random vectors", random))
        out.append((f"{layer.key}_learned_minus_random", f"{layer.label}, learned - random", diff))
    note = (f"{registry.header(measure)} (percentage points) of SPIN on the frozen backbone with "
            "m steering vectors injected after the given layer; 'random vectors' uses untrained "
            "Gaussian directions scaled to the learned vectors' norms at the same cell (the "
            "control for 'multiple query vectors alone'); the third row is their difference.")
    return Table(table_id, title, columns, tuple(out), note)


def build(spec: LayerGridSpec, ctx: ReleaseContext) -> Table:
    measure = ctx.registry.measure("hc", spec.k)
    runs = sorted({c.learned for c in spec.cells} | {r for c in spec.cells for r in c.random or ()})
    title = spec_title(spec, f"Multi3IR Table 4 analogue: {ctx.registry.header(measure)} across "
                             "m and the injection layer, with the random-vector control at every "
                             "cell")
    try:
        return layer_grid_table(spec.id, title, spec.layers, spec.ms, spec.cells,
                                context_vectors(ctx, spec.id, runs, [measure]), measure,
                                ctx.registry)
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("layer_grid", LayerGridSpec, build,
                "Multi³IR Table 4 analogue: HC@k over m x injection layer, learned vs random vectors.")
