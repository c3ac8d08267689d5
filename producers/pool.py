"""Assemble a release's document pool from extracted pages (build-time producer, issue 4).

See provenance/extraction_rules.md for the rules in words. nclue never imports this module.
"""

from typing import Dict, List


def is_dev_copy(path: str) -> bool:
    """True for pre-release copies (a path component named like ``latex-dev`` or ``*-dev``)."""
    return any(part.endswith("-dev") for part in path.split("/")[:-1])


def representative_key(row: Dict) -> tuple:
    """Deterministic representative order: released copies before ``*-dev`` copies, then more
    pages, then the smaller docid."""
    return (is_dev_copy(row["path"]), -int(row.get("pages", 0) or 0), row["docid"])


def exact_representatives(rows: List[Dict]) -> Dict[str, str]:
    """sha256 -> docid of the representative among PDFs with identical bytes."""
    best: Dict[str, Dict] = {}
    for r in rows:
        cur = best.get(r["sha256"])
        if cur is None or representative_key(r) < representative_key(cur):
            best[r["sha256"]] = r
    return {sha: r["docid"] for sha, r in best.items()}


import hashlib
import json
import math
import sys
import time
import zlib
from dataclasses import dataclass, asdict
from pathlib import Path
from typing import Iterable, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nclue.formats import dumps_canonical, write_bytes_atomic, gzip_bytes  # noqa: E402
from producers import textrules  # noqa: E402

STRATA = ((1, 9), (10, 19), (20, 49), (50, 99), (100, 300), (301, 10 ** 9))


@dataclass(frozen=True)
class PoolConfig:
    release: str
    min_pages: int
    max_pages: int
    page_budget: int
    seed: int
    language: str = "en"
    max_bad_page_share: float = 0.5
    near_dup_jaccard: float = 0.5
    shingle_words: int = 5
    budget_exponent: float = 0.5
    outline_min_items: int = 3


# ------------------------------------------------------------------------------------------
# near duplicates

def near_duplicate_pairs(docs: Dict[str, List[str]], k: int = 5, threshold: float = 0.5,
                         sample_mod: int = 16) -> List[Tuple[str, str, float]]:
    """Pairs (a, b, J) with a < b and exact k-word-shingle Jaccard J >= threshold.

    Candidates: every pair of documents whose *sampled* shingle sets (CRC-32 of the shingle text
    divisible by ``sample_mod``; Broder's mod-m sampling) have Jaccard >= threshold - 0.2,
    compared all-pairs (pairs whose sampled set sizes differ by more than that ratio cannot
    reach it and are skipped). Every candidate's Jaccard is then computed exactly over the full
    shingle sets (words of all pages of the document joined)."""
    low = threshold - 0.2
    sampled: Dict[str, frozenset] = {}
    for docid in sorted(docs):
        words = textrules.words_of("\n".join(docs[docid]))
        s = set()
        for i in range(max(1, len(words) - k + 1)):
            h = zlib.crc32(" ".join(words[i:i + k]).encode("utf-8"))
            if h % sample_mod == 0:
                s.add(h)
        sampled[docid] = frozenset(s)
    order = sorted((d for d in sampled if sampled[d]), key=lambda d: (len(sampled[d]), d))
    sizes = [len(sampled[d]) for d in order]
    candidates = []
    for i, a in enumerate(order):
        sa = sampled[a]
        limit = sizes[i] / low if low > 0 else float("inf")
        for j in range(i + 1, len(order)):
            if sizes[j] > limit:
                break
            sb = sampled[order[j]]
            inter = len(sa & sb)
            if inter and inter / (sizes[i] + sizes[j] - inter) >= low:
                candidates.append(tuple(sorted((a, order[j]))))
    out = []
    cache: Dict[str, frozenset] = {}

    def full(docid):
        if docid not in cache:
            cache[docid] = textrules.shingles(textrules.words_of("\n".join(docs[docid])), k)
        return cache[docid]

    for a, b in sorted(candidates):
        j = textrules.jaccard(full(a), full(b))
        if j >= threshold:
            out.append((a, b, j))
    return out


# ------------------------------------------------------------------------------------------
# page budget

