"""Release-report tables built on :mod:`nclue.inference` (``report.json`` kinds).

* ``"contrasts"`` -- Table 5 / Table S1e: per controlled block, the displayed base -> variant
  contrast with its family-bootstrap interval, its own family-flip p, the max-|T| p over every
  tried endpoint of the block, and Holm across blocks.
* ``"contrast_sensitivity"`` -- Tables S1f-S1i for a list of contrasts: common-support ordering
  and M/P/G deltas, crossed query/document intervals (gold and all-judged memberships),
  leave-one-gold-document range, removal of the highest-degree gold documents, and the exact
  judged-subset promotion bounds.
* ``"membership_graph"`` -- Table S1i header rows: queries, documents, connected components and
  the largest component of the gold and all-judged membership graphs.

Builders follow :data:`nclue.report.TABLE_BUILDERS`: ``builder(spec, ctx) -> Table`` with ``ctx``
a :class:`nclue.report.ReleaseContext`. Cells are unrounded; score-like cells are percentage
points. Randomness is recorded in the spec (``seed``, ``replicates``, ``draws``; the paper's
defaults 11 / 1,000 / 10,000 when absent), so every printed number is regenerated exactly.
"""

import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import inference
from .errors import InputError, NclueError
from .release import gold_families
from .tables import Column, Table


def _where(ctx: Any) -> Any:
    return ctx.path / "report.json"


def _fail(ctx: Any, spec: Mapping[str, Any], problem: str) -> InputError:
    return InputError(_where(ctx), f"table {spec.get('id')!r}: {problem}")


def _int_setting(ctx: Any, spec: Mapping[str, Any], name: str, default: int,
                 minimum: int = 1) -> int:
    value = spec.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _fail(ctx, spec, f"'{name}' must be an integer >= {minimum}")
    return value


def _level(ctx: Any, spec: Mapping[str, Any]) -> float:
    value = spec.get("level", inference.DEFAULT_LEVEL)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise _fail(ctx, spec, "'level' must be a number strictly between 0 and 1")
    return float(value)


def _measure(ctx: Any, spec: Mapping[str, Any]) -> str:
    name = spec.get("measure", "nclue_score")
    if not isinstance(name, str) or not name:
        raise _fail(ctx, spec, "'measure' must be a measure name such as \"nclue_score\"")
    return name if "@" in name or name == "auc" else f"{name}@{ctx.k}"


def _vector(ctx: Any, spec: Mapping[str, Any], run_id: str, measure: str) -> Dict[str, float]:
    if not isinstance(run_id, str):
        raise _fail(ctx, spec, f"run ids must be strings, got {run_id!r}")
    vectors = ctx.vectors(run_id)
    if measure not in vectors:
        raise _fail(ctx, spec, f"run {run_id!r} has no per-query measure {measure!r}")
    return vectors[measure]


def _pair(ctx: Any, spec: Mapping[str, Any], entry: Any, what: str) -> Tuple[str, str, str]:
    if (not isinstance(entry, dict) or not isinstance(entry.get("id"), str)
            or not isinstance(entry.get("base"), str) or not isinstance(entry.get("variant"), str)):
        raise _fail(ctx, spec, f"{what} needs string fields 'id', 'base' and 'variant'")
    return entry["id"], entry["base"], entry["variant"]


def _mean_points(values: Mapping[str, float]) -> float:
    return 100.0 * math.fsum(values.values()) / len(values)


# --------------------------------------------------------------------------------------------
# Table 5 / S1e
# --------------------------------------------------------------------------------------------

