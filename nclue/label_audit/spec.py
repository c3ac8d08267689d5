"""The blinded packet spec and the separate administrator key of one audit stage.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.1: "Stable query/document identifiers,
benchmark grades, gold/partial labels, construction pages, and retrieval routes were kept in a
separate administrator key"; for the challenge "target/control status and the contrast itself
are hidden".

``spec.json`` (blinded; the packet is rendered from it and the page text alone): per item an
opaque id, the document to show pages of, the request, and per asked condition its rubric and the
page numbers to display, in page order. It holds no qid, label, grade, stratum, role, route or
construction page.

``key.json`` (administrator): the sha256 of the spec, the release files it was drawn from, the
seed, the repair policy fixed at that moment (:mod:`.policy`), the rubric source, and per item
the qid, document, role (``sample``, ``target``, ``control``, ``adjudication``), stratum,
construction label and per condition the construction pages and the route membership of every
displayed page (Table S10).
"""

import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..formats import (PathLike, dumps_canonical, read_bytes, read_json, sha256_bytes, sha256_file,
                       write_bytes_atomic)
from ..layout import INSTRUMENT_STEMS, ReleaseLayout
from ..release import Release
from .pagetext import PageText
from .pools import build_pool, index_document, routes_for
from .rubric import RubricSet

SPEC_FORMAT = "nclue-audit-spec"
KEY_FORMAT = "nclue-audit-key"
STAGES = ("first_pass", "adjudication", "tie_break")
DESIGNS = ("stratified", "challenge")
ROLES = ("sample", "target", "control")
ITEM_PREFIX = {("first_pass", "stratified"): "A", ("adjudication", "stratified"): "J",
               ("first_pass", "challenge"): "C", ("adjudication", "challenge"): "T",
               ("tie_break", "challenge"): "B"}


@dataclass(frozen=True)
class PoolPage:
    page: int
    routes: Tuple[str, ...]


@dataclass(frozen=True)
class KeyCondition:
    index: int
    condition_id: str
    name: str
    ask: bool
    construction_pages: Tuple[int, ...]
    pool: Tuple[PoolPage, ...]


@dataclass(frozen=True)
class KeyItem:
    item: str
    qid: str
    docid: str
    role: str
    stratum: str
    clues: int
    label: str
    gate: Optional[str]
    conditions: Tuple[KeyCondition, ...]


@dataclass(frozen=True)
class Key:
    packet_id: str
    stage: str
    design: str
    release: str
    release_files: Mapping[str, str]
    seed: int
    page_gates: bool
    policy: Mapping[str, Any]
    rubric: Mapping[str, Any]
    spec_sha256: str
    items: Tuple[KeyItem, ...]
    contrast: Optional[Mapping[str, Any]] = None
    parent: Optional[Mapping[str, Any]] = None

    def item(self, item_id: str) -> KeyItem:
        for it in self.items:
            if it.item == item_id:
                return it
        raise KeyError(item_id)


@dataclass(frozen=True)
class SpecCondition:
    index: int
    name: str
    requirement: str
    counts: Tuple[str, ...]
    does_not_count: Tuple[str, ...]
    note: str
    pages: Tuple[int, ...]


@dataclass(frozen=True)
class SpecItem:
    item: str
    docid: str
    request: str
    all_conditions: Tuple[str, ...]
    conditions: Tuple[SpecCondition, ...]


@dataclass(frozen=True)
class Spec:
    packet_id: str
    stage: str
    design: str
    release: str
    items: Tuple[SpecItem, ...]


@dataclass(frozen=True)
class StagePair:
    """One pair to put into a stage: which conditions to ask, extra routes for the pool."""

    qid: str
    docid: str
    role: str
    stratum: str
    asked: Tuple[int, ...]
    first_pass: Mapping[int, Tuple[int, ...]]
    selected: Mapping[int, Tuple[int, ...]]


def release_file_hashes(release: Release) -> Dict[str, str]:
    """sha256 (as stored) of the release files a stage depends on, by file name."""
    layout = ReleaseLayout.of(release.path)
    out = {}
    for stem in INSTRUMENT_STEMS:
        path = layout.existing_jsonl(stem, required=False)
        if path is not None:
            out[path.name] = sha256_file(path)
    return out


