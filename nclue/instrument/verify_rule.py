"""Independent check of a support-rule label version (P1) by the construction's verifier.

A second code path for ``audit/label_audit/support_rule_P1.md``, written apart from
:mod:`.support_rule`: no regular expressions and none of its functions. From the verifier's own
P0 page sets (:func:`.verify.derive_support`), the rule's parameter file and the page text it
re-decides every (document, condition, page) of every judged pair, judges the pair again by brute
force (:func:`.verify.expected_label`), and compares page sets and labels with the repair's label
version; zero disagreements is the pass condition.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..formats import iter_jsonl, read_json
from .verify import canonical_section, derive_support, expected_label, title_key


def _alnum_line(line: str) -> bool:
    return any(ch.isalnum() for ch in line)


def _letter_runs(line: str) -> frozenset:
    runs, cur = set(), []
    for ch in line + " ":
        if ch.isalpha():
            cur.append(ch)
        elif cur:
            runs.add("".join(cur).casefold())
            cur = []
    return frozenset(runs)


def _word_runs(text: str) -> List[str]:
    out, cur = [], []
    for ch in text + " ":
        if ch.isalnum() or ch == "_":
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    return out


def _pieces(line: str, gap: int) -> List[str]:
    out, cur, spaces = [], [], 0
    for ch in line:
        if ch == " ":
            spaces += 1
            continue
        if spaces >= gap and cur:
            out.append("".join(cur).strip())
            cur = []
        elif spaces:
            cur.append(" " * spaces)
        spaces = 0
        cur.append(ch)
    if cur and "".join(cur).strip():
        out.append("".join(cur).strip())
    return [p for p in out if p]


def _bracket_label(line: str) -> bool:
    s = line.strip()
    if not s.startswith("["):
        return False
    close = s.find("]", 1)
    return 2 <= close <= 13 and "[" not in s[1:close]


class RuleCheck:
    """Per document: body pieces and apparatus status of every page, computed once."""

    def __init__(self, pages: Dict[str, List[Tuple[str, Set[str]]]], outlines: Dict[str, List[Tuple[str, int]]],
                 rule: Dict[str, Any]):
        self.pages, self.outlines, self.rule = pages, outlines, rule
        self.cache: Dict[str, List[Tuple[List[Tuple[str, bool, Optional[str]]], bool, bool]]] = {}

    def document(self, docid: str):
        if docid in self.cache:
            return self.cache[docid]
        rule = self.rule
        pages = self.pages[docid]
        lines_of = [[ln for ln in text.split("\n") if _alnum_line(ln)] for text, _ in pages]
        margins = [[_letter_runs(ls[0]), _letter_runs(ls[-1])] if ls else [] for ls in lines_of]
        n = len(pages)
        apparatus_pages: Set[int] = set()
        items = sorted(self.outlines.get(docid, []), key=lambda it: it[1])
        for i, (title, page) in enumerate(items):
            if title_key(title) in set(rule["apparatus_keys"]):
                later = [p for _, p in items[i + 1:] if p > page]
                end = later[0] - 1 if later else n
                apparatus_pages.update(range(page, max(page, end) + 1))
        out = []
        for index, ((text, flags), lines) in enumerate(zip(pages, lines_of)):
            dead = bool(flags & (set(rule["excluded_page_flags"]) - {"toc", "index"}))
            near = set()
            for other in range(index - rule["running_line_distance"], index + rule["running_line_distance"] + 1):
                if other != index and 0 <= other < n:
                    near.update(margins[other])
            body = list(lines)
            if len(body) > 1 and margins[index][1] and margins[index][1] in near:
                body = body[:-1]
            if body and lines and margins[index][0] and margins[index][0] in near:
                body = body[1:]
            pieces = []
            for line in body:
                for position, piece in enumerate(_pieces(line, rule["segment_gap"])):
                    lead = None
                    if position == 0:
                        words = _word_runs(piece[1:] if piece.startswith("\\") else piece)
                        starts = piece[1:] if piece.startswith("\\") else piece
                        lead = words[0] if words and starts.startswith(words[0]) else None
                    heading = (len(piece) <= rule["heading_max_chars"] and len(piece.split()) <= rule["heading_max_words"]
                               and not piece.rstrip()[-1:] in (".", ",", ";"))
                    pieces.append((piece, heading, lead))
            labelled = sum(1 for line in body if _bracket_label(line))
            apparatus = (bool(flags & {"toc", "index"}) or (index + 1) in apparatus_pages
                         or labelled >= rule["bibliography_min_lines"])
            out.append((pieces, apparatus, dead))
        self.cache[docid] = out
        return out

    def establishes(self, docid: str, kind: str, key: str, variants: Set[str], page: int,
                    aliases: Dict[str, str], max_words: int) -> bool:
        pieces, apparatus, dead = self.document(docid)[page - 1]
        if dead:
            return False
        if kind == "section":
            return any(canonical_section(p, aliases, set(), max_words) == key for p, _, _ in pieces)
        if apparatus:
            return False
        count = 0
        for piece, heading, lead in pieces:
            hits = sum(1 for w in _word_runs(piece) if w in variants)
            if not hits:
                continue
            count += hits
            if heading or (lead is not None and lead in variants) or count >= self.rule["entity_min_occurrences"]:
                return True
        return False


def verify_rule_version(build, release, provenance, rule_path, repaired) -> Dict[str, Any]:
    """Compare the label version ``repaired`` (a :class:`nclue.release.Release` with the repair
    applied, before its removal policy) with the rule re-derived here; the report lists every
    disagreement."""
    build, release = Path(build), Path(release)
    record = read_json(provenance)
    rule = read_json(rule_path)
    page_gates = bool(record["config"]["page_gates"])
    aliases = dict(record.get("section_aliases") or {})
    support = derive_support(build, record)
    pages: Dict[str, List[Tuple[str, Set[str]]]] = {}
    for _, obj in iter_jsonl(build / "pages.jsonl.gz"):
        pages.setdefault(obj["docid"], []).append((obj["page"], obj["text"], set(obj.get("flags") or [])))
    pages = {d: [(t, f) for _, t, f in sorted(v)] for d, v in pages.items()}
    outlines = {obj["docid"]: [(i["title"], i["page"]) for i in obj.get("items", [])
                               if isinstance(i.get("page"), int) and 1 <= i["page"] <= len(pages.get(obj["docid"], []))]
                for _, obj in iter_jsonl(build / "outlines.jsonl")}
    max_words = int(record["section_max_words"])
    kinds: Dict[str, Tuple[str, str, Set[str]]] = {
        c["id"]: (c["kind"], c["id"].split(":", 1)[1], set(c.get("variants") or [c["id"].split(":", 1)[1]]))
        for c in record["conditions"]}
    check = RuleCheck(pages, outlines, rule)
    problems: List[Dict[str, Any]] = []
    checked = 0
    for qid in sorted(repaired.queries):
        cids = repaired.queries[qid].condition_ids
        union = set().union(*[set(support.get(c, {})) for c in cids])
        for docid in sorted(union):
            p1 = []
            for cid in cids:
                kind, key, variants = kinds[cid]
                p1.append(tuple(p for p in support[cid].get(docid, ())
                                if check.establishes(docid, kind, key, variants, p, aliases, max_words)))
            checked += 1
            clues, label, gate = expected_label(p1, page_gates)
            got = repaired.judgments.get(qid, {}).get(docid)
            if clues == 0:
                if got is not None:
                    problems.append({"qid": qid, "docid": docid, "problem": "the rule leaves no clue, the version keeps the pair"})
                continue
            if got is None or (got.clues, got.label, got.gate) != (clues, label, gate):
                problems.append({"qid": qid, "docid": docid, "problem": "label differs", "expected": [clues, label, gate],
                                 "version": None if got is None else [got.clues, got.label, got.gate]})
            elif [list(p) for p in repaired.evidence.get((qid, docid), ())] != [list(p) for p in p1]:
                problems.append({"qid": qid, "docid": docid, "problem": "evidence pages differ"})
    return {"pairs_checked": checked, "disagreements": len(problems), "problems": problems}