def contrasts_report_table(spec: Mapping[str, Any], ctx: Any) -> Table:
    """Builder for kind ``"contrasts"`` (n-Clue paper Table 5 and Table S1e).

    ``spec``: ``{"id", "kind": "contrasts", "title"?, "measure"?: "nclue_score", "seed"?,
    "replicates"?, "draws"?, "level"?, "blocks": [{"id", "label"?, "shown": endpoint id,
    "endpoints": [{"id", "base": run id, "variant": run id}, ...]}, ...]}``. Every tried endpoint
    of a block is listed; ``shown`` names the displayed one. One row per block (in spec order):
    base and variant scores, delta with the family-bootstrap interval (exact-gold-set families),
    Gold Hit and Gold-NDCG deltas, the displayed endpoint's own family-flip p, its max-|T| p over
    the block, and Holm across blocks.
    """
    blocks_spec = spec.get("blocks")
    if not isinstance(blocks_spec, list) or not blocks_spec:
        raise _fail(ctx, spec, "'blocks' must be a non-empty list")
    measure = _measure(ctx, spec)
    seed = _int_setting(ctx, spec, "seed", inference.DEFAULT_SEED, minimum=0)
    replicates = _int_setting(ctx, spec, "replicates", inference.DEFAULT_REPLICATES)
    draws = _int_setting(ctx, spec, "draws", inference.DEFAULT_DRAWS)
    level = _level(ctx, spec)
    k = ctx.k
    blocks: Dict[str, Tuple[str, Dict[str, Tuple[Dict[str, float], Dict[str, float]]]]] = {}
    shown_runs: Dict[str, Tuple[str, str]] = {}
    labels: Dict[str, str] = {}
    for number, block in enumerate(blocks_spec, start=1):
        if not isinstance(block, dict) or not isinstance(block.get("id"), str):
            raise _fail(ctx, spec, f"block {number} needs a string 'id'")
        block_id = block["id"]
        if block_id in blocks:
            raise _fail(ctx, spec, f"duplicate block id {block_id!r}")
        endpoints = block.get("endpoints")
        if not isinstance(endpoints, list) or not endpoints:
            raise _fail(ctx, spec, f"block {block_id!r}: 'endpoints' must be a non-empty list")
        pairs: Dict[str, Tuple[Dict[str, float], Dict[str, float]]] = {}
        runs: Dict[str, Tuple[str, str]] = {}
        for entry in endpoints:
            eid, base, variant = _pair(ctx, spec, entry, f"block {block_id!r}: each endpoint")
            if eid in pairs:
                raise _fail(ctx, spec, f"block {block_id!r}: duplicate endpoint {eid!r}")
            pairs[eid] = (_vector(ctx, spec, base, measure), _vector(ctx, spec, variant, measure))
            runs[eid] = (base, variant)
        shown = block.get("shown")
        if shown not in pairs:
            raise _fail(ctx, spec, f"block {block_id!r}: 'shown' must name one of its endpoints")
        blocks[block_id] = (shown, pairs)
        shown_runs[block_id] = runs[shown]
        labels[block_id] = str(block.get("label") or block_id)
    try:
        table_rows = inference.selection_table(blocks, gold_families(ctx.release), seed=seed,
                                               replicates=replicates, draws=draws, level=level)
    except NclueError as exc:
        raise _fail(ctx, spec, str(exc)) from None
    by_block = {row.block: row for row in table_rows}
    rows = []
    for block_id in blocks:  # spec order
        row = by_block[block_id]
        base, variant = shown_runs[block_id]
        b_scores, v_scores = ctx.scores(base), ctx.scores(variant)
        cells: Dict[str, Optional[float]] = {
            "base": _mean_points(blocks[block_id][1][row.endpoint][0]),
            "variant": _mean_points(blocks[block_id][1][row.endpoint][1]),
            "delta": 100 * row.delta, "ci_lo": 100 * row.ci_lo, "ci_hi": 100 * row.ci_hi,
            "delta_hit": v_scores[f"gold_hit@{k}"] - b_scores[f"gold_hit@{k}"],
            "delta_ndcg": v_scores[f"gold_ndcg@{k}"] - b_scores[f"gold_ndcg@{k}"],
            "endpoints": float(row.endpoints_tried),
            "p_raw": row.p_raw, "p_block": row.p_block, "p_holm": row.p_holm,
        }
        label = f"{labels[block_id]}: {ctx.label(base)} -> {ctx.label(variant)}"
        rows.append((block_id, label, cells))
    pct = f"{100 * level:g}"
    columns = (
        Column("base", f"Base {measure}", 1), Column("variant", f"Variant {measure}", 1),
        Column("delta", "Delta", 1), Column("ci_lo", f"{pct}% CI low", 1),
        Column("ci_hi", f"{pct}% CI high", 1), Column("delta_hit", f"Delta Gold Hit@{k}", 1),
        Column("delta_ndcg", f"Delta Gold-NDCG@{k}", 1), Column("endpoints", "Endpoints tried", 0),
        Column("p_raw", "Family-flip p", 4), Column("p_block", "Block max-T p", 4),
        Column("p_holm", "Sel.+Holm p", 3),
    )
    note = (f"Percentage points. Intervals: percentile bootstrap over {len(set(gold_families(ctx.release).values()))} "
            f"exact-gold-set families ({replicates} replicates, seed {seed}). p-values: two-sided "
            f"family sign-flip randomization ({draws} draws, seed {seed}, p = (1 + #{{|T*| >= |T|}})"
            "/(1 + draws)); block p = max-|T| over every tried endpoint (T standardized by its "
            "sign-flip null SD); Holm across the blocks of this table.")
    return Table(spec["id"], spec.get("title", "Controlled contrasts (Table 5 analogue)"),
                 columns, tuple(rows), note)


