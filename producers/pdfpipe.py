"""PDF inventory and extraction with poppler, cached by PDF sha256 (build-time producer).

Stage 1 (inventory): every regular ``*.pdf`` file under the unpacked packages, with its sha256,
``pdfinfo`` page count and title. Stage 2 (extract): for the PDFs chosen by the caller, the whole
file through ``pdftotext -layout`` (under a 60 s timeout) and the outline through
``pdftohtml -xml -i -stdout -q -f 1 -l 1`` (60 s timeout). Results are cached under
``CACHE/text/<sha256>.txt`` and ``CACHE/outline/<sha256>.xml`` (atomic writes), with per-file
status and timings in ``CACHE/extract_log.jsonl``, so reruns only do missing work.

Runs tools through ``subprocess`` with 2 worker threads; run the driver under ``nice -n 10``.
``nclue`` never imports this module.
"""

import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

TIMEOUT_S = 60


def sha256_path(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def read_manifest(path: Path) -> Dict[str, Dict[str, str]]:
    """Download manifest lines ``name version file sha256`` -> {name: {...}}."""
    out = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 4:
            out[parts[0]] = {"package": parts[0], "version": parts[1], "deb": parts[2],
                             "deb_sha256": parts[3]}
    return out


def find_pdfs(src_root: Path, packages: Iterable[str]) -> List[Tuple[str, str, Path]]:
    """(package, path inside package, absolute path) of every regular *.pdf file, sorted."""
    found = []
    for pkg in sorted(packages):
        root = src_root / pkg
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.lower().endswith(".pdf"):
                    continue
                full = Path(dirpath) / name
                if full.is_symlink() or not full.is_file():
                    continue
                found.append((pkg, str(full.relative_to(root)), full))
    return sorted(found, key=lambda t: (t[0], t[1]))


def run_pdfinfo(path: Path) -> Dict[str, object]:
    """pdfinfo page count and title; {'error': ...} on failure or timeout."""
    try:
        proc = subprocess.run(["pdfinfo", "-enc", "UTF-8", str(path)], capture_output=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": "pdfinfo-timeout"}
    text = proc.stdout.decode("utf-8", errors="replace")
    info: Dict[str, object] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        if key == "Pages":
            try:
                info["pages"] = int(value.strip())
            except ValueError:
                pass
        elif key == "Title":
            info["title"] = value.strip()
    if "pages" not in info:
        info["error"] = f"pdfinfo-failed(rc={proc.returncode})"
    return info


def inventory(src_root: Path, manifest: Dict[str, Dict[str, str]], cache: Path,
              workers: int = 2) -> List[Dict[str, object]]:
    """Stage 1: one row per PDF file; pdfinfo results cached by sha256 in CACHE/pdfinfo.jsonl."""
    cache.mkdir(parents=True, exist_ok=True)
    info_path = cache / "pdfinfo.jsonl"
    known: Dict[str, Dict[str, object]] = {}
    if info_path.exists():
        for line in info_path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                known[row["sha256"]] = row
    pdfs = find_pdfs(src_root, manifest)
    rows = []
    lock = threading.Lock()
    t0 = time.time()

    def work(item):
        pkg, rel, full = item
        sha = sha256_path(full)
        with lock:
            have = known.get(sha)
        if have is None:
            info = run_pdfinfo(full)
            have = dict(info, sha256=sha)
            with lock:
                known[sha] = have
                with open(info_path, "a") as f:
                    f.write(json.dumps(have, sort_keys=True) + "\n")
        return pkg, rel, full, sha, have

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        for n, (pkg, rel, full, sha, info) in enumerate(ex.map(work, pdfs), start=1):
            meta = manifest[pkg]
            row = {"package": pkg, "version": meta["version"], "deb_sha256": meta["deb_sha256"],
                   "path": rel, "abspath": str(full), "sha256": sha,
                   "bytes": full.stat().st_size}
            row.update({k: v for k, v in info.items() if k != "sha256"})
            rows.append(row)
            if n % 500 == 0:
                print(f"[inventory] {n}/{len(pdfs)} {time.time() - t0:.0f}s", file=sys.stderr)
    print(f"[inventory] {len(rows)} PDFs in {time.time() - t0:.1f}s", file=sys.stderr)
    return rows


def _extract_one(abspath: str, sha: str, cache: Path) -> Dict[str, object]:
    text_path = cache / "text" / f"{sha}.txt"
    outline_path = cache / "outline" / f"{sha}.xml"
    log: Dict[str, object] = {"sha256": sha}
    t0 = time.time()
    c0 = os.times()
    try:
        proc = subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", abspath, "-"],
                              capture_output=True, timeout=TIMEOUT_S)
        if proc.returncode != 0 and not proc.stdout:
            log["status"] = f"pdftotext-failed(rc={proc.returncode})"
        else:
            _atomic_write(text_path, proc.stdout)
            log["status"] = "ok"
            if proc.returncode != 0:
                log["pdftotext_rc"] = proc.returncode
    except subprocess.TimeoutExpired:
        log["status"] = "timeout"
    c1 = os.times()
    log["text_s"] = round(time.time() - t0, 3)
    log["text_cpu_s"] = round((c1.children_user + c1.children_system)
                              - (c0.children_user + c0.children_system), 3)
    t1 = time.time()
    try:
        proc = subprocess.run(["pdftohtml", "-xml", "-i", "-stdout", "-q", "-f", "1", "-l", "1",
                               abspath], capture_output=True, timeout=TIMEOUT_S)
        _atomic_write(outline_path, proc.stdout)
        log["outline_status"] = "ok" if proc.returncode == 0 else f"rc={proc.returncode}"
    except subprocess.TimeoutExpired:
        log["outline_status"] = "timeout"
    log["outline_s"] = round(time.time() - t1, 3)
    return log


def extract(items: List[Tuple[str, str]], cache: Path, workers: int = 2) -> Dict[str, Dict]:
    """Stage 2: items are (abspath, sha256); returns {sha256: log row}, cached in extract_log."""
    log_path = cache / "extract_log.jsonl"
    done: Dict[str, Dict] = {}
    if log_path.exists():
        for line in log_path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["sha256"]] = row
    todo = [(a, s) for a, s in items if s not in done]
    print(f"[extract] {len(items)} requested, {len(todo)} to do", file=sys.stderr)
    t0 = time.time()
    lock = threading.Lock()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        futures = [ex.submit(_extract_one, a, s, cache) for a, s in todo]
        for n, fut in enumerate(concurrent.futures.as_completed(futures), start=1):
            row = fut.result()
            with lock:
                done[row["sha256"]] = row
                with open(log_path, "a") as f:
                    f.write(json.dumps(row, sort_keys=True) + "\n")
            if n % 100 == 0:
                print(f"[extract] {n}/{len(todo)} {time.time() - t0:.0f}s", file=sys.stderr)
    print(f"[extract] done {len(todo)} in {time.time() - t0:.1f}s", file=sys.stderr)
    return done


