"""Multi3IR report tables on an n-Clue release (Multi3IR paper, sec. 4-6: Tables 2, 4-7, Figure 4).

The Multi3IR paper (``/work/shared/seeds/002_1e1dc913949f1555.txt``; no arXiv id is printed in
the seed text) evaluates perspective coverage; here each condition of a query is a perspective,
supported by the judged documents whose evidence covers it (:func:`nclue.coverage.
perspectives_from_release`). Every function is pure: explicit inputs (per-query vectors, rankings,
families, groupings, row specifications) in, one :class:`nclue.tables.Table` out, unrounded
cells in percentage points; columns state their printed decimals, so every printed cell can be
a claim. Nothing here reads files or a report context.

Per-query inputs use the measure names of :func:`nclue.coverage.per_query_coverage`:
``per_query[run_id]["hc@k"][qid]`` in [0, 1]. A row whose run is ``None`` is a system that does
not run on this instrument (its cells are empty and the note names it); empty cells are never
claims.

Intervals and tests (n-Clue paper sec. 3.4, used by this package for every contrast):
family-clustered percentile bootstrap (:class:`nclue.inference.Resampler`, 95%, ``replicates``
draws, ``seed``) and the two-sided family sign-flip randomization test (``draws``, +1
correction). One Resampler per table, so all cells of a table share the same resampled families.

Tables:

* :func:`perspective_coverage_table` -- Table 2: HC@5/10/20/100 per method with intervals; the
  soft-coverage columns SC@k are present and empty (an LLM judge cannot run here).
* :func:`coverage_contrast_table` -- the paired contrasts Table 2's prose draws (SPIN vs ARE,
  SPIN vs naive, multi-vector vs naive, fine-tuned vs zero-shot): delta HC@k, interval, p.
* :func:`layer_grid_table` -- Table 4: HC@k over m x injection layer, learned and random-vector
  rows and their difference at every cell.
* :func:`adaptation_table` -- Table 5: method, injection layer, trainable parameters, HC@k.
* :func:`source_coverage_table` -- Table 6: knowledge-source coverage @k per grouping and method.
* :func:`dispersion_quartile_table` -- Table 7: HC@k by dispersion quartile, gains over naive.
* :func:`hit_rank_table` -- Figure 4's numbers: mean Hit@k by within-query perspective rank.
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import coverage
from .inference import Resampler
from .tables import Column, Table, with_row_decimals

DEFAULT_KS = (5, 10, 20, 100)
SC_KS = (5, 10, 15, 20)

PerQuery = Mapping[str, Mapping[str, Mapping[str, float]]]   # run -> measure -> qid -> value


@dataclass(frozen=True)
class MethodRow:
    """One row of Table 2 / 5 / 6 / 7: ``run`` is None for a system that cannot run here."""

    key: str
    label: str
    run: Optional[str]
    m: Optional[float] = None          # number of query embeddings (Table 2's m column)
    parameters: Optional[int] = None   # trainable parameters (Table 5)
    layer: str = ""                    # injection point label (Table 5)
    blocked: str = ""                  # why the system does not run (rows with run None)


@dataclass(frozen=True)
class Contrast:
    """A paired contrast ``variant - base`` (both run ids)."""

    key: str
    label: str
    base: str
    variant: str


def per_query_for_runs(queries: Mapping[str, coverage.PerspectiveQuery],
                       rankings: Mapping[str, Mapping[str, Sequence[str]]],
                       ks: Sequence[int] = DEFAULT_KS) -> Dict[str, Dict[str, Dict[str, float]]]:
    """``{run: {"hc@k": {qid: value}}}`` for every run of ``rankings`` ({run: {qid: docs}}), the
    ``per_query`` input of the tables below (:func:`nclue.coverage.per_query_coverage`)."""
    return {run: coverage.per_query_coverage(queries, rankings[run], ks) for run in sorted(rankings)}


def _pp(x: float) -> float:
    return 100.0 * x


def _vector(per_query: PerQuery, run: str, measure: str) -> Mapping[str, float]:
    try:
        return per_query[run][measure]
    except KeyError:
        raise ValueError(f"no per-query {measure} for run {run!r}") from None


def _resampler(per_query: PerQuery, runs: Sequence[str], measure: str,
               families: Mapping[str, str], seed: int) -> Resampler:
    qids = set(_vector(per_query, runs[0], measure))
    for run in runs[1:]:
        if set(_vector(per_query, run, measure)) != qids:
            raise ValueError(f"run {run!r} does not cover the same queries as {runs[0]!r}")
    return Resampler(sorted(qids), families, seed=seed)


def _mean(values: Mapping[str, float]) -> float:
    return math.fsum(values.values()) / len(values)


def _blocked_note(rows: Sequence[MethodRow]) -> str:
    blocked = [f"{r.label}: {r.blocked}" for r in rows if r.run is None]
    return (" Not run here (empty cells; provenance/BLOCKED_SYSTEMS.md): " + "; ".join(blocked)
            + ".") if blocked else ""


# ---------------------------------------------------------------------------------------------
# Table 2


def perspective_coverage_table(table_id: str, title: str, rows: Sequence[MethodRow],
                               per_query: PerQuery, families: Mapping[str, str],
                               ks: Sequence[int] = DEFAULT_KS, replicates: int = 1000,
                               seed: int = 11, sc_reason: str = "") -> Table:
    """Table 2 analogue: HC@k (Multi3IR eq. 5) per method, with 95% family-bootstrap intervals.

    Columns: ``m`` (query embeddings; 1 decimal, the oracle's is the mean number of
    perspectives), then for each k ``hc@k``, ``hc@k_lo``, ``hc@k_hi``; then ``sc@k`` for
    k in (5, 10, 15, 20), always empty: soft coverage (eq. 6) needs the paper's LLM judge, which
    cannot run here (``sc_reason`` is appended to the note).
    """
    ks = coverage.check_ks(ks)
    runs = [r.run for r in rows if r.run is not None]
    if not runs:
        raise ValueError("Table 2 needs at least one run")
    resampler = _resampler(per_query, runs, f"hc@{ks[0]}", families, seed)
    columns = [Column("m", "m", 1)]
    for k in ks:
        columns += [Column(f"hc@{k}", f"HC@{k}", 1), Column(f"hc@{k}_lo", f"HC@{k} lo", 1),
                    Column(f"hc@{k}_hi", f"HC@{k} hi", 1)]
    columns += [Column(f"sc@{k}", f"SC@{k}", 1) for k in SC_KS]
    out = []
    for row in rows:
        cells: Dict[str, Optional[float]] = {"m": None if row.m is None else float(row.m)}
        for k in ks:
            cells[f"hc@{k}"] = cells[f"hc@{k}_lo"] = cells[f"hc@{k}_hi"] = None
            if row.run is not None:
                iv = resampler.bootstrap(_vector(per_query, row.run, f"hc@{k}"),
                                         replicates=replicates)
                cells[f"hc@{k}"], cells[f"hc@{k}_lo"], cells[f"hc@{k}_hi"] = (
                    _pp(iv.estimate), _pp(iv.lo), _pp(iv.hi))
        for k in SC_KS:
            cells[f"sc@{k}"] = None
        out.append((row.key, row.label, cells))
    note = ("Percentage points. HC@k (Multi3IR eq. 5): the share of a query's conditions with a "
            "supporting judged document in the top k; lo/hi: 95% family-clustered percentile "
            f"bootstrap ({replicates} replicates, seed {seed}). Multi-vector rows merge their m "
            "lists by round robin (eq. 4). SC@k columns are empty: soft coverage needs an LLM "
            "judge (GPT-5-mini in the paper), which cannot run here"
            + (f" ({sc_reason})" if sc_reason else "") + "." + _blocked_note(rows))
    return Table(table_id, title, tuple(columns), tuple(out), note)


def coverage_contrast_table(table_id: str, title: str, contrasts: Sequence[Contrast],
                            per_query: PerQuery, families: Mapping[str, str],
                            ks: Sequence[int] = (10, 100), replicates: int = 1000,
                            draws: int = 10000, seed: int = 11) -> Table:
    """Paired contrasts of HC@k: ``delta@k`` (variant minus base, points), its 95% paired family
    bootstrap interval ``lo@k``/``hi@k`` and the two-sided family sign-flip p ``p@k``."""
    ks = coverage.check_ks(ks)
    if not contrasts:
        raise ValueError("no contrasts")
    runs = sorted({c.base for c in contrasts} | {c.variant for c in contrasts})
    resampler = _resampler(per_query, runs, f"hc@{ks[0]}", families, seed)
    columns = []
    for k in ks:
        columns += [Column(f"delta@{k}", f"dHC@{k}", 1), Column(f"lo@{k}", f"dHC@{k} lo", 1),
                    Column(f"hi@{k}", f"dHC@{k} hi", 1), Column(f"p@{k}", f"p@{k}", 3)]
    out = []
    for c in contrasts:
        cells: Dict[str, Optional[float]] = {}
        for k in ks:
            base = _vector(per_query, c.base, f"hc@{k}")
            variant = _vector(per_query, c.variant, f"hc@{k}")
            iv = resampler.paired_bootstrap(base, variant, replicates=replicates)
            test = resampler.flip_test(base, variant, draws=draws)
            cells[f"delta@{k}"] = _pp(iv.estimate)
            cells[f"lo@{k}"] = _pp(iv.lo)
            cells[f"hi@{k}"] = _pp(iv.hi)
            cells[f"p@{k}"] = test.p
        out.append((c.key, c.label, cells))
    note = ("Variant minus base, percentage points of HC@k. lo/hi: 95% paired family-clustered "
            f"percentile bootstrap ({replicates} replicates); p: two-sided family sign-flip "
            f"randomization test ({draws} draws, +1 correction); seed {seed}; no multiplicity "
            "adjustment.")
    return Table(table_id, title, tuple(columns), tuple(out), note)


# ---------------------------------------------------------------------------------------------
# Table 4


def layer_grid_table(table_id: str, title: str, layers: Sequence[Tuple[str, str]],
                     ms: Sequence[int], learned: Mapping[Tuple[str, int], str],
                     random: Mapping[Tuple[str, int], str], per_query: PerQuery,
                     k: int = 100) -> Table:
    """Table 4 analogue: HC@k across m (columns) and injection layers (rows).

    ``layers`` = [(layer key, label)], e.g. [("early", "Early (l=1)"), ...]; ``learned[(layer,
    m)]`` / ``random[(layer, m)]`` = run ids of the trained SPIN cell and of its random-vector
    control (untrained vectors of the learned norms). Three rows per layer: learned, random, and
    learned minus random (a missing cell is empty).
    """
    ms = tuple(ms)
    columns = tuple(Column(f"m{m}", f"m={m}", 1) for m in ms)
    measure = f"hc@{k}"
    out = []
    for key, label in layers:
        rows = {"learned": {}, "random": {}, "diff": {}}
        for m in ms:
            a = learned.get((key, m))
            b = random.get((key, m))
            va = _pp(_mean(_vector(per_query, a, measure))) if a else None
            vb = _pp(_mean(_vector(per_query, b, measure))) if b else None
            rows["learned"][f"m{m}"] = va
            rows["random"][f"m{m}"] = vb
            rows["diff"][f"m{m}"] = va - vb if va is not None and vb is not None else None
        out.append((f"{key}", f"{label}", rows["learned"]))
        out.append((f"{key}_random", f"{label}, random vectors", rows["random"]))
        out.append((f"{key}_learned_minus_random", f"{label}, learned - random", rows["diff"]))
    note = (f"HC@{k} (percentage points) of SPIN on the frozen backbone with m steering vectors "
            "injected after the given layer; 'random vectors' uses untrained Gaussian directions "
            "scaled to the learned vectors' norms at the same cell (the control for 'multiple "
            "query vectors alone'); the third row is their difference.")
    return Table(table_id, title, columns, tuple(out), note)


# ---------------------------------------------------------------------------------------------
# Table 5


def adaptation_table(table_id: str, title: str, rows: Sequence[MethodRow], per_query: PerQuery,
                     ks: Sequence[int] = (10, 100)) -> Table:
    """Table 5 analogue: trainable parameters and HC@k of each steering method and layer.

    Row labels carry the method and its injection point (``MethodRow.layer``); ``parameters`` is
    printed with 0 decimals.
    """
    ks = coverage.check_ks(ks)
    columns = [Column("parameters", "# Params", 0)]
    columns += [Column(f"hc@{k}", f"HC@{k}", 1) for k in ks]
    out = []
    for row in rows:
        cells: Dict[str, Optional[float]] = {
            "parameters": None if row.parameters is None else float(row.parameters)}
        for k in ks:
            cells[f"hc@{k}"] = (None if row.run is None
                                else _pp(_mean(_vector(per_query, row.run, f"hc@{k}"))))
        label = f"{row.label} ({row.layer})" if row.layer else row.label
        out.append((row.key, label, cells))
    note = ("Every method produces m = 5 query embeddings (round robin) and is trained with "
            "SPIN's noisy-OR objective on the same batches; parameters are the trainable ones "
            "(the encoder stays frozen). HC@k in percentage points." + _blocked_note(rows))
    return Table(table_id, title, tuple(columns), tuple(out), note)


# ---------------------------------------------------------------------------------------------
# Table 6


def source_coverage_table(table_id: str, title: str, rows: Sequence[MethodRow],
                          queries: Mapping[str, coverage.PerspectiveQuery],
                          rankings: Mapping[str, Mapping[str, Sequence[str]]],
                          groupings: Sequence[Tuple[str, str, Mapping[str, str]]],
                          ks: Sequence[int] = DEFAULT_KS) -> Table:
    """Table 6 analogue: knowledge-source coverage (:func:`nclue.coverage.source_coverage`).

    ``groupings`` = [(key, label, {docid: source})], e.g. the corpus ``source`` field (the
    Debian package a document came from). One row per (grouping, method). A grouping with a
    single value over every query's positives (e.g. modality when every document is text) makes
    coverage equal to "some positive in the top k"; the note names such groupings and the
    distinct values of each grouping.
    """
    ks = coverage.check_ks(ks)
    columns = tuple(Column(f"@{k}", f"@{k}", 1) for k in ks)
    out = []
    notes = []
    for gkey, glabel, source_of in groupings:
        values = {source_of[d] for q in queries.values() for d in q.positives if d in source_of}
        notes.append(f"{glabel}: {len(values)} distinct value{'s' if len(values) != 1 else ''}"
                     + (" (single-valued: coverage = some positive in the top k)"
                        if len(values) == 1 else ""))
        for row in rows:
            cells: Dict[str, Optional[float]] = {f"@{k}": None for k in ks}
            if row.run is not None:
                per = coverage.per_query_coverage(queries, rankings[row.run], ks,
                                                  sources={gkey: source_of})
                for k in ks:
                    cells[f"@{k}"] = _pp(_mean(per[f"{gkey}_coverage@{k}"]))
            out.append((f"{gkey}:{row.key}", f"{glabel}: {row.label}", cells))
    note = ("Percentage points: per query, the share of the distinct sources among its positive "
            "documents that a positive document in the top k covers (a retrieved non-positive "
            "document never counts), averaged over queries. " + "; ".join(notes) + "."
            + _blocked_note(rows))
    return Table(table_id, title, columns, tuple(out), note)


# ---------------------------------------------------------------------------------------------
# Table 7


def dispersion_quartile_table(table_id: str, title: str, rows: Sequence[MethodRow],
                              naive_key: str, per_query: PerQuery,
                              dispersions: Mapping[str, float], k: int = 100) -> Table:
    """Table 7 analogue: HC@k in the four dispersion quartiles, and each row's gain over the row
    ``naive_key`` in the same quartile (columns ``gain_q1`` ... ``gain_q4``; empty on the naive row).

    Quartiles: :func:`nclue.coverage.quartiles` over ``dispersions`` (queries without a
    dispersion are left out). Two extra rows give each quartile's query count (0 decimals) and
    its largest dispersion (3 decimals).
    """
    by_key = {r.key: r for r in rows}
    if naive_key not in by_key or by_key[naive_key].run is None:
        raise ValueError(f"naive row {naive_key!r} missing or not run")
    labels = coverage.QUARTILE_LABELS
    columns = tuple([Column(f"q{i + 1}", labels[i], 1) for i in range(4)]
                    + [Column(f"gain_q{i + 1}", f"gain {labels[i]}", 1) for i in range(4)])
    measure = f"hc@{k}"
    breakdown = {}
    for row in rows:
        if row.run is not None:
            breakdown[row.key] = coverage.quartile_breakdown(
                _vector(per_query, row.run, measure), dispersions)
    out = []
    naive = breakdown[naive_key]
    for row in rows:
        cells: Dict[str, Optional[float]] = {}
        for i in range(4):
            value = breakdown[row.key][i]["value"] if row.key in breakdown else None
            cells[f"q{i + 1}"] = value
            base = naive[i]["value"]
            cells[f"gain_q{i + 1}"] = (None if row.key == naive_key or value is None or base is None
                                       else value - base)
        out.append((row.key, row.label, cells))
    out.append(("queries", "queries per quartile",
                {f"q{i + 1}": float(naive[i]["queries"]) for i in range(4)}))
    out.append(("max_dispersion", "largest mean pairwise cosine distance in the quartile",
                {f"q{i + 1}": naive[i]["max_dispersion"] for i in range(4)}))
    note = (f"HC@{k} (percentage points) by quartile of the mean pairwise cosine distance between "
            "a query's positive documents (<25% = the most clustered); gains are over the "
            f"{by_key[naive_key].label} row in the same quartile.")
    table = Table(table_id, title, columns, tuple(out), note)
    return with_row_decimals(table, {"queries": 0, "max_dispersion": 3})


# ---------------------------------------------------------------------------------------------
# Figure 4


def hit_rank_table(table_id: str, title: str, rows: Sequence[MethodRow],
                   queries: Mapping[str, coverage.PerspectiveQuery],
                   rankings: Mapping[str, Mapping[str, Sequence[str]]], k: int = 20) -> Table:
    """Figure 4 analogue as numbers: mean per-perspective Hit@k at within-query rank r
    (:func:`nclue.coverage.hit_rank_profile`); columns ``rank1`` .. ``rankR`` and ``n_rankR``
    (queries with at least r perspectives, 0 decimals)."""
    profiles = {}
    for row in rows:
        if row.run is None:
            raise ValueError(f"row {row.key!r} has no run")
        hits = coverage.per_query_perspective_hits(queries, rankings[row.run], k)
        profiles[row.key] = coverage.hit_rank_profile(hits)
    depth = max(len(p) for p in profiles.values())
    columns = tuple([Column(f"rank{r}", f"rank {r}", 1) for r in range(1, depth + 1)]
                    + [Column(f"n_rank{r}", f"queries at rank {r}", 0) for r in range(1, depth + 1)])
    out = []
    for row in rows:
        cells: Dict[str, Optional[float]] = {}
        for item in profiles[row.key]:
            cells[f"rank{item['rank']}"] = item["value"]
            cells[f"n_rank{item['rank']}"] = float(item["queries"])
        out.append((row.key, row.label, cells))
    note = (f"Hit@{k} of each perspective (a supporting document in the top {k}); within each "
            "query its perspectives are ranked by that hit, and rank r shows the mean over the "
            "queries with at least r perspectives (percentage points). A steep fall from rank 1 "
            "is the single-perspective bias of Multi3IR sec. 4.1.")
    return Table(table_id, title, columns, tuple(out), note)


def hit_rank_series(table: Table) -> List[Tuple[str, List[Tuple[int, float]]]]:
    """The (label, [(rank, value)]) series of a :func:`hit_rank_table`, for the SVG figure."""
    series = []
    for _, label, cells in table.rows:
        points = sorted((int(key[4:]), value) for key, value in cells.items()
                        if key.startswith("rank") and value is not None)
        series.append((label, points))
    return series


# ---------------------------------------------------------------------------------------------
# Every Multi3IR table of one release from one specification (the hook for the report layer)


@dataclass(frozen=True)
class Multi3irSpec:
    """Run ids and rows of the Multi3IR section (see ``V1_SPEC`` for v1's)."""

    table2: Tuple[MethodRow, ...]
    contrasts: Tuple[Contrast, ...]
    grid_layers: Tuple[Tuple[str, str], ...]
    grid_ms: Tuple[int, ...]
    grid_learned: Tuple[Tuple[str, int, str], ...]     # (layer key, m, run)
    grid_random: Tuple[Tuple[str, int, str], ...]
    table5: Tuple[MethodRow, ...]
    table6: Tuple[MethodRow, ...]
    table7: Tuple[MethodRow, ...]
    table7_naive: str
    figure4: Tuple[MethodRow, ...]
    grid_ks: Tuple[int, ...] = (10, 100)
    table7_ks: Tuple[int, ...] = (10, 100)
    figure4_k: int = 20

    def runs(self) -> List[str]:
        """Every run id the section reads."""
        ids = set()
        for rows in (self.table2, self.table5, self.table6, self.table7, self.figure4):
            ids.update(r.run for r in rows if r.run is not None)
        for c in self.contrasts:
            ids.update((c.base, c.variant))
        ids.update(run for _, _, run in self.grid_learned + self.grid_random)
        return sorted(ids)


def multi3ir_tables(spec: Multi3irSpec, queries: Mapping[str, coverage.PerspectiveQuery],
                    rankings: Mapping[str, Mapping[str, Sequence[str]]],
                    families: Mapping[str, str],
                    groupings: Sequence[Tuple[str, str, Mapping[str, str]]],
                    dispersions: Mapping[str, float], replicates: int = 1000,
                    draws: int = 10000, seed: int = 11) -> List[Table]:
    """Tables 2, 2 (contrasts), 4 (one per k of ``grid_ks``), 5, 6, 7 (one per k of
    ``table7_ks``) and Figure 4's numbers, in that order (table ids ``m3_table2``,
    ``m3_contrasts``, ``m3_table4_hc{k}``, ``m3_table5``, ``m3_table6``, ``m3_table7_hc{k}``,
    ``m3_figure4``). ``rankings`` must hold every run of ``spec.runs()``."""
    missing = [r for r in spec.runs() if r not in rankings]
    if missing:
        raise ValueError(f"rankings missing for {', '.join(missing)}")
    ks = sorted(set(DEFAULT_KS) | set(spec.grid_ks) | set(spec.table7_ks))
    per_query = per_query_for_runs(queries, {r: rankings[r] for r in spec.runs()}, ks)
    tables = [
        perspective_coverage_table("m3_table2", "Multi3IR Table 2 analogue: perspective coverage "
                                   "by method (HC@k, each condition a perspective)", spec.table2,
                                   per_query, families, replicates=replicates, seed=seed),
        coverage_contrast_table("m3_contrasts", "Multi3IR Table 2 contrasts: paired differences in "
                                "HC@k", spec.contrasts, per_query, families,
                                replicates=replicates, draws=draws, seed=seed),
    ]
    learned = {(layer, m): run for layer, m, run in spec.grid_learned}
    random = {(layer, m): run for layer, m, run in spec.grid_random}
    for k in spec.grid_ks:
        tables.append(layer_grid_table(f"m3_table4_hc{k}", f"Multi3IR Table 4 analogue: HC@{k} "
                                       "across m and the injection layer, with the random-vector "
                                       "control at every cell", spec.grid_layers, spec.grid_ms,
                                       learned, random, per_query, k=k))
    tables.append(adaptation_table("m3_table5", "Multi3IR Table 5 analogue: steering methods and "
                                   "injection layers", spec.table5, per_query))
    tables.append(source_coverage_table("m3_table6", "Multi3IR Table 6 analogue: knowledge-source "
                                        "coverage", spec.table6, queries, rankings, groupings))
    for k in spec.table7_ks:
        tables.append(dispersion_quartile_table(f"m3_table7_hc{k}", f"Multi3IR Table 7 analogue: "
                                                f"HC@{k} by positive-document dispersion quartile",
                                                spec.table7, spec.table7_naive, per_query,
                                                dispersions, k=k))
    tables.append(hit_rank_table("m3_figure4", f"Multi3IR Figure 4 analogue: Hit@{spec.figure4_k} "
                                 "by perspective rank", spec.figure4, queries, rankings,
                                 k=spec.figure4_k))
    return tables


def _rows_from(items: Any, what: str) -> Tuple[MethodRow, ...]:
    if not isinstance(items, list) or not items:
        raise ValueError(f"{what}: expected a non-empty list of rows")
    rows = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str) \
                or not isinstance(item.get("label"), str):
            raise ValueError(f"{what} row {i}: needs string 'key' and 'label'")
        run = item.get("run")
        if run is not None and not isinstance(run, str):
            raise ValueError(f"{what} row {i}: 'run' must be a run id or null")
        if run is None and not item.get("blocked"):
            raise ValueError(f"{what} row {i}: a row without a run needs 'blocked' (the reason)")
        m = item.get("m")
        params = item.get("parameters")
        for name, value in (("m", m), ("parameters", params)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ValueError(f"{what} row {i}: {name!r} must be a number")
        rows.append(MethodRow(item["key"], item["label"], run, m, params,
                              str(item.get("layer", "")), str(item.get("blocked", ""))))
    return tuple(rows)


def spec_from_dict(obj: Mapping[str, Any]) -> Multi3irSpec:
    """A :class:`Multi3irSpec` from its JSON form (``report.json``-style; ValueError naming the
    field on bad input). Grid cells are ``{"layer", "m", "run"}`` objects."""
    def cells(name):
        items = obj.get(name)
        if not isinstance(items, list) or not items:
            raise ValueError(f"{name}: expected a non-empty list of cells")
        out = []
        for i, c in enumerate(items, 1):
            if not isinstance(c, dict) or not isinstance(c.get("layer"), str) \
                    or isinstance(c.get("m"), bool) or not isinstance(c.get("m"), int) \
                    or not isinstance(c.get("run"), str):
                raise ValueError(f"{name} cell {i}: needs 'layer' (str), 'm' (int), 'run' (str)")
            out.append((c["layer"], c["m"], c["run"]))
        return tuple(out)

    contrasts = []
    for i, c in enumerate(obj.get("contrasts") or [], 1):
        if not isinstance(c, dict) or not all(isinstance(c.get(f), str)
                                              for f in ("key", "label", "base", "variant")):
            raise ValueError(f"contrasts item {i}: needs 'key', 'label', 'base', 'variant'")
        contrasts.append(Contrast(c["key"], c["label"], c["base"], c["variant"]))
    layers = obj.get("grid_layers")
    if not isinstance(layers, list) or not layers or not all(
            isinstance(x, list) and len(x) == 2 and all(isinstance(y, str) for y in x)
            for x in layers):
        raise ValueError("grid_layers: expected [[key, label], ...]")
    ms = obj.get("grid_ms")
    if not isinstance(ms, list) or not ms or any(isinstance(m, bool) or not isinstance(m, int)
                                                 for m in ms):
        raise ValueError("grid_ms: expected a list of integers")
    if not isinstance(obj.get("table7_naive"), str):
        raise ValueError("table7_naive: expected a row key")
    extra = {}
    for name in ("grid_ks", "table7_ks"):
        if name in obj:
            extra[name] = tuple(coverage.check_ks(obj[name]))
    if "figure4_k" in obj:
        extra["figure4_k"] = coverage.check_ks([obj["figure4_k"]])[0]
    return Multi3irSpec(_rows_from(obj.get("table2"), "table2"), tuple(contrasts),
                        tuple(tuple(x) for x in layers), tuple(ms), cells("grid_learned"),
                        cells("grid_random"), _rows_from(obj.get("table5"), "table5"),
                        _rows_from(obj.get("table6"), "table6"), _rows_from(obj.get("table7"), "table7"),
                        obj["table7_naive"], _rows_from(obj.get("figure4"), "figure4"), **extra)


def groupings_from_spec(items: Any, corpus: Mapping[str, Any]) -> List[Tuple[str, str, Dict[str, str]]]:
    """Table 6 groupings from their JSON form: ``{"key", "label", "field": name}`` takes each
    corpus document's ``source`` (``field`` = "source") or ``extra[field]``; ``{"key", "label",
    "constant": value}`` gives every document the same value (e.g. the modality of a text-only
    corpus). ``corpus`` = :attr:`nclue.release.Release.corpus`. ValueError on bad input."""
    if not isinstance(items, list) or not items:
        raise ValueError("groupings: expected a non-empty list")
    out = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str) \
                or not isinstance(item.get("label"), str):
            raise ValueError(f"grouping {i}: needs string 'key' and 'label'")
        if isinstance(item.get("constant"), str) and item["constant"]:
            out.append((item["key"], item["label"], dict.fromkeys(sorted(corpus), item["constant"])))
            continue
        name = item.get("field")
        if not isinstance(name, str) or not name:
            raise ValueError(f"grouping {i}: needs 'field' or a non-empty 'constant'")
        values = {}
        for docid in sorted(corpus):
            doc = corpus[docid]
            value = doc.source if name == "source" else doc.extra.get(name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"grouping {i}: document {docid!r} has no string {name!r}")
            values[docid] = value
        out.append((item["key"], item["label"], values))
    return out
