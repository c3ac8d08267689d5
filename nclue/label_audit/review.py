"""The administrative review of the non-unanimous polled conditions.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.4: "A raw two-of-three vote cannot enforce
distinct evidence pages or correct a clear miss visible in displayed text. An administrative check
of all 14 non-unanimous conditions applied the same rubric and evidence; it is neither a fourth
vote nor included in kappa. Three decisions depart from raw majority" (each with its reason).

Written down here (the paper gives the principle, not a file format):

- **which conditions**: every condition a poll decided or left undecided (status ``adjudicated``
  or ``retained``, :func:`nclue.label_audit.repair.decide`) whose poll responses are not unanimous
  (at least one positive and one negative). For the challenge's tie-break the two first-pass
  responses count with the tie-break's (:func:`nclue.label_audit.repair.poll_mode`).
- ``nclue audit review`` writes a **review sheet** (JSON) listing them, each with its votes, the
  rule's decision and the pages any response quoted with a valid quote for it, and names the
  sha256 of the first-pass and poll records it was drawn from. The administrator fills in, for
  every listed condition, ``decision``: ``confirm`` (the rule's decision stands), ``positive`` or
  ``negative``, and for a departure a ``reason`` (one or more words).
- "The same rubric and evidence": a ``positive`` departure names ``pages``, a nonempty subset of the
  pages quoted validly for the condition (the administrator cannot add evidence nobody quoted);
  its evidence page set then follows the policy (:func:`nclue.label_audit.policy.page_set`).
- ``nclue audit repair --review SHEET`` refuses a sheet drawn from other records, one that misses
  or adds a condition, an unfilled decision, a departure without a reason, or positive pages
  outside the quoted ones; otherwise the departures replace the rule's decisions (status
  ``reviewed``, rule ``review.positive`` / ``review.negative``), the labels are re-derived by the
  gates as always, and the lineage records the sheet's sha256. The review is not a vote: agreement
  statistics never see it.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from ..errors import InputError
from ..formats import PathLike, read_bytes, read_json, sha256_bytes
from ..table import Column, Table
from .policy import Decision, Policy
from .record import Record
from .repair import Key3, decide, first_pass_streams, poll_answers

REVIEW_FORMAT = "nclue-audit-review"
DECISIONS = ("confirm", "positive", "negative")
POLLED = ("adjudicated", "retained")


@dataclass(frozen=True)
class ReviewItem:
    """One non-unanimous polled condition."""

    qid: str
    docid: str
    index: int
    condition_id: str
    yes: int
    no: int
    rule: str
    positive: bool
    construction_positive: bool
    quoted_pages: Tuple[int, ...]

    @property
    def key(self) -> Key3:
        return (self.qid, self.docid, self.index)


def _quoted(first: Record, names: Sequence[str], polls: Mapping[Key3, Sequence[Any]], key: Key3) -> Tuple[int, ...]:
    """Pages of every valid positive quote for one condition: first-pass streams and poll responses."""
    pages = set()
    item = next(it for it in first.items if (it.qid, it.docid) == key[:2])
    for name in names:
        answer = first.answers[name].get(item.item, {}).get(key[2])
        if answer is not None and answer.positive:
            pages.update(answer.pages)
    for answer in polls.get(key, ()):
        if answer.positive:
            pages.update(answer.pages)
    return tuple(sorted(pages))


def review_items(first: Record, polls_records: Sequence[Record], policy: Policy) -> List[ReviewItem]:
    """The conditions the administrative review must check (module docstring), sorted."""
    names = first_pass_streams(first, policy)[0]
    polls = poll_answers(first, polls_records)
    out = []
    for outcome in decide(first, polls_records, policy):
        for c in outcome.conditions:
            yes, no = c.votes
            if c.decision.status in POLLED and yes and no:
                key = (outcome.qid, outcome.docid, c.index)
                out.append(ReviewItem(outcome.qid, outcome.docid, c.index, c.condition_id, yes, no,
                                      c.decision.rule, c.decision.positive, bool(c.construction_pages),
                                      _quoted(first, names, polls, key)))
    return out


def record_hashes(first: Record, polls_records: Sequence[Record]) -> Dict[str, Any]:
    return {"first_record_sha256": first.sha256,
            "poll_record_sha256": sorted(r.sha256 for r in polls_records)}


def review_sheet(items: Sequence[ReviewItem], first: Record, polls_records: Sequence[Record],
                 policy: Policy) -> Dict[str, Any]:
    """The sheet to fill in: every condition with ``decision``, ``pages`` and ``reason`` empty."""
    return {"format": REVIEW_FORMAT, "version": 1, "packet_id": first.packet_id, **record_hashes(first, polls_records),
            "policy_sha256": policy.sha256,
            "instructions": "For every condition set decision to confirm, positive or negative; a positive or "
                            "negative that departs from the rule's decision needs a reason; a positive names "
                            "pages among quoted_pages. Apply the same rubric and the displayed evidence only.",
            "conditions": [{"qid": i.qid, "docid": i.docid, "index": i.index, "condition_id": i.condition_id,
                            "votes": {"yes": i.yes, "no": i.no}, "rule": i.rule,
                            "rule_decision": "positive" if i.positive else "negative",
                            "quoted_pages": list(i.quoted_pages), "decision": None, "pages": [], "reason": ""}
                           for i in items]}


@dataclass(frozen=True)
class Review:
    """A validated review sheet: its sha256 and the decisions that depart from the rule."""

    path: str
    sha256: str
    checked: int
    confirmed: int
    departures: Mapping[Key3, Decision]
    reasons: Mapping[Key3, str]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_review(path: PathLike, items: Sequence[ReviewItem], first: Record, polls_records: Sequence[Record]) -> Review:
    """Read and validate a filled review sheet against the conditions it must cover (module docstring)."""
    raw = read_bytes(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != REVIEW_FORMAT or data.get("version") != 1:
        raise InputError(path, f"not a review sheet (format {REVIEW_FORMAT!r}, version 1 expected)")
    for name, value in record_hashes(first, polls_records).items():
        if data.get(name) != value:
            raise InputError(path, f"{name} differs: the sheet was drawn from other records")
    rows = data.get("conditions")
    if not isinstance(rows, list):
        raise InputError(path, "'conditions' must be a list")
    wanted = {i.key: i for i in items}
    seen = set()
    departures: Dict[Key3, Decision] = {}
    reasons: Dict[Key3, str] = {}
    for number, row in enumerate(rows):
        where = f"conditions[{number}]"
        if not isinstance(row, dict) or not isinstance(row.get("qid"), str) or \
                not isinstance(row.get("docid"), str) or not _is_int(row.get("index")):
            raise InputError(path, f"{where}: needs string qid and docid and an integer index")
        key = (row["qid"], row["docid"], row["index"])
        where = f"{where} ({key[0]}, {key[1]}, condition {key[2] + 1})"
        if key not in wanted:
            raise InputError(path, f"{where}: not a non-unanimous polled condition of these records")
        if key in seen:
            raise InputError(path, f"{where}: listed twice")
        seen.add(key)
        item = wanted[key]
        decision, reason, pages = row.get("decision"), row.get("reason"), row.get("pages", [])
        if decision not in DECISIONS:
            raise InputError(path, f"{where}: decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
        if not isinstance(pages, list) or not all(_is_int(p) for p in pages):
            raise InputError(path, f"{where}: 'pages' must be a list of page numbers")
        if decision == "confirm" or (decision == "positive") == item.positive:
            if decision == "positive" and pages:
                raise InputError(path, f"{where}: the rule's decision is already positive; write confirm")
            continue
        if not isinstance(reason, str) or not reason.strip():
            raise InputError(path, f"{where}: a decision that departs from the rule needs a reason")
        if decision == "positive":
            if not pages or not set(pages) <= set(item.quoted_pages):
                raise InputError(path, f"{where}: a positive decision names pages among the validly quoted "
                                       f"pages {list(item.quoted_pages)}, got {pages}")
            departures[key] = Decision(True, "reviewed", "review.positive", tuple(sorted(set(pages))))
        else:
            departures[key] = Decision(False, "reviewed", "review.negative", ())
        reasons[key] = reason.strip()
    missing = sorted(set(wanted) - seen)
    if missing:
        q, d, i = missing[0]
        raise InputError(path, f"{len(missing)} non-unanimous condition(s) not reviewed, e.g. ({q}, {d}, "
                               f"condition {i + 1})")
    return Review(str(path), sha256_bytes(raw), len(items), len(items) - len(departures), departures, reasons)


def review_table(items: Sequence[ReviewItem], review: Review, table_id: str = "audit_review") -> Table:
    """The review's counts and one row per departure (with its reason in the label)."""
    by_key = {i.key: i for i in items}
    rows: List = [("checked", "Non-unanimous conditions checked", {"count": review.checked}),
                  ("confirmed", "Rule's decision confirmed", {"count": review.confirmed}),
                  ("to_positive", "Departures to positive",
                   {"count": sum(1 for d in review.departures.values() if d.positive)}),
                  ("to_negative", "Departures to negative",
                   {"count": sum(1 for d in review.departures.values() if not d.positive)})]
    for key in sorted(review.departures):
        item = by_key[key]
        to = "positive" if review.departures[key].positive else "negative"
        rows.append((f"{key[0]}|{key[1]}|{key[2]}",
                     f"{key[0]} / {key[1]} condition {key[2] + 1} ({item.condition_id}), {item.yes} yes / "
                     f"{item.no} no, rule {'positive' if item.positive else 'negative'} -> {to}: "
                     f"{review.reasons[key]}", {"count": 1}))
    return Table(table_id, "Administrative review of the non-unanimous polled conditions (sec. 10.4)",
                 (Column("count", "count", 0),), tuple(rows),
                 note="Neither a vote nor part of any agreement statistic; a positive departure rests on pages "
                      "some response quoted validly, and labels are re-derived by the page gates.")
