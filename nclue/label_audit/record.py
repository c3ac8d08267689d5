"""The judged record of one audit stage: administrator key + validated exports, no page text.

Written by ``nclue audit import`` and read by ``adjudicate`` and ``repair``. It joins every
accepted answer to its (qid, docid, condition) through the key, and records the sha256 of the
key, the packet and every export, and the repair policy fixed when the stage was drawn, so a
repair can name exactly which judgments it rests on. Quotes are kept as page, code-point offsets
and sha256 only (never the text: it is third-party content), like ``audit/quote_audit_v1.jsonl``.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..formats import PathLike, dumps_canonical, read_bytes, read_json, sha256_bytes, write_bytes_atomic
from .exports import ConditionAnswer, Export, Quote
from .packet import Packet
from .spec import Key, KeyCondition, KeyItem, PoolPage

RECORD_FORMAT = "nclue-audit-record"


@dataclass(frozen=True)
class Record:
    packet_id: str
    stage: str
    design: str
    release: str
    release_files: Mapping[str, str]
    page_gates: bool
    policy: Mapping[str, Any]
    key_sha256: str
    packet_sha256: str
    evaluators: Tuple[Mapping[str, Any], ...]
    items: Tuple[KeyItem, ...]
    answers: Mapping[str, Mapping[str, Mapping[int, ConditionAnswer]]]  # evaluator -> item -> index
    contrast: Optional[Mapping[str, Any]]
    parent: Optional[Mapping[str, Any]]
    sha256: str = ""
    #: evaluator -> item -> request judged clear (Table S8), accepted items only
    request_clear: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)

    @property
    def evaluator_ids(self) -> Tuple[str, ...]:
        return tuple(e["id"] for e in self.evaluators)


def check_key_matches_packet(key: Key, packet: Packet, where: PathLike) -> None:
    """The key and the packet must describe the same items, asked conditions and pages."""
    if key.packet_id != packet.packet_id or key.stage != packet.stage or key.design != packet.design:
        raise InputError(where, f"the key ({key.packet_id}, {key.stage}) is not the key of packet "
                                f"{packet.packet_id} ({packet.stage})")
    packet_items = {it.item: it for it in packet.items}
    if set(packet_items) != {it.item for it in key.items}:
        raise InputError(where, "the key and the packet list different items")
    for it in key.items:
        asked = {c.index: tuple(p.page for p in c.pool) for c in it.conditions if c.ask}
        shown = {c.index: c.pages for c in packet_items[it.item].conditions}
        if asked != shown:
            raise InputError(where, f"item {it.item}: the key's displayed pages differ from the packet's")


def build_record(key: Key, key_sha256: str, packet: Packet, exports: Sequence[Export]) -> Record:
    """Join validated exports to the key (the caller has checked key, packet and policy)."""
    evaluators = []
    answers: Dict[str, Dict[str, Dict[int, ConditionAnswer]]] = {}
    for export in exports:
        answers[export.evaluator] = {item: dict(conds) for item, conds in export.answers.items()}
        positive = sum(1 for c in export.answers.values() for a in c.values() if a.positive)
        negative = sum(1 for c in export.answers.values() for a in c.values() if not a.positive)
        evaluators.append({"id": export.evaluator, "export_sha256": export.sha256,
                           "accepted_items": len(export.answers), "positive": positive,
                           "negative": negative, "quotes": export.quotes_checked})
    return Record(packet_id=key.packet_id, stage=key.stage, design=key.design, release=key.release,
                  release_files=key.release_files, page_gates=key.page_gates, policy=key.policy,
                  key_sha256=key_sha256, packet_sha256=packet.sha256, evaluators=tuple(evaluators),
                  items=key.items, answers=answers, contrast=key.contrast, parent=key.parent,
                  request_clear={e.evaluator: dict(e.request_clear) for e in exports})


def record_to_json(record: Record) -> Dict[str, Any]:
    items = []
    for it in record.items:
        responses = {}
        for evaluator in record.evaluator_ids:
            conds = record.answers[evaluator].get(it.item)
            if conds is None:
                continue
            responses[evaluator] = {str(i): {"positive": a.positive, "pages": list(a.pages),
                                             "quotes": [{"page": q.page, "start": q.start, "end": q.end,
                                                         "sha256": q.sha256} for q in a.quotes]}
                                    for i, a in sorted(conds.items())}
        items.append({"item": it.item, "qid": it.qid, "docid": it.docid, "role": it.role,
                      "stratum": it.stratum, "clues": it.clues, "label": it.label, "gate": it.gate,
                      "conditions": [{"index": c.index, "condition_id": c.condition_id, "name": c.name,
                                      "ask": c.ask, "construction_pages": list(c.construction_pages),
                                      "pool": [{"page": p.page, "routes": list(p.routes)} for p in c.pool]}
                                     for c in it.conditions],
                      "responses": responses,
                      "request_clear": {e: record.request_clear[e][it.item] for e in record.evaluator_ids
                                        if it.item in record.request_clear.get(e, {})}})
    return {"format": RECORD_FORMAT, "version": 1, "packet_id": record.packet_id, "stage": record.stage,
            "design": record.design, "release": record.release, "release_files": dict(record.release_files),
            "page_gates": record.page_gates, "policy": dict(record.policy), "key_sha256": record.key_sha256,
            "packet_sha256": record.packet_sha256, "evaluators": [dict(e) for e in record.evaluators],
            "contrast": record.contrast, "parent": record.parent, "items": items}


def write_record(path: PathLike, record: Record, inputs: Sequence[PathLike] = ()) -> str:
    """Write the record (canonical, indented JSON; never over one of ``inputs``); returns its sha256."""
    data = (dumps_canonical(record_to_json(record), indent=1) + "\n").encode("utf-8")
    write_bytes_atomic(path, data, inputs)
    return sha256_bytes(data)


def read_record(path: PathLike) -> Record:
    """Read a record written by :func:`write_record`."""
    raw = read_bytes(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise InputError(path, f"not an audit record (format {RECORD_FORMAT!r} expected)")
    try:
        evaluators = tuple(dict(e) for e in data["evaluators"])
        ids = [e["id"] for e in evaluators]
        items: List[KeyItem] = []
        answers: Dict[str, Dict[str, Dict[int, ConditionAnswer]]] = {e: {} for e in ids}
        clear: Dict[str, Dict[str, bool]] = {e: {} for e in ids}
        for obj in data["items"]:
            conditions = tuple(KeyCondition(int(c["index"]), str(c["condition_id"]), str(c["name"]),
                                            bool(c["ask"]), tuple(int(p) for p in c["construction_pages"]),
                                            tuple(PoolPage(int(p["page"]), tuple(p["routes"])) for p in c["pool"]))
                               for c in obj["conditions"])
            items.append(KeyItem(str(obj["item"]), str(obj["qid"]), str(obj["docid"]), str(obj["role"]),
                                 str(obj["stratum"]), int(obj["clues"]), str(obj["label"]), obj.get("gate"),
                                 conditions))
            for evaluator, conds in obj["responses"].items():
                if evaluator not in answers:
                    raise InputError(path, f"item {obj['item']}: unknown evaluator {evaluator!r}")
                answers[evaluator][obj["item"]] = {
                    int(i): ConditionAnswer(int(i), bool(a["positive"]), tuple(int(p) for p in a["pages"]),
                                            tuple(Quote(int(q["page"]), int(q["start"]), int(q["end"]),
                                                        str(q["sha256"])) for q in a["quotes"]))
                    for i, a in conds.items()}
            for evaluator, value in (obj.get("request_clear") or {}).items():
                if evaluator not in clear or not isinstance(value, bool):
                    raise InputError(path, f"item {obj['item']}: bad request_clear entry {evaluator!r}")
                clear[evaluator][obj["item"]] = value
        return Record(packet_id=str(data["packet_id"]), stage=str(data["stage"]), design=str(data["design"]),
                      release=str(data["release"]), release_files=dict(data["release_files"]),
                      page_gates=bool(data["page_gates"]), policy=dict(data["policy"]),
                      key_sha256=str(data["key_sha256"]), packet_sha256=str(data["packet_sha256"]),
                      evaluators=evaluators, items=tuple(items), answers=answers,
                      contrast=data.get("contrast"), parent=data.get("parent"), sha256=sha256_bytes(raw),
                      request_clear=clear)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(path, f"malformed audit record ({exc.__class__.__name__}: {exc})") from None


StreamSignature = Tuple[Tuple[Tuple[str, str, int], ConditionAnswer], ...]


def stream_signature(record: Record, evaluator: str) -> StreamSignature:
    """Everything one response stream decided: per (qid, docid, condition) its answer, pages and
    quotes (offsets and sha256), keyed by pair so that streams of different records compare."""
    by_item = {it.item: it for it in record.items}
    out = []
    for item_id, conds in record.answers[evaluator].items():
        it = by_item[item_id]
        for index, answer in conds.items():
            out.append(((it.qid, it.docid, index), answer))
    return tuple(sorted(out, key=lambda kv: kv[0]))


def distinct_streams(record: Record) -> Tuple[Tuple[str, ...], Tuple[Tuple[str, str], ...]]:
    """(kept evaluator ids, (collapsed, into) pairs): exports identical at every decision, page
    and quote are one response stream, not several (n-Clue paper, supplement sec. 10.5: "two
    nominal first-pass files identical at all ... decisions, selected pages, and quotes; they are
    collapsed to one response stream rather than counted twice"). The first of each identical
    group, in record order, is kept; a stream with no accepted answer is never collapsed."""
    kept: List[str] = []
    collapsed: List[Tuple[str, str]] = []
    first_of: Dict[StreamSignature, str] = {}
    for evaluator in record.evaluator_ids:
        signature = stream_signature(record, evaluator)
        if signature and signature in first_of:
            collapsed.append((evaluator, first_of[signature]))
            continue
        if signature:
            first_of[signature] = evaluator
        kept.append(evaluator)
    return tuple(kept), tuple(collapsed)


def completed_by_all(record: Record, evaluators: Optional[Sequence[str]] = None) -> List[KeyItem]:
    """Items every named evaluator (default: all) accepted, in key order."""
    names = list(evaluators or record.evaluator_ids)
    return [it for it in record.items if all(it.item in record.answers[e] for e in names)]
