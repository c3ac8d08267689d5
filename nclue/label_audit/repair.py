"""Repair as a new label version: policy decisions -> repair file -> repaired copy of the qrels.

n-Clue paper (arXiv 2607.24165), supplement sec. 1.1: "The table below records which immutable
or repaired copy supports each reported result" (the P0 -> P genealogy); sec. 10.4: "The final
manifest changes 65/300 grades"; main text sec. 3.2: after the repair "all 2,176 gold qrels still
pass both page gates".

- :func:`decide` applies the policy (:mod:`.policy`) to a first-pass record and its adjudication
  records (or, for the challenge, its tie-break records, supplement sec. 10.5) and the optional
  administrative review (:mod:`.review`, sec. 10.4): one :class:`PairOutcome` per pair both
  first-pass evaluators completed. Identical exports are one response stream in every stage.
- :func:`repair_rows` keeps the pairs whose label or evidence changes; ``nclue audit repair``
  writes them to ``data/<release>/repairs/<id>.jsonl`` with ``<id>.lineage.json`` (inputs and
  their sha256, policy, base and result file hashes, gate re-check). The released qrels are never
  touched.
- :func:`apply_repair` derives the repaired copy deterministically: every row's ``before`` must
  equal the base exactly, then the row's ``after`` replaces it (``null``: the pair leaves the
  qrels). A repair may name earlier repairs it applies after (``after`` in the lineage).
- :func:`gold_gate_problems` re-checks both page gates on every gold of a copy with the
  instrument's gate functions (:mod:`nclue.instrument.gates`).
"""

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError, NclueError
from ..formats import (PathLike, dumps_canonical, iter_jsonl, jsonl_text, no_cycle_collection,
                       read_bytes, read_json, sha256_bytes, write_bytes_atomic, gzip_bytes)
from ..instrument.gates import distinct_page_assignment, judge, single_page_solvable
from ..layout import ReleaseLayout
from ..release import Judgment, Release
from .exports import ConditionAnswer
from .policy import (Decision, Policy, Response, adjudication_decision, first_pass_decision,
                     page_set, pending_decision)
from .record import Record, completed_by_all, distinct_streams, stream_signature

REPAIR_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
Label = Tuple[int, str, Optional[str]]


@dataclass(frozen=True)
class ConditionOutcome:
    index: int
    condition_id: str
    construction_pages: Tuple[int, ...]
    decision: Decision
    pages: Tuple[int, ...]
    #: (positive, negative) responses behind the decision: the poll's for a polled condition,
    #: the first pass's otherwise, (0, 0) for a pending one
    votes: Tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class PairOutcome:
    qid: str
    docid: str
    role: str
    stratum: str
    before: Label
    after: Optional[Label]
    before_pages: Tuple[Tuple[int, ...], ...]
    after_pages: Tuple[Tuple[int, ...], ...]
    conditions: Tuple[ConditionOutcome, ...]

    @property
    def changed(self) -> bool:
        return self.after != self.before or self.after_pages != self.before_pages


@dataclass(frozen=True)
class CollapsedStream:
    """A response stream identical to an earlier one of the same stage (counted once)."""

    stage: str
    packet_id: str
    collapsed: str
    into: str

    def to_json(self) -> Dict[str, str]:
        return {"stage": self.stage, "packet_id": self.packet_id, "collapsed": self.collapsed,
                "into": self.into}


def _responses(answers: Sequence[ConditionAnswer]) -> List[Response]:
    return [Response(a.positive, a.pages) for a in answers]


def _votes(responses: Sequence[Response]) -> Tuple[int, int]:
    positive = sum(1 for r in responses if r.positive)
    return positive, len(responses) - positive