# --------------------------------------------------------------------------------------------
# Tables S1f-S1i
# --------------------------------------------------------------------------------------------

def contrast_sensitivity_table(spec: Mapping[str, Any], ctx: Any) -> Table:
    """Builder for kind ``"contrast_sensitivity"`` (n-Clue supplement Tables S1f-S1i).

    ``spec``: ``{"id", "kind": "contrast_sensitivity", "title"?, "measure"?: "nclue_score",
    "seed"?, "replicates"?, "level"?, "remove"?: 20, "promotions"?: [0, 1, 2, 3],
    "contrasts": [{"id", "base", "variant"}, ...]}``. Per contrast (row, in spec order):
    ``delta_d`` (variant - base of 1 - P(subset > gold) on the common support, points) and the
    support size; deltas of the unconditional miss / subset-first / gold-first shares (points);
    the crossed query/document interval over gold and over all judged memberships; the
    leave-one-gold-document range; the delta after removing the ``remove`` highest-degree gold
    documents and the queries left; and the exact minimum n-Clue Score delta after promoting up
    to k judged top-k subsets per query, for each k in ``promotions``. Sensitivity columns
    other than D/M/P/G and the promotion bounds use ``measure``.
    """
    contrasts = spec.get("contrasts")
    if not isinstance(contrasts, list) or not contrasts:
        raise _fail(ctx, spec, "'contrasts' must be a non-empty list")
    measure = _measure(ctx, spec)
    seed = _int_setting(ctx, spec, "seed", inference.DEFAULT_SEED, minimum=0)
    replicates = _int_setting(ctx, spec, "replicates", inference.DEFAULT_REPLICATES)
    level = _level(ctx, spec)
    remove = _int_setting(ctx, spec, "remove", 20, minimum=0)
    promotions = spec.get("promotions", [0, 1, 2, 3])
    if (not isinstance(promotions, list) or not promotions
            or any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in promotions)):
        raise _fail(ctx, spec, "'promotions' must be a non-empty list of integers >= 0")
    k = ctx.k
    gold = inference.gold_memberships(ctx.release)
    judged = inference.judged_memberships(ctx.release)
    gold_docs = {d for docs in gold.values() for d in docs}
    weight_cache: Dict[Any, Any] = {}
    remove_k = min(remove, len(gold_docs))
    rows = []
    seen = set()
    for entry in contrasts:
        cid, base, variant = _pair(ctx, spec, entry, "each contrast")
        if cid in seen:
            raise _fail(ctx, spec, f"duplicate contrast id {cid!r}")
        seen.add(cid)
        b_vec, v_vec = _vector(ctx, spec, base, measure), _vector(ctx, spec, variant, measure)
        b_out, v_out = ctx.outcomes(base), ctx.outcomes(variant)
        b_ranks = {q: (o.first_gold, o.first_subset) for q, o in b_out.items()}
        v_ranks = {q: (o.first_gold, o.first_subset) for q, o in v_out.items()}
        b_top = inference.top_labels(ctx.release, ctx.run(base), k)
        v_top = inference.top_labels(ctx.release, ctx.run(variant), k)
        try:
            support = inference.common_support_ordering(b_ranks, v_ranks, k)
            crossed_gold = inference.crossed_bootstrap(
                b_vec, v_vec, {}, replicates=replicates, seed=seed, level=level,
                weights=_weights(weight_cache, "gold", gold, b_vec, replicates, seed))
            crossed_all = inference.crossed_bootstrap(
                b_vec, v_vec, {}, replicates=replicates, seed=seed, level=level,
                weights=_weights(weight_cache, "judged", judged, b_vec, replicates, seed))
            loo = inference.leave_one_document_out(b_vec, v_vec, gold)
            try:
                removal: Optional[inference.Removal] = inference.remove_top_degree_documents(
                    b_vec, v_vec, gold, remove_k)
            except NclueError:
                removal = None  # every query touches a removed document
            bounds = {p: inference.promotion_bound(b_top, v_top, p, depth=k) for p in promotions}
        except NclueError as exc:
            raise _fail(ctx, spec, f"contrast {cid!r}: {exc}") from None
        cells: Dict[str, Optional[float]] = {
            "delta": 100 * (math.fsum(v_vec.values()) - math.fsum(b_vec.values())) / len(b_vec),
            "delta_d": None if support.delta_d is None else 100 * support.delta_d,
            "support": float(support.support),
            "delta_miss": 100 * (support.variant.miss - support.base.miss),
            "delta_subset_first": 100 * (support.variant.subset_first - support.base.subset_first),
            "delta_gold_first": 100 * (support.variant.gold_first - support.base.gold_first),
            "crossed_gold_lo": 100 * crossed_gold.lo, "crossed_gold_hi": 100 * crossed_gold.hi,
            "crossed_judged_lo": 100 * crossed_all.lo, "crossed_judged_hi": 100 * crossed_all.hi,
            "loo_lo": 100 * loo.lo, "loo_hi": 100 * loo.hi,
            "removed_delta": None if removal is None else 100 * removal.delta,
            "removed_queries": 0.0 if removal is None else float(removal.queries_left),
        }
        for p in promotions:
            cells[f"promote_{p}"] = bounds[p].minimum
        rows.append((cid, f"{ctx.label(base)} -> {ctx.label(variant)}", cells))
    pct = f"{100 * level:g}"
    columns = [
        Column("delta", f"Delta {measure}", 1),
        Column("delta_d", "Delta D (common support)", 1), Column("support", "Support queries", 0),
        Column("delta_miss", "Delta miss", 1), Column("delta_subset_first", "Delta subset-first", 1),
        Column("delta_gold_first", "Delta gold-first", 1),
        Column("crossed_gold_lo", f"Crossed gold {pct}% low", 1),
        Column("crossed_gold_hi", f"Crossed gold {pct}% high", 1),
        Column("crossed_judged_lo", f"Crossed judged {pct}% low", 1),
        Column("crossed_judged_hi", f"Crossed judged {pct}% high", 1),
        Column("loo_lo", "Leave-one-gold-doc min", 1), Column("loo_hi", "Leave-one-gold-doc max", 1),
        Column("removed_delta", f"Delta without top-{remove_k} gold docs", 1),
        Column("removed_queries", "Queries left", 0),
    ]
    columns += [Column(f"promote_{p}", f"Min delta, {p} promotion(s)/query", 1)
                for p in promotions]
    note = ("Percentage points. D = 1 - P(subset > gold) on queries where both systems retrieve a "
            f"top-{k} gold; miss/subset-first/gold-first are unconditional shares. Crossed "
            f"intervals weight queries and documents independently ({replicates} replicates, seed "
            f"{seed}); these are stress models, not sampling distributions. Promotion bounds are "
            "exact minima over promoting judged top-k subsets to gold (a qrel change, applied to "
            "both systems); unjudged documents are out of scope.")
    return Table(spec["id"], spec.get("title", "Headline-contrast sensitivity (Tables S1f-S1i)"),
                 tuple(columns), tuple(rows), note)


