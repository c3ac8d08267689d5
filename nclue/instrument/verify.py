"""Independent verifier of a constructed release (n-Clue paper, sec. 3.2: "An independent
verifier re-derives every construction page set and both page gates").

This is a second code path, written separately from the construction: it imports none of
:mod:`.sections`, :mod:`.entities`, :mod:`.inventory`, :mod:`.gates` or :mod:`.construction`.
From the recorded definitions in ``provenance/construction_<release>.json`` (condition list,
alias table, excluded keys and page flags) and the local page text and outlines it

1. normalizes outline titles word by word (no regular expressions) and finds entity terms (any
   recorded spelling) with ``str.find`` and an explicit neighbour test, giving the page set of every condition in every
   document;
2. re-enumerates, for every query, the union of documents holding at least one condition and
   compares it with the qrels (no missing and no extra document);
3. recomputes every judged pair's page sets (compared with ``evidence.jsonl``), clue count,
   label and gate, deciding both gates by brute force over pages and page tuples (n <= 3);
4. checks the enumeration rules of the recorded configuration (a gold for every query, at most
   ``max_holders`` all-condition documents, the gold-per-document and queries-per-condition caps,
   distinct names), the release's statistics file and the disjointness of the extra query splits.

It returns a report listing every disagreement; zero disagreements is the pass condition.
"""

import unicodedata
from itertools import combinations, product
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..errors import InputError
from ..layout import ReleaseLayout
from ..formats import iter_jsonl, read_json

DIGITS = "0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LETTERS = UPPER + UPPER.lower()
ROMAN = "IVXLC"
KEYWORDS = ("chapter", "section", "part", "appendix")


def _numeric(word: str) -> bool:
    """``3``, ``2.3.4``, ``2.3.`` (digit groups joined by single dots, optional final dot)."""
    if word.endswith("."):
        word = word[:-1]
    groups = word.split(".")
    return all(g and all(ch in DIGITS for ch in g) for g in groups)


def _enumerator_word(word: str) -> bool:
    if _numeric(word):
        return True
    if len(word) >= 3 and word[0] in UPPER and word[1] == ".":  # A.1, A.1.2.
        rest = word[2:]
        return _numeric(rest) and not rest.startswith(".")
    if len(word) == 2 and word[0] in UPPER and word[1] in ".)":
        return True
    if len(word) >= 2 and word[-1] in ".)" and all(ch in ROMAN for ch in word[:-1]):
        return True
    if 3 <= len(word) <= 6 and word[0] == "(" and word[-1] == ")":
        inner = word[1:-1]
        return all(ch in DIGITS or ch in LETTERS for ch in inner)
    if word.startswith("\u00a7") and len(word) > 1:
        return _numeric(word[1:])
    return False


def _keyword_argument(word: str) -> bool:
    if word and word[-1] in ".:)":
        word = word[:-1]
    if not word:
        return False
    if all(ch in DIGITS for ch in word.replace(".", "")) and _numeric(word) and not word.endswith("."):
        return True
    if len(word) == 1 and word in LETTERS:
        return True
    return all(ch in ROMAN for ch in word)


def _is_keyword(word: str) -> bool:
    return any(word in (k, k.capitalize(), k.upper()) for k in KEYWORDS)


def title_key(title: str) -> str:
    """The recorded normalization, re-implemented on whitespace-separated words."""
    words = unicodedata.normalize("NFKC", title).split()
    while words:
        if len(words) >= 2 and _is_keyword(words[0]) and _keyword_argument(words[1]):
            words = words[2:]
        elif words[0] == "\u00a7" and len(words) >= 2 and _numeric(words[1]):
            words = words[2:]
        elif _enumerator_word(words[0]):
            words = words[1:]
        else:
            break
    text = " ".join(words).casefold().replace("&", " and ")
    text = "".join(ch if ch.isalnum() or ch == " " else " " for ch in text)
    return " ".join(text.split())


def canonical_section(title: str, aliases: Dict[str, str], excluded: Set[str],
                      max_words: int) -> Optional[str]:
    key = title_key(title)
    key = aliases.get(key, key)
    if len(key) < 3 or not any(ch.isalpha() for ch in key) or key.count(" ") + 1 > max_words:
        return None
    return None if key in excluded else key


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def mentions(text: str, term: str) -> bool:
    """Case-sensitive whole-word occurrence of ``term`` in ``text``."""
    start = text.find(term)
    while start >= 0:
        end = start + len(term)
        if (start == 0 or not _word_char(text[start - 1])) and (end == len(text) or not _word_char(text[end])):
            return True
        start = text.find(term, start + 1)
    return False


def brute_single_page(page_sets: Sequence[Sequence[int]]) -> bool:
    return all(page_sets) and any(all(p in s for s in page_sets) for p in page_sets[0])


def brute_distinct_pages(page_sets: Sequence[Sequence[int]]) -> bool:
    return any(len(set(choice)) == len(choice) for choice in product(*page_sets))


