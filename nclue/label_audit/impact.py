"""What a repair changes: every frozen run scored before and after (Table S14 analogue).

n-Clue paper (arXiv 2607.24165), main text sec. 5: "reversing the 20 observed CrossPage audit
repairs moves the clean scorecard by at most 0.2 points"; sec. 3.2: pre/post "system-rank
correlation rho = .9986"; supplement sec. 10.6: "Across all 70 CrossPage systems, pre/post rank
correlation is .9998, representative gold-only NDCG@10 moves by at most .0012, and the largest
movement is one position".

For every run and every scorecard measure of the registry (:meth:`nclue.measures.MeasureRegistry.scorecard`
at cutoff k; percentage points, the scorer of :mod:`nclue.metrics`): the value on the base label version, on the repaired one, and
the difference. Per measure: the largest absolute change (and the run), Spearman's rho of the
runs' values before and after (average ranks for ties, :func:`nclue.agreement.spearman_rho`;
undefined, left empty, when every run ties on one side), and the largest movement of a run's
rank (ranks 1 = best, ties share their mean rank). The runs are scored as frozen; the queries
stay the same unless the repair's removal policy drops queries left without a gold (support rule P1): each
label version is then scored over its own queries.
"""

import math
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..agreement import average_ranks, spearman_rho
from ..errors import InputError, NclueError
from ..formats import PathLike
from ..measures import REGISTRY, MeasureRegistry
from ..inference import (DEFAULT_DRAWS, DEFAULT_SEED, MAX_EXACT_UNITS, family_flip_test,
                         query_permutation_test)
from ..metrics import aggregate, evaluate, outcomes, per_query, per_query_from_outcomes, query_facts
from ..release import Release, gold_families
from ..run_index import RunIndex
from ..runs import Run, load_run
from ..table import Column, Table


def measure_keys(k: int, registry: MeasureRegistry = REGISTRY) -> List[Tuple[str, str]]:
    """(name, header) of the scorecard measures at cutoff ``k`` (the per-run table)."""
    return [(m.name, registry.header(m)) for m in registry.scorecard(k)]


def summary_keys(k: int, registry: MeasureRegistry = REGISTRY) -> List[Tuple[str, str]]:
    """(name, header) of every per-query outcome measure at cutoff ``k`` (the summary), except
    ``complete_first``, which is n-Clue Score under another name."""
    return [(m.name, registry.header(m)) for m in registry.outcome_measures(k) if m.key != "complete_first"]


def changed_queries(before: Release, after: Release) -> List[str]:
    """Queries whose qrels or evidence differ between two label versions of one release."""
    out = {q for q in before.queries if before.judgments.get(q, {}) != after.judgments.get(q, {})}
    for key in set(before.evidence) | set(after.evidence):
        if before.evidence.get(key) != after.evidence.get(key):
            out.add(key[0])
    return sorted(out)


def scores(before: Release, after: Release, runs: Mapping[str, Run],
           k: int) -> Tuple[Dict[str, Dict[str, float]], Dict[str, Dict[str, float]]]:
    """({run id: {measure: value}} before, the same after); a run has the page measures only
    when it carries page scores.

    Per-query outcomes are computed on the base version, then again only for the queries the
    repair changes (:func:`changed_queries`); the aggregates use ``math.fsum``, so the values are
    exactly those of :func:`nclue.metrics.evaluate` on each version.
    """
    wanted = {m for m, _ in summary_keys(k)}
    facts_before = query_facts(before)
    changed = set(changed_queries(before, after))
    facts_after = {q: f for q, f in query_facts(after).items() if q in changed}
    pre, post = {}, {}
    for run_id in sorted(runs):
        base = outcomes(before, runs[run_id], k, facts_before)
        repaired = {q: o for q, o in base.items() if q in after.queries}  # a removal policy drops queries
        repaired.update(outcomes(after, runs[run_id], k, facts_after))
        for target, results in ((pre, base), (post, repaired)):
            values = aggregate(per_query_from_outcomes(results, k))
            target[run_id] = {m: v for m, v in values.items() if m in wanted}
    return pre, post


def _rank_shift(before: Mapping[str, float], after: Mapping[str, float]) -> float:
    ids = sorted(before)
    if not ids:
        return 0.0
    rb = average_ranks([-before[i] for i in ids])
    ra = average_ranks([-after[i] for i in ids])
    return max(abs(x - y) for x, y in zip(rb, ra))


def _rho(before: Mapping[str, float], after: Mapping[str, float]) -> Optional[float]:
    try:
        return spearman_rho(dict(before), dict(after))
    except NclueError:
        return None


