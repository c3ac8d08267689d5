"""Write data/v1/report.json and data/v2/report.json: which tables and figures each release reports.

The spec is configuration, not results: it names runs, blocks and the paper's directions. The only
data-dependent choice is each contrast block's *displayed* endpoint, which is the endpoint with
the highest n-Clue Score@k (the paper's post hoc rule, supplement 2); the block's max-|T| p-value
accounts for that selection over every tried endpoint. Runs missing from a release's index are
left out. Run: python tools/make_report_specs.py
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nclue import inference  # noqa: E402
from nclue.context import ReleaseContext  # noqa: E402
from nclue.formats import write_text_atomic  # noqa: E402
from nclue.measures import DEFAULT_K, REGISTRY  # noqa: E402

#: Every setting of the generated specs, in one place: the report's cutoff and the paper's
#: frozen resampling settings (supplement, "Frozen setting"), which nclue's defaults also are.
K = DEFAULT_K
SEED, REPLICATES, DRAWS = inference.DEFAULT_SEED, inference.DEFAULT_REPLICATES, inference.DEFAULT_DRAWS
SCORE = REGISTRY.measure("nclue_score", K)
HIT = REGISTRY.measure("gold_hit", K)
HC = REGISTRY.measure("hc", K)

REPRESENTATIVES = [  # Table 3 analogue: representative systems, clean form (SPIN: natural form)
    "bm25_or.clean", "bm25_and.clean", "bm25_sdr.clean", "bm25_page_top3.clean",
    "minilm_joint_best.clean", "minilm_joint_top3.clean", "minilm_cond_hmean_best.clean",
    "minilm_cond_product_best.clean", "rrf_bm25_and+minilm_joint_top3.clean",
    "rrf_bm25_or+bm25_sdr.clean", "minilm_pool_best_bm25_or.clean", "spin_m5_l3.natural",
    "splade_joint_best.clean", "splade_joint_top3.clean", "splade_cond_hmean_best.clean",
    "rrf_bm25_and+splade_joint_top3.clean",
]

BLOCKS = [  # Table 5 analogue: (block id, label, [(endpoint id, base, variant), ...])
    ("page_aggregation", "Page aggregation (best page -> top-3)", [
        ("minilm", "minilm_joint_best.clean", "minilm_joint_top3.clean"),
        ("splade", "splade_joint_best.clean", "splade_joint_top3.clean"),
        ("bm25", "bm25_page_max.clean", "bm25_page_top3.clean")]),
    ("lexical_composition", "Lexical composition (joint -> condition lists)", [
        ("min", "bm25_or.clean", "bm25_cond_min.clean"),
        ("product", "bm25_or.clean", "bm25_cond_product.clean"),
        ("hmean", "bm25_or.clean", "bm25_cond_hmean.clean"),
        ("round_robin", "bm25_or.clean", "bm25_cond_rr.clean"),
        ("sdr", "bm25_or.clean", "bm25_sdr.clean"),
        ("page_min", "bm25_page_max.clean", "bm25_pagecond_min.clean"),
        ("page_product", "bm25_page_max.clean", "bm25_pagecond_product.clean"),
        ("page_hmean", "bm25_page_max.clean", "bm25_pagecond_hmean.clean")]),
    ("dense_composition", "Dense composition (MiniLM joint -> condition lists)", [
        ("min_best", "minilm_joint_best.clean", "minilm_cond_min_best.clean"),
        ("product_best", "minilm_joint_best.clean", "minilm_cond_product_best.clean"),
        ("hmean_best", "minilm_joint_best.clean", "minilm_cond_hmean_best.clean"),
        ("min_top3", "minilm_joint_top3.clean", "minilm_cond_min_top3.clean"),
        ("product_top3", "minilm_joint_top3.clean", "minilm_cond_product_top3.clean"),
        ("hmean_top3", "minilm_joint_top3.clean", "minilm_cond_hmean_top3.clean"),
        ("round_robin", "minilm_joint_best.clean", "minilm_cond_rr.clean")]),
    ("sparse_composition", "Learned-sparse composition (SPLADE-tiny joint -> condition lists)", [
        (f"{how}_{agg}", f"splade_joint_{agg}.clean", f"splade_cond_{how}_{agg}.clean")
        for agg in ("best", "top3") for how in ("min", "product", "hmean")]),
    ("fusion_vs_lexical", "Lexical-model fusion vs its lexical list (RRF; MiniLM, SPLADE-tiny)", [
        ("and_top3", "bm25_and.clean", "rrf_bm25_and+minilm_joint_top3.clean"),
        ("or_best", "bm25_or.clean", "rrf_bm25_or+minilm_joint_best.clean"),
        ("and_hmean", "bm25_and.clean", "rrf_bm25_and+minilm_cond_hmean_best.clean"),
        ("and_top3_splade", "bm25_and.clean", "rrf_bm25_and+splade_joint_top3.clean"),
        ("or_best_splade", "bm25_or.clean", "rrf_bm25_or+splade_joint_best.clean"),
        ("and_hmean_splade", "bm25_and.clean", "rrf_bm25_and+splade_cond_hmean_best.clean")]),
    ("fusion_vs_dense", "Lexical-model fusion vs its model list (RRF; MiniLM, SPLADE-tiny)", [
        ("and_top3", "minilm_joint_top3.clean", "rrf_bm25_and+minilm_joint_top3.clean"),
        ("or_best", "minilm_joint_best.clean", "rrf_bm25_or+minilm_joint_best.clean"),
        ("and_hmean", "minilm_cond_hmean_best.clean", "rrf_bm25_and+minilm_cond_hmean_best.clean"),
        ("and_top3_splade", "splade_joint_top3.clean", "rrf_bm25_and+splade_joint_top3.clean"),
        ("or_best_splade", "splade_joint_best.clean", "rrf_bm25_or+splade_joint_best.clean"),
        ("and_hmean_splade", "splade_cond_hmean_best.clean", "rrf_bm25_and+splade_cond_hmean_best.clean")]),
    ("lexical_fusion", "Lexical fusion (RRF / round robin)", [
        ("rrf_and_top3", "bm25_and.clean", "rrf_bm25_and+bm25_page_top3.clean"),
        ("rr_and_top3", "bm25_and.clean", "rr_bm25_and+bm25_page_top3.clean"),
        ("rrf_or_sdr", "bm25_or.clean", "rrf_bm25_or+bm25_sdr.clean")]),
    ("reranking", "Fixed-pool re-scoring (BM25-OR top-100 -> MiniLM, e5-small)", [
        ("minilm", "bm25_or.clean", "minilm_pool_best_bm25_or.clean"),
        ("e5", "bm25_or.clean", "e5_pool_bm25_or.clean")]),
    ("spin", "SPIN (MiniLM, natural form; m x layer grid)", [
        (f"m{m}_l{layer}", "minilm_joint_best.natural", f"spin_m{m}_l{layer}.natural")
        for m in (1, 3, 5, 7) for layer in (1, 3, 5)]),
]

FINDINGS = [  # the paper's directional findings, re-tested (sec. 3.1, 4.1-4.4, 5)
    ("dense_decomposition", "Condition-wise decomposition improves a dense backbone (sec. 4.2)",
     "minilm_joint_best.clean", "minilm_cond_hmean_best.clean", "nclue_score", "+"),
    ("dense_decomposition_product", "Condition-wise decomposition (product) improves a dense backbone (sec. 4.2)",
     "minilm_joint_best.clean", "minilm_cond_product_best.clean", "nclue_score", "+"),
    ("sparse_decomposition", "Condition-wise decomposition improves a learned-sparse backbone (sec. 4.2)",
     "splade_joint_best.clean", "splade_cond_hmean_best.clean", "nclue_score", "+"),
    ("fusion_adds_to_sparse", "Lexical fusion improves the learned-sparse/page list (sec. 4.2)",
     "splade_joint_top3.clean", "rrf_bm25_and+splade_joint_top3.clean", "nclue_score", "+"),
    ("fusion_adds_to_dense", "Lexical fusion improves the dense/page list (sec. 4.2, +8.7)",
     "minilm_joint_top3.clean", "rrf_bm25_and+minilm_joint_top3.clean", "nclue_score", "+"),
    ("fusion_adds_to_lexical", "Fusion improves over BM25-AND (Table 3: 26.8 -> 35.8)",
     "bm25_and.clean", "rrf_bm25_and+minilm_joint_top3.clean", "nclue_score", "+"),
    ("page_top3_discovery", "Top-3 page aggregation mainly expands discovery (Gold Hit, sec. 4.1)",
     "minilm_joint_best.clean", "minilm_joint_top3.clean", "gold_hit", "+"),
    ("lexical_distinct_page", "BM25 distinct-page beats BM25-AND (Table 3: 26.8 -> 27.9)",
     "bm25_and.clean", "bm25_sdr.clean", "nclue_score", "+"),
    ("reranking_hurts_gold_ndcg", "Generic fixed-pool re-scoring reduces Gold-NDCG (sec. 4.2)",
     "bm25_or.clean", "minilm_pool_best_bm25_or.clean", "gold_ndcg", "-"),
    ("or_graded_over_and", "BM25-OR exceeds BM25-AND on graded NDCG@10 (sec. 3.1: .407 vs .265)",
     "bm25_and.clean", "bm25_or.clean", "graded_ndcg", "+"),
    ("and_auc_over_or", "BM25-AND orders gold over subsets better than BM25-OR (AUC .635 vs .586)",
     "bm25_or.clean", "bm25_and.clean", "auc", "+"),
    ("spin_coverage", "SPIN raises perspective coverage HC@10 over naive MiniLM (Multi3IR Table 4)",
     "minilm_joint_best.natural", "spin_m5_l3.natural", HC.name, "+"),
    ("spin_random_control", "Random vectors of the same norm do not raise HC@10 (Multi3IR control)",
     "minilm_joint_best.natural", "spin_random_m5_l3.natural", HC.name, "0"),
    ("spin_nclue", "SPIN (m=5, layer 3) changes n-Clue Score@10 over naive MiniLM (exploratory)",
     "minilm_joint_best.natural", "spin_m5_l3.natural", "nclue_score", "+"),
    ("masking_c1", "Dropping c1 lowers Gold-NDCG (sec. 5)",
     "bm25_or.clean", "bm25_or_drop_c1.clean", "gold_ndcg", "-"),
    ("masking_c2", "Dropping c2 lowers Gold-NDCG (sec. 5)",
     "bm25_or.clean", "bm25_or_drop_c2.clean", "gold_ndcg", "-"),
]

FORM_SYSTEMS = ["bm25_or", "bm25_and", "bm25_sdr", "bm25_page_top3", "bm25_page_max", "bm25_cond_hmean",
                "minilm_joint_best", "minilm_joint_top3", "minilm_cond_hmean_best",
                "minilm_cond_min_best", "minilm_cond_product_best", "rrf_bm25_and+minilm_joint_top3",
                "splade_joint_best", "splade_joint_top3", "splade_cond_hmean_best",
                "rrf_bm25_and+splade_joint_top3"]

SPIN_RUNS = (["minilm_joint_best.natural"] + [f"spin_m{m}_l{l}.natural" for m in (1, 3, 5, 7) for l in (1, 3, 5)]
             + [f"spin_random_m{m}_l3.natural" for m in (1, 3, 5, 7)] + ["minilm_cond_rr.clean"])

CONTROLS = ["ctrl_oracle.clean", "ctrl_single_page_floor_facts.clean", "ctrl_single_page_floor.clean",
            "ctrl_cond_prior.clean", "bm25_or_drop_c1.clean", "bm25_or_drop_c2.clean", "bm25_or_drop_c3.clean",
            "bm25_and_drop_c1.clean", "bm25_and_drop_c2.clean", "bm25_and_drop_c3.clean",
            "bm25_sdr_drop_c1.clean", "bm25_sdr_drop_c2.clean", "bm25_sdr_drop_c3.clean"]

V2_PAIRED = [  # Table S4 analogue on the source-shift release (lexical operations)
    ("lexical_sdr", "Lexical decomposition (SDR) - BM25-AND", "bm25_and", "bm25_sdr"),
    ("lexical_hmean", "Condition lists (hmean) - BM25-OR", "bm25_or", "bm25_cond_hmean"),
    ("page_top3", "Top-3 pages - best page", "bm25_page_max", "bm25_page_top3"),
    ("fusion", "RRF(BM25-AND, page top-3) - BM25-AND", "bm25_and", "rrf_bm25_and+bm25_page_top3"),
    ("fusion_vs_page", "RRF(BM25-AND, page top-3) - page top-3", "bm25_page_top3", "rrf_bm25_and+bm25_page_top3"),
]


FIGURE_LABELS = {  # short point labels of Figure 2(b), by (base, variant) of the displayed contrast
    ('bm25_page_max.clean', 'bm25_page_top3.clean'): 'BM25 best page → top-3 pages',
    ('bm25_or.clean', 'bm25_cond_min.clean'): 'BM25 joint → condition min',
    ('minilm_joint_best.clean', 'minilm_cond_hmean_best.clean'): 'MiniLM joint → condition hmean',
    ('splade_joint_best.clean', 'splade_cond_min_best.clean'): 'SPLADE joint → condition min',
    ('bm25_and.clean', 'rrf_bm25_and+splade_cond_hmean_best.clean'): 'BM25-AND → RRF with SPLADE hmean',
    ('splade_cond_hmean_best.clean', 'rrf_bm25_and+splade_cond_hmean_best.clean'): 'SPLADE hmean → RRF with BM25-AND',
    ('bm25_or.clean', 'rrf_bm25_or+bm25_sdr.clean'): 'BM25-OR → RRF with BM25 SDR',
    ('bm25_or.clean', 'minilm_pool_best_bm25_or.clean'): 'BM25-OR → MiniLM re-scoring',
    ('minilm_joint_best.natural', 'spin_m5_l1.natural'): 'MiniLM joint → SPIN (m5, l1)',
    # v2 (the paired table's clean contrasts)
    ('bm25_and.clean', 'bm25_sdr.clean'): 'BM25-AND → SDR',
    ('bm25_or.clean', 'bm25_cond_hmean.clean'): 'BM25-OR → condition hmean',
    ('bm25_and.clean', 'rrf_bm25_and+bm25_page_top3.clean'): 'BM25-AND → RRF with page top-3',
    ('bm25_page_top3.clean', 'rrf_bm25_and+bm25_page_top3.clean'): 'page top-3 → RRF with BM25-AND',
}


def effect_label(base, variant):
    """A figure point's label: its short name when listed, else the two run ids."""
    return FIGURE_LABELS.get((base, variant), f"{base} → {variant}")


