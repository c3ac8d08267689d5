"""Condition rubrics: what an evaluator must find for each condition, and the matcher data.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.1: "Every condition supplies (i) a complete
English requirement, (ii) explicit 'counts' criteria, (iii) explicit 'does not count' criteria,
and where needed (iv) a plain-language note. External professional knowledge is prohibited."
The paper's released packet has "no ... broad fallback rubrics": a condition without a recorded
definition is refused here, never given a generic text.

The rubric follows the release's own definition of a condition, so the audit asks whether the
displayed text establishes the condition *as the instrument defines it*:

- a **section** condition (v1 rules, ``provenance/conditions_v1.md``) is a heading whose title
  normalizes (leading numbering removed, case folded, punctuation read as spaces) to the
  condition's key or to an alias of it;
- an **entity** condition is a case-sensitive whole-word mention of one of its recorded spellings
  on a page that is not a table of contents or index.

Two sources are read: the construction record of a built release
(``provenance/construction_<release>.json``: conditions, alias table, excluded keys and page
flags, ``page_gates``) or a rubric file (``{"format": "nclue-audit-rubric", "conditions":
[{"name", "kind", "aliases" | "variants"}], "page_gates", "excluded_page_flags"}``, as
``data/example/rubric.json``).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..formats import PathLike, field, iter_jsonl, read_bytes, read_json, sha256_bytes
from ..instrument.verify import canonical_section, mentions, title_key
from ..layout import ReleaseLayout
from ..release import Release

KINDS = ("section", "entity")
NOTE = ("Judge only the displayed text. Outside knowledge, and text you expect to be elsewhere in "
        "the document, do not count.")


@dataclass(frozen=True)
class ConditionRubric:
    """One condition's rubric and the data its page matchers need."""

    condition_id: str
    kind: str
    name: str
    key: str                      # section: normalized key; entity: the name
    titles: Tuple[str, ...]       # section: accepted titles (name first); entity: ()
    variants: Tuple[str, ...]     # entity: recorded spellings; section: ()
    requirement: str
    counts: Tuple[str, ...]
    does_not_count: Tuple[str, ...]
    note: str


@dataclass(frozen=True)
class RubricSet:
    """Every condition rubric of a release plus the release-wide matching rules."""

    source: str
    sha256: str
    page_gates: bool
    excluded_page_flags: FrozenSet[str]
    section_aliases: Mapping[str, str]
    excluded_section_keys: FrozenSet[str]
    section_max_words: int
    conditions: Mapping[str, ConditionRubric]
    by_name: Mapping[str, Tuple[str, ...]]

    def heading_key(self, line: str) -> Optional[str]:
        """The section key a text line reads as, or None (the release's heading rule)."""
        if not line.strip() or len(line.strip()) > 120:
            return None
        return canonical_section(line, dict(self.section_aliases), set(self.excluded_section_keys),
                                 self.section_max_words)

    def holds_on(self, rubric: ConditionRubric, text: str, flags: Sequence[str]) -> bool:
        """True when the page establishes the condition by the release's mechanical rule."""
        if set(flags) & self.excluded_page_flags:
            return False
        if rubric.kind == "entity":
            return any(mentions(text, v) for v in rubric.variants)
        return any(self.heading_key(line) == rubric.key for line in text.split("\n"))


def _quoted(items: Sequence[str]) -> str:
    quoted = [f'"{x}"' for x in items]
    if len(quoted) <= 2:
        return " or ".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def section_rubric(condition_id: str, name: str, key: str, titles: Sequence[str]) -> ConditionRubric:
    """Rubric of a section condition (a heading that normalizes to ``key``)."""
    others = [t for t in titles if title_key(t) != title_key(name)]
    accepted = f'"{name}"' + (f" (or {_quoted(others)})" if others else "")
    return ConditionRubric(
        condition_id=condition_id, kind="section", name=name, key=key,
        titles=tuple([name] + others), variants=(),
        requirement=(f"The document has a section titled {accepted}: a heading line that reads "
                     "as that title, starting a part of the document."),
        counts=(
            f"A heading line whose whole title is {_quoted([name] + others)}, in any letter case.",
            "The heading may carry numbering or a label before the title, e.g. \"3\", \"2.1\", "
            "\"A.\" or \"Chapter 4\".",
            "Quote the heading line itself.",
        ),
        does_not_count=(
            f"The word {_quoted([name])} in running text, a caption or a cross-reference.",
            "A line of a table of contents, a list of sections or an index (e.g. "
            f"\"{name} ........ 12\").",
            f"A longer heading that only contains the word (e.g. \"Notes on {name}\"), or a "
            "different title with a similar meaning that is not listed above.",
        ),
        note=NOTE)


