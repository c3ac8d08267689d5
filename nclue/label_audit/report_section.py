"""The report section on label validation: what has and has not been audited (pure function).

n-Clue paper (arXiv 2607.24165), sec. 5 and supplement sec. 10: the paper's labels were checked
by two independent evaluators on a blinded 300-pair sample, adjudicated on expanded pages and
repaired under a pre-specified policy (Tables S7-S14). This project ships that machinery
(``nclue audit``, docs/AUDIT.md) and the policy, but no evaluator has judged v1 or v2 yet, and no
judgment file may be invented. :func:`label_audit_section` says so, in tables whose every cell is
computed from explicit inputs (so it is a checkable claim) and in paragraphs built from the same
values:

- ``label_audit_status``: evaluator exports imported, repairs applied to the release, and the
  version of the pre-specified repair policy;
- ``mechanical_quote_audit``: the existing mechanical quote audit
  (``audit/quote_audit_<release>.jsonl``, :mod:`nclue.instrument.quote_audit`), recomputed
  from its rows with :mod:`nclue.agreement`: condition agreement (all, entity, section) with
  Wilson 95% intervals and Cohen's kappa, exact grade agreement, linearly weighted kappa of clue
  counts, and how many construction positives have their re-found quote on a construction page.

The caller reads the files; this module reads nothing.
"""

from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..agreement import cohen_kappa, wilson_interval
from ..claims import format_fixed
from ..errors import NclueError
from ..table import Column, Table

COLUMNS = (Column("agree", "agree", 0), Column("n", "of", 0), Column("percent", "%", 1),
           Column("lo", "Wilson 95% lo", 1), Column("hi", "Wilson 95% hi", 1), Column("kappa", "kappa", 3))


@dataclass(frozen=True)
class AuditSection:
    title: str
    paragraphs: Tuple[str, ...]
    tables: Tuple[Table, ...]


def _kappa(a: Sequence[Any], b: Sequence[Any], **kw: Any) -> Optional[float]:
    try:
        return cohen_kappa(list(a), list(b), **kw)
    except NclueError:
        return None


def _cells(a: Sequence[Any], b: Sequence[Any], kappa: bool = True) -> Dict[str, Optional[float]]:
    agree, n = sum(1 for x, y in zip(a, b) if x == y), len(a)
    lo, hi = wilson_interval(agree, n)
    return {"agree": agree, "n": n, "percent": 100.0 * agree / n, "lo": 100.0 * lo, "hi": 100.0 * hi,
            "kappa": _kappa(a, b) if kappa else None}


def mechanical_table(release: str, rows: Sequence[Mapping[str, Any]]) -> Table:
    """The mechanical quote audit recomputed from its rows (module docstring)."""
    if not rows:
        raise NclueError("the quote audit has no rows")
    cond_a, cond_b, kinds = [], [], []
    grade_a, grade_b, clue_a, clue_b = [], [], [], []
    positives = hits = 0
    for row in rows:
        for c in row["conditions"]:
            cond_a.append(bool(c["construction"]))
            cond_b.append(bool(c["recheck"]))
            kinds.append(c["condition_id"].split(":", 1)[0])
            positives += int(bool(c["construction"]))
            hits += int(bool(c["construction"]) and bool(c.get("on_construction_page")))
        a, b = row["construction"], row["recheck"]
        grade_a.append(f"{a['clues']}:{a['label']}:{a.get('gate') or '-'}")
        grade_b.append(f"{b['clues']}:{b['label']}:{b.get('gate') or '-'}")
        clue_a.append(a["clues"])
        clue_b.append(b["clues"])
    table_rows: List[Tuple[str, str, Mapping[str, Optional[float]]]] = [
        ("conditions", "Condition decisions: construction vs quote re-check", _cells(cond_a, cond_b))]
    for kind in sorted(set(kinds)):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        table_rows.append((f"conditions_{kind}", f"  {kind} conditions",
                           _cells([cond_a[i] for i in idx], [cond_b[i] for i in idx])))
    table_rows.append(("exact_grade", "Exact grade (clues, label, gate) of the pair", _cells(grade_a, grade_b)))
    table_rows.append(("clue_count", "Clue count (kappa: linear weights, 0-3)",
                       {**_cells(clue_a, clue_b, kappa=False),
                        "kappa": _kappa(clue_a, clue_b, categories=[0, 1, 2, 3], weights="linear")}))
    lo, hi = wilson_interval(hits, positives) if positives else (None, None)
    table_rows.append(("quote_on_construction_page",
                       "Construction positives whose re-found quote lies on a construction page",
                       {"agree": hits, "n": positives, "percent": 100.0 * hits / positives if positives else None,
                        "lo": None if lo is None else 100.0 * lo, "hi": None if hi is None else 100.0 * hi}))
    strata = Counter(r.get("stratum", "") for r in rows)
    note = (f"{len(rows)} seeded pairs ({', '.join(f'{k} {v}' for k, v in sorted(strata.items()))}); "
            "both sides are code of this project (a mechanical re-check, not a human audit).")
    return Table("mechanical_quote_audit", f"Mechanical quote-backed audit of {release} (not an evaluator audit)",
                 COLUMNS, tuple(table_rows), note=note)