def build_stage(release: Release, rubrics: RubricSet, condition_ids: Mapping[str, Tuple[str, ...]],
                pages: Mapping[str, Mapping[int, PageText]], pairs: Sequence[StagePair],
                stage: str, design: str, packet_id: str, seed: int, size: int,
                order: Sequence[str], policy_ref: Mapping[str, Any],
                contrast: Optional[Mapping[str, Any]] = None,
                parent: Optional[Mapping[str, Any]] = None) -> Tuple[Spec, Key]:
    """Blinded spec and administrator key for ``pairs`` (items shuffled by the seed).

    ``size`` pages per asked condition (``min(size, pages)``), routes taken in ``order``
    (:func:`nclue.label_audit.pools.build_pool`). The key's ``spec_sha256`` is filled in by
    :func:`write_stage`.
    """
    if (stage, design) not in ITEM_PREFIX:
        raise InputError(packet_id, f"unknown stage/design {stage}/{design}")
    shuffled = list(pairs)
    random.Random(f"nclue-audit-order:{packet_id}:{seed}").shuffle(shuffled)
    width = max(3, len(str(len(shuffled))))
    prefix = ITEM_PREFIX[(stage, design)]
    spec_items, key_items = [], []
    indexes: Dict[str, Any] = {}
    for number, pair in enumerate(shuffled, start=1):
        item_id = f"{prefix}{number:0{width}d}"
        query = release.queries[pair.qid]
        judgment = release.judgments[pair.qid][pair.docid]
        evidence = release.evidence.get((pair.qid, pair.docid), tuple(() for _ in query.conditions))
        doc_pages = pages[pair.docid]
        if pair.docid not in indexes:
            indexes[pair.docid] = index_document(doc_pages, rubrics)
        spec_conditions, key_conditions = [], []
        for index, (name, cid) in enumerate(zip(query.conditions, condition_ids[pair.qid])):
            rubric = rubrics.conditions[cid]
            ask = index in pair.asked
            pool: Tuple[PoolPage, ...] = ()
            if ask:
                routes = routes_for(rubric, rubrics, indexes[pair.docid], evidence[index],
                                    pair.first_pass.get(index, ()), pair.selected.get(index, ()))
                shown, membership = build_pool(routes, order, size, doc_pages,
                                               f"nclue-audit-fill:{packet_id}:{seed}:{pair.qid}:{pair.docid}:{index}")
                pool = tuple(PoolPage(p, tuple(membership[p])) for p in shown)
                spec_conditions.append(SpecCondition(
                    index=index, name=name, requirement=rubric.requirement, counts=rubric.counts,
                    does_not_count=rubric.does_not_count, note=rubric.note, pages=tuple(shown)))
            key_conditions.append(KeyCondition(index, cid, name, ask, tuple(evidence[index]), pool))
        spec_items.append(SpecItem(item_id, pair.docid, query.forms["natural"], query.conditions,
                                   tuple(spec_conditions)))
        key_items.append(KeyItem(item_id, pair.qid, pair.docid, pair.role, pair.stratum,
                                 judgment.clues, judgment.label, judgment.gate, tuple(key_conditions)))
    spec = Spec(packet_id, stage, design, release.name, tuple(spec_items))
    key = Key(packet_id=packet_id, stage=stage, design=design, release=release.name,
              release_files=release_file_hashes(release), seed=seed, page_gates=rubrics.page_gates,
              policy=dict(policy_ref), rubric={"file": Path(rubrics.source).name, "sha256": rubrics.sha256},
              spec_sha256="", items=tuple(key_items), contrast=contrast, parent=parent)
    return spec, key


# ------------------------------------------------------------------------------------------
# JSON forms
# ------------------------------------------------------------------------------------------

def spec_to_json(spec: Spec) -> Dict[str, Any]:
    return {"format": SPEC_FORMAT, "version": 1, "packet_id": spec.packet_id, "stage": spec.stage,
            "design": spec.design, "release": spec.release,
            "items": [{"item": it.item, "docid": it.docid, "request": it.request,
                       "all_conditions": list(it.all_conditions),
                       "conditions": [{"index": c.index, "name": c.name, "requirement": c.requirement,
                                       "counts": list(c.counts), "does_not_count": list(c.does_not_count),
                                       "note": c.note, "pages": list(c.pages)} for c in it.conditions]}
                      for it in spec.items]}


