"""Agreement and integrity statistics of an audit stage (n-Clue paper, supplement Tables S8,
S9 and S11), from a judged record, with the package's statistics (:mod:`nclue.agreement`).

Definitions (over the items every evaluator compared accepted; a condition's *support* is the
yes/no answer, its *page set* the pages quoted for it, empty for a no):

- derived grade of a pair = number of its asked conditions answered yes (Table S9: "grade 3
  occurs only for three-condition pairs");
- exact derived-grade agreement: identical grades; linearly weighted Cohen's kappa (Cohen 1968)
  over the fixed grade scale 0..3;
- condition support agreement: identical answers; binary Cohen's kappa (Cohen 1960);
- exact condition page-set agreement: identical page sets, over all conditions (two no answers
  agree);
- queries judged clear by both: pairs whose request both evaluators answered "clear" (the
  packet asks it of every item);
- quotes passing the exact check: quotes re-located by the import over quotes in accepted items;
- agreement with the construction: an evaluator's answer equals the construction decision
  (nonempty evidence page set);
- with more than two responses (adjudication): unanimous conditions, Fleiss' kappa (1971),
  pairwise condition agreement, and per response positive / negative / pages / quotes (Table
  S11).

Every percentage comes with its Wilson 95% interval. A kappa that is undefined (a single
category used) is left empty, never printed as 0.
"""

from itertools import combinations
from typing import Dict, List, Optional, Sequence, Tuple

from ..agreement import fleiss_kappa, kappa_from_matrix, wilson_interval
from ..errors import NclueError
from ..table import Column, Table
from .record import Record, completed_by_all, distinct_streams
from .spec import KeyItem

GRADES = (0, 1, 2, 3)
COLUMNS = (Column("agree", "count", 0), Column("n", "of", 0), Column("percent", "%", 1),
           Column("lo", "Wilson 95% lo", 1), Column("hi", "Wilson 95% hi", 1),
           Column("kappa", "kappa", 3))


def _row(agree: int, n: int, kappa: Optional[float] = None) -> Dict[str, Optional[float]]:
    if n == 0:
        return {"agree": agree, "n": n, "percent": None, "lo": None, "hi": None, "kappa": kappa}
    lo, hi = wilson_interval(agree, n)
    return {"agree": agree, "n": n, "percent": 100.0 * agree / n, "lo": 100.0 * lo, "hi": 100.0 * hi,
            "kappa": kappa}


def _kappa(matrix: Sequence[Sequence[int]], weights: Optional[str] = None) -> Optional[float]:
    try:
        return kappa_from_matrix(matrix, weights)
    except NclueError:
        return None


def asked(item: KeyItem) -> List[int]:
    return [c.index for c in item.conditions if c.ask]


def grade(record: Record, evaluator: str, item: KeyItem) -> int:
    conds = record.answers[evaluator][item.item]
    return sum(1 for i in asked(item) if conds[i].positive)


def confusion(record: Record, a: str, b: str) -> List[List[int]]:
    """Grade confusion matrix over GRADES (rows: a, columns: b) on items both accepted."""
    matrix = [[0] * len(GRADES) for _ in GRADES]
    for item in completed_by_all(record, [a, b]):
        matrix[grade(record, a, item)][grade(record, b, item)] += 1
    return matrix