def present(ctx, runs):
    return [r for r in runs if r in ctx.index]


def contrast_blocks(ctx):
    blocks = []
    for block_id, label, endpoints in BLOCKS:
        kept = [(e, b, v) for e, b, v in endpoints if b in ctx.index and v in ctx.index]
        if not kept:
            continue
        shown = max(kept, key=lambda e: (ctx.score(e[2], SCORE), e[0]))[0]
        blocks.append({"id": block_id, "label": label, "shown": shown,
                       "endpoints": [{"id": e, "base": b, "variant": v} for e, b, v in kept]})
    return blocks


def findings(ctx):
    rows = []
    for fid, statement, base, variant, measure, direction in FINDINGS:
        if base in ctx.index and variant in ctx.index:
            rows.append({"id": fid, "statement": statement, "base": base, "variant": variant,
                         "measure": measure, "direction": direction})
    return rows


def form_systems(ctx, systems):
    out = []
    for system in systems:
        forms = {f: f"{system}.{f}" for f in ("raw", "clean", "natural") if f"{system}.{f}" in ctx.index}
        if len(forms) == 3:
            out.append({"id": system, **forms})
    return out


def label_audit_tables(release):
    """Label validation (n-Clue sec. 5, supplement sec. 10): audit status and the mechanical
    quote audit, when the release has one (audit/quote_audit_<release>.jsonl)."""
    rows = f"audit/quote_audit_{release}.jsonl"
    if not (ROOT / rows).exists():
        return []
    tables = [{"id": "label_audit", "kind": "label_audit_status",
               "title": f"Label audit status of {release} (Table S5b / supplement sec. 10)"},
              {"id": "quote_audit", "kind": "quote_audit", "rows": rows,
               "title": f"Mechanical quote-backed audit of {release} (not an evaluator audit)"}]
    repairs = ROOT / "data" / release / "repairs"  # every shipped repair's impact on every run
    for path in sorted(repairs.glob("*.lineage.json")) if repairs.is_dir() else []:
        repair = path.name[: -len(".lineage.json")]
        tables += [{"id": f"repair_{repair}_runs", "kind": "repair_impact_runs", "repair": repair},
                   {"id": f"repair_{repair}_summary", "kind": "repair_impact_summary", "repair": repair}]
    return tables


