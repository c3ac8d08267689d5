"""Mechanical, quote-backed audit of a stratified sample of query-document pairs.

n-Clue paper, supplement 10.1-10.2: "A positive answer requires one or more page selections and
an exact supporting quote"; "Exact quotes, page selections, and distinct-page feasibility were
checked mechanically".  Here the second judgment is itself mechanical (there are no human
raters): for every condition of a sampled pair, a quote is searched in the page text, and the
construction's label (a nonempty evidence page set) is compared with the quote-backed label.

Quote rules (the re-check):

- entity condition: on every page whose flags are not excluded, the line of the first
  case-sensitive whole-word occurrence of any recorded spelling of the term;
- section condition: the first line that *reads as the heading* -- its normalized text (the
  verifier's word-level normalization plus the alias table) equals the condition's canonical
  key -- searched first on the construction's evidence pages (any flags), then on every other
  page whose flags are not excluded.  This checks the outline against the rendered page text,
  an independent source.

A quote is the line with its surrounding whitespace removed; the audit stores its page, its
character offsets in the page text (Python code points, end exclusive) and the sha256 of its
UTF-8 bytes -- never the text (third-party content).  The re-check label of a pair is computed
from every page holding a quote, with the same gates (brute force).

Sampling (seeded, ``random.Random(seed)``): strata ``gold``, ``gated`` (all-condition subsets
that failed a page gate) and ``partial`` (subsets missing a condition) with targets 150 / 50 /
100 of 300; a stratum with too few pairs passes its shortfall to ``partial``, then ``gold``.
Agreement (nclue.agreement): percent agreement with Wilson intervals and Cohen's kappa on the
condition decisions, on the pairs' exact grades (clues, label, gate), and linear-weighted kappa
on clue counts.
"""

import hashlib
import random
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..agreement import cohen_kappa, percent_agreement, transition_matrix
from ..errors import InputError, NclueError
from ..formats import iter_jsonl, read_json
from ..layout import ReleaseLayout
from .verify import canonical_section, expected_label

STRATA = (("gold", 150), ("gated", 50), ("partial", 100))
#: the seed of the shipped quote-backed audits (``nclue verify-construction --audit-seed``'s
#: default); ``reproduce.py`` re-draws their samples with it
QUOTE_AUDIT_SEED = 20261201


def _path(folder: Path, stem: str) -> Path:
    for name in (stem, stem + ".gz"):
        if (folder / name).exists():
            return folder / name
    raise InputError(folder / stem, "file not found")


def sample_pairs(qrels: Sequence[Dict[str, Any]], size: int, seed: int,
                 strata=STRATA) -> List[Tuple[str, Dict[str, Any]]]:
    """Stratified seeded sample: [(stratum, qrel row)] sorted by (qid, docid)."""
    groups: Dict[str, List[Dict[str, Any]]] = {name: [] for name, _ in strata}
    for row in sorted(qrels, key=lambda r: (r["qid"], r["docid"])):
        name = "gold" if row["label"] == "gold" else ("gated" if row.get("gate") else "partial")
        groups[name].append(row)
    total = sum(t for _, t in strata)
    targets = {name: round(t * size / total) for name, t in strata}
    targets["partial"] += size - sum(targets.values())
    shortfall = 0
    for name in ("gold", "gated"):
        if len(groups[name]) < targets[name]:
            shortfall += targets[name] - len(groups[name])
            targets[name] = len(groups[name])
    targets["partial"] += shortfall
    if len(groups["partial"]) < targets["partial"]:
        extra = targets["partial"] - len(groups["partial"])
        targets["partial"] = len(groups["partial"])
        targets["gold"] = min(len(groups["gold"]), targets["gold"] + extra)
    rng = random.Random(seed)
    picked: List[Tuple[str, Dict[str, Any]]] = []
    for name, _ in strata:
        for row in rng.sample(groups[name], targets[name]):
            picked.append((name, row))
    return sorted(picked, key=lambda item: (item[1]["qid"], item[1]["docid"]))


def _line_at(text: str, position: int) -> Tuple[int, int]:
    """Offsets of the stripped line containing ``position``."""
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    end = len(text) if end < 0 else end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def entity_quotes(pages: Sequence[Tuple[str, Sequence[str]]], variants: Sequence[str],
                  excluded_flags: Set[str]) -> List[Tuple[int, int, int]]:
    """Every page's first whole-word occurrence line of any spelling: [(page, start, end)]."""
    found = []
    for number, (text, flags) in enumerate(pages, start=1):
        if set(flags) & excluded_flags:
            continue
        first = None
        for term in variants:
            position = text.find(term)
            while position >= 0:
                if _whole(text, position, term):
                    first = position if first is None else min(first, position)
                    break
                position = text.find(term, position + 1)
        if first is not None:
            start, end = _line_at(text, first)
            found.append((number, start, end))
    return found


