"""Judgment FIXTURES for the label-audit tests on data/example/ (written by the tests, never shipped).

These are not judgments by anyone: they are evaluator exports made up by test code, in the export
format of the packet's script, to drive import, agreement, adjudication, repair and impact end to
end. Evaluator ids start with ``FIXTURE``. ``answers`` maps item id -> condition index -> list of
pages to quote (empty list: answer no).
"""

from typing import Collection, Dict, List, Mapping, Optional

from nclue.label_audit.packet import Packet
from nclue.label_audit.spec import Key
from nclue.label_audit.textnorm import locate, text_sha256

STAMP = "2026-12-02T00:00:00.000Z"


def quote_line(text: str, name: str) -> str:
    """A line of the page to quote: the first holding ``name`` (any case), else the first
    non-blank line after the running header."""
    lines = [line for line in text.split("\n") if line.strip()]
    for line in lines:
        if name.lower() in line.lower():
            return line
    return lines[1] if len(lines) > 1 else lines[0]


def evidence(packet: Packet, item_id: str, index: int, pages: List[int]) -> List[dict]:
    item = packet.item(item_id)
    name = next(c.name for c in item.conditions if c.index == index)
    out = []
    for page in pages:
        text = packet.pages[item.document][page]
        start, end = locate(text, quote_line(text, name))
        quote = text[start:end]
        out.append({"page": page, "quote": quote, "start": start, "end": end, "sha256": text_sha256(quote)})
    return out


def export(packet: Packet, evaluator: str, answers: Mapping[str, Mapping[int, List[int]]],
           accepted: Optional[Mapping[str, bool]] = None, unclear: Collection[str] = ()) -> dict:
    """An export accepting every item in ``answers`` (or as ``accepted`` says), every request
    judged clear except the items in ``unclear``."""
    items = []
    for item in packet.items:
        if item.item not in answers:
            continue
        conditions = []
        for c in item.conditions:
            pages = answers[item.item][c.index]
            conditions.append({"index": c.index, "answer": "yes" if pages else "no",
                               "evidence": evidence(packet, item.item, c.index, pages)})
        ok = True if accepted is None else accepted.get(item.item, True)
        items.append({"item": item.item, "accepted": ok, "accepted_at": STAMP if ok else None,
                      "updated_at": STAMP, "request_clear": item.item not in unclear,
                      "conditions": conditions})
    return {"format": "nclue-audit-export", "version": 1, "packet_id": packet.packet_id,
            "packet_sha256": packet.sha256, "stage": packet.stage, "evaluator_id": evaluator,
            "started_at": STAMP, "exported_at": STAMP, "complete": True, "items": items}


def construction_answers(key: Key) -> Dict[str, Dict[int, List[int]]]:
    """Answers equal to the construction: yes on the first displayed construction page."""
    out: Dict[str, Dict[int, List[int]]] = {}
    for it in key.items:
        out[it.item] = {}
        for c in it.conditions:
            if not c.ask:
                continue
            shown = [p.page for p in c.pool]
            hit = [p for p in shown if p in c.construction_pages]
            out[it.item][c.index] = hit[:1]
    return out


def item_of(key: Key, qid: str, docid: str) -> str:
    return next(it.item for it in key.items if (it.qid, it.docid) == (qid, docid))
