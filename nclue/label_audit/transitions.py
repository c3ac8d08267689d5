"""Exact transition tables of a repair (n-Clue paper, supplement Tables S12 and S13).

Over the audited pairs (every pair both first-pass evaluators completed):

- grade transitions: clue count before (rows) -> after (columns, 0 = the pair left the qrels),
  counted with :func:`nclue.agreement.transition_matrix`;
- label transitions: gold -> gold / subset / grade 0, subset -> gold / subset (grade changed) /
  subset (same grade) / grade 0; a promotion that failed a page gate is counted as subset ->
  subset with its gate named in the repair file;
- corrections by stratum (source), "not to be reweighted into a population error estimate";
- for a challenge, label changes of targets and of controls;
- the conditions the policy left undecided (retained after a tied poll, or pending), listed.
"""

from typing import Dict, List, Sequence, Tuple

from ..agreement import transition_matrix
from ..table import Column, Table
from .repair import ConditionOutcome, PairOutcome

GRADES = (0, 1, 2, 3)


def _grade(label) -> int:
    return 0 if label is None else label[0]


def grade_transition_table(outcomes: Sequence[PairOutcome], table_id: str = "audit_grade_transitions") -> Table:
    """Clue count before -> after over the audited pairs."""
    columns = tuple(Column(f"to{g}", f"-> {g}", 0) for g in GRADES) + (Column("pairs", "pairs", 0),)
    if outcomes:
        t = transition_matrix([_grade(o.before) for o in outcomes], [_grade(o.after) for o in outcomes],
                              states=GRADES)
        counts = t.counts
    else:
        counts = {}
    rows = []
    for g in GRADES[1:]:
        cells = {f"to{h}": counts.get((g, h), 0) for h in GRADES}
        cells["pairs"] = sum(cells.values())
        rows.append((f"from{g}", f"grade {g}", cells))
    return Table(table_id, "Grade transitions of the audited pairs (Table S12 analogue)", columns, tuple(rows),
                 note="Rows: clue count before the repair; columns: after (0: the pair leaves the qrels).")


def label_transitions(outcomes: Sequence[PairOutcome]) -> Dict[str, int]:
    """Counts of the label transitions (module docstring), plus audited/changed totals."""
    out = {k: 0 for k in ("gold_gold", "gold_subset", "gold_none", "subset_gold", "subset_subset_changed",
                          "subset_subset_same", "subset_none")}
    for o in outcomes:
        before = o.before[1]
        if o.after is None:
            out[f"{before}_none"] += 1
        elif before == "gold":
            out["gold_gold" if o.after[1] == "gold" else "gold_subset"] += 1
        elif o.after[1] == "gold":
            out["subset_gold"] += 1
        else:
            out["subset_subset_changed" if o.after != o.before else "subset_subset_same"] += 1
    out["audited"] = len(outcomes)
    out["changed"] = sum(1 for o in outcomes if o.changed)
    return out


LABEL_ROWS = (
    ("audited", "Audited pairs"), ("changed", "Pairs whose label or evidence changed"),
    ("subset_gold", "subset -> gold (promotions)"), ("gold_subset", "gold -> subset (demotions)"),
    ("gold_none", "gold -> grade 0"), ("subset_none", "subset -> grade 0"),
    ("subset_subset_changed", "subset -> subset, label changed (grade or gate)"),
    ("subset_subset_same", "subset -> subset, same label"), ("gold_gold", "gold -> gold"),
)


def label_transition_table(outcomes: Sequence[PairOutcome], gold_problems: int, golds: int,
                           zero_gold_queries: int, table_id: str = "audit_label_transitions") -> Table:
    """Label transitions plus the gate re-check of the repaired copy."""
    counts = label_transitions(outcomes)
    rows: List = [(key, label, {"count": counts[key]}) for key, label in LABEL_ROWS]
    rows += [("golds", "Golds in the repaired copy", {"count": golds}),
             ("gold_gate_failures", "Golds failing a page gate after the repair", {"count": gold_problems}),
             ("zero_gold_queries", "Queries without a gold after the repair", {"count": zero_gold_queries})]
    return Table(table_id, "Label transitions and gate re-check (Table S12 analogue)",
                 (Column("count", "count", 0),), tuple(rows))