def v1_spec(ctx):
    reps = present(ctx, REPRESENTATIVES)
    blocks = contrast_blocks(ctx)
    page_runs = [r for r in sorted(ctx.index) if r.endswith(".clean") and
                 any(x.pages is not None for x in ctx.run(r).rankings.values())]
    shown = [(b["label"], next(e for e in b["endpoints"] if e["id"] == b["shown"])) for b in blocks]
    tables = [
        {"id": "instrument", "kind": "instrument", "title": "Table 1 analogue: the v1 instrument"},
        {"id": "scorecard", "kind": "scorecard", "title": "Table 3 analogue: representative systems (clean form; SPIN natural)", "runs": reps},
        {"id": "outcomes", "kind": "outcomes", "title": "Table 4 analogue: mutually exclusive outcomes", "runs": reps},
        {"id": "contrasts", "kind": "contrasts", "title": "Table 5 analogue: controlled contrasts (displayed endpoint = best n-Clue in block; max-|T| over all tried endpoints; Holm across blocks)",
         "seed": SEED, "replicates": REPLICATES, "draws": DRAWS, "blocks": blocks},
        {"id": "sensitivity", "kind": "contrast_sensitivity", "title": "Tables S1f-S1i analogue: sensitivity of the displayed contrasts",
         "seed": SEED, "replicates": REPLICATES, "contrasts": [{"id": b["id"], "base": e["base"], "variant": e["variant"]} for b, (_, e) in zip(blocks, shown)]},
        {"id": "membership", "kind": "membership_graph", "title": "Table S1i analogue: shared-document graph"},
        {"id": "slices", "kind": "slices", "title": "Table 6 analogue: task-factor slices (Score / Hit)", "runs": reps},
        {"id": "forms", "kind": "forms", "title": f"Table S2b analogue: {REGISTRY.header(SCORE)} under three query forms", "systems": form_systems(ctx, FORM_SYSTEMS)},
        {"id": "page_evidence", "kind": "page_evidence", "title": "Table 8 analogue: stored-page evidence delivery (page-scored runs)", "runs": page_runs},
        {"id": "controls", "kind": "scorecard", "title": "Section 5 / Table S5a analogue: construct-validity controls", "runs": present(ctx, CONTROLS)},
        {"id": "coverage", "kind": "coverage", "title": "Perspective coverage (HC@k) beside n-Clue Score: covering conditions across documents is not finding one document that covers them all", "runs": "all", "ks": [10, 100]},
        {"id": "spin", "kind": "coverage", "title": "SPIN on MiniLM (Multi3IR sec. 4.2): HC@k, n-Clue Score and Gold Hit; naive m=1 baseline, learned grid, random-vector controls, condition oracle", "runs": present(ctx, SPIN_RUNS), "ks": [10, 100]},
        {"id": "findings", "kind": "findings", "title": "Do the paper's directional findings replicate on v1?", "seed": SEED, "replicates": REPLICATES, "findings": findings(ctx)},
        {"id": "matrix", "kind": "scorecard", "title": "Table S1 analogue: the complete matrix (every frozen run)", "runs": "all"},
    ] + label_audit_tables("v1")
    figures = [
        {"id": "figure2a", "kind": "landscape", "runs": "fair", "caption": f"Figure 2(a) analogue: {REGISTRY.header(HIT)} vs {REGISTRY.header(SCORE)} for every fair run (controls excluded)",
         "labelled": present(ctx, ["bm25_and.clean", "minilm_joint_best.clean", "rrf_bm25_and+minilm_joint_top3.clean", "minilm_cond_hmean_best.clean", "bm25_page_top3.clean"])},
        {"id": "figure2b", "kind": "delta_plane", "caption": "Figure 2(b) analogue: displayed contrasts in the delta plane with 95% family-bootstrap intervals",
         "seed": SEED, "replicates": REPLICATES,
         "effects": [{"label": effect_label(e["base"], e["variant"]), "block": b["label"], "base": e["base"], "variant": e["variant"]} for b, (_, e) in zip(blocks, shown)]},
    ]
    return {"k": K, "title": "nclue v1 (TeX Live manuals): release report", "intro": INTRO_V1,
            "tables": tables, "figures": figures}


