#!/usr/bin/env python3
"""v2 source producer: non-TeX Debian documentation -> build/v2/ (issue 4, source shift).

Sources (pinned in producers/texlive/packages_v2.txt):
- python3.11-doc: Sphinx HTML pages rendered by producers.textrules.html_to_text to 80-column
  lines, cut into 60-line pages; headings = h1..h3 (exact structure).
- perl-doc: POD files rendered by ``pod2text -w 80``, cut into 60-line pages; headings =
  =head1/=head2 (column 0 / column 2 in pod2text output).
- r-doc-pdf, octave-doc, gnuplot-doc, lilypond-doc-pdf: real PDF manuals through the same
  poppler pipeline as v1 (pdftotext -layout, pdftohtml outline).

Usage (repository root, after download.sh and unpack.sh for v2):
    nice -n 10 python3 producers/v2/build_v2.py extract
    nice -n 10 python3 producers/v2/build_v2.py assemble
nclue never imports this file.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from producers import pdfpipe, pool, textrules  # noqa: E402

MIN_PAGES, MAX_PAGES = 4, 400
PAGE_LINES, WIDTH = 60, 80
PDF_PACKAGES = ("gnuplot-doc", "lilypond-doc-pdf", "octave-doc", "r-doc-pdf")
PY_HTML = "usr/share/doc/python3.11/html/"
PERL_POD = "usr/share/perl/5.36.0/pod/"
PREFIX = {"python3.11-doc": "py", "perl-doc": "perl", "r-doc-pdf": "r", "octave-doc": "octave",
          "gnuplot-doc": "gnuplot", "lilypond-doc-pdf": "lilypond"}
STRIP = (PY_HTML, PERL_POD, "usr/share/doc/r-doc-pdf/", "usr/share/doc/octave/",
         "usr/share/doc/gnuplot/", "usr/share/doc/lilypond/html/Documentation/", "usr/share/")
# Sphinx page furniture that is not content.
SKIP_CLASSES = ("related", "sphinxsidebar", "sphinxsidebarwrapper", "footer", "mobile-nav",
                "menu-wrapper", "inline-search", "headerlink", "version_switcher_placeholder",
                "language_switcher_placeholder", "clearer")
# Generated index/search pages are not documents.
SKIP_HTML_PREFIXES = ("genindex", "search.html", "py-modindex.html", "contents.html")


def docid_for(package: str, path: str) -> str:
    return textrules.make_docid(PREFIX[package], path, strip_prefixes=STRIP,
                                strip_suffixes=(".pdf", ".html", ".pod"))


def _sha_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def html_candidates(src: Path, meta: dict):
    root = src / "python3.11-doc"
    base = root / PY_HTML
    out, excluded = [], []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("_"))
        for name in sorted(filenames):
            if not name.endswith(".html"):
                continue
            full = Path(dirpath) / name
            rel = str(full.relative_to(root))
            docid = docid_for("python3.11-doc", rel)
            data = full.read_bytes()
            row = {"docid": docid, "package": "python3.11-doc", "path": rel,
                   "sha256": _sha_bytes(data)}
            if full.parent == base and name.startswith(SKIP_HTML_PREFIXES):
                excluded.append(pool._excl(row, "generated-page", "index/search/contents page"))
                continue
            lines, heads = textrules.html_to_text(data.decode("utf-8", errors="replace"), WIDTH,
                                                  SKIP_CLASSES)
            pages = textrules.paginate(lines, PAGE_LINES)
            items = [{"title": t, "page": textrules.line_to_page(i, PAGE_LINES), "level": lv}
                     for t, lv, i in heads]
            row.update({"version": meta["version"], "deb_sha256": meta["deb_sha256"],
                        "source": "debian:python3.11-doc", "title": heads[0][0] if heads else None,
                        "pages_text": pages, "outline_items": items, "kind": "html-render"})
            out.append(row)
    return out, excluded


def pod_candidates(src: Path, meta: dict):
    root = src / "perl-doc"
    base = root / PERL_POD
    out, excluded = [], []
    for name in sorted(os.listdir(base)):
        if not name.endswith(".pod"):
            continue
        full = base / name
        if full.is_symlink():
            continue
        rel = str(full.relative_to(root))
        data = full.read_bytes()
        row = {"docid": docid_for("perl-doc", rel), "package": "perl-doc", "path": rel,
               "sha256": _sha_bytes(data)}
        proc = subprocess.run(["pod2text", "--errors=stderr", "-w", str(WIDTH), str(full)],
                              capture_output=True, timeout=60, env=dict(os.environ, LC_ALL="C.UTF-8"))
        if proc.returncode != 0 and not proc.stdout:
            excluded.append(pool._excl(row, "extraction", f"pod2text rc={proc.returncode}"))
            continue
        text = proc.stdout.decode("utf-8", errors="replace")
        lines = [ln.rstrip() for ln in text.split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        pages = textrules.paginate(lines, PAGE_LINES)
        heads = textrules.pod_headings(lines)
        items = [{"title": t, "page": textrules.line_to_page(i, PAGE_LINES), "level": lv}
                 for t, lv, i in heads]
        title = None
        for i, (t, lv, li) in enumerate(heads):
            if t == "NAME" and li + 1 < len(lines):
                title = lines[li + 1].strip() or None
                break
        row.update({"version": meta["version"], "deb_sha256": meta["deb_sha256"],
                    "source": "debian:perl-doc", "title": title, "pages_text": pages,
                    "outline_items": items, "kind": "pod2text"})
        out.append(row)
    return out, excluded


def load_pdf_inventory(build: Path, workers: int):
    manifest = pdfpipe.read_manifest(build / "debs" / "v2.manifest")
    pdf_manifest = {k: v for k, v in manifest.items() if k in PDF_PACKAGES}
    cache = build / "cache" / "v2"
    inv_path = cache / "inventory.json"
    if inv_path.exists():
        return json.loads(inv_path.read_text()), cache, manifest
    rows = pdfpipe.inventory(build / "sources" / "v2", pdf_manifest, cache, workers=workers)
    for r in rows:
        r["docid"] = docid_for(r["package"], r["path"])
    inv_path.write_text(json.dumps(rows, sort_keys=True))
    return rows, cache, manifest


def cmd_extract(args) -> int:
    build = Path(args.build)
    t0 = time.time()
    rows, cache, _ = load_pdf_inventory(build, args.workers)
    reps = pool.exact_representatives(rows)
    todo = sorted({(r["abspath"], r["sha256"]) for r in rows
                   if r["docid"] == reps[r["sha256"]]
                   and MIN_PAGES <= int(r.get("pages", 0)) <= MAX_PAGES}, key=lambda t: t[1])
    pdfpipe.extract(todo, cache, workers=args.workers)
    timing = {"pdf_inventory_extract_s": round(time.time() - t0, 1), "pdfs": len(rows),
              "extracted": len(todo)}
    (cache / "timing_extract.json").write_text(json.dumps(timing, sort_keys=True))
    print(json.dumps(timing), file=sys.stderr)
    return 0


def cmd_assemble(args) -> int:
    build = Path(args.build)
    t0 = time.time()
    rows, cache, manifest = load_pdf_inventory(build, args.workers)
    for r in rows:
        r["source"] = f"debian:{r['package']}"
        r["kind"] = "pdf"
    config = pool.PoolConfig(release="v2", min_pages=MIN_PAGES, max_pages=MAX_PAGES,
                             page_budget=args.page_budget, seed=args.seed)
    candidates, excluded, ext_stats = pool.pdf_candidates(rows, cache, config)
    t1 = time.time()
    html, ex_h = html_candidates(build / "sources" / "v2", manifest["python3.11-doc"])
    t2 = time.time()
    pods, ex_p = pod_candidates(build / "sources" / "v2", manifest["perl-doc"])
    t3 = time.time()
    excluded += ex_h + ex_p
    for c in html + pods:
        n = len(c["pages_text"])
        if n < MIN_PAGES:
            excluded.append(pool._excl(c, "pages", f"{n} < {MIN_PAGES}"))
        elif n > MAX_PAGES:
            excluded.append(pool._excl(c, "pages", f"{n} > {MAX_PAGES}"))
        else:
            candidates.append(c)
    candidates.sort(key=lambda c: c["docid"])
    result = pool.build_pool(candidates, excluded, config)
    result["stats"]["extraction"] = ext_stats
    result["stats"]["by_package"] = {}
    for c in result["docs"]:
        s = result["stats"]["by_package"].setdefault(c["package"], {"docs": 0, "pages": 0})
        s["docs"] += 1
        s["pages"] += len(c["pages_text"])
    timings = {"html_render_s": round(t2 - t1, 1), "pod2text_s": round(t3 - t2, 1),
               "assemble_s": round(time.time() - t0, 1)}
    tp = cache / "timing_extract.json"
    if tp.exists():
        timings.update(json.loads(tp.read_text()))
    packages = [{"package": m["package"], "version": m["version"], "deb": m["deb"],
                 "deb_sha256": m["deb_sha256"]} for _, m in sorted(manifest.items())]
    tools = pdfpipe.tool_versions()
    try:
        tools["pod2text"] = "Pod::Text " + subprocess.run(
            ["perl", "-MPod::Text", "-e", "print $Pod::Text::VERSION"],
            capture_output=True, timeout=30).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    out = Path(args.out) if args.out else build / "v2"
    prov = Path(args.provenance) if args.provenance else ROOT / "provenance" / "sources_v2.json"
    counts = pool.write_release(result, out, packages, tools, config, prov, timings)
    print(json.dumps(counts), file=sys.stderr)
    print(json.dumps(result["stats"], sort_keys=True), file=sys.stderr)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("stage", choices=["extract", "assemble"])
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--page-budget", type=int, default=12000)
    p.add_argument("--seed", type=int, default=20260402)
    p.add_argument("--out", default=None, help="output folder (default BUILD/v2)")
    p.add_argument("--provenance", default=None,
                   help="provenance JSON to write (default provenance/sources_v2.json)")
    args = p.parse_args(argv)
    return cmd_extract(args) if args.stage == "extract" else cmd_assemble(args)


if __name__ == "__main__":
    sys.exit(main())