def read_text(cache: Path, sha: str) -> Optional[str]:
    p = cache / "text" / f"{sha}.txt"
    if not p.exists():
        return None
    return p.read_bytes().decode("utf-8", errors="replace")


def read_outline_xml(cache: Path, sha: str) -> str:
    p = cache / "outline" / f"{sha}.xml"
    if not p.exists():
        return ""
    return p.read_bytes().decode("utf-8", errors="replace")


def tool_versions() -> Dict[str, str]:
    """Versions of the external tools (first line of their version output / dpkg status)."""
    out = {}
    for name, cmd in (("pdftotext", ["pdftotext", "-v"]), ("qpdf", ["qpdf", "--version"]),
                      ("dpkg", ["dpkg", "--version"])):
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=30)
            text = (proc.stdout + proc.stderr).decode("utf-8", errors="replace").strip()
            out[name] = text.splitlines()[0] if text else ""
        except (OSError, subprocess.TimeoutExpired) as exc:
            out[name] = f"unavailable ({exc})"
    for pkg in ("poppler-utils", "qpdf", "dpkg", "perl", "python3.11"):
        try:
            proc = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                                  capture_output=True, timeout=30)
            out[f"deb:{pkg}"] = proc.stdout.decode().strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    out["python"] = sys.version.split()[0]
    return out