def first_pass_streams(first: Record, policy: Policy) -> Tuple[Tuple[str, ...], List[CollapsedStream]]:
    """The first pass's distinct response streams (identical exports collapsed,
    :func:`nclue.label_audit.record.distinct_streams`); exactly the policy's number is required."""
    if first.stage != "first_pass":
        raise NclueError(f"{first.packet_id}: the first record must be a first-pass stage")
    names, collapsed = distinct_streams(first)
    if collapsed and len(names) < policy.first_pass_responses:
        dropped, into = collapsed[0]
        raise NclueError(f"{first.packet_id}: the response streams of {into} and {dropped} are identical at "
                         "every decision, page and quote; they are one stream, not two (supplement sec. 10.5)")
    if len(names) != policy.first_pass_responses:
        raise NclueError(f"{first.packet_id}: the policy needs {policy.first_pass_responses} first-pass "
                         f"response streams, the record has {len(names)} ({', '.join(names)})")
    return names, [CollapsedStream(first.stage, first.packet_id, d, i) for d, i in collapsed]


def poll_streams(records: Sequence[Record], first: Record) -> Tuple[List[Tuple[Record, str]], List[CollapsedStream]]:
    """The adjudication records' response streams, each counted once: a stream identical at
    every decision, page and quote to an earlier one (in the same record or an earlier record)
    is collapsed into it."""
    kept: List[Tuple[Record, str]] = []
    collapsed: List[CollapsedStream] = []
    first_of: Dict[Any, str] = {}
    for record in records:
        if record.stage not in POLL_STAGES:
            raise NclueError(f"{record.packet_id}: not an adjudication or tie-break record")
        parent = record.parent or {}
        if parent.get("record_sha256") != first.sha256:
            raise NclueError(f"{record.packet_id}: drawn from another first-pass record "
                             f"({str(parent.get('record_sha256'))[:12]}..., expected {first.sha256[:12]}...)")
        for evaluator in record.evaluator_ids:
            signature = stream_signature(record, evaluator)
            if signature and signature in first_of:
                collapsed.append(CollapsedStream(record.stage, record.packet_id, evaluator, first_of[signature]))
                continue
            if signature:
                first_of[signature] = evaluator
            kept.append((record, evaluator))
    return kept, collapsed


def collapsed_streams(first: Record, adjudications: Sequence[Record], policy: Policy) -> List[CollapsedStream]:
    """Every stream :func:`decide` counts once because it is identical to another."""
    return first_pass_streams(first, policy)[1] + poll_streams(adjudications, first)[1]


#: stages whose responses decide the conditions a first pass leaves open
POLL_STAGES = ("adjudication", "tie_break")
Key3 = Tuple[str, str, int]


def poll_mode(first: Record, records: Sequence[Record]) -> Optional[str]:
    """``adjudication`` (an expanded-page poll decides alone), ``tie_break`` (the challenge's
    tie-break: its responses join the first pass's) or None (no poll record). One mode per repair;
    a tie-break needs a first pass shown on expanded pages, i.e. the challenge design."""
    stages = {r.stage for r in records}
    if len(stages) > 1:
        raise NclueError("adjudication and tie-break records cannot be combined in one repair")
    if stages == {"tie_break"} and first.design != "challenge":
        raise NclueError(f"{first.packet_id}: a tie-break needs a first pass shown on expanded pages "
                         "(the challenge design); a stratified first pass goes to adjudication")
    return next(iter(stages), None)


def poll_answers(first: Record, records: Sequence[Record]) -> Dict[Key3, List[ConditionAnswer]]:
    """Every poll response per (qid, docid, condition), each distinct stream once (:func:`poll_streams`)."""
    polls: Dict[Key3, List[ConditionAnswer]] = {}
    for record, evaluator in poll_streams(records, first)[0]:
        for it in record.items:
            conds = record.answers[evaluator].get(it.item)
            if conds is None:
                continue
            for index, answer in conds.items():
                polls.setdefault((it.qid, it.docid, index), []).append(answer)
    return polls


