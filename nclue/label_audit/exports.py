"""Evaluator exports: re-validation against the packet they were made from.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.1: "Their exports have no structural,
page-pool, or quote-matching errors"; Table S8: "Selected quotes passing exact check". The
browser applies the gates before accepting an item; the import applies them again, from the
packet's own text, so an export produced or edited outside the page is held to the same rules.

An export (one JSON file per evaluator, written by the packet's script) holds ``format``
``nclue-audit-export``, ``version`` 1, ``packet_id``, ``packet_sha256``, ``stage``,
``evaluator_id``, ``started_at`` / ``exported_at`` timestamps and per item ``item``,
``accepted``, ``accepted_at``, ``updated_at``, ``request_clear`` (true: the evaluator judged the
request clear; false: unclear; null: not answered; Table S8 "Queries judged clear by both") and
per asked condition ``index``, ``answer`` (``"yes"``, ``"no"`` or null) and ``evidence``:
``[{"page", "quote", "start", "end", "sha256"}]``.

Checks (any failure refuses the whole export, naming the item and condition):

- structure and types; the packet sha256, id and stage; every item id known and listed once;
  every item's conditions exactly the packet's asked conditions;
- in an **accepted** item, ``request_clear`` answered (true or false) and every condition
  answered; a ``yes`` has at least one evidence entry,
  each on a page of the condition's pool (no page twice), with offsets inside the page text,
  the page text between the offsets equal to the quote, the quote's sha256 equal to the
  recorded one, the quote nontrivial and a normalized substring of the page
  (:mod:`.textnorm`); a ``no`` has no evidence at all;
- an item that is not accepted counts as not completed (its drafts are only type-checked).

Timestamps are checked for form only; like the paper (Table S11), no statistic uses them.
"""

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..formats import PathLike, read_bytes, read_json, sha256_bytes
from .packet import Packet
from .textnorm import is_nontrivial, normalize, text_sha256

EXPORT_FORMAT = "nclue-audit-export"
EVALUATOR_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Quote:
    page: int
    start: int
    end: int
    sha256: str


@dataclass(frozen=True)
class ConditionAnswer:
    """One accepted answer: positive, its pages (ascending) and its re-located quotes."""

    index: int
    positive: bool
    pages: Tuple[int, ...]
    quotes: Tuple[Quote, ...]


@dataclass(frozen=True)
class Export:
    """A validated export: answers of its accepted items only."""

    path: str
    sha256: str
    evaluator: str
    stage: str
    answers: Mapping[str, Mapping[int, ConditionAnswer]]  # item -> condition index -> answer
    items_listed: int
    quotes_checked: int
    #: item -> whether the evaluator judged its request clear (accepted items only)
    request_clear: Mapping[str, bool] = field(default_factory=dict)


def _fail(path: PathLike, where: str, problem: str) -> InputError:
    return InputError(path, f"{where}: {problem}" if where else problem)