def entity_rubric(condition_id: str, name: str, variants: Sequence[str]) -> ConditionRubric:
    """Rubric of an entity condition (a case-sensitive whole-word mention)."""
    spellings = list(dict.fromkeys([name] + list(variants)))
    other_case = name.lower() if name.lower() != name else name.upper()
    return ConditionRubric(
        condition_id=condition_id, kind="entity", name=name, key=name, titles=(),
        variants=tuple(spellings),
        requirement=(f"The document mentions {_quoted([name])} by name: the term written exactly "
                     f"as {_quoted(spellings)}, as a word of its own."),
        counts=(
            f"The term spelled exactly {_quoted(spellings)} (letter case matters).",
            "It stands alone: the characters just before and after it are not letters, digits or "
            "underscores (spaces, punctuation, a backslash before it and brackets are fine).",
            "Anywhere in prose, a heading, a table or a code listing, on a page that is not a "
            "table of contents or an index.",
        ),
        does_not_count=(
            f"Another letter case, e.g. \"{other_case}\", unless it is listed above.",
            f"The term inside a longer word or name, e.g. \"{name}x\" or \"\\{other_case}set\".",
            "A mention only in a table of contents or an index page.",
            "A description of the same thing without the term itself.",
        ),
        note=NOTE)


def _from_construction(record: Mapping[str, Any], path: PathLike) -> Tuple[Dict[str, ConditionRubric], Dict[str, Any]]:
    aliases = dict(record.get("section_aliases") or {})
    conditions: Dict[str, ConditionRubric] = {}
    for item in record.get("conditions") or []:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise InputError(path, "every condition needs a string 'id'")
        cid, kind, name = item["id"], item.get("kind"), item.get("name")
        if kind not in KINDS or not isinstance(name, str) or not name:
            raise InputError(path, f"condition {cid!r}: needs kind section|entity and a name")
        if kind == "section":
            key = cid.split(":", 1)[1]
            titles = [name] + sorted(a for a, k in aliases.items() if k == key and a != key)
            conditions[cid] = section_rubric(cid, name, key, titles)
        else:
            conditions[cid] = entity_rubric(cid, name, item.get("variants") or [name])
    config = record.get("config") or {}
    rules = {"page_gates": bool(config.get("page_gates", True)),
             "excluded_page_flags": config.get("excluded_page_flags") or [],
             "section_aliases": aliases,
             "excluded_section_keys": record.get("excluded_section_keys") or [],
             "section_max_words": int(record.get("section_max_words", 6))}
    return conditions, rules


