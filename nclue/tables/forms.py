"""Kind ``forms``: the Table S2b / S3 analogue, n-Clue Score@k under the three query forms.

Each system lists its run under the raw, clean and natural renderings of the same queries
(n-Clue paper, supplement Tables S2b and S3).
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from ..context import ReleaseContext
from ..release import FORMS
from ..table import Column, Table, qualified_key
from .spec import SpecKind, setting, spec_title


@dataclass(frozen=True)
class FormSystem:
    id: str = setting("text", "row id")
    label: Optional[str] = setting("text", "printed row label (default: the id)", None)
    raw: Optional[str] = setting("run", "run under the raw form", None)
    clean: Optional[str] = setting("run", "run under the clean form", None)
    natural: Optional[str] = setting("run", "run under the natural form", None)


@dataclass(frozen=True)
class FormsSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`forms`")
    title: Optional[str] = setting("text", "printed title", None)
    systems: Tuple[FormSystem, ...] = setting(FormSystem, "rows: one system under each form")


def build(spec: FormsSpec, ctx: ReleaseContext) -> Table:
    score = ctx.registry.measure("nclue_score", ctx.k)
    columns = tuple(Column(qualified_key(form, score), form, 1) for form in FORMS)
    rows = []
    for system in spec.systems:
        cells = {}
        for form in FORMS:
            run_id = getattr(system, form)
            if run_id:
                cells[qualified_key(form, score)] = ctx.scores(run_id)[score.name]
        rows.append((system.id, system.label or system.id, cells))
    return Table(spec.id, spec_title(spec, "Query-form robustness"), columns, tuple(rows))


KIND = SpecKind("forms", FormsSpec, build,
                 "Table S2b / S3 analogue: n-Clue Score@k of each system under raw / clean / "
                 "natural forms.")