def unit_hash(seed: int, docid: str) -> float:
    """Deterministic uniform number in [0, 1) from (seed, docid): sha256 -> first 8 bytes."""
    digest = hashlib.sha256(f"{seed}:{docid}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64


def keep_probability(pages: int, c: float, exponent: float) -> float:
    """min(1, (c / pages) ** exponent)."""
    return min(1.0, (c / pages) ** exponent)


def budget_sample(pages: Dict[str, int], budget: int, seed: int, exponent: float = 0.5
                  ) -> Tuple[List[str], float]:
    """Documents kept under a page budget, and the constant c used.

    Document d is kept iff unit_hash(seed, d) < min(1, (c / pages_d) ** exponent). The kept set
    grows with c; c is the largest value (bisection to 1e-6 over [0, max pages]) whose kept
    documents hold at most ``budget`` pages. With exponent 0.5 short documents are kept more
    often than long ones, but long ones stay represented (inclusion ~ 1/sqrt(length))."""
    total = sum(pages.values())
    if total <= budget:
        return sorted(pages), float(max(pages.values(), default=0))
    u = {d: unit_hash(seed, d) for d in pages}

    def kept(c):
        return [d for d in sorted(pages) if u[d] < keep_probability(pages[d], c, exponent)]

    lo, hi = 0.0, float(max(pages.values()))
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        if sum(pages[d] for d in kept(mid)) <= budget:
            lo = mid
        else:
            hi = mid
    return kept(lo), lo


def stratum_of(pages: int) -> str:
    for lo, hi in STRATA:
        if lo <= pages <= hi:
            return f"{lo}-{hi}" if hi < 10 ** 9 else f">={lo}"
    return "0"


# ------------------------------------------------------------------------------------------
# assembly

def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def outline_for(xml_text: Optional[str], items: Optional[List[Dict]], pages: List[str],
                flags: List[List[str]], min_items: int) -> Tuple[List[Dict], str]:
    """Outline items and method: bookmarks (or given headings) if >= min_items, else text rule."""
    if items is None and xml_text:
        items = textrules.parse_outline_xml(xml_text, n_pages=len(pages))
    if items is not None and len(items) >= min_items:
        return items, "outline"
    return textrules.text_rule_headings(pages, flags), "text-rule"


def build_pool(candidates: List[Dict], excluded: List[Dict], config: PoolConfig) -> Dict:
    """Language, quality, near-duplicate and budget rules over candidates with page texts.

    Each candidate: docid, package, version, deb_sha256, path, sha256, source, title,
    pages_text (list), and either outline_xml (PDF) or outline_items (given headings).
    Returns {"docs": [...kept candidates with flags/language/outline...], "excluded": [...],
    "stats": {...}}."""
    t0 = time.time()
    stats: Dict = {"candidates": len(candidates), "languages": {}}
    survivors = []
    for c in candidates:
        pages = c["pages_text"]
        flags = [textrules.page_flags(p) for p in pages]
        c["flags"] = flags
        lang = textrules.detect_language("\n".join(pages))
        c["language"] = lang
        stats["languages"][lang] = stats["languages"].get(lang, 0) + 1
        bad = sum(1 for f in flags if "empty" in f or "garbage" in f)
        share = bad / len(pages) if pages else 1.0
        if lang != config.language:
            excluded.append(_excl(c, "language", lang))
        elif share >= config.max_bad_page_share:
            excluded.append(_excl(c, "quality", f"empty-or-garbage pages {bad}/{len(pages)}"))
        else:
            survivors.append(c)
    stats["after_language_quality"] = len(survivors)
    t1 = time.time()
    by_id = {c["docid"]: c for c in survivors}
    pairs = near_duplicate_pairs({d: c["pages_text"] for d, c in by_id.items()},
                                 k=config.shingle_words, threshold=config.near_dup_jaccard)
    clusters = textrules.duplicate_clusters([(a, b) for a, b, _ in pairs], by_id)
    jmap = {}
    for a, b, j in pairs:
        jmap[(a, b)] = j
    kept = []
    n_clusters = 0
    for cl in clusters:
        if len(cl) == 1:
            kept.append(by_id[cl[0]])
            continue
        n_clusters += 1
        rep = min(cl, key=lambda d: representative_key(dict(by_id[d], pages=len(by_id[d]["pages_text"]))))
        kept.append(by_id[rep])
        for d in cl:
            if d != rep:
                j = jmap.get((min(d, rep), max(d, rep)))
                detail = f"duplicate-of:{rep}" + (f" jaccard={j:.3f}" if j is not None
                                                  else " (same cluster)")
                excluded.append(_excl(by_id[d], "near-duplicate", detail))
    stats["near_duplicate_pairs"] = len(pairs)
    stats["near_duplicate_clusters"] = n_clusters
    stats["near_duplicates_removed"] = len(survivors) - len(kept)
    stats["near_dup_seconds"] = round(time.time() - t1, 1)
    pool_pages = {c["docid"]: len(c["pages_text"]) for c in kept}
    stats["english_pool_docs"] = len(pool_pages)
    stats["english_pool_pages"] = sum(pool_pages.values())
    stats["english_pool_strata"] = _strata(pool_pages)
    chosen, c_const = budget_sample(pool_pages, config.page_budget, config.seed,
                                    config.budget_exponent)
    chosen_set = set(chosen)
    for c in kept:
        if c["docid"] not in chosen_set:
            excluded.append(_excl(c, "budget", f"not sampled (c={c_const:.4f})"))
    docs = sorted((c for c in kept if c["docid"] in chosen_set), key=lambda c: c["docid"])
    stats["budget_c"] = round(c_const, 6)
    stats["kept_docs"] = len(docs)
    stats["kept_pages"] = sum(len(c["pages_text"]) for c in docs)
    stats["kept_strata"] = _strata({c["docid"]: len(c["pages_text"]) for c in docs})
    for c in docs:
        items, method = outline_for(c.get("outline_xml"), c.get("outline_items"), c["pages_text"],
                                    c["flags"], config.outline_min_items)
        c["outline_items_final"] = items
        c["outline_method"] = method
    stats["outline_methods"] = {m: sum(1 for c in docs if c["outline_method"] == m)
                                for m in ("outline", "text-rule")}
    stats["page_flags"] = {}
    for c in docs:
        for f in c["flags"]:
            for x in (f or ["ok"]):
                stats["page_flags"][x] = stats["page_flags"].get(x, 0) + 1
    stats["pool_seconds"] = round(time.time() - t0, 1)
    return {"docs": docs, "excluded": excluded, "stats": stats}


def _strata(pages: Dict[str, int]) -> Dict[str, Dict[str, int]]:
    out: Dict[str, Dict[str, int]] = {}
    for d, n in pages.items():
        s = out.setdefault(stratum_of(n), {"docs": 0, "pages": 0})
        s["docs"] += 1
        s["pages"] += n
    return dict(sorted(out.items()))


def _excl(row: Dict, reason: str, detail: str = "") -> Dict:
    pages = row.get("pages")
    if pages is None and "pages_text" in row:
        pages = len(row["pages_text"])
    return {"docid": row["docid"], "package": row.get("package"), "path": row.get("path"),
            "sha256": row.get("sha256"), "pages": pages, "reason": reason, "detail": detail}


def write_release(result: Dict, out_dir: Path, packages: List[Dict], tools: Dict,
                  config: PoolConfig, provenance_path: Path, timings: Dict) -> Dict:
    """Write documents.jsonl, pages.jsonl.gz, outlines.jsonl, excluded.jsonl, READY and the
    committed provenance JSON. Returns the counts written to READY."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc_lines, page_lines, outline_lines = [], [], []
    prov_docs = []
    for c in result["docs"]:
        lines = []
        for i, (text, flags) in enumerate(zip(c["pages_text"], c["flags"]), start=1):
            lines.append(dumps_canonical({"docid": c["docid"], "page": i, "text": text,
                                          "flags": flags}) + "\n")
        text_sha = _sha("".join(lines))
        page_lines.extend(lines)
        doc = {"docid": c["docid"], "pages": len(c["pages_text"]), "source": c["source"],
               "package": c["package"], "version": c["version"], "deb_sha256": c["deb_sha256"],
               "path": c["path"], "sha256": c["sha256"], "text_sha256": text_sha,
               "language": c["language"], "title": c.get("title") or None,
               "outline": c["outline_method"] == "outline"}
        if c.get("kind"):
            doc["kind"] = c["kind"]
        doc_lines.append(dumps_canonical(doc) + "\n")
        outline_lines.append(dumps_canonical({"docid": c["docid"], "items": c["outline_items_final"],
                                              "method": c["outline_method"]}) + "\n")
        prov_docs.append({"docid": c["docid"], "package": c["package"], "path": c["path"],
                          "pages": len(c["pages_text"]), "sha256": c["sha256"],
                          "text_sha256": text_sha})
    excluded = sorted(result["excluded"], key=lambda e: (e["docid"], e["reason"]))
    excl_lines = [dumps_canonical(e) + "\n" for e in excluded]
    write_bytes_atomic(out_dir / "documents.jsonl", "".join(doc_lines).encode("utf-8"))
    write_bytes_atomic(out_dir / "pages.jsonl.gz", gzip_bytes("".join(page_lines).encode("utf-8")))
    write_bytes_atomic(out_dir / "outlines.jsonl", "".join(outline_lines).encode("utf-8"))
    write_bytes_atomic(out_dir / "excluded.jsonl", "".join(excl_lines).encode("utf-8"))
    reasons: Dict[str, int] = {}
    for e in excluded:
        reasons[e["reason"]] = reasons.get(e["reason"], 0) + 1
    counts = {"documents": len(doc_lines), "pages": len(page_lines),
              "outlines": len(outline_lines), "excluded": len(excl_lines),
              "excluded_by_reason": dict(sorted(reasons.items()))}
    prov = {"release": config.release, "config": asdict(config), "packages": packages,
            "tools": tools, "counts": counts, "stats": result["stats"], "timings": timings,
            "files_sha256": {name: hashlib.sha256((out_dir / name).read_bytes()).hexdigest()
                             for name in ("documents.jsonl", "pages.jsonl.gz",
                                          "outlines.jsonl", "excluded.jsonl")},
            "documents": prov_docs}
    write_bytes_atomic(provenance_path, (dumps_canonical(prov, indent=1) + "\n").encode("utf-8"))
    write_bytes_atomic(out_dir / "provenance.json", (dumps_canonical(prov, indent=1) + "\n")
                       .encode("utf-8"))
    write_bytes_atomic(out_dir / "READY", (dumps_canonical(counts, indent=1) + "\n").encode())
    return counts


def pdf_candidates(rows: List[Dict], cache: Path, config: PoolConfig
                   ) -> Tuple[List[Dict], List[Dict], Dict]:
    """PDF inventory rows -> (candidates with page texts, excluded rows, extraction stats).

    Order of rules: exact duplicates (identical sha256; representative by representative_key),
    pdfinfo failure, page range [min_pages, max_pages] by pdfinfo, extraction failure/timeout,
    page-count mismatch between pdfinfo and the form-feed split."""
    from producers import pdfpipe
    excluded: List[Dict] = []
    reps = exact_representatives(rows)
    log_path = cache / "extract_log.jsonl"
    logs: Dict[str, Dict] = {}
    if log_path.exists():
        for line in log_path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                logs[r["sha256"]] = r
    candidates = []
    stats = {"pdfs": len(rows), "unique_sha256": len(reps), "exact_duplicates": 0,
             "total_pdfinfo_pages": sum(int(r.get("pages", 0) or 0) for r in rows)}
    t_cpu = t_wall = 0.0
    n_pages_extracted = 0
    for r in sorted(rows, key=lambda r: r["docid"]):
        if r["docid"] != reps[r["sha256"]]:
            excluded.append(_excl(r, "exact-duplicate", f"duplicate-of:{reps[r['sha256']]}"))
            stats["exact_duplicates"] += 1
            continue
        if "error" in r:
            excluded.append(_excl(r, "pdfinfo-error", str(r["error"])))
            continue
        n = int(r["pages"])
        if n < config.min_pages:
            excluded.append(_excl(r, "pages", f"{n} < {config.min_pages}"))
            continue
        if n > config.max_pages:
            excluded.append(_excl(r, "pages", f"{n} > {config.max_pages}"))
            continue
        log = logs.get(r["sha256"])
        if log is None:
            excluded.append(_excl(r, "not-extracted", "no extraction log entry"))
            continue
        t_cpu += float(log.get("text_cpu_s", 0.0))
        t_wall += float(log.get("text_s", 0.0))
        if log["status"] != "ok":
            excluded.append(_excl(r, "extraction", str(log["status"])))
            continue
        text = pdfpipe.read_text(cache, r["sha256"])
        pages = textrules.split_form_feeds(text or "")
        n_pages_extracted += len(pages)
        if len(pages) != n:
            excluded.append(_excl(r, "page-count-mismatch", f"pdfinfo {n}, form feeds {len(pages)}"))
            continue
        c = dict(r)
        c["pages_text"] = pages
        c["outline_xml"] = pdfpipe.read_outline_xml(cache, r["sha256"])
        candidates.append(c)
    stats["extracted_pages"] = n_pages_extracted
    stats["pdftotext_cpu_s"] = round(t_cpu, 1)
    stats["pdftotext_wall_s_sum"] = round(t_wall, 1)
    stats["pdftotext_cpu_ms_per_page"] = round(1000 * t_cpu / max(1, n_pages_extracted), 2)
    return candidates, excluded, stats


def assemble_pdf_release(rows: List[Dict], cache: Path, out_dir: Path, config: PoolConfig,
                         manifest: Dict[str, Dict[str, str]], tools: Dict,
                         provenance_path: Path) -> Dict:
    t0 = time.time()
    candidates, excluded, ext_stats = pdf_candidates(rows, cache, config)
    result = build_pool(candidates, excluded, config)
    result["stats"]["extraction"] = ext_stats
    timings = {"assemble_s": round(time.time() - t0, 1)}
    timing_path = cache / "timing_extract.json"
    if timing_path.exists():
        timings.update(json.loads(timing_path.read_text()))
    packages = [{"package": m["package"], "version": m["version"], "deb": m["deb"],
                 "deb_sha256": m["deb_sha256"]} for _, m in sorted(manifest.items())]
    counts = write_release(result, out_dir, packages, tools, config, provenance_path, timings)
    print(json.dumps(counts), file=sys.stderr)
    print(json.dumps(result["stats"], sort_keys=True), file=sys.stderr)
    return counts
