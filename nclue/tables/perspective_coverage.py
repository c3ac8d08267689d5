"""Kind ``perspective_coverage``: the Multi³IR Table 2 analogue, perspective coverage by method.

HC@k (Multi³IR eq. 5) of each method with its 95% family-clustered percentile bootstrap
interval (n-Clue paper, sec. 3.4: exact-gold-set families), the number of query embeddings m
(the oracle's is the mean number of a query's perspectives, computed from the release), and
the soft-coverage columns SC@k (eq. 6), always empty: SC@k needs the paper's LLM judge, which
cannot run here. Rows without a run are systems that cannot run on this instrument.
"""

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference import Resampler
from ..inference.montecarlo import bootstrap_distribution, bounds_error
from ..measures import Measure, MeasureRegistry, interval_keys, se_key
from ..table import Column, Table
from .multi3ir import (CoverageRow, PerQuery, blocked_note, context_vectors, points,
                       same_queries, table_failure, vector_of)
from .spec import SpecKind, setting, spec_title

PERSPECTIVES = "perspectives"   # the m of a row that queries with every perspective (the oracle)


@dataclass(frozen=True)
class PerspectiveCoverageSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`perspective_coverage`")
    title: Optional[str] = setting("text", "printed title", None)
    rows: Tuple[CoverageRow, ...] = setting(CoverageRow, "the methods, one row each")
    ks: Tuple[int, ...] = setting("ks", "cutoffs of HC@k", [5, 10, 20, 100])
    soft_ks: Tuple[int, ...] = setting("ks", "cutoffs of the (empty) SC@k columns", [5, 10, 15, 20])
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)
    sc_reason: Optional[str] = setting("text", "appended to the note's SC@k sentence", None)


def mean_perspectives(perspective_counts: Mapping[str, int]) -> float:
    """The mean number of perspectives per query (the oracle's m: one query per perspective)."""
    return math.fsum(perspective_counts.values()) / len(perspective_counts)


def coverage_table(table_id: str, title: str, rows: Sequence[CoverageRow], per_query: PerQuery,
                   families: Mapping[str, str], hc: Sequence[Measure], sc: Sequence[Measure],
                   registry: MeasureRegistry, seed: int, replicates: int,
                   oracle_m: Optional[float] = None, sc_reason: str = "") -> Table:
    """Table 2 analogue: HC@k (Multi³IR eq. 5) per method, with 95% family-bootstrap intervals.

    Columns: ``m`` (1 decimal; a row's ``m`` of "perspectives" prints ``oracle_m``), then for
    each HC measure its value, interval bounds and the larger Monte Carlo SE of the two bounds
    (``hc@k``, ``hc@k_lo``, ``hc@k_hi``, ``hc@k_se``), then the
    SC measures' columns, always empty (``sc_reason`` is appended to the note). One Resampler
    for the table, so every cell shares the same resampled families.
    """
    runs = [r.run for r in rows if r.run is not None]
    if not runs:
        raise ValueError("Table 2 needs at least one run")
    resampler = Resampler(same_queries(per_query, runs, hc[0]), families, seed=seed)
    columns = [Column("m", "m", 1)]
    for measure in hc:
        lo, hi = interval_keys(measure)
        header = registry.header(measure)
        columns += [Column(measure.name, header, 1), Column(lo, f"{header} lo", 1),
                    Column(hi, f"{header} hi", 1),
                    Column(se_key(measure), f"{header} MC SE", 2)]
    columns += [Column(measure.name, registry.header(measure), 1) for measure in sc]
    out = []
    for row in rows:
        m = oracle_m if row.m == PERSPECTIVES else row.m
        cells: Dict[str, Optional[float]] = {"m": None if m is None else float(m)}
        for measure in hc:
            lo, hi = interval_keys(measure)
            cells[measure.name] = cells[lo] = cells[hi] = cells[se_key(measure)] = None
            if row.run is not None:
                vector = vector_of(per_query, row.run, measure)
                iv = resampler.bootstrap(vector, replicates=replicates)
                error = bounds_error(bootstrap_distribution(resampler, vector, replicates),
                                     inference.DEFAULT_LEVEL)
                cells[measure.name], cells[lo], cells[hi] = (points(iv.estimate), points(iv.lo),
                                                             points(iv.hi))
                cells[se_key(measure)] = points(max(error.se_lo, error.se_hi))
        for measure in sc:
            cells[measure.name] = None
        out.append((row.key, row.label, cells))
    note = ("Percentage points. HC@k (Multi3IR eq. 5): the share of a query's conditions with a "
            "supporting judged document in the top k; lo/hi: 95% family-clustered percentile "
            f"bootstrap ({replicates} replicates, seed {seed}); MC SE: the larger Monte Carlo SE of the "
            "two bounds. Multi-vector rows merge their m "
            "lists by round robin (eq. 4). SC@k columns are empty: soft coverage needs an LLM "
            "judge (GPT-5-mini in the paper), which cannot run here"
            + (f" ({sc_reason})" if sc_reason else "") + "." + blocked_note(rows))
    return Table(table_id, title, tuple(columns), tuple(out), note)


def build(spec: PerspectiveCoverageSpec, ctx: ReleaseContext) -> Table:
    for row in spec.rows:
        if row.run is None and row.blocked is None:
            raise table_failure(ctx, spec.id, ValueError(
                f"row {row.key!r} has no run, so it needs 'blocked' (the reason)"))
    hc = [ctx.registry.measure("hc", k) for k in spec.ks]
    sc = [ctx.registry.measure("sc", k) for k in spec.soft_ks]
    runs = sorted({r.run for r in spec.rows if r.run is not None})
    oracle_m = mean_perspectives({q: len(p.perspectives) for q, p in ctx.perspectives.items()})
    try:
        return coverage_table(
            spec.id, spec_title(spec, "Multi3IR Table 2 analogue: perspective coverage by method "
                                      "(HC@k, each condition a perspective)"),
            spec.rows, context_vectors(ctx, spec.id, runs, hc), ctx.families, hc, sc,
            ctx.registry, spec.seed, spec.replicates, oracle_m, spec.sc_reason or "")
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("perspective_coverage", PerspectiveCoverageSpec, build,
                "Multi³IR Table 2 analogue: HC@k per method with family-bootstrap intervals.")