def _polled(policy: Policy, built: bool, first_pass: Sequence[Response], poll: Optional[Sequence[ConditionAnswer]],
            mode: Optional[str]) -> Tuple[Decision, Tuple[int, int]]:
    """Decision and votes of a queued condition.

    ``adjudication``: the policy's adjudication rule over the poll's responses alone (sec.
    10.2.2-10.3). ``tie_break`` (sec. 10.5): the challenge's first pass already showed six to nine
    pages, so the same rule is applied to its two responses *plus* the tie-break responses (a split
    is decided by the tie-breaker; a consensus decrease by the two agreeing expanded-page
    responses). A condition the responses so far cannot decide, without a poll response, is
    pending."""
    if mode == "tie_break":
        combined = list(first_pass) + _responses(poll or ())
        decision = adjudication_decision(policy, built, combined)
        if decision.status == "retained" and not poll:
            return pending_decision(built), (0, 0)
        rule = "tie_break." + decision.rule.split(".", 1)[1]
        return Decision(decision.positive, decision.status, rule, decision.pages), _votes(combined)
    if poll:
        responses = _responses(poll)
        return adjudication_decision(policy, built, responses), _votes(responses)
    return pending_decision(built), (0, 0)


def decide(first: Record, adjudications: Sequence[Record], policy: Policy,
           review: Optional[Mapping[Key3, Decision]] = None) -> List[PairOutcome]:
    """Apply the policy to every pair both first-pass evaluators completed (sorted by pair).

    Identical exports are one response stream in every stage (:func:`first_pass_streams`,
    :func:`poll_streams`). ``adjudications``: adjudication records, or the challenge's tie-break
    records (:func:`poll_mode`). ``review``: the administrative review's decisions
    (:mod:`nclue.label_audit.review`), which replace the poll's for the conditions it names."""
    a, b = first_pass_streams(first, policy)[0]
    mode = poll_mode(first, adjudications)
    polls = poll_answers(first, adjudications)
    outcomes = []
    for it in completed_by_all(first, [a, b]):
        conditions = []
        for c in it.conditions:
            built = bool(c.construction_pages)
            responses = _responses([first.answers[a][it.item][c.index], first.answers[b][it.item][c.index]])
            decision = first_pass_decision(policy, built, responses)
            votes = _votes(responses)
            if decision.status == "adjudicate":
                decision, votes = _polled(policy, built, responses, polls.get((it.qid, it.docid, c.index)), mode)
            if review and (it.qid, it.docid, c.index) in review:
                decision = review[(it.qid, it.docid, c.index)]
            conditions.append(ConditionOutcome(c.index, c.condition_id, c.construction_pages, decision,
                                               page_set(policy, c.construction_pages, decision), votes))
        after_pages = tuple(c.pages for c in conditions)
        judged = judge(after_pages, first.page_gates)
        after = None if judged is None else (judged.clues, judged.label, judged.gate)
        outcomes.append(PairOutcome(it.qid, it.docid, it.role, it.stratum, (it.clues, it.label, it.gate),
                                    after, tuple(c.construction_pages for c in it.conditions), after_pages,
                                    tuple(conditions)))
    return sorted(outcomes, key=lambda o: (o.qid, o.docid))


def queued(first: Record, policy: Policy) -> Dict[Tuple[str, str], List[int]]:
    """Conditions the first-pass policy sends to the expanded-page poll: {(qid, docid): [index]}."""
    out: Dict[Tuple[str, str], List[int]] = {}
    for outcome in decide(first, (), policy):
        indices = [c.index for c in outcome.conditions if c.decision.status == "pending"]
        if indices:
            out[(outcome.qid, outcome.docid)] = indices
    return out


def tie_break_queued(first: Record, policy: Policy) -> Dict[Tuple[str, str], List[int]]:
    """Conditions of a challenge first pass that only a tie-break can decide (supplement sec. 10.5:
    "a 75-condition tie-break over 61 pairs"): the queued conditions on which the adjudication
    rule over the two expanded-page responses reaches no decision, i.e. the splits."""
    if first.design != "challenge":
        raise NclueError(f"{first.packet_id}: a tie-break needs a first pass shown on expanded pages "
                         "(the challenge design); a stratified first pass goes to adjudication")
    a, b = first_pass_streams(first, policy)[0]
    items = {(it.qid, it.docid): it for it in first.items}
    out: Dict[Tuple[str, str], List[int]] = {}
    for (qid, docid), indices in queued(first, policy).items():
        it = items[(qid, docid)]
        open_ = []
        for index in indices:
            condition = next(c for c in it.conditions if c.index == index)
            responses = _responses([first.answers[a][it.item][index], first.answers[b][it.item][index]])
            if adjudication_decision(policy, bool(condition.construction_pages), responses).status == "retained":
                open_.append(index)
        if open_:
            out[(qid, docid)] = open_
    return out