def key_to_json(key: Key) -> Dict[str, Any]:
    return {"format": KEY_FORMAT, "version": 1, "packet_id": key.packet_id, "stage": key.stage,
            "design": key.design, "release": key.release, "release_files": dict(key.release_files),
            "seed": key.seed, "page_gates": key.page_gates, "policy": dict(key.policy),
            "rubric": dict(key.rubric), "spec_sha256": key.spec_sha256,
            "contrast": key.contrast, "parent": key.parent,
            "items": [{"item": it.item, "qid": it.qid, "docid": it.docid, "role": it.role,
                       "stratum": it.stratum, "clues": it.clues, "label": it.label, "gate": it.gate,
                       "conditions": [{"index": c.index, "condition_id": c.condition_id, "name": c.name,
                                       "ask": c.ask, "construction_pages": list(c.construction_pages),
                                       "pool": [{"page": p.page, "routes": list(p.routes)} for p in c.pool]}
                                      for c in it.conditions]}
                      for it in key.items]}


STAGE_FILES = ("spec.json", "key.json")


def write_stage(folder: PathLike, spec: Spec, key: Key, inputs: Sequence[PathLike] = ()) -> Tuple[Path, Path, Key]:
    """Write ``spec.json`` then ``key.json`` (recording the spec's sha256) into ``folder``;
    neither may be one of ``inputs`` (:mod:`nclue.outputs`)."""
    out = Path(folder)
    spec_bytes = (dumps_canonical(spec_to_json(spec), indent=1) + "\n").encode("utf-8")
    spec_path, key_path = (out / name for name in STAGE_FILES)
    write_bytes_atomic(spec_path, spec_bytes, inputs)
    key = replace(key, spec_sha256=sha256_bytes(spec_bytes))
    write_bytes_atomic(key_path, (dumps_canonical(key_to_json(key), indent=1) + "\n").encode("utf-8"), inputs)
    return spec_path, key_path, key


def _need(obj: Mapping[str, Any], name: str, kind, path: PathLike, where: str):
    value = obj.get(name)
    if isinstance(value, bool) and kind is not bool:
        raise InputError(path, f"{where}: field {name!r} has the wrong type")
    if not isinstance(value, kind):
        raise InputError(path, f"{where}: field {name!r} missing or of the wrong type")
    return value


def _int_list(value: Any, path: PathLike, where: str) -> Tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                                              for v in value):
        raise InputError(path, f"{where}: expected a list of page numbers >= 1")
    return tuple(value)


def _str_list(value: Any, path: PathLike, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, f"{where}: expected a list of strings")
    return tuple(value)