def two_rater_table(record: Record, a: str, b: str, table_id: str = "audit_agreement",
                    title: str = "") -> Table:
    """Table S8 analogue for two response streams."""
    items = completed_by_all(record, [a, b])
    total_conditions = sum(len(asked(it)) for it in record.items)
    conditions = [(it, i) for it in items for i in asked(it)]
    ans_a = [record.answers[a][it.item][i] for it, i in conditions]
    ans_b = [record.answers[b][it.item][i] for it, i in conditions]
    support = [[0, 0], [0, 0]]
    for x, y in zip(ans_a, ans_b):
        support[int(x.positive)][int(y.positive)] += 1
    grades = confusion(record, a, b)
    grade_agree = sum(grades[g][g] for g in range(len(GRADES)))
    quotes = sum(e["quotes"] for e in record.evaluators if e["id"] in (a, b))
    rows = [
        ("pairs", "Completed pairs (both)", _row(len(items), len(record.items))),
        ("conditions", "Completed conditions (both)", _row(len(conditions), total_conditions)),
        ("grade", "Exact derived-grade agreement (kappa: linear weights, grades 0-3)",
         _row(grade_agree, len(items), _kappa(grades, "linear") if items else None)),
        ("support", "Condition support agreement (kappa: binary)",
         _row(support[0][0] + support[1][1], len(conditions), _kappa(support) if conditions else None)),
        ("pages", "Exact condition page-set agreement",
         _row(sum(1 for x, y in zip(ans_a, ans_b) if x.pages == y.pages), len(conditions))),
        ("clear", "Queries judged clear by both",
         _row(sum(1 for it in items if record.request_clear.get(a, {}).get(it.item) is True
                  and record.request_clear.get(b, {}).get(it.item) is True), len(items))),
        ("quotes", "Selected quotes passing the exact check", _row(quotes, quotes)),
    ]
    for evaluator in (a, b):
        positive = sum(1 for x in (ans_a if evaluator == a else ans_b) if x.positive)
        rows.append((f"positive_{evaluator}", f"Conditions {evaluator} supports", _row(positive, len(conditions))))
    return Table(table_id, title or f"Agreement and integrity, {record.packet_id} ({a} vs {b}; Table S8 analogue)",
                 COLUMNS, tuple(rows),
                 note="Wilson 95% intervals; agreement over the pairs both evaluators accepted.")


def confusion_table(record: Record, a: str, b: str, table_id: str = "audit_confusion") -> Table:
    """Table S9 analogue: derived-grade confusion matrix."""
    matrix = confusion(record, a, b)
    columns = tuple(Column(f"g{g}", f"{b} grade {g}", 0) for g in GRADES)
    rows = tuple((f"g{ga}", f"{a} grade {ga}", {f"g{gb}": matrix[ga][gb] for gb in GRADES}) for ga in GRADES)
    return Table(table_id, f"Derived-grade confusion matrix, {record.packet_id} (Table S9 analogue)",
                 columns, rows, note=f"Rows sum to {a}'s grades and columns to {b}'s.")


def strata_table(record: Record, a: str, b: str, table_id: str = "audit_strata") -> Table:
    """Exact derived-grade agreement by number of conditions and by source (sec. 10.2.1)."""
    items = completed_by_all(record, [a, b])
    groups: Dict[Tuple[str, str], List[KeyItem]] = {}
    for it in items:
        source, n = it.stratum.split(" | ")[0], len(it.conditions)
        groups.setdefault(("n", f"n={n}"), []).append(it)
        groups.setdefault(("source", source), []).append(it)
        groups.setdefault(("label", "pre-gold" if it.label == "gold" else "pre-subset"), []).append(it)
    rows = []
    for (kind, name), members in sorted(groups.items()):
        agree = sum(1 for it in members if grade(record, a, it) == grade(record, b, it))
        rows.append((f"{kind}:{name}", f"{name}", _row(agree, len(members))))
    return Table(table_id, f"Exact derived-grade agreement by stratum, {record.packet_id}", COLUMNS[:5],
                 tuple(rows), note="Counts describe the sample, not the population of qrels (Table S7).")


def construction_table(record: Record, table_id: str = "audit_construction",
                       names: Optional[Sequence[str]] = None) -> Table:
    """Each evaluator's condition answers against the construction decisions."""
    rows = []
    for evaluator in names or record.evaluator_ids:
        agree = n = 0
        matrix = [[0, 0], [0, 0]]
        for it in record.items:
            conds = record.answers[evaluator].get(it.item)
            if conds is None:
                continue
            for c in it.conditions:
                if not c.ask:
                    continue
                built = bool(c.construction_pages)
                said = conds[c.index].positive
                matrix[int(built)][int(said)] += 1
                agree += int(built == said)
                n += 1
        rows.append((evaluator, f"{evaluator} vs construction", _row(agree, n, _kappa(matrix) if n else None)))
    return Table(table_id, f"Condition answers against the construction labels, {record.packet_id}",
                 COLUMNS, tuple(rows))


