"""The one-command verification behind ``reproduce.py`` (the end of the data flow).

files -> validated records -> per-query vectors -> tables -> claim checks; plus the integrity
files, the re-derived files, the frozen paper-audit verdicts and the quoted prose numbers.

By default nothing is written: every regenerated file is built in memory and compared byte for
byte with the shipped one, so a read-only copy verifies, an interrupted run leaves nothing
behind and two runs cannot disturb each other. ``mode="write"`` (``reproduce.py --write``)
also writes the regenerated reference files; ``mode="freeze"`` (``--freeze``, maintainers
cutting a release) rewrites ``claims.json`` of every release and the integrity files too.

Every outcome is a typed :class:`Check`; a release whose files cannot be read fails its checks
with the error line naming the file at fault, and the other releases are still verified.
"""

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import paper_audit
from .claims import check_claims, freeze_claims, load_claims
from .context import ReleaseContext
from .croissant import CROISSANT_NAME, metadata_text as croissant_text, stale as croissant_stale
from .derived import audit_summaries, derived_jsonl, stats_problems
from .errors import InputError
from .formats import (dumps_canonical, loads_strict, write_bytes_atomic, write_json_atomic,
                      write_text_atomic)
from .label_audit.verify import check_repairs
from .integrity import (manifest_from_sums, parse_sha256sums, unlisted_entries, verify_sha256sums,
                        write_integrity_files)
from .layout import ReleaseLayout, RepositoryLayout
from .bag import verify_enclosing_bag
from .prose_numbers import check_file as check_prose_file, prose_files
from .report.assemble import ReleaseReport, build_release_report, open_release
from .report.html import render_html
from .report.jsonform import tables_json
from .report.markdown import render_markdown

MODES = ("verify", "write", "freeze")

#: The stages of a verification, in the order they run (each check belongs to one).
STAGES = ("integrity", "release", "derived", "regenerated", "claim", "paper audit", "prose",
          "coverage")


@dataclass(frozen=True)
class Check:
    """One verification check: its stage, what it checked, whether it held, and why not."""

    stage: str
    subject: str
    ok: bool
    detail: str = ""

    def describe(self) -> str:
        return f"{self.stage}: {self.subject}" + (f": {self.detail}" if self.detail else "")


@dataclass
class Summary:
    """Every check of a verification run."""

    checks: List[Check] = field(default_factory=list)

    def add(self, stage: str, subject: str, ok: bool, detail: str = "") -> None:
        if stage not in STAGES:
            raise ValueError(f"unknown verification stage {stage!r}")
        self.checks.append(Check(stage, subject, ok, detail))

    def fail(self, stage: str, subject: str, detail: str) -> None:
        self.add(stage, subject, False, detail)

    @property
    def verified(self) -> int:
        return sum(1 for c in self.checks if c.ok)

    @property
    def failed(self) -> int:
        return sum(1 for c in self.checks if not c.ok)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def failures(self) -> List[Check]:
        return [c for c in self.checks if not c.ok]

    def counts(self) -> Dict[str, Tuple[int, int]]:
        """(passed, failed) per stage, in :data:`STAGES` order."""
        out = {}
        for stage in STAGES:
            mine = [c for c in self.checks if c.stage == stage]
            if mine:
                out[stage] = (sum(1 for c in mine if c.ok), sum(1 for c in mine if not c.ok))
        return out


def _quiet(_: str) -> None:
    return None


def regenerated_files(ctx: ReleaseContext, report: ReleaseReport) -> Dict[str, bytes]:
    """The reference files of a release (relative to ``reference_metrics/<release>/``)."""
    files = {"tables.md": render_markdown(report.reference).encode("utf-8"),
             "tables.json": (dumps_canonical(tables_json(ctx.name, report.tables), indent=2)
                             + "\n").encode("utf-8")}
    for figure in report.figures:
        files[f"figures/{figure.figure_id}.svg"] = figure.svg.encode("utf-8")
    if report.report is not None:
        files["REPORT.md"] = render_markdown(report.report).encode("utf-8")
        files["REPORT.html"] = render_html(report.report).encode("utf-8")
    return files


def _first_difference(a: bytes, b: bytes) -> str:
    lines_a, lines_b = a.split(b"\n"), b.split(b"\n")
    for number, (x, y) in enumerate(zip(lines_a, lines_b), start=1):
        if x != y:
            return f"first difference at line {number}"
    return f"the shipped file has {len(lines_a)} lines, the regenerated one {len(lines_b)}"