def _weights(cache: Dict[Any, Any], kind: str, memberships: Mapping[str, Tuple[str, ...]],
             vector: Mapping[str, float], replicates: int, seed: int) -> Any:
    """Crossed-bootstrap draws, made once per membership kind and query set and reused across
    contrasts (identical to drawing them per contrast; see inference.crossed_weights)."""
    key = (kind, frozenset(vector))
    if key not in cache:
        cache[key] = inference.crossed_weights(vector.keys(), _with_members(memberships, vector),
                                               replicates=replicates, seed=seed)
    return cache[key]


def _with_members(memberships: Mapping[str, Tuple[str, ...]], vector: Mapping[str, float]
                  ) -> Dict[str, Tuple[str, ...]]:
    """Restrict memberships to the compared queries; a query without one is refused later."""
    return {q: memberships.get(q, ()) for q in vector}


def membership_graph_table(spec: Mapping[str, Any], ctx: Any) -> Table:
    """Builder for kind ``"membership_graph"`` (Table S1i header rows).

    Two rows, ``gold`` and ``judged``: queries, distinct documents, connected components of the
    query-document membership graph, and the number of queries in the largest component.
    """
    rows = []
    for key, label, members in (("gold", "Gold memberships", inference.gold_memberships(ctx.release)),
                                ("judged", "All judged memberships",
                                 inference.judged_memberships(ctx.release))):
        comps = inference.membership_components(members)
        docs = {d for ds in members.values() for d in ds}
        rows.append((key, label, {"queries": float(len(members)), "documents": float(len(docs)),
                                  "components": float(len(comps)),
                                  "largest": float(len(comps[0]))}))
    columns = (Column("queries", "Queries", 0), Column("documents", "Distinct documents", 0),
               Column("components", "Connected components", 0),
               Column("largest", "Largest component (queries)", 0))
    return Table(spec["id"], spec.get("title", "Shared-document graph (Table S1i)"), columns,
                 tuple(rows), "Queries are linked when they share a document (transitively).")