def _from_rubric_file(data: Mapping[str, Any], path: PathLike) -> Tuple[Dict[str, ConditionRubric], Dict[str, Any]]:
    conditions: Dict[str, ConditionRubric] = {}
    aliases: Dict[str, str] = {}
    items = data.get("conditions")
    if not isinstance(items, list) or not items:
        raise InputError(path, "'conditions' must be a non-empty list")
    for number, item in enumerate(items, start=1):
        where = f"condition {number}"
        if not isinstance(item, dict):
            raise InputError(path, f"{where}: expected an object")
        name, kind = item.get("name"), item.get("kind")
        if not isinstance(name, str) or not name.strip() or kind not in KINDS:
            raise InputError(path, f"{where}: needs a non-empty 'name' and kind section|entity")
        if kind == "section":
            key = title_key(name)
            others = item.get("aliases") or []
            if not isinstance(others, list) or not all(isinstance(a, str) for a in others):
                raise InputError(path, f"{where}: 'aliases' must be a list of strings")
            for alias in others:
                aliases[title_key(alias)] = key
            cid = f"section:{key}"
            rubric = section_rubric(cid, name, key, [name] + others)
        else:
            variants = item.get("variants") or [name]
            if not isinstance(variants, list) or not all(isinstance(v, str) and v for v in variants):
                raise InputError(path, f"{where}: 'variants' must be a list of strings")
            cid = f"entity:{name}"
            rubric = entity_rubric(cid, name, variants)
        if cid in conditions:
            raise InputError(path, f"{where}: duplicate condition {cid!r}")
        conditions[cid] = rubric
    flags = data.get("excluded_page_flags") or []
    rules = {"page_gates": bool(data.get("page_gates", True)), "excluded_page_flags": flags,
             "section_aliases": aliases, "excluded_section_keys": [],
             "section_max_words": int(data.get("section_max_words", 6))}
    return conditions, rules


def load_rubrics(path: PathLike) -> RubricSet:
    """Read a construction record or a rubric file (module docstring)."""
    raw = read_bytes(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(path, "expected a JSON object")
    if data.get("format") == "nclue-audit-rubric":
        conditions, rules = _from_rubric_file(data, path)
    elif "conditions" in data and "section_aliases" in data:
        conditions, rules = _from_construction(data, path)
    else:
        raise InputError(path, "neither a rubric file (format nclue-audit-rubric) nor a "
                               "construction record (conditions, section_aliases)")
    flags = rules["excluded_page_flags"]
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise InputError(path, "'excluded_page_flags' must be a list of strings")
    by_name: Dict[str, List[str]] = {}
    for cid, rubric in sorted(conditions.items()):
        by_name.setdefault(rubric.name, []).append(cid)
    return RubricSet(
        source=str(path), sha256=sha256_bytes(raw), page_gates=rules["page_gates"],
        excluded_page_flags=frozenset(flags), section_aliases=dict(rules["section_aliases"]),
        excluded_section_keys=frozenset(rules["excluded_section_keys"]),
        section_max_words=rules["section_max_words"], conditions=conditions,
        by_name={k: tuple(v) for k, v in by_name.items()})


def default_rubric_path(release_dir: PathLike) -> Path:
    """``<release>/rubric.json`` when present, else the construction record
    ``provenance/construction_<release>.json`` of the repository holding ``data/<release>``."""
    folder = Path(release_dir)
    own = folder / "rubric.json"
    if own.exists():
        return own
    return folder.resolve().parent.parent / "provenance" / f"construction_{folder.resolve().name}.json"


def query_condition_ids(release: Release, rubrics: RubricSet) -> Dict[str, Tuple[str, ...]]:
    """Condition ids of every query, in condition order.

    Uses ``condition_ids`` of ``queries.jsonl`` where the release records them, else the rubric's
    unique condition of each display name; a condition without a rubric is refused.
    """
    path = ReleaseLayout.of(release.path).queries
    out: Dict[str, Tuple[str, ...]] = {}
    for line, obj in iter_jsonl(path):
        qid = field(obj, "qid", str, path, line)
        names = release.queries[qid].conditions
        ids = obj.get("condition_ids")
        if ids is None:
            resolved = []
            for name in names:
                found = rubrics.by_name.get(name, ())
                if len(found) != 1:
                    raise InputError(path, f"query {qid!r}: condition {name!r} has "
                                           f"{'no' if not found else 'more than one'} rubric in "
                                           f"{rubrics.source}", line)
                resolved.append(found[0])
            ids = resolved
        if not isinstance(ids, list) or len(ids) != len(names) or not all(isinstance(i, str) for i in ids):
            raise InputError(path, f"query {qid!r}: condition_ids must list one id per condition", line)
        for cid in ids:
            if cid not in rubrics.conditions:
                raise InputError(path, f"query {qid!r}: condition {cid!r} has no rubric in "
                                       f"{rubrics.source}", line)
        out[qid] = tuple(ids)
    return out