def compare_files(repo: RepositoryLayout, folder: Path, files: Dict[str, bytes], summary: Summary,
                  write: bool) -> None:
    """Compare regenerated files with the shipped ones (writing them first when ``write``);
    a shipped file in ``folder`` that nothing regenerates is stale and fails too."""
    for name in sorted(files):
        target = folder / name
        rel = target.relative_to(repo.root).as_posix()
        if write and (not target.is_file() or target.read_bytes() != files[name]):
            write_bytes_atomic(target, files[name])
        if not target.is_file():
            summary.fail("regenerated", rel, "missing from the release (run reproduce.py --write)")
        elif target.read_bytes() != files[name]:
            summary.fail("regenerated", rel, "regenerated bytes differ from the shipped file ("
                         + _first_difference(target.read_bytes(), files[name]) + ")")
        else:
            summary.add("regenerated", rel, True)
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix()
            if name not in files:
                summary.fail("regenerated", path.relative_to(repo.root).as_posix(),
                             "shipped but no longer regenerated (stale)")


def check_derived(repo: RepositoryLayout, ctx: ReleaseContext, summary: Summary) -> None:
    """Re-derive the release's derived files (see :mod:`nclue.derived`)."""
    for path, text in derived_jsonl(ctx.release, ctx.layout):
        rel = path.relative_to(repo.root).as_posix()
        if path.read_text(encoding="utf-8") == text:
            summary.add("derived", rel, True)
        else:
            summary.fail("derived", rel, "differs from what the release's queries, corpus and "
                                         "qrels give")
    if ctx.layout.instrument_stats.exists():
        rel = ctx.layout.instrument_stats.relative_to(repo.root).as_posix()
        problems = stats_problems(ctx.release, ctx.layout)
        summary.add("derived", rel, not problems, "; ".join(problems))
    croissant = ctx.layout.folder / CROISSANT_NAME  # Croissant metadata (nclue croissant)
    if croissant.exists():
        problem = croissant_stale(ctx.layout.folder, ctx.release)
        summary.add("derived", croissant.relative_to(repo.root).as_posix(), problem is None,
                    problem or "")
    checked, problems = check_repairs(ctx.release)  # label repairs (nclue audit repair)
    if checked:
        rel = ctx.layout.repairs_dir.relative_to(repo.root).as_posix()
        summary.add("derived", rel, not problems, "; ".join(problems))


def reproduce_release(repo: RepositoryLayout, layout: ReleaseLayout, mode: str, summary: Summary,
                      log: Callable[[str], None], jobs: int = 1,
                      progress: Callable[[str], None] = _quiet) -> None:
    """Load, regenerate and verify one release (every failure lands in ``summary``)."""
    started = time.perf_counter()
    try:
        ctx, spec = open_release(layout.folder)
        progress(f"release {layout.name}: parsing {len(ctx.index.distinct_files())} run files "
                 f"({jobs} worker{'s' if jobs != 1 else ''})")
        ctx.preload(jobs)
        progress(f"release {layout.name}: building {len(spec.tables)} tables "
                 f"({time.perf_counter() - started:.1f} s so far)")
        report = build_release_report(ctx, spec)
    except InputError as exc:
        summary.fail("release", layout.name, str(exc))
        log(f"release {layout.name}: FAILED to load ({exc})")
        return
    summary.add("release", layout.name, True)
    check_derived(repo, ctx, summary)
    compare_files(repo, repo.reference_metrics(layout.name), regenerated_files(ctx, report),
                  summary, write=mode != "verify")
    for problem in report.problems:  # words the numbers no longer support (nclue.tables.statements)
        summary.fail("claim", f"{layout.name}/report words", problem)
    cells, decimals = report.cells(), report.decimals()
    if mode == "freeze" and (ctx.layout.folder / CROISSANT_NAME).exists():
        write_text_atomic(ctx.layout.folder / CROISSANT_NAME, croissant_text(ctx.layout.folder, ctx.release))
    if mode == "freeze":
        write_json_atomic(layout.claims, freeze_claims(layout.name, cells, decimals))
    claims_rel = layout.claims.relative_to(repo.root).as_posix()
    if not layout.claims.exists():
        summary.fail("claim", claims_rel, "missing (run reproduce.py --freeze to cut a release)")
        return
    try:
        claims = load_claims(layout.claims)
    except InputError as exc:
        summary.fail("claim", claims_rel, str(exc))
        return
    results = check_claims(claims, cells)
    for result in results:
        summary.add("claim", result.claim.address, result.ok,
                    "" if result.ok else result.describe(claims_rel).split(": ", 1)[1])
    claimed = {(c.table, c.row, c.column) for c in claims}
    for key in sorted(set(cells) - claimed):
        summary.fail("claim", f"{layout.name}/{'/'.join(key)}",
                     f"reported in a table but not in {claims_rel}")
    passed = sum(1 for r in results if r.ok)
    log(f"release {layout.name}: {len(ctx.release.queries)} queries, {len(ctx.index)} runs, "
        f"{len(report.tables)} tables, {passed}/{len(results)} claims verified")