def _label_json(label: Optional[Label], pages: Sequence[Sequence[int]]) -> Optional[Dict[str, Any]]:
    if label is None:
        return None
    return {"clues": label[0], "label": label[1], "gate": label[2], "pages": [list(p) for p in pages]}


def repair_rows(outcomes: Sequence[PairOutcome]) -> List[Dict[str, Any]]:
    """The changed pairs as repair-file rows, sorted by (qid, docid)."""
    rows = []
    for o in outcomes:
        if not o.changed:
            continue
        rows.append({
            "qid": o.qid, "docid": o.docid,
            "before": _label_json(o.before, o.before_pages), "after": _label_json(o.after, o.after_pages),
            "conditions": [{"index": c.index, "condition_id": c.condition_id,
                            "before": bool(c.construction_pages), "after": c.decision.positive,
                            "status": c.decision.status, "rule": c.decision.rule} for c in o.conditions],
        })
    return rows


_INT = frozenset((int,))  # a page number: an int, never a bool


def _row_label(obj: Any, path: PathLike, line: int, n: int) -> Optional[Tuple[Label, Tuple[Tuple[int, ...], ...]]]:
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise InputError(path, "before/after must be objects or null", line)
    clues, label, gate, pages = obj.get("clues"), obj.get("label"), obj.get("gate"), obj.get("pages")
    if not isinstance(clues, int) or label not in ("gold", "subset") or not (gate is None or isinstance(gate, str)):
        raise InputError(path, "before/after need clues, label (gold|subset) and gate", line)
    if not isinstance(pages, list) or len(pages) != n or not all(
            type(p) is list and set(map(type, p)) <= _INT for p in pages):  # JSON: exact types
        raise InputError(path, f"before/after 'pages' must hold {n} lists of page numbers", line)
    return (clues, label, gate), tuple(tuple(p) for p in pages)


def read_repair(path: PathLike, release: Release) -> List[Dict[str, Any]]:
    """Read a repair file's rows (validated against the release's queries and corpus)."""
    rows = []
    seen = set()
    for line, obj in iter_jsonl(path):
        qid, docid = obj.get("qid"), obj.get("docid")
        if qid not in release.queries or docid not in release.corpus:
            raise InputError(path, f"unknown pair ({qid!r}, {docid!r})", line)
        if (qid, docid) in seen:
            raise InputError(path, f"pair ({qid}, {docid}) repaired twice", line)
        seen.add((qid, docid))
        n = len(release.queries[qid].conditions)
        before = _row_label(obj.get("before"), path, line, n)
        after = _row_label(obj.get("after"), path, line, n)
        if before is None:
            raise InputError(path, "a repair row needs the pair's 'before' label", line)
        rows.append({"line": line, "qid": qid, "docid": docid, "before": before, "after": after})
    return rows


def apply_repair(release: Release, rows: Sequence[Mapping[str, Any]], where: PathLike) -> Release:
    """The repaired copy: every row's ``before`` must match the base exactly (module docstring)."""
    judgments = {q: dict(d) for q, d in release.judgments.items()}
    evidence = dict(release.evidence)
    for row in rows:
        qid, docid = row["qid"], row["docid"]
        current = judgments.get(qid, {}).get(docid)
        (clues, label, gate), pages = row["before"]
        n = len(release.queries[qid].conditions)
        base_pages = evidence.get((qid, docid), tuple(() for _ in range(n)))
        if current is None or (current.clues, current.label, current.gate) != (clues, label, gate) \
                or tuple(tuple(p) for p in base_pages) != pages:
            raise InputError(where, f"({qid}, {docid}): the repair's 'before' does not match this "
                                    "release's qrel and evidence (wrong base label version?)", row.get("line"))
        if row["after"] is None:
            del judgments[qid][docid]
            evidence.pop((qid, docid), None)
            continue
        (clues, label, gate), pages = row["after"]
        if sum(1 for p in pages if p) != clues:
            raise InputError(where, f"({qid}, {docid}): 'after' has {clues} clues but "
                                    f"{sum(1 for p in pages if p)} nonempty page sets", row.get("line"))
        judgments[qid][docid] = Judgment(qid, docid, clues, label, gate)
        evidence[(qid, docid)] = tuple(tuple(sorted(set(p))) for p in pages)
    judgments = {q: d for q, d in judgments.items() if d}
    return replace(release, judgments=judgments, evidence=evidence)


