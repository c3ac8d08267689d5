"""The page text of exactly the pages a pre-registered audit sample shows, with each source
document's license and attribution: what an air-gapped reviewer needs to build the packet
(docs/AUDIT.md, "Air-gapped quick start"; issue 24).

The bundle is built once, from the rebuilt page text (``build/<release>/``) and the unpacked
Debian packages (``build/sources/<release>/``), by ``python -m nclue audit sample-pages``, and
committed beside the sample's ``spec.json``:

* ``pages.jsonl.gz``: one row per shown page, ``{"docid", "page", "text", "flags",
  "text_sha256"}`` (the packet step reads it as it reads ``build/<release>/pages.jsonl.gz``), plus,
  per shown page's document, the first and last non-empty line of the pages within two of a
  shown page (``{"docid", "page", "margins": [first, last]}``), enough to re-apply the support
  rule's running-line test (:mod:`nclue.instrument.support_rule`) to every shown page offline;
* ``documents.json``: per document its page count, outline, Debian package, version, path in the
  package, the PDF's sha256, and its license as the package records it (TeX Live: the package's
  ``Licenses`` file, matched by path; other packages: their ``copyright`` file's DEP-5 ``License``
  of the stanza matching the path, or its ``Files: *`` stanza), with the file it was read from
  and that file's sha256.

:func:`bundle_problems` checks a committed bundle against its spec without any page text beyond
the bundle: every shown page present once, its ``text_sha256`` that of its text, every document
with a license and attribution, no page that no item shows.
"""

import fnmatch
import gzip
import hashlib
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from ..errors import InputError
from ..formats import iter_jsonl, read_json
from .spec import read_spec

MARGIN_DISTANCE = 2


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def shown_pages(spec_path) -> Dict[str, Set[int]]:
    """{docid: pages} that the sample's items show."""
    spec = read_spec(spec_path)
    out: Dict[str, Set[int]] = {}
    for item in spec.items:
        for c in item.conditions:
            out.setdefault(item.docid, set()).update(c.pages)
    return out


def _texlive_license(sources: Path, package: str, path: str) -> Optional[Tuple[str, str, str]]:
    """(license, file, sha256) from a TeX Live binary package's ``Licenses`` list."""
    lic = sources / package / "usr" / "share" / "doc" / package / "Licenses.gz"
    if not lic.is_file() or not path.startswith("usr/share/doc/texlive-doc/"):
        return None
    target = "texmf-dist/doc/" + path[len("usr/share/doc/texlive-doc/"):]
    raw = lic.read_bytes()
    current = None
    for line in gzip.decompress(raw).decode("utf-8", "replace").splitlines():
        head = re.match(r"^([^\s:][^:]*):\s*(.*)$", line)
        if head and not line.startswith("texmf-dist/"):
            current = (head.group(1), head.group(2).strip())
            continue
        if current and line.strip() and fnmatch.fnmatch(target, line.strip()):
            return (f"{current[1] or 'not recorded'} (TeX Live package {current[0]})",
                    str(lic.relative_to(sources.parent.parent.parent)), hashlib.sha256(raw).hexdigest())
    return None


def _dep5_license(sources: Path, package: str, path: str) -> Optional[Tuple[str, str, str]]:
    """(license, file, sha256) from a Debian machine-readable copyright file."""
    copyright_file = sources / package / "usr" / "share" / "doc" / package / "copyright"
    if not copyright_file.is_file():
        return None
    raw = copyright_file.read_bytes()
    text = raw.decode("utf-8", "replace")
    best = None
    for stanza in re.split(r"\n\s*\n", text):
        files = re.search(r"^Files:\s*(.+(?:\n[ \t]+.+)*)", stanza, re.M)
        lic = re.search(r"^License:\s*(.+)$", stanza, re.M)
        if not files or not lic:
            continue
        for pattern in files.group(1).split():
            if pattern == "*" and best is None:
                best = lic.group(1).strip()
            elif fnmatch.fnmatch(path, "*" + pattern.lstrip("*")):
                best = lic.group(1).strip()
    if best is None:
        head = text.strip().splitlines()[:1]
        best = f"see the package's copyright file ({head[0][:60] if head else 'empty'})"
    return best, str(copyright_file.relative_to(sources.parent.parent.parent)), hashlib.sha256(raw).hexdigest()


def license_of(sources: Path, package: str, path: str) -> Dict[str, str]:
    found = _texlive_license(sources, package, path) or _dep5_license(sources, package, path)
    if found is None:
        raise InputError(sources / package, f"no license record for {path}")
    return {"license": found[0], "license_file": found[1], "license_file_sha256": found[2]}