def expected_label(page_sets: Sequence[Sequence[int]], page_gates: bool) -> Tuple[int, str, Optional[str]]:
    clues = len([s for s in page_sets if s])
    if clues < len(page_sets):
        return clues, "subset", None
    if page_gates and brute_single_page(page_sets):
        return clues, "subset", "single_page"
    if page_gates and not brute_distinct_pages(page_sets):
        return clues, "subset", "distinct_page"
    return clues, "gold", None


def _release_path(folder: Path, stem: str) -> Optional[Path]:
    for name in (stem, stem + ".gz"):
        if (folder / name).exists():
            return folder / name
    return None


def derive_support(build: Path, record: Dict[str, Any]) -> Dict[str, Dict[str, Tuple[int, ...]]]:
    """Page sets of every recorded condition in every document, from page text and outlines."""
    conditions = record["conditions"]
    excluded_flags = set(record["config"]["excluded_page_flags"])
    aliases = dict(record["section_aliases"])
    excluded_keys = set(record["excluded_section_keys"])
    max_words = int(record["section_max_words"])
    support: Dict[str, Dict[str, Set[int]]] = {c["id"]: {} for c in conditions}
    terms = [(c["id"], tuple(c.get("variants") or [c["id"].split(":", 1)[1]]))
             for c in conditions if c["kind"] == "entity"]
    sections = {c["id"].split(":", 1)[1]: c["id"] for c in conditions if c["kind"] == "section"}
    pages_path = _release_path(build, "pages.jsonl")
    if pages_path is None:
        raise InputError(build / "pages.jsonl.gz", "file not found")
    flagged: Set[Tuple[str, int]] = set()
    for line, obj in iter_jsonl(pages_path):
        flags = obj.get("flags") or []
        if set(flags) & excluded_flags:
            flagged.add((obj["docid"], obj["page"]))
            continue
        text = obj.get("text")
        if not isinstance(text, str):
            raise InputError(pages_path, "page text must be a string", line)
        for cid, variants in terms:
            if any(v in text and mentions(text, v) for v in variants):
                support[cid].setdefault(obj["docid"], set()).add(obj["page"])
    for line, obj in iter_jsonl(build / "outlines.jsonl"):
        for item in obj.get("items", []):
            page = item.get("page")
            if not isinstance(page, int) or isinstance(page, bool) or page < 1:
                continue
            if (obj["docid"], page) in flagged:
                continue
            key = canonical_section(item.get("title", ""), aliases, excluded_keys, max_words)
            if key in sections:
                support[sections[key]].setdefault(obj["docid"], set()).add(page)
    return {cid: {d: tuple(sorted(p)) for d, p in docs.items()} for cid, docs in support.items()}