# --------------------------------------------------------------------------------------------
# Table S4: query-paired permutation tests under each query form
# --------------------------------------------------------------------------------------------

def paired_tests_table(spec: Mapping[str, Any], ctx: Any) -> Table:
    """Builder for kind ``"paired_tests"`` (n-Clue supplement Table S4).

    ``spec``: ``{"id", "kind": "paired_tests", "title"?, "measure"?, "seed"?, "draws"?,
    "forms": ["raw", "clean", "natural"], "contrasts": [{"id", "label"?, "runs": {form: [base,
    variant], ...}}, ...]}``. Per contrast and form: the paired difference (variant - base,
    points) and the two-sided query-paired permutation p (every query its own unit, +1
    correction), as the paper's SourceShift stress analysis.
    """
    contrasts = spec.get("contrasts")
    forms = spec.get("forms", ["raw", "clean", "natural"])
    if not isinstance(contrasts, list) or not contrasts:
        raise _fail(ctx, spec, "'contrasts' must be a non-empty list")
    if not isinstance(forms, list) or not forms or not all(isinstance(f, str) for f in forms):
        raise _fail(ctx, spec, "'forms' must be a non-empty list of form names")
    measure = _measure(ctx, spec)
    seed = _int_setting(ctx, spec, "seed", inference.DEFAULT_SEED, minimum=0)
    draws = _int_setting(ctx, spec, "draws", inference.DEFAULT_DRAWS)
    columns: List[Column] = []
    for form in forms:
        columns += [Column(f"{form}:delta", f"{form} Delta", 1), Column(f"{form}:p", f"{form} p", 4)]
    rows = []
    for number, item in enumerate(contrasts, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("runs"), dict):
            raise _fail(ctx, spec, f"contrast {number} needs a string 'id' and a 'runs' object")
        cells: Dict[str, Optional[float]] = {}
        for form in forms:
            pair = item["runs"].get(form)
            if pair is None:
                continue
            if not isinstance(pair, list) or len(pair) != 2:
                raise _fail(ctx, spec, f"contrast {item['id']!r}: runs[{form!r}] must be [base, variant]")
            base = _vector(ctx, spec, pair[0], measure)
            variant = _vector(ctx, spec, pair[1], measure)
            try:
                test = inference.query_permutation_test(base, variant, draws=draws, seed=seed)
            except NclueError as exc:
                raise _fail(ctx, spec, str(exc)) from None
            cells[f"{form}:delta"] = 100 * test.delta
            cells[f"{form}:p"] = test.p
        rows.append((item["id"], str(item.get("label") or item["id"]), cells))
    note = (f"Percentage points, variant minus base ({measure}). p: two-sided query-paired "
            f"permutation test ({draws} draws, seed {seed}, p = (1 + #{{|T*| >= |T|}})/(1 + draws)).")
    return Table(spec["id"], spec.get("title", "Query-paired differences (Table S4 analogue)"),
                 tuple(columns), tuple(rows), note)


TABLE_BUILDERS = {
    "contrasts": contrasts_report_table,
    "contrast_sensitivity": contrast_sensitivity_table,
    "membership_graph": membership_graph_table,
    "paired_tests": paired_tests_table,
}

__all__ = ["TABLE_BUILDERS", "contrast_sensitivity_table", "contrasts_report_table",
           "membership_graph_table", "paired_tests_table"]