def stratum_table(outcomes: Sequence[PairOutcome], table_id: str = "audit_corrections") -> Table:
    """Corrections by source (Table S13 analogue)."""
    groups: Dict[str, List[int]] = {}
    for o in outcomes:
        source = o.stratum.split(" | ")[0]
        row = groups.setdefault(source, [0, 0])
        row[0] += 1
        row[1] += int(o.after != o.before)
    rows = [(s, s, {"sampled": v[0], "corrected": v[1]}) for s, v in sorted(groups.items())]
    rows.append(("all", "All", {"sampled": sum(v[0] for v in groups.values()),
                                "corrected": sum(v[1] for v in groups.values())}))
    return Table(table_id, "Corrections by audit stratum (Table S13 analogue)",
                 (Column("sampled", "audited", 0), Column("corrected", "label changed", 0)), tuple(rows),
                 note="These rates must not be reweighted into a population error estimate.")


def role_table(outcomes: Sequence[PairOutcome], table_id: str = "audit_roles") -> Table:
    """Targets and controls of a retrieval-conditioned challenge (supplement sec. 10.5: "101/125
    grades change ... and 23/25 control grades are retained")."""
    groups: Dict[str, List[int]] = {}
    for o in outcomes:
        row = groups.setdefault(o.role, [0, 0, 0])
        row[0] += 1
        row[1] += int(o.after != o.before)
        row[2] += int(o.after is not None and o.after[1] == "gold" and o.before[1] != "gold")
    rows = [(role, role, {"audited": v[0], "changed": v[1], "to_gold": v[2]}) for role, v in sorted(groups.items())]
    return Table(table_id, "Label changes by role (targets / controls)",
                 (Column("audited", "audited", 0), Column("changed", "label changed", 0),
                  Column("to_gold", "became gold", 0)), tuple(rows),
                 note="A contrast-conditioned challenge tests robustness; it does not estimate a population rate.")


#: decision statuses that keep the construction decision without the policy deciding
FLAGGED_STATUSES = ("retained", "pending")


def flagged_conditions(outcomes: Sequence[PairOutcome]) -> List[Tuple[PairOutcome, ConditionOutcome]]:
    """Conditions the policy left undecided (sorted by pair, then condition): ``retained`` (the
    poll tied or had too few agreeing responses) and ``pending`` (queued, no poll response)."""
    return [(o, c) for o in outcomes for c in o.conditions if c.decision.status in FLAGGED_STATUSES]


def flagged_table(outcomes: Sequence[PairOutcome], table_id: str = "audit_flagged") -> Table:
    """One row per flagged condition: its positive / negative responses and the construction
    decision kept (1: positive). The policy's "otherwise the construction decision is retained
    and flagged" (audit/label_audit/repair_policy_v1.json)."""
    rows = []
    for o, c in flagged_conditions(outcomes):
        rows.append((f"{o.qid}|{o.docid}|{c.index}",
                     f"{o.qid} / {o.docid} condition {c.index + 1} ({c.condition_id}): {c.decision.status}",
                     {"yes": c.votes[0], "no": c.votes[1], "kept": int(c.decision.positive)}))
    return Table(table_id, "Conditions the policy left undecided (construction decision kept)",
                 (Column("yes", "yes responses", 0), Column("no", "no responses", 0),
                  Column("kept", "construction decision kept (1 = positive)", 0)), tuple(rows),
                 note=("retained: the poll did not reach the agreeing responses the policy needs; pending: "
                       "queued for the poll, no response yet." if rows else "None: the policy decided every "
                       "queued condition."))