def gold_gate_problems(release: Release, page_gates: bool) -> List[str]:
    """Every gold of ``release`` re-checked: all conditions, and with page gates an empty
    all-condition intersection and a distinct-page assignment (n-Clue paper, sec. 3.2)."""
    problems = []
    for qid in sorted(release.judgments):
        n = len(release.queries[qid].conditions)
        for docid, j in sorted(release.judgments[qid].items()):
            if not j.is_gold:
                continue
            pages = release.evidence.get((qid, docid))
            if pages is None:
                if release.evidence:
                    problems.append(f"({qid}, {docid}): gold without evidence pages")
                continue
            if sum(1 for p in pages if p) != n:
                problems.append(f"({qid}, {docid}): gold lacks a condition")
            elif page_gates and single_page_solvable(pages):
                problems.append(f"({qid}, {docid}): gold fails the single-page gate")
            elif page_gates and distinct_page_assignment(pages) is None:
                problems.append(f"({qid}, {docid}): gold fails the distinct-page gate")
    return problems


def golds_counted(release: Release) -> Tuple[int, int, int]:
    """(golds, subsets, queries without a gold)."""
    golds = sum(1 for d in release.judgments.values() for j in d.values() if j.is_gold)
    subsets = sum(1 for d in release.judgments.values() for j in d.values() if not j.is_gold)
    return golds, subsets, sum(1 for q in release.queries if not release.golds(q))


def qrels_rows(release: Release) -> List[Dict[str, Any]]:
    rows = []
    for qid in sorted(release.judgments):
        for docid, j in sorted(release.judgments[qid].items()):
            row = {"qid": qid, "docid": docid, "clues": j.clues, "label": j.label}
            if j.gate:
                row["gate"] = j.gate
            rows.append(row)
    return rows


def evidence_rows(release: Release) -> List[Dict[str, Any]]:
    return [{"qid": q, "docid": d, "pages": [list(p) for p in pages]}
            for (q, d), pages in sorted(release.evidence.items())]


def file_bytes(rows: Sequence[Any], gz: bool) -> bytes:
    data = jsonl_text(rows).encode("utf-8")
    return gzip_bytes(data) if gz else data


#: an id written between quotes unchanged by canonical JSON (no quote, backslash or control
#: character), so a line can be formatted directly
_PLAIN_ID = re.compile(r'[^"\\\x00-\x1f]*')


def qrels_text(release: Release) -> str:
    """The canonical ``qrels.jsonl`` text of ``release`` (:func:`qrels_rows` as
    :func:`nclue.formats.jsonl_text` writes them), formatted directly where the ids need no
    escaping; equal to ``jsonl_text(qrels_rows(release))`` (tested)."""
    plain = _PLAIN_ID.fullmatch
    lines = []
    for qid in sorted(release.judgments):
        for docid, j in sorted(release.judgments[qid].items()):
            if plain(qid) and plain(docid) and plain(j.label) and (j.gate is None or plain(j.gate)):
                gate = f'"gate":"{j.gate}",' if j.gate else ""
                lines.append(f'{{"clues":{j.clues:d},"docid":"{docid}",{gate}"label":"{j.label}","qid":"{qid}"}}\n')
            else:
                row = {"qid": qid, "docid": docid, "clues": j.clues, "label": j.label}
                if j.gate:
                    row["gate"] = j.gate
                lines.append(dumps_canonical(row) + "\n")
    return "".join(lines)