def v2_spec(ctx):
    reps = present(ctx, ["bm25_or.clean", "bm25_and.clean", "bm25_sdr.clean", "bm25_cond_hmean.clean",
                         "bm25_page_max.clean", "bm25_page_top3.clean", "rrf_bm25_and+bm25_page_top3.clean",
                         "rrf_bm25_or+bm25_sdr.clean"])
    paired = []
    for cid, label, base, variant in V2_PAIRED:
        runs = {f: [f"{base}.{f}", f"{variant}.{f}"] for f in ("raw", "clean", "natural")
                if f"{base}.{f}" in ctx.index and f"{variant}.{f}" in ctx.index}
        if runs:
            paired.append({"id": cid, "label": label, "runs": runs})
    tables = [
        {"id": "instrument", "kind": "instrument", "title": "The v2 source-shift instrument (document level)"},
        {"id": "scorecard", "kind": "scorecard", "title": "Table 7 analogue: v2 scorecard (clean form)", "runs": reps},
        {"id": "outcomes", "kind": "outcomes", "title": "v2 outcomes", "runs": reps},
        {"id": "forms", "kind": "forms", "title": f"Table S3 analogue: {REGISTRY.header(SCORE)} under three forms", "systems": form_systems(ctx, FORM_SYSTEMS)},
        {"id": "paired", "kind": "paired_tests", "title": "Table S4 analogue: query-paired differences and permutation p", "seed": SEED, "draws": DRAWS, "contrasts": paired},
        {"id": "membership", "kind": "membership_graph", "title": "Shared-document graph (v2)"},
        {"id": "matrix", "kind": "scorecard", "title": "Every frozen v2 run", "runs": "all"},
    ] + label_audit_tables("v2")
    figures = [
        {"id": "figure2a", "kind": "landscape", "runs": "fair",
         "caption": f"Figure 2(a) analogue on v2: {REGISTRY.header(HIT)} vs {REGISTRY.header(SCORE)} for every fair run",
         "labelled": present(ctx, ["bm25_and.clean", "bm25_sdr.clean", "bm25_or.clean", "bm25_page_top3.clean",
                                   "rrf_bm25_and+bm25_page_top3.clean"])},
        {"id": "figure2b", "kind": "delta_plane", "seed": SEED, "replicates": REPLICATES,
         "caption": "Figure 2(b) analogue on v2: the paired table's clean contrasts with 95% family-bootstrap intervals",
         "effects": [{"label": effect_label(*c["runs"]["clean"]), "block": c["label"],
                      "base": c["runs"]["clean"][0], "variant": c["runs"]["clean"][1]}
                     for c in paired if "clean" in c["runs"]]},
    ]
    return {"k": K, "title": "nclue v2 (source shift): release report", "intro": INTRO_V2, "tables": tables,
            "figures": figures}