def _timestamp(value: Any, path: PathLike, where: str, nullable: bool) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, str) or not TIMESTAMP.match(value):
        raise _fail(path, where, f"expected an ISO 8601 timestamp, got {value!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _evidence_entry(entry: Any, path: PathLike, where: str) -> Dict[str, Any]:
    if not isinstance(entry, dict):
        raise _fail(path, where, "evidence entries must be objects")
    if not _is_int(entry.get("page")) or not isinstance(entry.get("quote"), str):
        raise _fail(path, where, "an evidence entry needs an integer 'page' and a string 'quote'")
    for name in ("start", "end"):
        if entry.get(name) is not None and not _is_int(entry.get(name)):
            raise _fail(path, where, f"evidence {name!r} must be an integer or null")
    if entry.get("sha256") is not None and not (isinstance(entry["sha256"], str) and HEX64.match(entry["sha256"])):
        raise _fail(path, where, "evidence 'sha256' must be 64 lowercase hex digits or null")
    if "ticked" in entry and not isinstance(entry["ticked"], bool):
        raise _fail(path, where, "evidence 'ticked' must be a boolean")
    return entry


def _check_quote(entry: Mapping[str, Any], text: str, path: PathLike, where: str) -> Quote:
    """Re-locate one quote in the page text by its offsets and sha256."""
    page, quote, start, end = entry["page"], entry["quote"], entry.get("start"), entry.get("end")
    if entry.get("ticked") is False:
        raise _fail(path, where, f"page {page} carries a quote but is not ticked")
    if start is None or end is None or entry.get("sha256") is None:
        raise _fail(path, where, f"page {page}: the quote was not located (offsets or sha256 missing)")
    if not 0 <= start < end <= len(text):
        raise _fail(path, where, f"page {page}: offsets {start}..{end} outside the page text "
                                 f"(0..{len(text)} code points)")
    if text[start:end] != quote:
        raise _fail(path, where, f"page {page}: the page text at {start}..{end} is not the quote")
    if text_sha256(quote) != entry["sha256"]:
        raise _fail(path, where, f"page {page}: the quote's sha256 differs from the recorded one")
    if not is_nontrivial(quote):
        raise _fail(path, where, f"page {page}: the quote is trivial (too short or only punctuation)")
    if normalize(quote) not in normalize(text):
        raise _fail(path, where, f"page {page}: the quote is not a normalized substring of the page")
    return Quote(page, start, end, entry["sha256"])


def read_export(path: PathLike, packet: Packet) -> Export:
    """Read one export and re-validate it against ``packet`` (module docstring)."""
    raw = read_bytes(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT or data.get("version") != 1:
        raise InputError(path, f"not an audit export (format {EXPORT_FORMAT!r}, version 1 expected)")
    if data.get("packet_sha256") != packet.sha256:
        raise InputError(path, f"exported from another packet (sha256 {str(data.get('packet_sha256'))[:16]}..., "
                               f"this packet {packet.sha256[:16]}...)")
    if data.get("packet_id") != packet.packet_id or data.get("stage") != packet.stage:
        raise InputError(path, "packet_id or stage differs from the packet")
    evaluator = data.get("evaluator_id")
    if not isinstance(evaluator, str) or not EVALUATOR_ID.match(evaluator):
        raise InputError(path, f"evaluator_id {evaluator!r} must be 1-40 letters, digits, '.', '_' or '-'")
    _timestamp(data.get("started_at"), path, "started_at", False)
    _timestamp(data.get("exported_at"), path, "exported_at", False)
    items = data.get("items")
    if not isinstance(items, list):
        raise InputError(path, "'items' must be a list")
    packet_items = {it.item: it for it in packet.items}
    answers: Dict[str, Dict[int, ConditionAnswer]] = {}
    clear_by_item: Dict[str, bool] = {}
    seen = set()
    quotes_checked = 0
    for number, obj in enumerate(items):
        where = f"items[{number}]"
        if not isinstance(obj, dict) or not isinstance(obj.get("item"), str):
            raise _fail(path, where, "expected an object with a string 'item'")
        item_id = obj["item"]
        where = f"items[{number}] ({item_id})"
        if item_id not in packet_items:
            raise _fail(path, where, "no such item in the packet")
        if item_id in seen:
            raise _fail(path, where, "item listed twice")
        seen.add(item_id)
        accepted = obj.get("accepted")
        if not isinstance(accepted, bool):
            raise _fail(path, where, "'accepted' must be true or false")
        _timestamp(obj.get("accepted_at"), path, where + " accepted_at", not accepted)
        _timestamp(obj.get("updated_at"), path, where + " updated_at", True)
        clear = obj.get("request_clear")
        if clear not in (True, False, None):
            raise _fail(path, where, f"'request_clear' must be true, false or null, got {clear!r}")
        if accepted and clear is None:
            raise _fail(path, where, "accepted item without an answer to 'is the request clear?'")
        item = packet_items[item_id]
        asked = {c.index: c for c in item.conditions}
        conditions = obj.get("conditions")
        if not isinstance(conditions, list):
            raise _fail(path, where, "'conditions' must be a list")
        indices = [c.get("index") if isinstance(c, dict) else None for c in conditions]
        if sorted(i for i in indices if _is_int(i)) != sorted(asked) or len(indices) != len(asked):
            raise _fail(path, where, f"conditions must be exactly the asked indices {sorted(asked)}, "
                                     f"got {indices}")
        parsed: Dict[int, ConditionAnswer] = {}
        for cobj in conditions:
            index = cobj["index"]
            cwhere = f"{where} condition {index + 1} ({asked[index].name!r})"
            answer = cobj.get("answer")
            if answer not in ("yes", "no", None):
                raise _fail(path, cwhere, f"answer must be 'yes', 'no' or null, got {answer!r}")
            evidence = cobj.get("evidence")
            if not isinstance(evidence, list):
                raise _fail(path, cwhere, "'evidence' must be a list")
            entries = [_evidence_entry(e, path, cwhere) for e in evidence]
            if not accepted:
                continue
            pool = set(asked[index].pages)
            if answer is None:
                raise _fail(path, cwhere, "accepted item with an unanswered condition")
            if answer == "no":
                if entries:
                    raise _fail(path, cwhere, "a 'no' answer must have no page and no quote")
                parsed[index] = ConditionAnswer(index, False, (), ())
                continue
            if not entries:
                raise _fail(path, cwhere, "a 'yes' answer needs at least one page with a quote")
            quotes: List[Quote] = []
            for entry in entries:
                if entry["page"] not in pool:
                    raise _fail(path, cwhere, f"page {entry['page']} is not among the displayed pages "
                                              f"{sorted(pool)}")
                if any(q.page == entry["page"] for q in quotes):
                    raise _fail(path, cwhere, f"page {entry['page']} listed twice")
                text = packet.pages[item.document][entry["page"]]
                quotes.append(_check_quote(entry, text, path, cwhere))
                quotes_checked += 1
            quotes.sort(key=lambda q: q.page)
            parsed[index] = ConditionAnswer(index, True, tuple(q.page for q in quotes), tuple(quotes))
        if accepted:
            answers[item_id] = parsed
            clear_by_item[item_id] = clear
    return Export(path=str(path), sha256=sha256_bytes(raw), evaluator=evaluator, stage=packet.stage,
                  answers=answers, items_listed=len(seen), quotes_checked=quotes_checked,
                  request_clear=clear_by_item)


def read_exports(paths: Sequence[PathLike], packet: Packet) -> List[Export]:
    """Every export, refusing two that name the same evaluator."""
    exports = [read_export(p, packet) for p in paths]
    by_id: Dict[str, str] = {}
    for export in exports:
        if export.evaluator in by_id:
            raise InputError(export.path, f"evaluator id {export.evaluator!r} also in {by_id[export.evaluator]}")
        by_id[export.evaluator] = export.path
    return exports


def identical_streams(exports: Sequence[Export]) -> List[Tuple[str, str]]:
    """Pairs of evaluators whose accepted answers, pages and quotes are identical (sec. 10.5:
    "two nominal first-pass files identical at all ... decisions, selected pages, and quotes")."""
    out = []
    for i, a in enumerate(exports):
        for b in exports[i + 1:]:
            if a.answers and a.answers == b.answers:
                out.append((a.evaluator, b.evaluator))
    return out


def positive_counts(export: Export) -> Tuple[int, int, int]:
    """(positive conditions, negative conditions, selected pages) of the accepted items."""
    pos = neg = pages = 0
    for conditions in export.answers.values():
        for answer in conditions.values():
            if answer.positive:
                pos += 1
                pages += len(answer.pages)
            else:
                neg += 1
    return pos, neg, pages


def answer_of(export: Export, item: str, index: int) -> Optional[ConditionAnswer]:
    return export.answers.get(item, {}).get(index)
