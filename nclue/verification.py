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

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from . import crosschecks, paper_audit
from .claims import check_claims, freeze_claims, load_claims
from .context import ReleaseContext
from .croissant import CROISSANT_NAME, metadata_text as croissant_text, stale as croissant_stale
from .derived import (audit_rows_problems, audit_summary_path, audit_summary_text, derived_jsonl,
                      stats_problems)
from .errors import InputError, NclueError
from .formats import (dumps_canonical, iter_jsonl, loads_strict, write_bytes_atomic, write_json_atomic,
                      write_text_atomic)
from .label_audit.verify import check_repairs
from .tables.label_audit import label_version
from .integrity import (manifest_from_sums, parse_sha256sums, unlisted_entries, verify_entries,
                        write_integrity_files)
from .layout import ReleaseLayout, RepositoryLayout
from .outputs import clean_repository_temporaries
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
    unreadable: bool = False  # the subject could not be read (bad input: exit status 2)

    def describe(self) -> str:
        return f"{self.stage}: {self.subject}" + (f": {self.detail}" if self.detail else "")


@dataclass
class Summary:
    """Every check of a verification run."""

    checks: List[Check] = field(default_factory=list)

    def add(self, stage: str, subject: str, ok: bool, detail: str = "",
            unreadable: bool = False) -> None:
        if stage not in STAGES:
            raise ValueError(f"unknown verification stage {stage!r}")
        self.checks.append(Check(stage, subject, ok, detail, unreadable and not ok))

    def fail(self, stage: str, subject: str, detail: str, unreadable: bool = False) -> None:
        self.add(stage, subject, False, detail, unreadable)

    def unreadable(self, stage: str, subject: str, exc: object) -> None:
        """``subject`` could not be read (``exc`` names the file, line and problem)."""
        self.fail(stage, subject, str(exc), unreadable=True)

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

    def exit_status(self) -> int:
        """0 when every check held, 2 when something could not be read (bad input), else 1."""
        if any(c.unreadable for c in self.checks):
            return 2
        return 0 if self.ok else 1

    def report_lines(self, seconds: Optional[float] = None) -> List[str]:
        """What ``reproduce.py`` and ``nclue verify`` print at the end: one ``FAIL`` line per
        failing check, the checks by stage, and ``N checks verified, M failed``."""
        lines = [f"FAIL {check.describe()}" for check in self.failures()]
        stages = ", ".join(f"{stage} {passed}" + (f" ({failed} failed)" if failed else "")
                           for stage, (passed, failed) in self.counts().items())
        lines.append(f"checks by stage: {stages}")
        lines.append(f"{self.verified} checks verified, {self.failed} failed"
                     + (f" ({seconds:.1f} s)" if seconds is not None else ""))
        return lines

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


@contextmanager
def unreadable_fails(summary: Summary, stage: str, subject: str) -> Iterator[None]:
    """Turn a file that cannot be read inside the block into one failed check naming it (exit
    status 2 at the end), so that the run goes on and every other failure is still reported."""
    try:
        yield
    except NclueError as exc:
        summary.unreadable(stage, subject, exc)
    except OSError as exc:  # permissions, a vanished file: the environment, not a check
        summary.unreadable(stage, subject, f"{exc.filename or subject}: cannot read: {exc.strerror or exc}")
    except (UnicodeDecodeError, ValueError) as exc:  # a shipped text file that is not UTF-8
        summary.unreadable(stage, subject, f"{subject}: cannot read: {exc}")


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
        with unreadable_fails(summary, "regenerated", rel):
            if write and (not target.is_file() or target.read_bytes() != files[name]):
                write_bytes_atomic(target, files[name])
            if not target.is_file():
                summary.fail("regenerated", rel, "missing from the release (run reproduce.py --write)")
                continue
            shipped = target.read_bytes()
            if shipped != files[name]:
                summary.fail("regenerated", rel, "regenerated bytes differ from the shipped file ("
                             + _first_difference(shipped, files[name]) + ")")
            else:
                summary.add("regenerated", rel, True)
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix()
            if name not in files:
                summary.fail("regenerated", path.relative_to(repo.root).as_posix(),
                             "shipped but no longer regenerated (stale)")


def check_derived(repo: RepositoryLayout, ctx: ReleaseContext, summary: Summary) -> None:
    """Re-derive the release's derived files (see :mod:`nclue.derived`); a file that cannot be
    read is one failed check, and the others are still re-derived."""
    def rel(path: Path) -> str:
        return path.relative_to(repo.root).as_posix()

    with unreadable_fails(summary, "derived", rel(ctx.layout.folder)):
        expected = derived_jsonl(ctx.release, ctx.layout)
        for path, text in expected:
            with unreadable_fails(summary, "derived", rel(path)):
                if path.read_text(encoding="utf-8") == text:
                    summary.add("derived", rel(path), True)
                else:
                    summary.fail("derived", rel(path), "differs from what the release's queries, corpus "
                                                       "and qrels give")
    if ctx.layout.instrument_stats.exists():
        with unreadable_fails(summary, "derived", rel(ctx.layout.instrument_stats)):
            problems = stats_problems(ctx.release, ctx.layout)
            summary.add("derived", rel(ctx.layout.instrument_stats), not problems, "; ".join(problems))
    croissant = ctx.layout.folder / CROISSANT_NAME  # Croissant metadata (nclue croissant)
    if croissant.exists():
        with unreadable_fails(summary, "derived", rel(croissant)):
            problem = croissant_stale(ctx.layout.folder, ctx.release)
            summary.add("derived", rel(croissant), problem is None, problem or "")
    with unreadable_fails(summary, "derived", rel(ctx.layout.repairs_dir)):
        # label repairs (nclue audit repair), each loaded once with the tables that read it
        checked, problems = check_repairs(ctx.release, lambda repair_id: label_version(ctx, repair_id))
        if checked:
            summary.add("derived", rel(ctx.layout.repairs_dir), not problems, "; ".join(problems))
    check_quote_audit(repo, ctx, summary)


