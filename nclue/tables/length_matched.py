"""Kind ``length_matched_auc``: gold-subset AUC on length-matched pairs (n-Clue paper, sec. 5
and supplement sec. 9: "matching document length changes AUC only slightly (e.g.
distinct-page BM25 .606 -> .598)").

Matching rule (:mod:`nclue.inference.matching`): a (gold, judged subset) pair of a query is
length-matched when the longer document has at most ``ratio`` times the pages of the shorter.
Per run: the AUC over every pair (the registry's ``auc``, queries with a gold and a subset);
the AUC over the same queries restricted to those with a matched pair; the AUC over the
matched pairs only; and their difference (matched - all, same queries), with a
family-bootstrap interval of that paired difference.
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .. import inference
from ..context import ReleaseContext
from ..inference.matching import matched_pairs, pairs_auc
from ..inference.montecarlo import paired_bounds_error
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class LengthMatchedSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`length_matched_auc`")
    title: Optional[str] = setting("text", "printed title", None)
    runs: Tuple[str, ...] = setting("run_list", "one row per run")
    ratio: float = setting("ratio", "pages of the longer document <= ratio x pages of the "
                                    "shorter", 1.25)
    seed: int = setting("seed", "bootstrap seed", inference.DEFAULT_SEED)
    replicates: int = setting("count", "bootstrap replicates", inference.DEFAULT_REPLICATES)


def query_pairs(ctx: ReleaseContext, ratio: float) -> Dict[str, List[Tuple[str, str]]]:
    """Per query (with a gold and a subset): its length-matched (gold, subset) pairs."""
    pages = {d: doc.pages for d, doc in ctx.release.corpus.items()}
    out = {}
    for qid in sorted(ctx.release.queries):
        judged = ctx.release.judgments.get(qid, {})
        golds = [d for d, j in judged.items() if j.is_gold]
        subsets = [d for d, j in judged.items() if not j.is_gold]
        if golds and subsets:
            out[qid] = matched_pairs(golds, subsets, pages, ratio)
    return out


def build(spec: LengthMatchedSpec, ctx: ReleaseContext) -> Table:
    pairs = query_pairs(ctx, spec.ratio)
    matched_q = sorted(q for q, p in pairs.items() if p)
    all_pairs = 0
    kept = 0
    for q in pairs:
        judged = ctx.release.judgments[q]
        g = sum(1 for j in judged.values() if j.is_gold)
        all_pairs += g * (len(judged) - g)
        kept += len(pairs[q])
    auc = ctx.registry.measure("auc")
    rows = []
    for run_id in spec.runs:
        run = ctx.run(run_id)
        every = ctx.vector(run_id, auc)
        matched = {}
        for q in matched_q:
            ranking = run.rankings.get(q)
            matched[q] = pairs_auc(pairs[q], ranking.docs if ranking else ())
        same = {q: every[q] for q in matched_q}
        resampler = ctx.resampler(same, spec.seed)
        bounds = paired_bounds_error(resampler, same, matched, spec.replicates,
                                     inference.DEFAULT_LEVEL)
        cells = {"auc_all": 100 * math.fsum(every.values()) / len(every),
                 "auc_same": 100 * math.fsum(same.values()) / len(same),
                 "auc_matched": 100 * math.fsum(matched.values()) / len(matched),
                 "delta": 100 * math.fsum(matched[q] - same[q] for q in matched_q) / len(matched_q),
                 "lo": 100 * bounds.lo, "hi": 100 * bounds.hi,
                 "se": 100 * bounds.se,
                 "fragile": 1.0 if bounds.fragile else 0.0, "queries": float(len(matched_q))}
        rows.append((run_id, ctx.label(run_id), cells))
    columns = (Column("auc_all", "AUC (all pairs, all queries)", 1),
               Column("auc_same", "AUC (all pairs, matched queries)", 1),
               Column("auc_matched", "AUC (length-matched pairs)", 1),
               Column("delta", "Delta (matched - all)", 1), Column("lo", "95% CI low", 1),
               Column("hi", "95% CI high", 1), Column("se", "MC SE of the bound nearest 0", 2),
               Column("fragile", "Fragile", 0), Column("queries", "Queries with a matched pair", 0))
    note = (f"AUC x 100. Matching rule: a (gold, subset) pair is length-matched when the longer "
            f"document has at most {spec.ratio:g} x the pages of the shorter; "
            f"{kept} of {all_pairs} pairs ({100 * kept / all_pairs:.1f}%) are matched. Delta is "
            "per query (matched-pair AUC minus all-pair AUC, same queries); interval: family "
            f"bootstrap ({spec.replicates} replicates, seed {spec.seed}). MC SE: Monte Carlo SE of "
            "the bound nearest 0 (in its own SEs); Fragile = 1 when it lies within two MC SE of 0.")
    return Table(spec.id, spec_title(spec, "Length-matched AUC"), columns, tuple(rows), note)


KIND = SpecKind("length_matched_auc", LengthMatchedSpec, build,
                 "Sec. 5 / Table S5b analogue: gold-subset AUC on length-matched pairs beside the "
                 "all-pair AUC, with the matching rule stated.")