def impact_tables(before: Release, after: Release, runs: Mapping[str, Run], k: int,
                  version: str, table_prefix: str = "audit_impact") -> Tuple[Table, Table]:
    """(per-run before/after/difference table, per-measure summary table)."""
    if not runs:
        raise NclueError("no frozen runs to score")
    pre, post = scores(before, after, runs, k)
    measures = [(m, label) for m, label in measure_keys(k) if all(m in pre[r] and m in post[r] for r in runs)]
    columns = []
    for m, label in measures:
        columns += [Column(f"{m}|before", f"{label} before", 1), Column(f"{m}|after", f"{label} after", 1),
                    Column(f"{m}|delta", f"{label} change", 1)]
    rows = []
    for run_id in sorted(runs):
        cells = {}
        for m, _ in measures:
            cells[f"{m}|before"] = pre[run_id][m]
            cells[f"{m}|after"] = post[run_id][m]
            cells[f"{m}|delta"] = post[run_id][m] - pre[run_id][m]
        rows.append((run_id, run_id, cells))
    per_run = Table(f"{table_prefix}_runs", f"Every frozen run before and after {version} (Table S14 analogue)",
                    tuple(columns), tuple(rows),
                    note="Percentage points; the runs are scored as frozen on both label versions, each over "
                         f"its own queries ({len(before.queries)} before, {len(after.queries)} after).")
    summary_rows = []
    for m, label in summary_keys(k):
        having = sorted(r for r in runs if m in pre[r] and m in post[r])
        if not having:
            continue
        b = {r: pre[r][m] for r in having}
        a = {r: post[r][m] for r in having}
        deltas = {r: a[r] - b[r] for r in having}
        worst = max(having, key=lambda r: abs(deltas[r]))
        largest = f"largest change: {worst}" if deltas[worst] != 0 else "no run changes"
        summary_rows.append((m, f"{label} ({largest})", {
            "max_abs_delta": abs(deltas[worst]), "rho": _rho(b, a), "rank_shift": _rank_shift(b, a),
            "runs": len(having), "changed": sum(1 for d in deltas.values() if not math.isclose(d, 0.0, abs_tol=1e-12))}))
    summary = Table(f"{table_prefix}_summary", f"What {version} changes, per measure",
                    (Column("max_abs_delta", "largest |change| (points)", 2), Column("rho", "Spearman rho", 4),
                     Column("rank_shift", "largest rank movement", 1), Column("runs", "runs", 0),
                     Column("changed", "runs whose value changed", 0)),
                    tuple(summary_rows),
                    note="rho: Spearman correlation of the runs' values before and after (average ranks); "
                         "page measures over the page-scored runs only.")
    return per_run, summary


def paired_p_values(release: Release, base: Run, variant: Run, k: int, measure: str,
                    seed: int = DEFAULT_SEED, draws: int = DEFAULT_DRAWS) -> Tuple[Optional[float], Optional[float]]:
    """(query-paired p, shared-gold-family p) of ``variant - base`` on one label version
    (n-Clue paper, supplement sec. 10.6: after the challenge "the gap to +.016 with query-paired
    p=.381 and shared-gold-family p=.402"; Table S14's "paired test" row).

    Two-sided sign-flip tests of the mean per-query difference: every query its own unit
    (:func:`nclue.inference.query_permutation_test`), and whole exact-gold-set families of this
    label version (:func:`nclue.release.gold_families`, :func:`nclue.inference.family_flip_test`);
    exact (all sign vectors) with at most :data:`nclue.inference.MAX_EXACT_UNITS` units, else
    ``draws`` seeded draws with the +1 correction. None when the measure is not defined on the
    same queries for both runs.
    """
    vb = per_query(release, base, k).get(measure, {})
    vv = per_query(release, variant, k).get(measure, {})
    if not vb or vb.keys() != vv.keys():
        return None, None
    query = query_permutation_test(vb, vv, draws=draws, seed=seed, exact=len(vb) <= MAX_EXACT_UNITS)
    families = {q: f for q, f in gold_families(release).items() if q in vb}
    family = family_flip_test(vb, vv, families, draws=draws, seed=seed,
                              exact=len(set(families.values())) <= MAX_EXACT_UNITS)
    return query.p, family.p


def contrast_table(before: Release, after: Release, base: Run, variant: Run, k: int, measure: str,
                   version: str, table_id: str = "audit_contrast") -> Table:
    """A named contrast (variant - base) before and after a repair, with its paired p-values on
    each label version (Table S14's gap and paired-test rows; :func:`paired_p_values`)."""
    rows = []
    for name, release in (("before", before), ("after", after)):
        vb, vv = evaluate(release, base, k)[measure], evaluate(release, variant, k)[measure]
        p_query, p_family = paired_p_values(release, base, variant, k, measure)
        rows.append((name, f"{name} {version}", {"base": vb, "variant": vv, "gap": vv - vb,
                                                 "p_query": p_query, "p_family": p_family}))
    return Table(table_id, f"{variant.run_id} - {base.run_id} on {measure}",
                 (Column("base", base.run_id, 1), Column("variant", variant.run_id, 1),
                  Column("gap", "variant - base", 1), Column("p_query", "query-paired p", 4),
                  Column("p_family", "shared-gold-family p", 4)), tuple(rows),
                 note="Two-sided sign-flip tests of the mean per-query difference: queries as units, and "
                      "exact-gold-set families of each label version as units (exact enumeration up to "
                      f"{MAX_EXACT_UNITS} units, else {DEFAULT_DRAWS:,} draws, seed {DEFAULT_SEED}).")


def runs_of(release_dir: PathLike, release: Release, run_ids: Optional[Sequence[str]] = None) -> Dict[str, Run]:
    """The frozen runs of the release's run index (sha256 checked), all or the named ones;
    identical files are parsed once."""
    index = RunIndex.load(release_dir)
    wanted = index.ids() if run_ids is None else list(run_ids)
    out: Dict[str, Run] = {}
    parsed: Dict[str, Run] = {}
    for run_id in wanted:
        if run_id not in index:
            raise InputError(index.layout.run_index, f"unknown run id {run_id!r}")
        entry = index[run_id]
        if entry.sha256 not in parsed:
            parsed[entry.sha256] = load_run(index.path(run_id), release, run_id=run_id)
        out[run_id] = Run(run_id, parsed[entry.sha256].rankings, parsed[entry.sha256].tie_rule)
    return out