def check_quote_audit(repo: RepositoryLayout, ctx: ReleaseContext, summary: Summary) -> None:
    """The release's quote-backed audit (``audit/quote_audit_<release>.jsonl``): its pairs are
    the sample the audit's fixed seed draws, its construction side is the release's, and its
    summary is what the rows give (:mod:`nclue.derived`)."""
    rows_path, summary_path = audit_summary_path(repo.root, ctx.name)
    if not rows_path.exists():
        return
    rows_rel = rows_path.relative_to(repo.root).as_posix()
    rows = None
    with unreadable_fails(summary, "derived", rows_rel):
        rows = [obj for _, obj in iter_jsonl(rows_path)]
        problems = audit_rows_problems(ctx.release, rows, rows_path)
        summary.add("derived", rows_rel, not problems, _joined(problems))
    if rows is None or not summary_path.exists():
        return
    summary_rel = summary_path.relative_to(repo.root).as_posix()
    with unreadable_fails(summary, "derived", summary_rel):
        expected = audit_summary_text(ctx.release, rows)
        try:
            shipped = summary_path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(summary_path, f"invalid UTF-8 ({exc.reason})") from None
        loads_strict_or_fail(shipped, summary_path)
        same = shipped == expected
        summary.add("derived", summary_rel, same, "" if same else "differs from what its audit rows give")


def loads_strict_or_fail(text: str, path: Path) -> None:
    """A shipped JSON file must parse (else it is unreadable, named, rather than 'differs')."""
    try:
        loads_strict(text)
    except ValueError as exc:
        raise InputError(path, f"malformed JSON ({exc})") from None


def reproduce_release(repo: RepositoryLayout, layout: ReleaseLayout, mode: str, summary: Summary,
                      log: Callable[[str], None],
                      progress: Callable[[str], None] = _quiet,
                      shared: Optional[Dict[Path, ReleaseContext]] = None) -> None:
    """Load, regenerate and verify one release (every failure lands in ``summary``); ``shared``:
    the contexts loaded in this run (a release another one's table loaded is not loaded again)."""
    started = time.perf_counter()
    try:
        ctx, spec = open_release(layout.folder, shared=shared)
        progress(f"release {layout.name}: parsing {len(ctx.index.distinct_files())} run files")
        ctx.preload()
        progress(f"release {layout.name}: building {len(spec.tables)} tables "
                 f"({time.perf_counter() - started:.1f} s so far)")
        report = build_release_report(ctx, spec)
    except InputError as exc:
        summary.unreadable("release", layout.name, exc)
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
    """The frozen paper-audit verdicts (``audit/papers/``), one check per relation; each
    transcription is audited once, and one that cannot be read fails alone."""
    papers: List[str] = []
    for path in paper_audit.transcriptions(root):
        rel = path.relative_to(root).as_posix()
        with unreadable_fails(summary, "paper audit", rel):
            paper, checked, mismatches, line = paper_audit.verify_transcription(root, path)
            papers.append(paper)
            for number in range(checked - len(mismatches)):
                summary.add("paper audit", f"{paper} relation {number + 1}", True)
            for mismatch in mismatches:
                summary.fail("paper audit", "verdict", mismatch)
            log(line)
            continue
        papers.append(path.stem)  # unreadable: its verdict file is not an orphan
    for problem in paper_audit.orphan_verdicts(root, papers):
        summary.fail("paper audit", "verdict", problem)


def check_prose(root: Path, summary: Summary, log: Callable[[str], None]) -> None:
    """Every number quoted in README.md, DATASHEET.md and docs/*.md names the claim or frozen
    value it quotes and must equal it at its printed precision (:mod:`nclue.prose_numbers`);
    each bound number is one check, and an unbound or malformed quote fails too."""
    total, failed = 0, 0
    for name in prose_files(root):
        checked, problems = 0, []
        with unreadable_fails(summary, "prose", name):
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


