"""Kind ``scoped``: any table kind, built over a query subset and/or another label version.

Two scopes, each generated from the release's own files (never typed in):

* ``queries``: ``"all"`` (default), ``"heldout"`` (the held-out-perspective test queries: at least
  one condition of ``heldout_conditions.json``, :mod:`nclue.instrument.heldout`), or
  ``"heldout_all"`` (every condition held out);
* ``label_version``: a repair id of ``data/<release>/repairs/`` (e.g. ``P1``, the support rule
  of ``audit/label_audit/support_rule_P1.md``), applied with its removal policy
  (:func:`nclue.label_audit.repair.load_label_version`); none: the released labels (P0).

The inner table (``table``) is any other table kind's object, parsed and checked exactly as at
the top level (an unknown key is refused with one line) and built on a view of the context
(:meth:`nclue.context.ReleaseContext.view`); its id must be the wrapper's. The sentence naming
the scope, with its query count, is prepended to the inner table's note.
"""

from dataclasses import dataclass, replace
from typing import Any, Dict, Optional, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..instrument.heldout import split_of
from ..formats import read_json
from ..release import Release
from ..table import Table
from .spec import SpecKind, setting

QUERY_SCOPES = {"all": "all test queries",
                "heldout": "held-out-perspective test queries (at least one held-out condition)",
                "heldout_all": "held-out-perspective test queries whose every condition is held out"}
HELDOUT_FILE = "heldout_conditions.json"


@dataclass(frozen=True)
class ScopedSpec:
    id: str = setting("text", "table id (the inner table's id)")
    kind: str = setting("text", "`scoped`")
    table: Any = setting("object", "the inner table: any other table kind's object")
    queries: str = setting("text", "`all`, `heldout` (at least one held-out condition) or "
                                   "`heldout_all` (every condition held out)", "all")
    label_version: Optional[str] = setting("text", "a repair id of data/<release>/repairs/ "
                                                   "(none: the released labels)", None)


def subset(release: Release, qids) -> Release:
    """The release restricted to ``qids`` (their qrels and evidence kept)."""
    keep = set(qids)
    return replace(release, queries={q: v for q, v in release.queries.items() if q in keep},
                   judgments={q: v for q, v in release.judgments.items() if q in keep},
                   evidence={k: v for k, v in release.evidence.items() if k[0] in keep})


def heldout_qids(ctx: ReleaseContext, scope: str) -> Tuple[str, ...]:
    """The test queries of a held-out scope, from the release's held-out files."""
    path = ctx.layout.folder / HELDOUT_FILE
    if not path.is_file():
        raise InputError(ctx.layout.report_spec, f"query scope {scope!r} needs {path}")
    held = read_json(path).get("condition_ids")
    if not isinstance(held, list):
        raise InputError(path, "'condition_ids' must be a list")
    split = split_of(ctx.layout.queries, ctx.layout.train_queries, ctx.layout.val_queries, held)
    return split.test_any if scope == "heldout" else split.test_all


def scoped_context(ctx: ReleaseContext, queries: str, label_version: Optional[str]) -> Tuple[ReleaseContext, str]:
    """The view of ``ctx`` a scope names, and the sentence that describes it."""
    if queries not in QUERY_SCOPES:
        raise InputError(ctx.layout.report_spec, f"query scope {queries!r} is not one of "
                                                 f"{', '.join(QUERY_SCOPES)}")
    release, words = ctx.release, []
    if label_version is not None:
        from .label_audit import label_version as load_version
        release, lineage = load_version(ctx, label_version)
        removed = len(lineage.get("removed_queries") or [])
        words.append(f"Label version {label_version} (repair of data/{ctx.name}/repairs/"
                     + (f"; {removed} queries left without a gold removed" if removed else "") + ")")
    if queries != "all":
        qids = heldout_qids(ctx, queries)
        release = subset(release, [q for q in qids if q in release.queries])
    if queries != "all" or label_version is not None:
        words.append(f"{QUERY_SCOPES[queries].capitalize()}: {len(release.queries)} of "
                     f"{len(ctx.release.queries)}")
    view = ctx.view(release, ("scope", queries, label_version or "")) if words else ctx
    if label_version is not None:
        view.label_version = label_version  # read by tables that compare with another release
    return view, ". ".join(words) + "." if words else ""


def build(spec: ScopedSpec, ctx: ReleaseContext) -> Table:
    from .kinds import table_from_dict
    inner: Dict[str, Any] = spec.table
    if inner.get("kind") == "scoped":
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: a scoped table cannot wrap another")
    if inner.get("id") != spec.id:
        raise InputError(ctx.layout.report_spec, f"table {spec.id!r}: the inner table's id must be {spec.id!r}")
    view, sentence = scoped_context(ctx, spec.queries, spec.label_version)
    table = table_from_dict(inner, view)
    note = sentence + (" " + table.note if table.note else "") if sentence else table.note
    return Table(table.table_id, table.title, table.columns, table.rows, note)


KIND = SpecKind("scoped", ScopedSpec, build,
                "Any other table kind over a query subset (held-out perspectives) and/or another "
                "label version (a repair such as P1).")