def build_bundle(spec_path, pages_path, documents_path, outlines_path, sources) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """(page rows, documents record) of one sample (module docstring)."""
    shown = shown_pages(spec_path)
    near: Dict[str, Set[int]] = {d: {q for p in ps for q in range(p - MARGIN_DISTANCE, p + MARGIN_DISTANCE + 1)} - ps
                                 for d, ps in shown.items()}
    rows: List[Dict[str, Any]] = []
    for line, obj in iter_jsonl(pages_path):
        docid, page = obj["docid"], obj["page"]
        if docid not in shown:
            continue
        if page in shown[docid]:
            rows.append({"docid": docid, "page": page, "text": obj["text"], "flags": obj.get("flags", []),
                         "text_sha256": _sha(obj["text"])})
        elif page in near[docid]:
            lines = [x for x in obj["text"].splitlines() if re.search(r"[^\W_]", x)]
            rows.append({"docid": docid, "page": page, "margins": [lines[0], lines[-1]] if lines else []})
    rows.sort(key=lambda r: (r["docid"], r["page"]))
    outlines = {obj["docid"]: obj.get("items", []) for _, obj in iter_jsonl(outlines_path) if obj["docid"] in shown}
    docs: Dict[str, Any] = {}
    for _, obj in iter_jsonl(documents_path):
        if obj["docid"] not in shown:
            continue
        docs[obj["docid"]] = dict({"pages": obj["pages"], "package": obj["package"], "version": obj["version"],
                                   "path": obj["path"], "sha256": obj["sha256"], "title": obj.get("title", ""),
                                   "outline": outlines.get(obj["docid"], []),
                                   "attribution": f"{obj['path']} from the Debian bookworm package "
                                                  f"{obj['package']} {obj['version']}"},
                                  **license_of(Path(sources), obj["package"], obj["path"]))
    return rows, {"format": "nclue-audit-sample-documents", "documents": dict(sorted(docs.items()))}


def bundle_problems(spec_path, pages_path, documents_path) -> List[str]:
    """Every way a committed bundle disagrees with its spec (module docstring)."""
    shown = shown_pages(spec_path)
    problems: List[str] = []
    have: Dict[str, Set[int]] = {}
    for line, obj in iter_jsonl(pages_path):
        if "text" not in obj:
            continue
        docid, page, text = obj.get("docid"), obj.get("page"), obj.get("text")
        if page in have.setdefault(docid, set()):
            problems.append(f"{pages_path}:{line}: {docid} page {page} twice")
        have[docid].add(page)
        if obj.get("text_sha256") != _sha(text):
            problems.append(f"{pages_path}:{line}: {docid} page {page}: text_sha256 differs from its text")
        if page not in shown.get(docid, ()):
            problems.append(f"{pages_path}:{line}: {docid} page {page} is shown by no item")
    for docid, pages in sorted(shown.items()):
        missing = sorted(pages - have.get(docid, set()))
        if missing:
            problems.append(f"{pages_path}: {docid} lacks shown page(s) {missing[:5]}")
    docs = (read_json(documents_path) or {}).get("documents") or {}
    for docid in sorted(shown):
        d = docs.get(docid)
        if not d or not d.get("license") or not d.get("attribution"):
            problems.append(f"{documents_path}: {docid} has no license and attribution")
    return problems


def offline_inputs(pages_path, documents_path):
    """A partial build folder from a bundle: shown pages with their text, neighbours with their
    margin lines only, every other page empty. The support rule's decision on a *shown* page reads
    only its own text, its neighbours' margin lines and the outline, so it is the same as on the
    whole document (:mod:`nclue.instrument.support_rule`)."""
    from ..instrument.inputs import BuildInput, OutlineItem, Page, SourceDocument
    docs = read_json(documents_path)["documents"]
    texts: Dict[str, Dict[int, Page]] = {}
    for _, obj in iter_jsonl(pages_path):
        text = obj["text"] if "text" in obj else "\n".join(obj.get("margins", []))
        texts.setdefault(obj["docid"], {})[obj["page"]] = Page(text, frozenset(obj.get("flags", [])))
    documents, pages, outlines = {}, {}, {}
    for docid, d in docs.items():
        n = d["pages"]
        documents[docid] = SourceDocument(docid, n, d["package"], d["sha256"], {})
        pages[docid] = tuple(texts.get(docid, {}).get(p, Page("", frozenset())) for p in range(1, n + 1))
        outlines[docid] = tuple(OutlineItem(i["title"], i["page"], i.get("level", 0)) for i in d.get("outline", [])
                                if isinstance(i.get("page"), int) and 1 <= i["page"] <= n)
    return BuildInput(documents, pages, outlines, {}, {}, 0)


def rule_on_sample(key_path, pages_path, documents_path, establisher_factory, label_version) -> Tuple[int, List[str]]:
    """Re-apply a support rule to every (pair, condition, shown page) of a sample whose page is a
    P0 construction page, and compare with the label version's evidence: (decisions checked,
    disagreements)."""
    key = read_json(key_path)
    est = establisher_factory(offline_inputs(pages_path, documents_path))
    checked, problems = 0, []
    for item in key["items"]:
        qid, docid = item["qid"], item["docid"]
        after = label_version.evidence.get((qid, docid))
        for c in item["conditions"]:
            shown = {p["page"] for p in c["pool"]}
            for page in sorted(shown & set(c["construction_pages"])):
                kept = est.reason_against(docid, c["condition_id"], page) is None
                in_version = after is not None and page in after[c["index"]]
                checked += 1
                if qid in label_version.queries and kept != in_version:
                    problems.append(f"{item['item']} ({qid}, {docid}) {c['condition_id']} page {page}: the rule "
                                    f"{'keeps' if kept else 'drops'} it, the label version "
                                    f"{'has' if in_version else 'lacks'} it")
    return checked, problems