INTRO_V1 = [
    "v1 is a CrossPage analogue built by the n-Clue construction method from real TeX Live PDF manuals "
    "(see DATASHEET.md and provenance/). Every run was produced once, outside CI, and frozen with its sha256; "
    "model runs come from real models run on the CPU: all-MiniLM-L6-v2 (dense), SPLADE-tiny (learned sparse) "
    "and multilingual-e5-small (dense, over a fixed BM25-OR pool). Visual page retrievers, large rerankers and the "
    "paper's scale contrast could not be run here (provenance/BLOCKED_SYSTEMS.md).",
    "Our numbers are what they are: no retriever or instrument setting was tuned toward the paper's values. "
    "The findings section states which of the paper's directions hold on this instrument.",
]

INTRO_V2 = [
    "v2 is a document-level source-shift set (Python, Perl, R, LilyPond, gnuplot and Octave documentation) "
    "built by the same code. As in the paper, it tests operation directions, not page grounding.",
]


def main():
    for name, builder in (("v1", v1_spec), ("v2", v2_spec)):
        folder = ROOT / "data" / name
        if not (folder / "queries.jsonl").exists():
            continue
        ctx = ReleaseContext(folder, k=K)
        write_text_atomic(folder / "report.json", json.dumps(builder(ctx), indent=2, sort_keys=True) + "\n")
        print(f"wrote {folder / 'report.json'}")


if __name__ == "__main__":
    main()