def _whole(text: str, position: int, term: str) -> bool:
    end = position + len(term)
    before = text[position - 1] if position else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_")


def section_quotes(pages: Sequence[Tuple[str, Sequence[str]]], key: str, first: Sequence[int],
                   record: Dict[str, Any], excluded_flags: Set[str]) -> List[Tuple[int, int, int]]:
    """Pages with a line that reads as the heading of ``key``: [(page, start, end)]."""
    aliases = dict(record["section_aliases"])
    excluded_keys = set(record["excluded_section_keys"])
    max_words = int(record["section_max_words"])
    order = list(first) + [n for n in range(1, len(pages) + 1) if n not in set(first)]
    found = []
    for number in order:
        text, flags = pages[number - 1]
        if number not in first and set(flags) & excluded_flags:
            continue
        offset = 0
        for line in text.split("\n"):
            if line.strip() and len(line.strip()) <= 120 and \
                    canonical_section(line, aliases, excluded_keys, max_words) == key:
                start = offset + (len(line) - len(line.lstrip()))
                found.append((number, start, offset + len(line.rstrip())))
                break
            offset += len(line) + 1
    return sorted(found)


def _kappa(a, b, **kw) -> Optional[float]:
    try:
        return round(cohen_kappa(a, b, **kw), 4)
    except NclueError:
        return None  # undefined: a single category


def _agreement(a, b) -> Dict[str, Any]:
    agreement = percent_agreement(a, b)
    return {"agree": agreement.agree, "n": agreement.n, "percent": round(100 * agreement.proportion, 2),
            "wilson95": [round(100 * agreement.lo, 2), round(100 * agreement.hi, 2)],
            "cohen_kappa": _kappa(a, b)}


def run_audit(build, release, provenance, size: int = 300, seed: int = QUOTE_AUDIT_SEED):
    """Return (rows, summary) of the audit of ``release``."""
    build, release = Path(build), Path(release)
    record = read_json(provenance)
    page_gates = bool(record["config"]["page_gates"])
    excluded_flags = set(record["config"]["excluded_page_flags"])
    layout = ReleaseLayout.of(release)
    queries = {o["qid"]: o["condition_ids"] for _, o in iter_jsonl(layout.existing_jsonl("queries"))}
    qrels = [o for _, o in iter_jsonl(layout.existing_jsonl("qrels"))]
    evidence = {(o["qid"], o["docid"]): o["pages"] for _, o in iter_jsonl(layout.existing_jsonl("evidence"))}
    variants = {c["id"]: tuple(c.get("variants") or [c["id"].split(":", 1)[1]])
                for c in record["conditions"]}
    source_of = {o["docid"]: o["source"] for _, o in iter_jsonl(layout.existing_jsonl("corpus"))}
    sample = sample_pairs(qrels, size, seed)
    wanted = {row["docid"] for _, row in sample}
    pages: Dict[str, Dict[int, Tuple[str, List[str]]]] = {d: {} for d in wanted}
    for _, obj in iter_jsonl(_path(build, "pages.jsonl")):
        if obj["docid"] in pages:
            pages[obj["docid"]][obj["page"]] = (obj["text"], obj.get("flags") or [])
    rows: List[Dict[str, Any]] = []
    for stratum, qrel in sample:
        qid, docid = qrel["qid"], qrel["docid"]
        doc_pages = [pages[docid][n] for n in sorted(pages[docid])]
        decisions = []
        quote_pages = []
        for cid, construction_pages in zip(queries[qid], evidence[(qid, docid)]):
            kind, name = cid.split(":", 1)
            if kind == "entity":
                quotes = entity_quotes(doc_pages, variants[cid], excluded_flags)
            else:
                quotes = section_quotes(doc_pages, name, construction_pages, record, excluded_flags)
            quote_pages.append(tuple(sorted(q[0] for q in quotes)))
            decision = {"condition_id": cid, "construction": bool(construction_pages),
                        "recheck": bool(quotes)}
            if quotes:
                preferred = [q for q in quotes if q[0] in construction_pages] or quotes
                page, start, end = preferred[0]
                text = doc_pages[page - 1][0]
                decision.update(page=page, start=start, end=end,
                                quote_sha256=hashlib.sha256(text[start:end].encode("utf-8")).hexdigest(),
                                on_construction_page=page in construction_pages)
            decisions.append(decision)
        clues, label, gate = (expected_label(quote_pages, page_gates) if any(quote_pages)
                              else (0, "none", None))
        rows.append({"qid": qid, "docid": docid, "stratum": stratum,
                     "construction": {"clues": qrel["clues"], "label": qrel["label"], "gate": qrel.get("gate")},
                     "recheck": {"clues": clues, "label": label, "gate": gate},
                     "conditions": decisions})
    summary = summarize_audit(rows, source_of, record["release"], seed)
    return rows, summary


