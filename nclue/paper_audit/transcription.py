"""Loading and validating a paper transcription (``claims/papers/<paper>.json``).

A transcription keeps every numeric table cell and prose claim of a paper as its *printed string*
(layout in ``claims/papers/README.md``), plus the relations between them, declared as data.
Nothing here knows about a particular paper. Every structural problem (a missing field, a field of
the wrong type, a duplicate id) is an :class:`~nclue.errors.InputError` naming the file and the
place inside it (``tables[2].rows[4].cells.score``), never a traceback.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ..errors import InputError
from ..formats import PathLike, read_json
from .printed import Printed, parse_printed

SCHEMA = "nclue.paper-transcription/1"
_ID = re.compile(r"^[A-Za-z0-9_+\-]+$")
#: The fields each part of a transcription may have (anything else is refused, so a misspelt
#: field cannot silently drop a value).
FIELDS = {
    "document": ("schema", "paper", "title", "seed", "tables", "prose", "parts", "relations",
                 "release_map", "not_transcribed"),
    "table": ("id", "caption", "kind", "seed_layout", "seed_anchor", "labels_in_seed", "note",
              "columns", "rows"),
    "column": ("id", "kind", "label", "note"),
    "row": ("id", "label", "kind", "cells", "words", "lists", "group", "note"),
    "cell": ("s", "kind"),
    "prose": ("id", "s", "kind", "context", "section", "printed_word", "note"),
    "release_map": ("value", "run", "measure", "slice", "scale"),
    "not_transcribed": ("id", "reason"),
    "part": ("ref", "anchor", "note"),
}


@dataclass(frozen=True)
class Transcription:
    """A loaded transcription: values by id, tables (for bulk relations), relations, release map.

    ``words`` holds printed words of table rows (``"T7.page_agg.direction" -> "flip"``): a
    direction column or a yes/no mark that a relation compares with the numbers beside it.
    ``lists`` holds printed lists of table rows (``"M8.cs.sub" -> ("Bibliography", ...)``): the
    entries of a cell that a prose count ("ten sub-classes each") is about.
    ``parts`` holds the numbered parts the paper has (``"Table S14" -> "Table S14: Evaluation
    impact"``: a reference and the seed text that shows it exists, a caption or a heading), which
    ``xref`` relations resolve the paper's cross-references against.
    """

    path: str
    paper: str
    seed: str
    values: Mapping[str, Printed]
    tables: Mapping[str, Mapping[str, Any]]
    relations: Tuple[Mapping[str, Any], ...]
    release_map: Tuple[Mapping[str, Any], ...]
    not_transcribed: Tuple[Mapping[str, Any], ...]
    words: Mapping[str, str]
    lists: Mapping[str, Tuple[str, ...]]
    parts: Mapping[str, str]


class _Reader:
    """Typed access to the parts of one transcription document, with located error messages."""

    def __init__(self, path: PathLike) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> InputError:
        return InputError(self.path, f"{where}: {problem}" if where else problem)

    def obj(self, value: Any, where: str, part: Optional[str] = None) -> Dict[str, Any]:
        """``value`` as an object; with ``part``, one holding only the fields of that part."""
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object, got {_type(value)}")
        if part is not None:
            unknown = sorted(str(k) for k in value if k not in FIELDS[part])
            if unknown:
                raise self.fail(where, f"unknown field {unknown[0]!r} (known: {', '.join(FIELDS[part])})")
        return value

    def items(self, doc: Mapping[str, Any], key: str, where: str = "") -> List[Any]:
        """An optional list field (absent means empty)."""
        value = doc.get(key, [])
        if not isinstance(value, list):
            raise self.fail(_join(where, key), f"must be a list, got {_type(value)}")
        return value

    def text(self, doc: Mapping[str, Any], key: str, where: str, required: bool = True,
             empty_ok: bool = False) -> Optional[str]:
        if key not in doc:
            if required:
                raise self.fail(where, f"missing field {key!r}")
            return None
        value = doc[key]
        if not isinstance(value, str) or (not empty_ok and not value):
            what = "a string" if empty_ok else "a non-empty string"
            raise self.fail(_join(where, key), f"must be {what}, got {_type(value)}")
        return value

    def ident(self, doc: Mapping[str, Any], where: str, what: str) -> str:
        if "id" not in doc:
            raise self.fail(where, f"{what} without an 'id'")
        ident = doc["id"]
        if not isinstance(ident, str) or not _ID.match(ident):
            raise self.fail(where, f"{what} id {ident!r} must be a string of letters, digits, _ + - only")
        return ident


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "a list", str: "a string", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _cell(reader: _Reader, raw: Any, vid: str, default_kind: Optional[str], where: str) -> Printed:
    if isinstance(raw, dict):
        reader.obj(raw, where, "cell")
        text = reader.text(raw, "s", where)
        kind = raw.get("kind", default_kind)
        _check_kind(reader, kind, where)
        return parse_printed(text, vid, kind, reader.path)
    if not isinstance(raw, str):
        raise reader.fail(where, f"a cell is a printed string or {{\"s\": ..., \"kind\": ...}}, got {_type(raw)}")
    return parse_printed(raw, vid, default_kind, reader.path)


def _check_kind(reader: _Reader, kind: Any, where: str) -> None:
    if kind is not None and kind not in ("measure", "count"):
        raise reader.fail(_join(where, "kind"), f"must be 'measure' or 'count', got {kind!r}")


def _load_tables(reader: _Reader, doc: Mapping[str, Any], values: Dict[str, Printed],
                 words: Dict[str, str], lists: Dict[str, Tuple[str, ...]]) -> Dict[str, Mapping[str, Any]]:
    tables: Dict[str, Mapping[str, Any]] = {}
    for t_index, raw_table in enumerate(reader.items(doc, "tables")):
        where = f"tables[{t_index}]"
        table = reader.obj(raw_table, where, "table")
        tid = reader.ident(table, where, "table")
        where = f"table {tid}"
        if tid in tables:
            raise reader.fail("", f"duplicate table id {tid!r}")
        _check_kind(reader, table.get("kind"), where)
        columns = table.get("columns")
        if not isinstance(columns, list) or not columns:
            raise reader.fail(where, "columns must be a non-empty list")
        col_ids: List[str] = []
        col_kind: Dict[str, Optional[str]] = {}
        for c_index, raw_col in enumerate(columns):
            col = reader.obj(raw_col, f"{where} columns[{c_index}]", "column")
            cid = reader.ident(col, f"{where} columns[{c_index}]", f"table {tid} column")
            if cid in col_kind:
                raise reader.fail(where, f"duplicate column id {cid!r}")
            _check_kind(reader, col.get("kind"), f"{where} column {cid}")
            col_ids.append(cid)
            col_kind[cid] = col.get("kind", table.get("kind"))
        row_ids: List[str] = []
        groups: Dict[str, str] = {}
        for r_index, raw_row in enumerate(reader.items(table, "rows", where)):
            row = reader.obj(raw_row, f"{where} rows[{r_index}]", "row")
            rid = reader.ident(row, f"{where} rows[{r_index}]", f"table {tid} row")
            if rid in row_ids:
                raise reader.fail(where, f"duplicate row id {rid!r}")
            row_ids.append(rid)
            rwhere = f"{where} row {rid}"
            if not isinstance(row.get("label"), str):
                raise reader.fail(rwhere, "missing printed label")
            _check_kind(reader, row.get("kind"), rwhere)
            group = reader.text(row, "group", rwhere, required=False)
            if group is not None:
                groups[rid] = group
            cells = reader.obj(row.get("cells", {}), f"{rwhere} cells")
            for cid, raw in cells.items():
                if cid not in col_kind:
                    raise reader.fail(rwhere, f"unknown column {cid!r}")
                vid = f"{tid}.{rid}.{cid}"
                kind = row.get("kind", col_kind[cid])
                values[vid] = _cell(reader, raw, vid, kind, f"{rwhere} cells.{cid}")
            row_words = reader.obj(row.get("words", {}), f"{rwhere} words")
            for name, word in row_words.items():
                if not isinstance(name, str) or not _ID.match(name):
                    raise reader.fail(f"{rwhere} words", f"word id {name!r} must use letters, digits, _ + - only")
                if not isinstance(word, str) or not word.strip():
                    raise reader.fail(f"{rwhere} words.{name}", f"must be a non-empty string, got {_type(word)}")
                words[f"{tid}.{rid}.{name}"] = word
            row_lists = reader.obj(row.get("lists", {}), f"{rwhere} lists")
            for name, entries in row_lists.items():
                if not isinstance(name, str) or not _ID.match(name):
                    raise reader.fail(f"{rwhere} lists", f"list id {name!r} must use letters, digits, _ + - only")
                if (not isinstance(entries, list) or not entries
                        or not all(isinstance(e, str) and e.strip() for e in entries)):
                    raise reader.fail(f"{rwhere} lists.{name}", "must be a non-empty list of printed entries")
                lists[f"{tid}.{rid}.{name}"] = tuple(entries)
        caption = table.get("caption", "")
        if not isinstance(caption, str):
            raise reader.fail(f"{where} caption", f"must be a string, got {_type(caption)}")
        tables[tid] = {"columns": col_ids, "rows": row_ids, "caption": caption, "groups": groups}
    return tables


def _load_prose(reader: _Reader, doc: Mapping[str, Any], values: Dict[str, Printed]) -> None:
    for index, raw in enumerate(reader.items(doc, "prose")):
        where = f"prose[{index}]"
        item = reader.obj(raw, where, "prose")
        pid = reader.ident(item, where, "prose")
        vid = f"p.{pid}"
        if vid in values:
            raise reader.fail("", f"duplicate prose id {pid!r}")
        if not isinstance(item.get("context"), str):
            raise reader.fail(f"prose {pid}", "missing context (the sentence it comes from)")
        _check_kind(reader, item.get("kind"), f"prose {pid}")
        if "s" not in item:
            raise reader.fail(f"prose {pid}", "missing field 's' (the printed number)")
        values[vid] = parse_printed(item.get("s"), vid, item.get("kind"), reader.path)


def _load_parts(reader: _Reader, doc: Mapping[str, Any]) -> Dict[str, str]:
    parts: Dict[str, str] = {}
    for index, raw in enumerate(reader.items(doc, "parts")):
        where = f"parts[{index}]"
        item = reader.obj(raw, where, "part")
        ref = reader.text(item, "ref", where)
        anchor = reader.text(item, "anchor", f"part {ref}")
        reader.text(item, "note", f"part {ref}", required=False)
        if ref in parts:
            raise reader.fail("", f"duplicate part {ref!r}")
        parts[ref] = anchor
    return parts


def load_transcription(path: PathLike) -> Transcription:
    """Read and validate a transcription file (see ``claims/papers/README.md``)."""
    return transcription_from_document(read_json(path), path)


def transcription_from_document(doc: Any, path: PathLike) -> Transcription:
    """Validate a parsed transcription document; ``path`` names it in error messages."""
    reader = _Reader(path)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(path, f"not a paper transcription (expected schema {SCHEMA!r})")
    reader.obj(doc, "", "document")
    for key in ("paper", "seed"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise InputError(path, f"missing field {key!r}")
    if not _ID.match(doc["paper"]):
        raise InputError(path, f"paper id {doc['paper']!r} must use letters, digits, _ + - only")
    values: Dict[str, Printed] = {}
    words: Dict[str, str] = {}
    lists: Dict[str, Tuple[str, ...]] = {}
    tables = _load_tables(reader, doc, values, words, lists)
    _load_prose(reader, doc, values)
    parts = _load_parts(reader, doc)
    relations = doc.get("relations", [])
    if not isinstance(relations, list):
        raise InputError(path, "relations must be a list")
    for index, rel in enumerate(relations):
        reader.obj(rel, f"relations[{index}]")
    release_map = doc.get("release_map", [])
    if not isinstance(release_map, list):
        raise InputError(path, "release_map must be a list")
    for index, entry in enumerate(release_map):
        reader.obj(entry, f"release_map[{index}]", "release_map")
    not_transcribed = reader.items(doc, "not_transcribed")
    for index, entry in enumerate(not_transcribed):
        reader.obj(entry, f"not_transcribed[{index}]", "not_transcribed")
    return Transcription(str(path), doc["paper"], doc["seed"], values, tables, tuple(relations),
                         tuple(release_map), tuple(not_transcribed), words, lists, parts)