def check_paper_audits(root: Path, summary: Summary, log: Callable[[str], None]) -> None:
    """The frozen paper-audit verdicts (``audit/papers/``), one check per relation."""
    try:
        checked, mismatches = paper_audit.verify_frozen_verdicts(root)
    except InputError as exc:
        summary.fail("paper audit", "audit/papers", str(exc))
        return
    for number in range(checked - len(mismatches)):
        summary.add("paper audit", f"relation {number + 1}", True)
    for mismatch in mismatches:
        summary.fail("paper audit", "verdict", mismatch)
    for line in paper_audit.summary_lines(root):
        log(line)


def check_prose(root: Path, summary: Summary, log: Callable[[str], None]) -> None:
    """Every number quoted in README.md, DATASHEET.md and docs/*.md names the claim or frozen
    value it quotes and must equal it at its printed precision (:mod:`nclue.prose_numbers`);
    each bound number is one check, and an unbound or malformed quote fails too."""
    total, failed = 0, 0
    for name in prose_files(root):
        checked, problems = check_prose_file(root, name)
        mismatches = sum(1 for p in problems if " is not printed by " in p)
        total += checked
        failed += len(problems)
        for number in range(max(0, checked - mismatches)):
            summary.add("prose", f"{name} number {number + 1}", True)
        for problem in problems:
            summary.fail("prose", name, problem)
    log(f"prose: {total} quoted numbers checked against the claims and files they name, "
        f"{failed} problems")


def check_bag(root: Path, summary: Summary, log: Callable[[str], None]) -> None:
    """Inside an extracted BagIt bag (RFC 8493; ``nclue archive``), its manifests too."""
    bag = verify_enclosing_bag(root)
    if bag is None:
        return
    for problem in bag.problems:
        summary.fail("integrity", f"bag {bag.bag}", problem)
    if bag.ok:
        summary.add("integrity", f"bag {bag.bag}", True)
    log(f"bag: {bag.checked} files in the BagIt manifests, {len(bag.problems)} problems")


def check_integrity(repo: RepositoryLayout, summary: Summary, log: Callable[[str], None]) -> None:
    """SHA256SUMS lists every release file with its digest; nothing else lies in the release
    folders; MANIFEST.json is what the files on disk give."""
    sums = repo.sha256sums
    if not sums.exists():
        summary.fail("integrity", "SHA256SUMS", "missing")
        return
    try:
        checked, problems = verify_sha256sums(repo.root)
        entries = parse_sha256sums(sums, repo.root)
        listed = [name for _, name in entries]
    except InputError as exc:
        summary.fail("integrity", "SHA256SUMS", str(exc))
        return
    bad = {p.split(":", 1)[0] for p in problems}
    for problem in problems:
        name, _, detail = problem.partition(": ")
        summary.fail("integrity", name, detail)
    for name in listed:
        if name not in bad:
            summary.add("integrity", name, True)
    for problem in unlisted_entries(repo.root, listed):
        name, _, detail = problem.partition(": ")
        summary.fail("coverage", name, detail)
    if repo.manifest.exists():
        shipped = repo.manifest.read_text(encoding="utf-8")
        try:
            recorded = {f["path"]: f["bytes"] for f in loads_strict(shipped)["files"]}
        except (ValueError, KeyError, TypeError):
            recorded = {}
        same = shipped == manifest_from_sums(repo.root, entries, recorded, bad)
        summary.add("derived", "MANIFEST.json", same,
                    "" if same else "differs from the inventory SHA256SUMS lists")
    for path, text in audit_summaries(repo.root):
        rel = path.relative_to(repo.root).as_posix()
        same = path.read_text(encoding="utf-8") == text
        summary.add("derived", rel, same, "" if same else "differs from what its audit rows give")
    log(f"integrity: {checked} files in SHA256SUMS, {len(problems)} mismatched")


def default_jobs() -> int:
    """Worker processes that parse run files: 2 where 2 CPUs exist, else 1 (no pool)."""
    return max(1, min(2, os.cpu_count() or 1))


def reproduce(root: Path, mode: str = "verify", only: Optional[Sequence[str]] = None,
              log: Callable[[str], None] = print, jobs: Optional[int] = None,
              progress: Callable[[str], None] = _quiet) -> Summary:
    """Regenerate and verify everything; see reproduce.py and the module docstring. ``jobs``:
    worker processes that parse run files (default :func:`default_jobs`; 1 = all in this
    process). Output does not depend on it. ``progress`` receives lines about long steps."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    repo = RepositoryLayout(Path(root))
    summary = Summary()
    for layout in repo.releases(list(only) if only else None):
        reproduce_release(repo, layout, mode, summary, log,
                          default_jobs() if jobs is None else jobs, progress)
    check_paper_audits(repo.root, summary, log)
    if not only:
        check_prose(repo.root, summary, log)
    if mode == "freeze":
        write_integrity_files(repo.root)
        log("froze claims.json, MANIFEST.json and SHA256SUMS")
    check_integrity(repo, summary, log)
    check_bag(repo.root, summary, log)
    return summary


__all__ = ["Check", "MODES", "STAGES", "Summary", "regenerated_files", "reproduce"]