def evidence_text(release: Release) -> str:
    """The canonical ``evidence.jsonl`` text of ``release`` (:func:`evidence_rows` as
    :func:`nclue.formats.jsonl_text` writes them), formatted directly where the ids need no
    escaping; equal to ``jsonl_text(evidence_rows(release))`` (tested)."""
    plain = _PLAIN_ID.fullmatch
    lines = []
    for (qid, docid), pages in sorted(release.evidence.items()):
        if plain(qid) and plain(docid):
            lists = ",".join(["[" + ",".join(map(str, p)) + "]" for p in pages])
            lines.append(f'{{"docid":"{docid}","pages":[{lists}],"qid":"{qid}"}}\n')
        else:
            lines.append(dumps_canonical({"qid": qid, "docid": docid,
                                          "pages": [list(p) for p in pages]}) + "\n")
    return "".join(lines)


def copy_hashes(release: Release, gz: bool) -> Dict[str, str]:
    """sha256 of the qrels and evidence files a copy of ``release`` would have."""
    return {name: sha256_bytes(gzip_bytes(data) if gz else data)
            for name, data in _copy_texts(release).items()}


def _copy_texts(release: Release) -> Dict[str, bytes]:
    return {"qrels": qrels_text(release).encode("utf-8"),
            "evidence": evidence_text(release).encode("utf-8")}


def is_recorded_copy(release: Release, gz: bool, recorded: Any) -> bool:
    """Whether a copy of ``release`` would have the ``recorded`` hashes (``copy_hashes(release,
    gz) == recorded``), without compressing where the release folder holds files with exactly
    those hashes: a file whose sha256 is recorded and whose content is the copy's text is the
    copy (the recorded hash is of the deterministic gzip of that text), so only what differs is
    compressed again."""
    if not isinstance(recorded, dict):
        return False
    texts = _copy_texts(release)
    if set(recorded) != set(texts):
        return False
    for name, data in texts.items():
        on_disk = ReleaseLayout.of(release.path).existing_jsonl(name, required=False)
        if on_disk is not None and on_disk.name.endswith(".gz") == gz:
            try:
                if sha256_bytes(on_disk.read_bytes()) == recorded[name] and read_bytes(on_disk) == data:
                    continue
            except (OSError, InputError):
                pass  # unreadable here: compared by compressing below
        if sha256_bytes(gzip_bytes(data) if gz else data) != recorded[name]:
            return False
    return True


def repair_paths(release_dir: PathLike, repair_id: str, gz: Optional[bool] = None) -> Tuple[Path, Path]:
    """``<release>/repairs/<id>.jsonl`` (or ``.jsonl.gz``: the one that exists, or the one ``gz``
    asks for) and ``<id>.lineage.json``."""
    if not REPAIR_ID.match(repair_id):
        raise InputError(repair_id, "a repair id is 1-64 letters, digits, '.', '_' or '-'")
    folder = ReleaseLayout.of(release_dir).repairs_dir
    plain, packed = folder / f"{repair_id}.jsonl", folder / f"{repair_id}.jsonl.gz"
    if gz is None:
        rows = packed if packed.exists() and not plain.exists() else plain
    else:
        rows = packed if gz else plain
    return rows, folder / f"{repair_id}.lineage.json"


def gzipped_qrels(release: Release) -> bool:
    """Whether the release stores its qrels gzipped (a repaired copy keeps the same form)."""
    return ReleaseLayout.of(release.path).existing_jsonl("qrels").name.endswith(".gz")


def write_repair(rows_path: Path, lineage_path: Path, rows: Sequence[Mapping[str, Any]],
                 lineage: Mapping[str, Any]) -> None:
    data = jsonl_text(rows).encode("utf-8")
    write_bytes_atomic(rows_path, gzip_bytes(data) if rows_path.name.endswith(".gz") else data)
    write_bytes_atomic(lineage_path, (dumps_canonical(dict(lineage), indent=2) + "\n").encode("utf-8"))