def check_provenance(repo: RepositoryLayout, summary: Summary, log: Callable[[str], None]) -> None:
    """Provenance records against what they describe (:mod:`nclue.crosschecks`): weight records
    against their weight files, model-run records against every release's runs/index.json and
    files, each release's query splits against the construction's split rule."""
    def rel(path: Path) -> str:
        return path.relative_to(repo.root).as_posix()

    digests = set()
    records = crosschecks.weight_records(repo.root)
    for path in records:
        with unreadable_fails(summary, "derived", rel(path)):
            problems, digest = crosschecks.weight_problems(repo.root, path)
            if digest:
                digests.add(digest)
            summary.add("derived", rel(path), not problems, "; ".join(problems))
    releases = {layout.name: layout.folder for layout in repo.releases()}
    runs = 0
    for path in sorted((repo.root / "provenance").glob("model_runs*.json")):
        with unreadable_fails(summary, "derived", rel(path)):
            checked, problems = crosschecks.run_record_problems(path, releases, digests)
            runs += checked
            summary.add("derived", rel(path), not problems, _joined(problems))
    splits = 0
    for name, folder in sorted(releases.items()):
        with unreadable_fails(summary, "derived", rel(folder)):
            checked, problems = crosschecks.split_problems(
                folder, repo.root / "provenance" / f"construction_{name}.json")
            splits += checked
            if checked:
                summary.add("derived", f"{rel(folder)} query splits", not problems, _joined(problems))
    log(f"provenance: {len(records)} weight records, {runs} model-run records, {splits} query "
        f"split files checked against what they describe")


def _joined(problems: List[str], shown: int = 3) -> str:
    return "; ".join(problems[:shown]) + (f" (and {len(problems) - shown} more)" if len(problems) > shown else "")


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
    entries = None
    with unreadable_fails(summary, "integrity", "SHA256SUMS"):
        entries = parse_sha256sums(sums, repo.root)
    if entries is None:
        return
    listed = [name for _, name in entries]
    checked, problems = len(entries), verify_entries(repo.root, entries)
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
        with unreadable_fails(summary, "derived", "MANIFEST.json"):
            shipped = repo.manifest.read_text(encoding="utf-8")
            try:
                recorded = {f["path"]: f["bytes"] for f in loads_strict(shipped)["files"]}
            except (ValueError, KeyError, TypeError):
                recorded = {}
            same = shipped == manifest_from_sums(repo.root, entries, recorded, bad)
            summary.add("derived", "MANIFEST.json", same,
                        "" if same else "differs from the inventory SHA256SUMS lists")
    log(f"integrity: {checked} files in SHA256SUMS, {len(problems)} mismatched")


def reproduce(root: Path, mode: str = "verify", only: Optional[Sequence[str]] = None,
              log: Callable[[str], None] = print,
              progress: Callable[[str], None] = _quiet) -> Summary:
    """Regenerate and verify everything, in this process; see reproduce.py and the module
    docstring. ``progress`` receives lines about long steps."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    repo = RepositoryLayout(Path(root))
    summary = Summary()
    shared: Dict[Path, ReleaseContext] = {}
    for layout in repo.releases(list(only) if only else None):
        reproduce_release(repo, layout, mode, summary, log, progress, shared)
        done = shared.pop(layout.folder.resolve(), None)
        if done is not None:  # done with it: free its caches now, before the next release's
            done.close()       # runs are parsed beside it
        del done
    with unreadable_fails(summary, "paper audit", "audit/papers"):
        check_paper_audits(repo.root, summary, log)
    if not only:
        with unreadable_fails(summary, "prose", "README.md, DATASHEET.md, docs/"):
            check_prose(repo.root, summary, log)
        with unreadable_fails(summary, "derived", "provenance"):
            check_provenance(repo, summary, log)
    if mode == "freeze":
        write_integrity_files(repo.root)
        log("froze claims.json, MANIFEST.json and SHA256SUMS")
    with unreadable_fails(summary, "integrity", "SHA256SUMS"):
        check_integrity(repo, summary, log)
    with unreadable_fails(summary, "integrity", "bag"):
        check_bag(repo.root, summary, log)
    return summary


def run_and_report(root: Path, mode: str = "verify", only: Optional[Sequence[str]] = None,
                   out: Optional[TextIO] = None, err: Optional[TextIO] = None,
                   name: str = "reproduce") -> int:
    """What ``python reproduce.py`` and ``nclue verify`` do, in this process: report stale
    temporary files (removed only when writing), run :func:`reproduce`, print its lines and the
    summary to ``out`` (progress and errors to ``err``; both default to the current standard
    streams), and return the exit status: 0 verified, 1 a check failed, 2 bad input (an error
    line ``<name>: ...``). The process around it (signals, exit) is the caller's."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    started = time.perf_counter()
    clean_repository_temporaries(root, report=lambda line: print(f"{name}: {line}", file=err, flush=True),
                                 remove=mode != "verify")
    try:
        summary = reproduce(root, mode=mode, only=only, log=lambda line: print(line, file=out, flush=True),
                            progress=lambda line: print(line, file=err, flush=True))
    except NclueError as exc:   # InputError included: bad input that stops the run
        print(f"{name}: {exc}", file=err)
        return 2
    for line in summary.report_lines(time.perf_counter() - started):
        print(line, file=out)
    return summary.exit_status()


__all__ = ["Check", "MODES", "STAGES", "Summary", "regenerated_files", "reproduce", "run_and_report"]
