"""The Multi³IR section on an n-Clue release: the rows its table kinds declare and what they share.

The Multi³IR paper (``/work/shared/seeds/002_1e1dc913949f1555.txt``; no arXiv id is printed in
the seed text) evaluates perspective coverage; on an n-Clue release each condition of a query is
a perspective, supported by the judged documents whose evidence covers it
(:func:`nclue.coverage.perspectives_from_release`). The section is one table kind per table of
the paper, each a module of its own, declared in ``report.json`` like every other kind:

* ``perspective_coverage`` (Table 2, :mod:`.perspective_coverage`): HC@k per method with
  intervals; the soft-coverage columns SC@k are present and empty (no LLM judge runs here);
* ``perspective_contrasts`` (Table 2's paired contrasts, :mod:`.perspective_contrasts`);
* ``layer_grid`` (Table 4, :mod:`.layer_grid`): HC@k over m x injection layer, learned and
  random-vector rows and their difference;
* ``adaptation`` (Table 5, :mod:`.adaptation`): steering methods with their trainable
  parameters, counted from the committed weight files (:mod:`nclue.weights`);
* ``knowledge_sources`` (Table 6, :mod:`.knowledge_sources`);
* ``dispersion_quartiles`` (Table 7, :mod:`.dispersion_quartiles`);
* ``perspective_hits`` (Figure 4's numbers, :mod:`.perspective_hits`; the figure itself is the
  figure kind of :mod:`nclue.report.perspective_hits`).

Each kind's ``build(spec, ctx)`` reads the per-query vectors of its runs from the context and
calls the kind's pure table function (explicit inputs, one :class:`nclue.table.Table` out,
unrounded cells in percentage points, columns stating their printed decimals), which the tests
feed hand-made vectors. A row whose run is none is a system that does not run on this
instrument: its cells are empty (never claims) and the note names it with the reason. Measure
names and headers come from the measure registry; the resampling settings (``seed``,
``replicates``, ``draws``) are each table's own ``report.json`` settings, whose defaults are
the paper's frozen ones (:data:`nclue.inference.DEFAULT_SEED` and the others).
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence

from ..context import ReleaseContext
from ..errors import InputError
from ..measures import Measure
from .spec import setting

PerQuery = Mapping[str, Mapping[str, Mapping[str, float]]]   # run -> measure name -> qid -> value


@dataclass(frozen=True)
class MethodRow:
    """One row of Tables 6 and 7 and of Figure 4: a method and its run."""

    key: str = setting("text", "row key (its claims are keyed by it)")
    label: str = setting("text", "printed row label")
    run: str = setting("run", "the method's run")


@dataclass(frozen=True)
class CoverageRow:
    """One row of Table 2: a method, its run (none for a system that cannot run here, with the
    reason) and its number of query embeddings m."""

    key: str = setting("text", "row key (its claims are keyed by it)")
    label: str = setting("text", "printed row label")
    run: Optional[str] = setting("run", "the method's run; none for a system that cannot run "
                                        "here", None)
    blocked: Optional[str] = setting("text", "why the system does not run (required without a "
                                             "run; provenance/BLOCKED_SYSTEMS.md)", None)
    m: Any = setting("embeddings", "query embeddings m (Table 2's m column)", None)


def points(x: float) -> float:
    """A share in [0, 1] as percentage points."""
    return 100.0 * x


def mean_points(values: Mapping[str, float]) -> float:
    """The mean of a per-query vector, in percentage points (an exact sum, then the mean)."""
    return points(math.fsum(values.values()) / len(values))


def vector_of(per_query: PerQuery, run: str, measure: Measure) -> Mapping[str, float]:
    """``per_query[run][measure.name]``; ValueError naming both when it is absent."""
    try:
        return per_query[run][measure.name]
    except KeyError:
        raise ValueError(f"no per-query {measure.name} for run {run!r}") from None


def same_queries(per_query: PerQuery, runs: Sequence[str], measure: Measure) -> Sequence[str]:
    """The query ids every run's vector covers (ValueError when two runs differ)."""
    if not runs:
        raise ValueError("no run to compare")
    qids = set(vector_of(per_query, runs[0], measure))
    for run in runs[1:]:
        if set(vector_of(per_query, run, measure)) != qids:
            raise ValueError(f"run {run!r} does not cover the same queries as {runs[0]!r}")
    return sorted(qids)


def check_row_keys(rows: Sequence[Any]) -> None:
    """ValueError when two rows share a key (their claims would collide)."""
    seen = set()
    for row in rows:
        if row.key in seen:
            raise ValueError(f"row key {row.key!r} is used twice")
        seen.add(row.key)


def blocked_note(rows: Sequence[Any]) -> str:
    """The note's sentence naming the rows without a run and why (empty when every row runs)."""
    blocked = [f"{r.label}: {r.blocked}" for r in rows if r.run is None]
    return (" Not run here (empty cells; provenance/BLOCKED_SYSTEMS.md): " + "; ".join(blocked)
            + ".") if blocked else ""


def context_vectors(ctx: ReleaseContext, table_id: str, runs: Sequence[str],
                    measures: Sequence[Measure]) -> Dict[str, Dict[str, Mapping[str, float]]]:
    """``{run: {measure name: {qid: value}}}`` from the context's cached per-query vectors."""
    out: Dict[str, Dict[str, Mapping[str, float]]] = {}
    for run in runs:
        for measure in measures:
            vector = ctx.vector(run, measure)
            if vector is None:
                raise InputError(ctx.layout.report_spec, f"table {table_id!r}: run {run!r} has "
                                                         f"no per-query {measure.name!r}")
            out.setdefault(run, {})[measure.name] = vector
    return out


def table_failure(ctx: ReleaseContext, table_id: str, exc: Exception) -> InputError:
    """A table function's refusal (ValueError) as one line naming ``report.json`` and the table."""
    return InputError(ctx.layout.report_spec, f"table {table_id!r}: {exc}")

