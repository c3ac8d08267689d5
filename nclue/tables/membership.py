"""Kind ``membership_graph``: the Table S1i header rows, the shared-document graph.

Two rows, ``gold`` and ``judged``: queries, distinct documents, connected components of the
query-document membership graph, and the number of queries in the largest component (n-Clue
supplement, Table S1i).
"""

from dataclasses import dataclass
from typing import Optional

from .. import inference
from ..context import ReleaseContext
from ..table import Column, Table
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class MembershipSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`membership_graph`")
    title: Optional[str] = setting("text", "printed title", None)


def build(spec: MembershipSpec, ctx: ReleaseContext) -> Table:
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
    return Table(spec.id, spec_title(spec, "Shared-document graph (Table S1i)"), columns,
                 tuple(rows), "Queries are linked when they share a document (transitively).")


KIND = SpecKind("membership_graph", MembershipSpec, build,
                 "Table S1i header rows: queries, documents and connected components of the "
                 "gold and all-judged membership graphs.")
