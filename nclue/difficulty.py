"""Per-query difficulty covariates (n-Clue paper, arXiv 2607.24165, supplement sec. 9, Table S5b
"Difficulty covariates: rarity, n, length, pool size").

For query q with conditions c_1..c_n, over a corpus of N documents:

- **condition rarity**: the mean over its conditions of ``ln(N / df_i)``, where ``df_i`` is the
  number of documents with stored support for c_i. The judged pool of a query is, by
  construction, every document supporting at least one of its conditions (sec. 3.2), and the
  release stores each judged document's pages per condition (``evidence.jsonl``), so ``df_i``
  is the number of the query's judged documents whose page list for c_i is non-empty;
- **condition count** n (2 or 3);
- **shortest-gold length**: ``ln(L_min)``, L_min the page count of the query's shortest gold;
- **judged-pool size**: ``ln(|D+|)``, the number of nonzero qrels.

Lengths and pool sizes are log-transformed (both are strongly right-skewed; a standardized log
is a relative-size effect). Queries without a gold are left out (they cannot succeed). The
regression standardizes each covariate over the queries kept.
"""

import math
from dataclasses import dataclass
from typing import Dict

from .release import Release

COVARIATES = ("rarity", "conditions", "log_lmin", "log_pool")
COVARIATE_LABELS = {"rarity": "condition rarity", "conditions": "condition count",
                    "log_lmin": "shortest-gold length", "log_pool": "judged-pool size"}


@dataclass(frozen=True)
class Difficulty:
    qid: str
    rarity: float
    conditions: int
    log_lmin: float
    log_pool: float


def condition_document_frequency(release: Release, qid: str) -> tuple:
    """Per condition of ``qid``: how many of its judged documents store support for it."""
    n = len(release.queries[qid].conditions)
    counts = [0] * n
    for docid in release.judgments.get(qid, {}):
        pages = release.evidence.get((qid, docid))
        if pages is None:
            continue
        for i, p in enumerate(pages):
            if p:
                counts[i] += 1
    return tuple(counts)


def query_difficulty(release: Release) -> Dict[str, Difficulty]:
    """Covariates of every query with a gold (module docstring), by qid (sorted)."""
    n_docs = len(release.corpus)
    out = {}
    for qid in sorted(release.queries):
        golds = release.golds(qid)
        if not golds:
            continue
        df = condition_document_frequency(release, qid)
        if not all(df):
            continue  # a condition without stored support: rarity undefined (not in v1/v2)
        rarity = math.fsum(math.log(n_docs / d) for d in df) / len(df)
        lmin = min(release.corpus[d].pages for d in golds)
        pool = len(release.judgments[qid])
        out[qid] = Difficulty(qid, rarity, len(df), math.log(lmin), math.log(pool))
    return out
