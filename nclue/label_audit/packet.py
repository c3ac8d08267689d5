"""The packet's content: items, rubrics and page texts, with the sha256 that names it.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.1: "The self-contained HTML stores all
text locally and requires no network access or PDF reader"; the released packet has "no
private-field leaks". The content is built from the blinded spec and the page text only: items
name their document by an opaque token (``D1``, ``D2``, ... in order of first appearance), and
every displayed page carries the sha256 of its text.

The packet sha256 is the sha256 of the canonical JSON of the content (sorted keys, compact,
UTF-8). The HTML embeds the content and that sha256 in one ``application/json`` block; every
export names it, and :func:`read_packet_html` recomputes it, so an export is checked against
exactly the text its evaluator saw.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Tuple

from ..errors import InputError
from ..formats import PathLike, dumps_canonical, loads_strict, read_text, sha256_bytes
from .pagetext import PageText
from .spec import Spec
from .textnorm import ASCII_PUNCTUATION, MIN_QUOTE_CHARS, TYPOGRAPHIC, WHITESPACE, text_sha256

PACKET_FORMAT = "nclue-audit-packet"
DATA_ID = "nclue-packet-data"
_DATA_BLOCK = re.compile(r'<script type="application/json" id="%s">(.*?)</script>' % DATA_ID, re.S)

TITLES = {
    ("first_pass", "stratified"): "Evidence audit: first pass",
    ("adjudication", "stratified"): "Expanded-page adjudication poll",
    ("first_pass", "challenge"): "Evidence audit: expanded pages",
    ("adjudication", "challenge"): "Expanded-page adjudication poll",
    ("tie_break", "challenge"): "Expanded-page tie-break poll",
}

INSTRUCTIONS = (
    "Each item is one request and one document. For every condition listed, decide whether the "
    "displayed pages establish it, as its rubric defines it. You do not need to read the whole "
    "document: judge only the pages shown.",
    "Yes: at least one displayed page establishes the condition. Tick that page and quote the text "
    "that establishes it, as it appears on the page (select it and press \u201cUse selection\u201d, or "
    "type it; spaces and line breaks may differ). No: no displayed passage establishes it; then tick "
    "no page and quote nothing. \u201cRelated\u201d or \u201cuncertain\u201d are not answers: if the pages "
    "do not clearly establish the condition, answer No.",
    "Outside knowledge does not count. For every item, also say whether the request is clear enough "
    "to judge. An item is accepted only when the request and every condition have an answer and every "
    "quote is found on its page; changing an accepted item withdraws its acceptance (accept it again).",
    "Enter your evaluator id first (then Enter). Your work is saved in this browser under that id as "
    "you go; export it to a file when you finish, and from time to time. If the page says it restored "
    "the work of an evaluator who is not you, press \u201cNew evaluator\u201d. Work in one tab at a "
    "time.",
)
ADJUDICATION_NOTE = ("Six to nine pages are shown for each condition, all visible from the start. "
                     "Only some conditions of each request are asked here.")


@dataclass(frozen=True)
class PacketCondition:
    index: int
    name: str
    requirement: str
    counts: Tuple[str, ...]
    does_not_count: Tuple[str, ...]
    note: str
    pages: Tuple[int, ...]


@dataclass(frozen=True)
class PacketItem:
    item: str
    document: str
    request: str
    all_conditions: Tuple[str, ...]
    conditions: Tuple[PacketCondition, ...]


@dataclass(frozen=True)
class Packet:
    packet_id: str
    stage: str
    design: str
    title: str
    instructions: Tuple[str, ...]
    items: Tuple[PacketItem, ...]
    pages: Mapping[str, Mapping[int, str]]  # document token -> page -> text
    sha256: str

    def item(self, item_id: str) -> PacketItem:
        for it in self.items:
            if it.item == item_id:
                return it
        raise KeyError(item_id)


def quote_rules() -> Dict[str, Any]:
    """The normalization tables of :mod:`.textnorm`, carried by the packet for its script."""
    return {"whitespace": "".join(sorted(WHITESPACE)), "typographic": dict(sorted(TYPOGRAPHIC.items())),
            "punctuation": "".join(sorted(ASCII_PUNCTUATION)), "min_chars": MIN_QUOTE_CHARS}


def content_json(packet_id: str, stage: str, design: str, title: str, instructions: Tuple[str, ...],
                 items: Tuple[PacketItem, ...], pages: Mapping[str, Mapping[int, str]]) -> Dict[str, Any]:
    """The canonical content object (what the sha256 covers)."""
    return {
        "format": PACKET_FORMAT, "version": 1, "packet_id": packet_id, "stage": stage,
        "design": design, "title": title, "instructions": list(instructions),
        "items": [{"item": it.item, "document": it.document, "request": it.request,
                   "all_conditions": list(it.all_conditions),
                   "conditions": [{"index": c.index, "name": c.name, "requirement": c.requirement,
                                   "counts": list(c.counts), "does_not_count": list(c.does_not_count),
                                   "note": c.note, "pages": list(c.pages)} for c in it.conditions]}
                  for it in items],
        "quote_rules": quote_rules(),
        "pages": {doc: {str(n): {"text": text, "sha256": text_sha256(text)}
                        for n, text in sorted(doc_pages.items())}
                  for doc, doc_pages in sorted(pages.items())},
    }


def content_sha256(content: Mapping[str, Any]) -> str:
    return sha256_bytes(dumps_canonical(content).encode("utf-8"))


def build_packet(spec: Spec, page_text: Mapping[str, Mapping[int, PageText]]) -> Packet:
    """Packet content from the blinded spec and the page text (nothing else is read)."""
    tokens: Dict[str, str] = {}
    pages: Dict[str, Dict[int, str]] = {}
    items: List[PacketItem] = []
    for it in spec.items:
        if it.docid not in page_text:
            raise InputError(spec.packet_id, f"item {it.item}: no page text for its document")
        token = tokens.setdefault(it.docid, f"D{len(tokens) + 1}")
        conditions = []
        for c in it.conditions:
            for n in c.pages:
                if n not in page_text[it.docid]:
                    raise InputError(spec.packet_id, f"item {it.item}: page {n} has no text")
                pages.setdefault(token, {})[n] = page_text[it.docid][n].text
            conditions.append(PacketCondition(c.index, c.name, c.requirement, c.counts,
                                              c.does_not_count, c.note, c.pages))
        items.append(PacketItem(it.item, token, it.request, it.all_conditions, tuple(conditions)))
    instructions = INSTRUCTIONS + ((ADJUDICATION_NOTE,) if spec.stage == "adjudication" or
                                   spec.design == "challenge" else ())
    title = TITLES[(spec.stage, spec.design)]
    content = content_json(spec.packet_id, spec.stage, spec.design, title, instructions,
                           tuple(items), pages)
    return Packet(spec.packet_id, spec.stage, spec.design, title, instructions, tuple(items),
                  pages, content_sha256(content))


def packet_content(packet: Packet) -> Dict[str, Any]:
    return content_json(packet.packet_id, packet.stage, packet.design, packet.title,
                        packet.instructions, packet.items, packet.pages)


def embed_json(packet: Packet) -> str:
    """The data block's text: JSON with ``<``, ``>``, ``&`` and U+2028/9 escaped, so that page
    text can never close the script element."""
    text = dumps_canonical({"packet": packet_content(packet), "sha256": packet.sha256})
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def _parse_content(content: Any, path: PathLike) -> Packet:
    try:
        items = []
        for it in content["items"]:
            conditions = tuple(PacketCondition(int(c["index"]), str(c["name"]), str(c["requirement"]),
                                               tuple(c["counts"]), tuple(c["does_not_count"]),
                                               str(c["note"]), tuple(int(p) for p in c["pages"]))
                               for c in it["conditions"])
            items.append(PacketItem(str(it["item"]), str(it["document"]), str(it["request"]),
                                    tuple(it["all_conditions"]), conditions))
        pages = {doc: {int(n): str(p["text"]) for n, p in doc_pages.items()}
                 for doc, doc_pages in content["pages"].items()}
        for doc, doc_pages in content["pages"].items():
            for n, p in doc_pages.items():
                if text_sha256(p["text"]) != p["sha256"]:
                    raise InputError(path, f"packet page {doc}/{n}: text does not match its sha256")
        return Packet(str(content["packet_id"]), str(content["stage"]), str(content["design"]),
                      str(content["title"]), tuple(content["instructions"]), tuple(items), pages,
                      content_sha256(content))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(path, f"packet data block is malformed ({exc.__class__.__name__}: {exc})") from None


def read_packet_html(path: PathLike) -> Packet:
    """Read the packet back from its HTML and recompute its sha256 (refused when it differs)."""
    match = _DATA_BLOCK.search(read_text(path))
    if match is None:
        raise InputError(path, "no nclue packet data block found (is this an audit packet?)")
    try:
        data = loads_strict(match.group(1))
    except ValueError as exc:
        raise InputError(path, f"packet data block is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("packet"), dict) or \
            data["packet"].get("format") != PACKET_FORMAT:
        raise InputError(path, f"not an audit packet (format {PACKET_FORMAT!r} expected)")
    packet = _parse_content(data["packet"], path)
    if packet.sha256 != data.get("sha256"):
        raise InputError(path, f"packet content sha256 {packet.sha256} differs from the recorded "
                               f"{data.get('sha256')} (the packet was altered)")
    return packet