def summarize_audit(rows: Sequence[Dict[str, Any]], source_of: Dict[str, str], release: str,
                    seed: int) -> Dict[str, Any]:
    """The audit summary (``quote_audit_<release>_summary.json``), from the audit's rows alone:
    condition-support agreement overall, by condition kind and by source, construction positives
    whose quote lies on a construction page, exact derived-grade agreement, the linearly
    weighted kappa of clue counts and the grade transitions (n-Clue paper, Table S8 shape)."""
    cond_a, cond_b, kinds, cond_sources = [], [], [], []
    grade_a, grade_b, clue_a, clue_b = [], [], [], []
    page_hits = 0
    for row in rows:
        for decision in row["conditions"]:
            cond_a.append(decision["construction"])
            cond_b.append(decision["recheck"])
            kinds.append(decision["condition_id"].split(":", 1)[0])
            cond_sources.append(source_of.get(row["docid"], ""))
            if decision["construction"] and decision.get("on_construction_page"):
                page_hits += 1
        before, after = row["construction"], row["recheck"]
        grade_a.append(f"{before['clues']}:{before['label']}:{before.get('gate') or '-'}")
        grade_b.append(f"{after['clues']}:{after['label']}:{after.get('gate') or '-'}")
        clue_a.append(before["clues"])
        clue_b.append(after["clues"])
    by_kind = {}
    for kind in sorted(set(kinds)):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        by_kind[kind] = _agreement([cond_a[i] for i in idx], [cond_b[i] for i in idx])
    by_source = {}
    for source in sorted(set(cond_sources)):
        idx = [i for i, s_ in enumerate(cond_sources) if s_ == source]
        by_source[source] = _agreement([cond_a[i] for i in idx], [cond_b[i] for i in idx])
    transitions = transition_matrix(grade_a, grade_b)
    return {
        "release": release, "seed": seed, "pairs": len(rows),
        "strata": dict(sorted(Counter(r["stratum"] for r in rows).items())),
        "condition_decisions": len(cond_a),
        "conditions": _agreement(cond_a, cond_b),
        "conditions_by_kind": by_kind,
        "conditions_by_source": by_source,
        "construction_positive_on_quote_page": {"hits": page_hits, "positives": sum(cond_a)},
        "exact_grade": _agreement(grade_a, grade_b),
        "clue_count_weighted_kappa_linear": _kappa(clue_a, clue_b, categories=[0, 1, 2, 3],
                                                   weights="linear"),
        "grade_transitions": {f"{a} -> {b}": c for (a, b), c in sorted(transitions.counts.items())
                              if a != b},
    }


def check_audit(build, audit_path, provenance) -> List[str]:
    """Re-check a stored audit against locally rebuilt page text: every stored quote's offsets
    must cut a text whose sha256 is the stored one, lie within one line, and establish its
    condition (an entity quote contains a recorded spelling as a whole word; a section quote
    normalizes to the section's key).  Returns the problems (empty when the audit holds)."""
    build = Path(build)
    record = read_json(provenance)
    aliases = dict(record["section_aliases"])
    excluded_keys = set(record["excluded_section_keys"])
    max_words = int(record["section_max_words"])
    variants = {c["id"]: tuple(c.get("variants") or [c["id"].split(":", 1)[1]])
                for c in record["conditions"]}
    rows = [(line, obj) for line, obj in iter_jsonl(audit_path)]
    wanted = {(obj["docid"], c["page"]) for _, obj in rows for c in obj["conditions"] if c.get("recheck")}
    texts: Dict[Tuple[str, int], str] = {}
    for _, obj in iter_jsonl(_path(build, "pages.jsonl")):
        if (obj["docid"], obj["page"]) in wanted:
            texts[(obj["docid"], obj["page"])] = obj["text"]
    problems: List[str] = []
    for line, obj in rows:
        for cond in obj["conditions"]:
            if not cond.get("recheck"):
                continue
            where = f"{audit_path}:{line}: {obj['qid']} {obj['docid']} {cond['condition_id']}"
            text = texts.get((obj["docid"], cond["page"]))
            if text is None:
                problems.append(f"{where}: page {cond['page']} not in the build")
                continue
            quote = text[cond["start"]:cond["end"]]
            if hashlib.sha256(quote.encode("utf-8")).hexdigest() != cond["quote_sha256"]:
                problems.append(f"{where}: quote sha256 differs")
            elif "\n" in quote or not quote.strip():
                problems.append(f"{where}: quote is not one non-empty line")
            else:
                kind, name = cond["condition_id"].split(":", 1)
                if kind == "entity":
                    ok = any(_whole(quote, i, v) for v in variants[cond["condition_id"]]
                             for i in _positions(quote, v))
                else:
                    ok = canonical_section(quote, aliases, excluded_keys, max_words) == name
                if not ok:
                    problems.append(f"{where}: quote does not establish the condition")
    return problems


def _positions(text: str, term: str) -> List[int]:
    found, start = [], text.find(term)
    while start >= 0:
        found.append(start)
        start = text.find(term, start + 1)
    return found