def verify_release(build, release, provenance) -> Dict[str, Any]:
    """Re-derive every label of ``release`` from ``build``; return the report."""
    build, release = Path(build), Path(release)
    record = read_json(provenance)
    page_gates = bool(record["config"]["page_gates"])
    # Out-of-range outline pages are skipped by construction: bound pages by the documents file.
    n_pages = {obj["docid"]: obj["pages"] for _, obj in iter_jsonl(build / "documents.jsonl")}
    support = derive_support(build, record)
    for docs in support.values():
        for docid in list(docs):
            kept = tuple(p for p in docs[docid] if p <= n_pages.get(docid, 0))
            if kept:
                docs[docid] = kept
            else:
                del docs[docid]
    problems: List[Dict[str, Any]] = []
    names = {c["id"]: c["name"] for c in record["conditions"]}
    queries: Dict[str, List[str]] = {}
    layout = ReleaseLayout.of(release)
    for line, obj in iter_jsonl(layout.existing_jsonl("queries")):
        cids = obj.get("condition_ids")
        if not isinstance(cids, list) or any(c not in support for c in cids):
            problems.append({"qid": obj.get("qid"), "problem": "unknown condition ids"})
            continue
        if [names[c] for c in cids] != obj.get("conditions"):
            problems.append({"qid": obj["qid"], "problem": "condition names differ from ids"})
        queries[obj["qid"]] = cids
    qrels: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for _, obj in iter_jsonl(layout.existing_jsonl("qrels")):
        qrels[(obj["qid"], obj["docid"])] = obj
    judged_by_query: Dict[str, Set[str]] = {}
    for (qid, docid) in qrels:
        judged_by_query.setdefault(qid, set()).add(docid)
    evidence = {(o["qid"], o["docid"]): o["pages"]
                for _, o in iter_jsonl(layout.existing_jsonl("evidence"))}
    counts = {"gold": 0, "subset": 0, "single_page": 0, "distinct_page": 0, "single_page_golds": 0,
              "distinct_page_golds": 0}
    for qid, cids in sorted(queries.items()):
        union = set()
        for cid in cids:
            union |= set(support[cid])
        for docid in sorted(union):
            page_sets = [support[c].get(docid, ()) for c in cids]
            clues, label, gate = expected_label(page_sets, page_gates)
            row = qrels.get((qid, docid))
            if row is None:
                problems.append({"qid": qid, "docid": docid, "problem": "missing from qrels",
                                 "expected": [clues, label, gate]})
                continue
            got = (row.get("clues"), row.get("label"), row.get("gate"))
            if got != (clues, label, gate):
                problems.append({"qid": qid, "docid": docid, "problem": "label differs",
                                 "expected": [clues, label, gate], "released": list(got)})
            if evidence.get((qid, docid)) != [list(p) for p in page_sets]:
                problems.append({"qid": qid, "docid": docid, "problem": "evidence pages differ",
                                 "expected": [list(p) for p in page_sets],
                                 "released": evidence.get((qid, docid))})
            counts[label] += 1
            if gate:
                counts[gate] += 1
            if label == "gold":
                counts["single_page_golds"] += brute_single_page(page_sets)
                counts["distinct_page_golds"] += brute_distinct_pages(page_sets)
        judged_here = judged_by_query.get(qid, set())
        for docid in sorted(judged_here - union):
            problems.append({"qid": qid, "docid": docid, "problem": "judged but holds no condition"})
    # Enumeration rules (recorded configuration): every query has a gold, its conjunction is rare
    # (1..max_holders all-condition documents), and the gold and condition caps hold.
    config = record["config"]
    holders: Dict[str, int] = {}
    golds_of: Dict[str, int] = {}
    gold_use: Dict[str, int] = {}
    for qid, cids in queries.items():
        for docid in sorted(set().union(*[set(support[c]) for c in cids])):
            clues, label, _ = expected_label([support[c].get(docid, ()) for c in cids], page_gates)
            if clues == len(cids):
                holders[qid] = holders.get(qid, 0) + 1
            if label == "gold":
                golds_of[qid] = golds_of.get(qid, 0) + 1
                gold_use[docid] = gold_use.get(docid, 0) + 1
        if not golds_of.get(qid):
            problems.append({"qid": qid, "problem": "query without a gold"})
        if holders.get(qid, 0) > config["max_holders"]:
            problems.append({"qid": qid, "problem": f"{holders[qid]} all-condition documents "
                                                    f"> max_holders {config['max_holders']}"})
        if len({names[c].casefold() for c in cids}) < len(cids):
            problems.append({"qid": qid, "problem": "two conditions share a name"})
    for docid, uses in sorted(gold_use.items()):
        if uses > config["max_gold_per_doc"]:
            problems.append({"docid": docid, "problem": f"gold for {uses} queries > max_gold_per_doc "
                                                        f"{config['max_gold_per_doc']}"})
    cond_use: Dict[str, int] = {}
    for cids in queries.values():
        for cid in cids:
            cond_use[cid] = cond_use.get(cid, 0) + 1
    for cid, uses in sorted(cond_use.items()):
        if uses > config["max_queries_per_condition"]:
            problems.append({"condition": cid, "problem": f"in {uses} queries > "
                                                          f"max_queries_per_condition "
                                                          f"{config['max_queries_per_condition']}"})
    for (qid, docid) in sorted(qrels):
        if qid not in queries:
            problems.append({"qid": qid, "docid": docid, "problem": "qrel of unknown query"})
    stats_path = layout.instrument_stats
    if stats_path.exists():
        stats = read_json(stats_path)
        expected = {"gold_qrels": counts["gold"], "subset_qrels": counts["subset"],
                    "single_page_solvable_golds": counts["single_page_golds"],
                    "distinct_page_valid_golds": counts["distinct_page_golds"],
                    "gate_failures": {"single_page": counts["single_page"],
                                      "distinct_page": counts["distinct_page"]},
                    "queries": len(queries)}
        for key, value in expected.items():
            if stats.get(key) != value:
                problems.append({"problem": f"instrument_stats.json {key} is {stats.get(key)}, "
                                            f"re-derived {value}"})
    # Extra splits: no query and no condition pair shared with the test queries or each other.
    owners: Dict[Tuple[str, str], str] = {}
    splits = [("test", list(queries.values()))]
    for name in ("val", "train"):
        path = _release_path(release, f"{name}_queries.jsonl")
        if path is not None:
            splits.append((name, [o["condition_ids"] for _, o in iter_jsonl(path)]))
    for name, cid_lists in splits:
        for cids in cid_lists:
            for pair in combinations(sorted(cids), 2):
                if owners.setdefault(pair, name) != name:
                    problems.append({"problem": f"condition pair {list(pair)} in both "
                                                f"{owners[pair]} and {name} queries"})
    return {"release": str(release), "queries": len(queries), "qrels_checked": len(qrels),
            "gold": counts["gold"], "subset": counts["subset"],
            "gate_failures": {"single_page": counts["single_page"],
                              "distinct_page": counts["distinct_page"]},
            "single_page_solvable_golds": counts["single_page_golds"],
            "distinct_page_valid_golds": counts["distinct_page_golds"],
            "disagreements": len(problems), "problems": problems}
