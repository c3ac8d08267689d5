"""Kind ``worked_example``: one query followed across one gold and two subsets (n-Clue paper,
supplement sec. 9, Table S6: "Concrete gold and subset labels for one released three-condition
query"; page IDs only, never page text).

Per document: its grade (clue count), page count, and for each condition of the query the
first (lowest) stored support page (1-based page ids as stored in ``evidence.jsonl``) and how
many pages store support (blank: no stored page for that condition). The last columns give
the document's rank in each listed run (blank: not retrieved in the top 100).
"""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class WorkedExampleSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`worked_example`")
    title: Optional[str] = setting("text", "printed title", None)
    qid: str = setting("text", "the query followed")
    docs: Tuple[str, ...] = setting("names", "judged documents (gold first, then subsets)")
    runs: Tuple[str, ...] = setting("run_list", "runs whose ranks are shown", None)


def build(spec: WorkedExampleSpec, ctx: ReleaseContext) -> Table:
    where = ctx.layout.report_spec
    query = ctx.release.queries.get(spec.qid)
    if query is None:
        raise InputError(where, f"table {spec.id!r}: unknown query {spec.qid!r}")
    judged = ctx.release.judgments.get(spec.qid, {})
    columns = [Column("grade", "Grade (clues)", 0), Column("pages", "Pages", 0)]
    for i, condition in enumerate(query.conditions, start=1):
        columns += [Column(f"c{i}:first", f"c{i} {condition!r}: first stored page", 0),
                    Column(f"c{i}:count", f"c{i} stored pages", 0)]
    runs = spec.runs or ()
    for run_id in runs:
        columns.append(Column(f"rank:{run_id}", f"rank in {ctx.label(run_id)}", 0))
    rows = []
    for docid in spec.docs:
        judgment = judged.get(docid)
        if judgment is None:
            raise InputError(where, f"table {spec.id!r}: {docid!r} is not judged for {spec.qid!r}")
        evidence = ctx.release.evidence.get((spec.qid, docid))
        if evidence is None:
            raise InputError(where, f"table {spec.id!r}: no stored evidence for {docid!r}")
        cells: Dict[str, Optional[float]] = {"grade": float(judgment.clues),
                                             "pages": float(ctx.release.corpus[docid].pages)}
        for i, pages in enumerate(evidence, start=1):
            cells[f"c{i}:count"] = float(len(pages))
            if pages:
                cells[f"c{i}:first"] = float(min(pages))
        for run_id in runs:
            ranking = ctx.run(run_id).rankings.get(spec.qid)
            docs = ranking.docs if ranking is not None else ()
            if docid in docs:
                cells[f"rank:{run_id}"] = float(docs.index(docid) + 1)
        label = f"{judgment.label} (grade {judgment.clues}): {docid}"
        rows.append((docid, label, cells))
    note = (f"Query {spec.qid}: " + "; ".join(f'"{c}"' for c in query.conditions) + ". Page ids "
            "are the release's stored support pages (evidence.jsonl); no page text is shown. The "
            "gold supports every condition on distinct pages; each subset lacks stored support "
            "for at least one condition, so the scorer requires the gold to be ranked first.")
    return Table(spec.id, spec_title(spec, "Worked example"), tuple(columns), tuple(rows), note)


KIND = SpecKind("worked_example", WorkedExampleSpec, build,
                 "Table S6 analogue: one query across a gold and subsets, with stored page ids "
                 "per condition and ranks in chosen runs.")