def load_label_version(release: Release, repair_id: str, _seen: Tuple[str, ...] = ()) -> Tuple[Release, Dict[str, Any]]:
    """The release with ``repair_id`` applied (after the repairs its lineage names), checked
    against the lineage's recorded base and result hashes."""
    with no_cycle_collection():  # a loader: its records hold no cycles (nclue.formats)
        return _load_label_version(release, repair_id, _seen)


def _load_label_version(release: Release, repair_id: str, _seen: Tuple[str, ...]) -> Tuple[Release, Dict[str, Any]]:
    if repair_id in _seen:
        raise InputError(repair_id, f"repair chain loops: {' -> '.join(_seen + (repair_id,))}")
    rows_path, lineage_path = repair_paths(release.path, repair_id)
    lineage = read_json(lineage_path)
    if not isinstance(lineage, dict) or lineage.get("format") != "nclue-audit-repair":
        raise InputError(lineage_path, "not a repair lineage file")
    base = release
    for earlier in lineage.get("after") or []:
        base, _ = load_label_version(base, earlier, _seen + (repair_id,))
    gz = str(lineage.get("compression")) == "gzip"
    if not is_recorded_copy(base, gz, lineage.get("base")):
        raise InputError(lineage_path, "the base qrels/evidence differ from those this repair was made on")
    if sha256_bytes(read_bytes(rows_path)) != lineage.get("repair_sha256"):
        raise InputError(rows_path, "the repair file's sha256 differs from its lineage")
    repaired = apply_repair(base, read_repair(rows_path, base), rows_path)
    if copy_hashes(repaired, gz) != lineage.get("result"):
        raise InputError(lineage_path, "applying the repair does not give the recorded result")
    removed = lineage.get("removed_queries") or []
    if removed:
        repaired = remove_queries(repaired, removed, lineage_path)
    return repaired, lineage


def remove_queries(release: Release, qids: Sequence[str], where: PathLike) -> Release:
    """The removal policy of a rule repair (``audit/label_audit/support_rule_P1.md``): queries
    left without a gold leave the label version with their qrels and evidence. Every listed query
    must exist and have no gold, and every query without a gold must be listed."""
    listed = set(qids)
    for qid in sorted(listed):
        if qid not in release.queries:
            raise InputError(where, f"removed query {qid!r} is not a query of the release")
        if release.golds(qid):
            raise InputError(where, f"removed query {qid!r} still has a gold")
    unlisted = [q for q in sorted(release.queries) if q not in listed and not release.golds(q)]
    if unlisted:
        raise InputError(where, f"query {unlisted[0]!r} has no gold but is not in 'removed_queries'")
    queries = {q: v for q, v in release.queries.items() if q not in listed}
    judgments = {q: v for q, v in release.judgments.items() if q not in listed}
    evidence = {k: v for k, v in release.evidence.items() if k[0] not in listed}
    return replace(release, queries=queries, judgments=judgments, evidence=evidence)


def write_copy(original: Release, repaired: Release, out: PathLike, lineage: Mapping[str, Any],
               inputs: Sequence[PathLike] = ()) -> Path:
    """Write the repaired label version as a release folder: queries and corpus copied byte for
    byte, the new qrels and evidence, and ``provenance.json`` (the lineage). Runs are not copied:
    score them against this folder with ``--release``."""
    src, dst = ReleaseLayout.of(original.path), Path(out)
    if dst.resolve() == src.folder.resolve():
        raise InputError(dst, "the repaired copy must not overwrite the released label version")
    gz = str(lineage.get("compression")) == "gzip"
    inputs = [src.folder, *inputs]
    for stem in ("queries", "corpus"):
        path = src.existing_jsonl(stem)
        write_bytes_atomic(dst / path.name, path.read_bytes(), inputs)
    suffix = ".jsonl.gz" if gz else ".jsonl"
    for name, data in _copy_texts(repaired).items():  # the texts copy_hashes hashes
        write_bytes_atomic(dst / f"{name}{suffix}", gzip_bytes(data) if gz else data, inputs)
    write_bytes_atomic(dst / "provenance.json", (dumps_canonical(dict(lineage), indent=2) + "\n").encode("utf-8"),
                       inputs)
    return dst
