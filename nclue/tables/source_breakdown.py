"""Kind ``source_breakdown``: one contrast broken down by document source (n-Clue paper,
supplement sec. 8: "Raw fusion-minus-BM25 is heterogeneous by source: +0.1283 arXiv, +0.0587
ERIC, -0.0428 Federal Register, and +0.0718 PMC OA").

A query's source is the source of its gold documents (corpus ``source``); a query whose golds
come from several sources is ``mixed``, one without a gold ``no gold``. Per source: queries,
base and variant means, the difference and a two-sided query-paired permutation p (every query
its own unit; all 2^n sign vectors are enumerated when n <= 12, else ``draws`` random ones
with the +1 correction).
"""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional

from .. import inference
from ..context import ReleaseContext
from ..errors import InputError, NclueError
from ..inference.montecarlo import p_value_se
from ..measures import Measure
from .contrasts import _vector
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title

EXACT_UP_TO = 12


@dataclass(frozen=True)
class SourceBreakdownSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`source_breakdown`")
    title: Optional[str] = setting("text", "printed title", None)
    base: str = setting("run", "base run")
    variant: str = setting("run", "variant run")
    measure: Measure = setting("measure", "per-query measure compared", "nclue_score")
    seed: int = setting("seed", "permutation seed", inference.DEFAULT_SEED)
    draws: int = setting("count", "permutation draws", inference.DEFAULT_DRAWS)


def query_sources(ctx: ReleaseContext) -> Dict[str, str]:
    """qid -> the source of its golds (``mixed`` / ``no gold`` otherwise)."""
    out = {}
    for qid in sorted(ctx.release.queries):
        sources = {ctx.release.corpus[d].source for d in ctx.release.golds(qid)}
        out[qid] = sources.pop() if len(sources) == 1 else ("mixed" if sources else "no gold")
    return out


def build(spec: SourceBreakdownSpec, ctx: ReleaseContext) -> Table:
    base = _vector(ctx, spec.id, spec.base, spec.measure)
    variant = _vector(ctx, spec.id, spec.variant, spec.measure)
    sources = query_sources(ctx)
    groups: Dict[str, List[str]] = {}
    for qid, source in sources.items():
        groups.setdefault(source, []).append(qid)
    order = sorted(groups, key=lambda s: (s in ("mixed", "no gold"), -len(groups[s]), s))
    rows = []
    for source in ["all"] + order:
        qs = sorted(sources) if source == "all" else groups[source]
        b = {q: base[q] for q in qs}
        v = {q: variant[q] for q in qs}
        try:
            test = inference.query_permutation_test(b, v, draws=spec.draws, seed=spec.seed,
                                                    exact=len(qs) <= EXACT_UP_TO)
        except NclueError as exc:
            raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: {exc}") from None
        cells = {"queries": float(len(qs)), "base": 100 * math.fsum(b.values()) / len(qs),
                 "variant": 100 * math.fsum(v.values()) / len(qs), "delta": 100 * test.delta,
                 "p": test.p, "se": 0.0 if test.exact else p_value_se(test.p, test.draws)}
        rows.append((source, "all queries" if source == "all" else source, cells))
    columns = (Column("queries", "Queries", 0), Column("base", f"{spec.base}", 1),
               Column("variant", f"{spec.variant}", 1), Column("delta", "Delta", 1),
               Column("p", "p (query-paired permutation)", 4), Column("se", "MC SE of p", 4))
    note = (f"{spec.measure}, percentage points; a query's source is that of its golds. p: "
            f"two-sided query-paired permutation ({spec.draws} draws, seed {spec.seed}; exact "
            f"enumeration for groups of at most {EXACT_UP_TO} queries, MC SE 0; else sqrt(p(1-p)/draws)).")
    return Table(spec.id, spec_title(spec, "Contrast by source"), columns, tuple(rows), note)


KIND = SpecKind("source_breakdown", SourceBreakdownSpec, build,
                 "Supplement sec. 8 analogue: one contrast per document source of the queries' "
                 "golds, with query-paired permutation p.")
