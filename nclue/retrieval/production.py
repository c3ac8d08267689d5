"""Producing frozen runs: run a registered system over every released query, or fuse runs.

Page-scored systems keep ``"pages"`` for their first :data:`PAGE_DEPTH` documents (3 pages each;
SDR: the assigned pages). Scores are written rounded to :data:`SIGNIFICANT` significant digits
(``float(f"{x:.6g}")``), page scores too; the order in the file is the order computed from
full-precision scores (ties: docid ascending for retrievers, stable input order for fusion), and
readers keep file order for equal scores. Every produced run gets a ``runs/index.json`` entry
(:func:`nclue.run_index.record_entries`) recording its system, configuration and the sha256 of
each input it read.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import __version__
from ..errors import InputError
from ..release import FORMS, Query, Release, render_forms
from . import controls, fusion
from .bm25 import Hit
from .systems import RetrievalContext, System

DEPTH = 100
SIGNIFICANT = 6
#: Page-scored runs keep their pages for the first PAGE_DEPTH documents (the evidence metric
#: reads the top 10; 20 leaves room), three pages each, to keep run files small.
PAGE_DEPTH = 20
TOKENIZER = ("nclue.retrieval.tokenize (lowercase, [^\\W_]+, Lucene English stop set, "
             "no stemming)")


def round_sig(value: float) -> float:
    """Round to :data:`SIGNIFICANT` significant digits (what the run files store)."""
    return float(f"{value:.{SIGNIFICANT}g}")


@dataclass(frozen=True)
class RunRequest:
    """One run to produce: its id, system, query form, masked condition and recorded base."""

    run_id: str
    system: System
    form: str
    drop: Optional[int] = None
    base: Optional[str] = None
    block: Optional[str] = None


def query_input(query: Query, form: str, drop: Optional[int]) -> Tuple[str, Tuple[str, ...]]:
    """The query text for ``form`` and the condition list, after masking ``c_drop``."""
    if drop is None:
        return query.forms[form], tuple(query.conditions)
    masked = controls.mask_condition(query.conditions, drop)
    if masked == tuple(query.conditions):
        return query.forms[form], masked
    if form == "raw" and query.forms["raw"] != ", ".join(query.conditions):
        raise InputError(query.qid, "cannot mask the raw form: it is not the conditions "
                                    "joined by ', '")
    # A one-condition query has no two-condition rendering: join what is left the same way.
    if len(masked) == 1:
        rendered = {"raw": masked[0], "clean": f'"{masked[0]}"',
                    "natural": f'Find the document that discusses "{masked[0]}".'}
    else:
        rendered = render_forms(masked)
    return rendered[form], masked


def hits_row(qid: str, hits: Sequence[Hit], page_depth: int = 0) -> dict:
    """One run line. Page scores are kept for the first ``page_depth`` documents only."""
    row: Dict[str, Any] = {"qid": qid, "docs": [h.docid for h in hits],
                           "scores": [round_sig(h.score) for h in hits]}
    if page_depth > 0 and any(h.pages is not None for h in hits):
        row["pages"] = {h.docid: [[page, round_sig(score)] for page, score in (h.pages or ())]
                        for h in hits[:page_depth]}
    return row


def run_rows(ctx: RetrievalContext, request: RunRequest) -> List[dict]:
    """Every query's ranking by the request's system, as run-file rows (sorted by qid)."""
    rows = []
    for qid in sorted(ctx.release.queries):
        query = ctx.release.queries[qid]
        text, conds = query_input(query, request.form, request.drop)
        rows.append(hits_row(qid, request.system.rank(ctx, query, text, conds), PAGE_DEPTH))
    return rows


def run_entry(request: RunRequest, rows: Sequence[dict], file_name: str, sha256: str,
              depth: int, k1: float, b: float, inputs: Mapping[str, str]) -> Dict[str, Any]:
    """The ``runs/index.json`` entry of a produced run. ``inputs``: sha256 of every input file
    the production read (queries, pages, qrels, evidence); the entry keeps those the system
    read."""
    system = request.system
    configuration: Dict[str, Any] = {"method": system.name, "depth": depth,
                                     "score_rounding": f"{SIGNIFICANT} significant digits"}
    if any("pages" in row for row in rows):
        configuration["pages"] = (f"best 3 pages (assigned pages for SDR) of the top "
                                  f"{PAGE_DEPTH} documents")
    if system.uses_bm25:
        configuration.update({"k1": k1, "b": b, "tokenizer": TOKENIZER})
    configuration.update(system.configuration(depth))
    operation, block, family = system.operation, system.block, system.family
    if request.drop is not None:
        configuration["drop_condition"] = request.drop
        operation = f"{operation}; condition c{request.drop} masked"
        block, family = "controls", "control"
    read = ("queries",) + system.reads
    return {"id": request.run_id, "file": file_name, "sha256": sha256, "family": family,
            "block": request.block or block, "operation": operation, "base": request.base,
            "form": request.form, "configuration": configuration,
            "privileged": system.privileged,
            "inputs": {name: inputs[name] for name in read if name in inputs},
            "producer": f"nclue retrieve (nclue {__version__})"}


FUSERS = {"rrf": lambda lists, depth: fusion.rrf(lists, fusion.RRF_K, depth),
          "round-robin": lambda lists, depth: fusion.round_robin(lists, depth)}


def fused_rows(release: Release, runs: Sequence[Any], method: str, depth: int) -> List[dict]:
    """Run-file rows of the fusion of ``runs`` (equal-weight RRF k = 60, or round robin)."""
    fuser = FUSERS[method]
    rows = []
    for qid in sorted(release.queries):
        lists = [list(run.rankings[qid].docs) if qid in run.rankings else [] for run in runs]
        rows.append(hits_row(qid, [Hit(d, s) for d, s in fuser(lists, depth)]))
    return rows


def fused_entry(run_id: str, file_name: str, sha256: str, method: str, inputs: Sequence[str],
                input_sha256: Mapping[str, str], forms: Sequence[str], block: str,
                base: Optional[str], depth: int) -> Dict[str, Any]:
    """The ``runs/index.json`` entry of a fused run."""
    distinct = sorted(set(forms) - {None})
    return {"id": run_id, "file": file_name, "sha256": sha256, "family": "fusion",
            "block": block, "operation": ("equal-weight RRF" if method == "rrf"
                                          else "round-robin interleaving"),
            "base": base if base else inputs[0],
            "form": distinct[0] if len(distinct) == 1 else "mixed",
            "configuration": {"method": method, "inputs": list(inputs), "depth": depth,
                              **({"k": fusion.RRF_K} if method == "rrf" else {}),
                              "ties": "stable input order" if method == "rrf"
                              else "none (strictly decreasing)",
                              "score_rounding": f"{SIGNIFICANT} significant digits"},
            "privileged": False,
            "inputs": {r: input_sha256[r] for r in inputs},
            "producer": f"nclue fuse (nclue {__version__})"}


def check_form(form: str, where: Any) -> str:
    if form not in FORMS:
        raise InputError(where, f"unknown form {form!r}; expected one of {', '.join(FORMS)}")
    return form