def read_spec(path: PathLike) -> Spec:
    """Read and validate ``spec.json``."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != SPEC_FORMAT:
        raise InputError(path, f"not an audit spec (format {SPEC_FORMAT!r} expected)")
    stage, design = data.get("stage"), data.get("design")
    if (stage, design) not in ITEM_PREFIX:
        raise InputError(path, f"unknown stage/design {stage!r}/{design!r}")
    items, seen = [], set()
    for number, obj in enumerate(_need(data, "items", list, path, "spec"), start=1):
        where = f"item {number}"
        if not isinstance(obj, dict):
            raise InputError(path, f"{where}: expected an object")
        item_id = _need(obj, "item", str, path, where)
        if item_id in seen:
            raise InputError(path, f"{where}: duplicate item id {item_id!r}")
        seen.add(item_id)
        conditions = []
        for cnum, c in enumerate(_need(obj, "conditions", list, path, where), start=1):
            cwhere = f"{where} ({item_id}) condition {cnum}"
            if not isinstance(c, dict):
                raise InputError(path, f"{cwhere}: expected an object")
            conditions.append(SpecCondition(
                index=_need(c, "index", int, path, cwhere), name=_need(c, "name", str, path, cwhere),
                requirement=_need(c, "requirement", str, path, cwhere),
                counts=_str_list(c.get("counts"), path, cwhere),
                does_not_count=_str_list(c.get("does_not_count"), path, cwhere),
                note=_need(c, "note", str, path, cwhere), pages=_int_list(c.get("pages"), path, cwhere)))
        if not conditions:
            raise InputError(path, f"{where} ({item_id}): asks no condition")
        items.append(SpecItem(item_id, _need(obj, "docid", str, path, where),
                              _need(obj, "request", str, path, where),
                              _str_list(obj.get("all_conditions"), path, where), tuple(conditions)))
    if not items:
        raise InputError(path, "the spec holds no item")
    return Spec(_need(data, "packet_id", str, path, "spec"), stage, design,
                _need(data, "release", str, path, "spec"), tuple(items))


def read_key(path: PathLike) -> Tuple[Key, str]:
    """Read and validate ``key.json``; returns (key, sha256 of the file)."""
    raw = read_bytes(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != KEY_FORMAT:
        raise InputError(path, f"not an administrator key (format {KEY_FORMAT!r} expected)")
    stage, design = data.get("stage"), data.get("design")
    if (stage, design) not in ITEM_PREFIX:
        raise InputError(path, f"unknown stage/design {stage!r}/{design!r}")
    items = []
    for number, obj in enumerate(_need(data, "items", list, path, "key"), start=1):
        where = f"item {number}"
        if not isinstance(obj, dict):
            raise InputError(path, f"{where}: expected an object")
        conditions = []
        for cnum, c in enumerate(_need(obj, "conditions", list, path, where), start=1):
            cwhere = f"{where} condition {cnum}"
            if not isinstance(c, dict):
                raise InputError(path, f"{cwhere}: expected an object")
            pool = []
            for p in _need(c, "pool", list, path, cwhere):
                if not isinstance(p, dict):
                    raise InputError(path, f"{cwhere}: pool entries are objects")
                pool.append(PoolPage(_need(p, "page", int, path, cwhere),
                                     _str_list(p.get("routes"), path, cwhere)))
            conditions.append(KeyCondition(
                _need(c, "index", int, path, cwhere), _need(c, "condition_id", str, path, cwhere),
                _need(c, "name", str, path, cwhere), _need(c, "ask", bool, path, cwhere),
                _int_list(c.get("construction_pages"), path, cwhere), tuple(pool)))
        role = obj.get("role")
        if role not in ROLES + ("adjudication",):
            raise InputError(path, f"{where}: unknown role {role!r}")
        gate = obj.get("gate")
        items.append(KeyItem(_need(obj, "item", str, path, where), _need(obj, "qid", str, path, where),
                             _need(obj, "docid", str, path, where), role,
                             _need(obj, "stratum", str, path, where), _need(obj, "clues", int, path, where),
                             _need(obj, "label", str, path, where),
                             gate if isinstance(gate, str) else None, tuple(conditions)))
    key = Key(packet_id=_need(data, "packet_id", str, path, "key"), stage=stage, design=design,
              release=_need(data, "release", str, path, "key"),
              release_files=_need(data, "release_files", dict, path, "key"),
              seed=_need(data, "seed", int, path, "key"), page_gates=_need(data, "page_gates", bool, path, "key"),
              policy=_need(data, "policy", dict, path, "key"), rubric=_need(data, "rubric", dict, path, "key"),
              spec_sha256=_need(data, "spec_sha256", str, path, "key"), items=tuple(items),
              contrast=data.get("contrast"), parent=data.get("parent"))
    return key, sha256_bytes(raw)


def check_release(release_files: Mapping[str, str], release: Release, where: PathLike) -> None:
    """Refuse a release whose files differ from those a stage was drawn from."""
    now = release_file_hashes(release)
    for name, digest in sorted(release_files.items()):
        if now.get(name) != digest:
            raise InputError(where, f"release file {name} of {release.path} differs from the one "
                                    f"this stage was drawn from (sha256 {digest[:12]}...)")


def keyed_items(key: Key) -> Dict[str, KeyItem]:
    return {it.item: it for it in key.items}


def asked_indices(item: KeyItem) -> List[int]:
    return [c.index for c in item.conditions if c.ask]