def multi_rater_table(record: Record, table_id: str = "audit_adjudication",
                      names: Optional[Sequence[str]] = None) -> Table:
    """Agreement of three or more responses (sec. 10.3.2): unanimity, Fleiss' kappa, pairs."""
    names = tuple(names or record.evaluator_ids)
    items = completed_by_all(record, names)
    conditions = [(it, i) for it in items for i in asked(it)]
    counts = []
    unanimous = 0
    for it, i in conditions:
        yes = sum(1 for e in names if record.answers[e][it.item][i].positive)
        counts.append([len(names) - yes, yes])
        unanimous += int(yes in (0, len(names)))
    fleiss = None
    if conditions and len(names) >= 2:
        try:
            fleiss = fleiss_kappa(counts)
        except NclueError:
            fleiss = None
    rows = [("unanimous", f"Unanimous binary decisions (kappa: Fleiss, {len(names)} responses)",
             _row(unanimous, len(conditions), fleiss))]
    for a, b in combinations(names, 2):
        agree = sum(1 for it, i in conditions
                    if record.answers[a][it.item][i].positive == record.answers[b][it.item][i].positive)
        rows.append((f"pair_{a}_{b}", f"Condition agreement {a}-{b}", _row(agree, len(conditions))))
    return Table(table_id, f"Adjudication agreement, {record.packet_id} (sec. 10.3.2 analogue)", COLUMNS,
                 tuple(rows), note="Over the conditions every response completed.")


def integrity_table(record: Record, table_id: str = "audit_integrity") -> Table:
    """Per response: positive, negative, selected pages, quotes exact (Table S11 analogue)."""
    columns = (Column("positive", "positive", 0), Column("negative", "negative", 0),
               Column("pages", "pages", 0), Column("quotes", "quotes exact", 0),
               Column("quotes_of", "of", 0), Column("items", "accepted items", 0))
    rows = []
    totals = {"positive": 0, "negative": 0, "pages": 0, "quotes": 0, "quotes_of": 0, "items": 0}
    for evaluator in record.evaluator_ids:
        pages = sum(len(a.pages) for conds in record.answers[evaluator].values() for a in conds.values())
        info = next(e for e in record.evaluators if e["id"] == evaluator)
        cells = {"positive": info["positive"], "negative": info["negative"], "pages": pages,
                 "quotes": info["quotes"], "quotes_of": info["quotes"], "items": info["accepted_items"]}
        for k in totals:
            totals[k] += cells[k]
        rows.append((evaluator, evaluator, cells))
    rows.append(("all", "All", totals))
    return Table(table_id, f"Response integrity, {record.packet_id} (Table S11 analogue)", columns, tuple(rows),
                 note="Timing fields are not used in any validity or agreement calculation.")


def stage_tables(record: Record) -> List[Table]:
    """Every table of a stage, over its distinct response streams
    (:func:`nclue.label_audit.record.distinct_streams`: identical exports are one stream): two
    streams -> S8, S9, strata; more -> adjudication; always integrity (every export, collapsed
    ones included) and construction agreement."""
    names, _ = distinct_streams(record)
    tables: List[Table] = []
    if len(names) == 2:
        tables += [two_rater_table(record, *names), confusion_table(record, *names),
                   strata_table(record, *names)]
    elif len(names) > 2:
        tables.append(multi_rater_table(record, names=names))
    tables += [integrity_table(record), construction_table(record, names=names)]
    return tables


def tie_break_table(first: Record, records: Sequence[Record], policy, table_id: str = "audit_tie_break") -> Table:
    """Which first-pass stream each tie-break response sides with (supplement sec. 10.5: "The
    tie-breaker selects the duplicate-collapsed stream on 22 conditions and the other stream on
    53"), over the conditions the tie-break response answered."""
    from .repair import first_pass_streams, poll_streams
    streams = first_pass_streams(first, policy)[0]
    by_pair = {(it.qid, it.docid): it for it in first.items}
    rows = []
    for record, breaker in poll_streams(records, first)[0]:
        answered = [(it, index, answer) for it in record.items
                    for index, answer in record.answers[breaker].get(it.item, {}).items()]
        for stream in streams:
            agree = sum(1 for it, index, answer in answered
                        if first.answers[stream][by_pair[(it.qid, it.docid)].item][index].positive == answer.positive)
            rows.append((f"{breaker}|{stream}", f"{breaker} sides with {stream}", _row(agree, len(answered))))
    return Table(table_id, f"Tie-break selections, {first.packet_id} (sec. 10.5)", COLUMNS[:5], tuple(rows),
                 note="Over the split conditions each tie-break response answered; on a split it sides with "
                      "exactly one first-pass stream.")