def status_table(release: str, exports: int, repairs: int, policy_version: int) -> Table:
    """Counts of what has been audited: exports imported, repairs applied, policy version."""
    return Table("label_audit_status", f"Label audit status of {release}", (Column("value", "value", 0),), (
        ("evaluator_exports", "Evaluator exports imported", {"value": exports}),
        ("repairs", "Label repairs applied (data/<release>/repairs/)", {"value": repairs}),
        ("policy_version", "Pre-specified repair policy, version", {"value": policy_version}),
    ))


def policy_text(policy: Mapping[str, Any]) -> str:
    """How the report names the policy: ``<name> version <v>, sha256 <12 hex>``."""
    return f"{policy['policy']} version {policy['version']}, sha256 {str(policy['sha256'])[:12]}"


def section_paragraphs(release: str, status: Table, mech: Table, policy: str) -> Tuple[str, ...]:
    """The section's sentences, from the two tables' cells (so every number in them is a
    claim) and the policy's name (:func:`policy_text`)."""
    state = {key: values for key, _, values in status.rows}
    cells = {key: values for key, _, values in mech.rows}
    exports, repairs = int(state["evaluator_exports"]["value"]), int(state["repairs"]["value"])

    def pct(row: str) -> str:
        v = cells[row]
        return (f"{int(v['agree'])}/{int(v['n'])} ({format_fixed(v['percent'], 1)}%, Wilson 95% "
                f"[{format_fixed(v['lo'], 1)}, {format_fixed(v['hi'], 1)}])")

    kappa = cells["conditions"].get("kappa")
    paragraphs = []
    if exports == 0 and repairs == 0:
        paragraphs.append(
            f"No external audit has been imported for {release}: no evaluator has judged its labels, "
            "no label has been repaired, and every score in this report uses the released qrels. "
            "The audit machinery (nclue audit, docs/AUDIT.md) and the repair policy "
            f"({policy}, fixed before any judgment) are in place; no judgment file has been made "
            "up to fill this section.")
    else:
        paragraphs.append(
            f"{exports} evaluator export(s) have been imported for {release} and {repairs} repair(s) "
            f"applied under {policy}; the repair tables give their transitions and impact.")
    paragraphs.append(
        f"What the mechanical quote audit shows: on a seeded sample of {int(cells['exact_grade']['n'])} "
        f"pairs ({int(cells['conditions']['n'])} condition decisions), a second code path of this "
        "project searches the rebuilt page text for a quote by the release's own definitions and "
        f"compares the result with the construction label. They agree on {pct('conditions')}, "
        f"Cohen's kappa {'undefined' if kappa is None else format_fixed(kappa, 3)}; exact pair grades "
        f"agree on {pct('exact_grade')}. So the recorded page sets are reproducible from the page "
        "text by an independent rule, and the disagreements locate where outline headings and page "
        "text part.")
    paragraphs.append(
        "What it does not show: it is not a reviewer audit and not comparable with the paper's "
        "two-evaluator agreement (Table S8). Both sides encode the same condition definitions "
        "(a case-sensitive whole-word mention; a normalized section heading), so it cannot find a "
        "definition a reader would reject (a mention that does not make the document about the "
        "condition, a heading over an empty section), evidence both rules miss (false negatives outside "
        "the inventory), or errors the two code paths share; and it repairs nothing.")
    return tuple(paragraphs)


def label_audit_section(release: str, quote_audit_rows: Sequence[Mapping[str, Any]],
                        policy: Mapping[str, Any], exports: int = 0,
                        repairs: Sequence[str] = ()) -> AuditSection:
    """The section for ``release``.

    ``quote_audit_rows``: the rows of ``audit/quote_audit_<release>.jsonl``; ``policy``: the
    policy's reference (``nclue.label_audit.policy.Policy.ref()``: policy, version, sha256, file);
    ``exports``: evaluator exports behind the release's repairs; ``repairs``: ids of the repairs
    present in ``data/<release>/repairs/``.
    """
    mech = mechanical_table(release, quote_audit_rows)
    status = status_table(release, exports, len(repairs), int(policy["version"]))
    paragraphs = section_paragraphs(release, status, mech, policy_text(policy))
    return AuditSection(title=f"Label validation ({release})", paragraphs=tuple(paragraphs),
                        tables=(status, mech))
