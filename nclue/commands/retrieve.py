"""``nclue retrieve`` and ``nclue fuse``: produce the lexical and control runs of the matrix.

``nclue retrieve --release data/v1 --pages build/v1/pages.jsonl.gz --method bm25-sdr --form clean
--out data/v1/runs/bm25_sdr.clean.jsonl.gz`` builds the page and document BM25 indexes once, runs
one system over every released query and writes a run (depth 100), recording it in
``runs/index.json`` next to the output. ``--plan FILE`` runs a list of systems over one index build.

``nclue fuse --release data/v1 --inputs RUN_A RUN_B --method rrf --id NAME`` fuses existing runs
of ``data/v1/runs/`` by id (equal-weight RRF, k = 60, or round robin), depth 100.

Page-scored systems keep ``"pages"`` for their first 20 documents (3 pages each; SDR: the assigned
pages). Scores are written rounded to 6 significant digits (``float(f"{x:.6g}")``), page scores too; the
order in the file is the order computed from full-precision scores (ties: docid ascending for
retrievers, stable input order for fusion), and readers keep file order for equal scores.
"""

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .. import __version__
from ..errors import InputError
from ..formats import (dumps_canonical, read_json, sha256_file, write_json_atomic,
                       write_jsonl_atomic)
from ..release import FORMS, Query, Release, load_release, render_forms
from ..retrieval import controls, decomposition, fusion, sdr
from ..retrieval.bm25 import Hit, LexicalIndex
from ..retrieval.index import DEFAULT_B, DEFAULT_K1
from ..runs import load_run

DEPTH = 100
SIGNIFICANT = 6
#: Page-scored runs keep their pages for the first PAGE_DEPTH documents (the evidence metric
#: reads the top 10; 20 leaves room), three pages each, to keep run files small.
PAGE_DEPTH = 20


def round_sig(value: float) -> float:
    """Round to :data:`SIGNIFICANT` significant digits (what the run files store)."""
    return float(f"{value:.{SIGNIFICANT}g}")


class Context:
    """One release, its page index, and per-release caches shared by the systems.

    ``inputs`` maps each input file (release queries, page text) to its sha256; it is recorded in
    every produced run's index entry so that a run made from older inputs can be detected.
    """

    def __init__(self, release: Release, index: Optional[LexicalIndex], depth: int,
                 inputs: Optional[Dict[str, str]] = None) -> None:
        self.release = release
        self.index = index
        self.depth = depth
        self.inputs = dict(inputs or {})
        self._prior: Optional[List[Hit]] = None
        self._evidence: Optional[Dict[str, Dict[str, Any]]] = None

    def need_index(self) -> LexicalIndex:
        if self.index is None:
            raise InputError("--pages", "this system needs the page text (--pages)")
        return self.index

    def prior(self) -> List[Hit]:
        if self._prior is None:
            index = self.need_index()
            every = [c for q in self.release.queries.values() for c in q.conditions]
            self._prior = controls.prior_ranking(
                index, controls.condition_frequency_prior(index, every), self.depth)
        return self._prior


System = Callable[[Context, Query, str, Tuple[str, ...]], List[Hit]]


def _cond(how: str, level: str) -> System:
    return lambda ctx, q, text, conds: decomposition.bm25_condition_wise(
        ctx.need_index(), conds, how, level=level, depth=ctx.depth)


def _cond_round_robin(ctx: Context, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    index = ctx.need_index()
    lists = [[hit.docid for hit in index.bm25_or(condition, ctx.depth)] for condition in conds]
    return [Hit(docid, score) for docid, score in fusion.round_robin(lists, ctx.depth)]


def _oracle(ctx: Context, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    judged = {docid: (j.clues, j.is_gold)
              for docid, j in ctx.release.judgments.get(query.qid, {}).items()}
    return controls.fact_oracle(judged, ctx.depth)


def _fact_floor(ctx: Context, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    if ctx._evidence is None:
        grouped: Dict[str, Dict[str, Any]] = {}
        for (qid, docid), pages in ctx.release.evidence.items():
            grouped.setdefault(qid, {})[docid] = pages
        ctx._evidence = grouped
    return controls.single_page_fact_floor(ctx._evidence.get(query.qid, {}), ctx.depth)


#: name -> (system, family, block, operation, privileged)
SYSTEMS: Dict[str, Tuple[System, str, str, str, bool]] = {
    "bm25-or": (lambda ctx, q, text, conds: ctx.need_index().bm25_or(text, ctx.depth),
                "lexical", "representation", "joint OR query (document BM25)", False),
    "bm25-and": (lambda ctx, q, text, conds: ctx.need_index().bm25_and(text, conds, ctx.depth),
                 "lexical", "representation", "joint AND query (document BM25)", False),
    "bm25-page-max": (lambda ctx, q, text, conds: ctx.need_index().page_max(text, ctx.depth),
                      "lexical", "representation", "best page (page MaxSim analogue)", False),
    "bm25-page-top3": (lambda ctx, q, text, conds: ctx.need_index().page_top3(text, ctx.depth),
                       "lexical", "representation", "average three page scores", False),
    "bm25-cond-min": (_cond("min", "doc"), "lexical", "composition",
                      "condition lists (document BM25) + min", False),
    "bm25-cond-product": (_cond("product", "doc"), "lexical", "composition",
                          "condition lists (document BM25) + product", False),
    "bm25-cond-hmean": (_cond("hmean", "doc"), "lexical", "composition",
                        "condition lists (document BM25) + harmonic mean", False),
    "bm25-pagecond-min": (_cond("min", "page"), "lexical", "composition",
                          "condition lists (best-page BM25) + min", False),
    "bm25-pagecond-product": (_cond("product", "page"), "lexical", "composition",
                              "condition lists (best-page BM25) + product", False),
    "bm25-pagecond-hmean": (_cond("hmean", "page"), "lexical", "composition",
                            "condition lists (best-page BM25) + harmonic mean", False),
    "bm25-cond-rr": (_cond_round_robin, "lexical", "composition",
                     "condition lists (document BM25) + round robin (Multi3IR eq. 4)", False),
    "bm25-sdr": (lambda ctx, q, text, conds: sdr.bm25_sdr(ctx.need_index(), conds, ctx.depth),
                 "lexical", "composition", "condition lists + distinct pages (SDR)", False),
    "single-page-floor": (lambda ctx, q, text, conds: controls.single_page_floor(
        ctx.need_index(), text, conds, ctx.depth), "control", "controls",
        "all conditions on one page (floor)", False),
    "cond-prior": (lambda ctx, q, text, conds: ctx.prior(), "control", "controls",
                   "query-independent condition-frequency prior", False),
    "oracle": (_oracle, "control", "controls",
               "PRIVILEGED construction-fact oracle (reads qrels)", True),
    "single-page-floor-facts": (_fact_floor, "control", "controls",
                                "PRIVILEGED all conditions on one stored evidence page (reads "
                                "evidence)", True),
}


def query_input(query: Query, form: str, drop: Optional[int]) -> Tuple[str, Tuple[str, ...]]:
    """The query text for ``form`` and the condition list, after masking ``c_drop``."""
    if drop is None:
        return query.forms[form], tuple(query.conditions)
    masked = controls.mask_condition(query.conditions, drop)
    if masked == tuple(query.conditions):
        return query.forms[form], masked
    if form == "raw" and query.forms["raw"] != ", ".join(query.conditions):
        raise InputError(query.qid, "cannot mask the raw form: it is not the conditions "
                                    "joined by ', '")
    # A one-condition query has no two-condition rendering: join what is left the same way.
    if len(masked) == 1:
        rendered = {"raw": masked[0], "clean": f'"{masked[0]}"',
                    "natural": f'Find the document that discusses "{masked[0]}".'}
    else:
        rendered = render_forms(masked)
    return rendered[form], masked


def run_rows(ctx: Context, method: str, form: str, drop: Optional[int]) -> List[dict]:
    system = SYSTEMS[method][0]
    rows = []
    for qid in sorted(ctx.release.queries):
        query = ctx.release.queries[qid]
        text, conds = query_input(query, form, drop)
        hits = system(ctx, query, text, conds)
        rows.append(hits_row(qid, hits, PAGE_DEPTH))
    return rows


def hits_row(qid: str, hits: Sequence[Hit], page_depth: int = 0) -> dict:
    """One run line. Page scores are kept for the first ``page_depth`` documents only."""
    row: Dict[str, Any] = {"qid": qid, "docs": [h.docid for h in hits],
                           "scores": [round_sig(h.score) for h in hits]}
    if page_depth > 0 and any(h.pages is not None for h in hits):
        row["pages"] = {h.docid: [[page, round_sig(score)] for page, score in (h.pages or ())]
                        for h in hits[:page_depth]}
    return row


def _lock(path: Path, timeout: float = 60.0):
    lock = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + timeout
    while True:
        try:
            return lock, os.open(str(lock), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if time.monotonic() > deadline:
                raise InputError(lock, "index lock held for over a minute; remove it if stale")
            time.sleep(0.2)


def record_run(run_path: Path, entry: Dict[str, Any]) -> None:
    """Add or replace ``entry`` (keyed by id) in ``runs/index.json`` beside ``run_path``."""
    index_path = run_path.parent / "index.json"
    lock, handle = _lock(index_path)
    try:
        runs: List[dict] = []
        if index_path.exists():
            data = read_json(index_path)
            if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
                raise InputError(index_path, "expected an object with a 'runs' list")
            runs = [r for r in data["runs"] if not (isinstance(r, dict) and r.get("id") == entry["id"])]
            data = dict(data)
        else:
            data = {}
        runs.append(entry)
        runs.sort(key=lambda r: str(r.get("id")))
        data["runs"] = runs
        write_json_atomic(index_path, data)
    finally:
        os.close(handle)
        os.unlink(str(lock))


def run_id_for(out: Path) -> str:
    name = out.name
    if not name.endswith(".jsonl.gz"):
        raise InputError(out, "run files are named <run_id>.jsonl.gz")
    return name[: -len(".jsonl.gz")]


def produce(ctx: Context, spec: Dict[str, Any], out: Path, k1: float, b: float,
            record: bool = True) -> Dict[str, Any]:
    method, form, drop = spec["method"], spec["form"], spec.get("drop")
    if method not in SYSTEMS:
        raise InputError(spec.get("_where", "--method"), f"unknown method {method!r}; "
                                                         f"expected one of {', '.join(SYSTEMS)}")
    if form not in FORMS:
        raise InputError(spec.get("_where", "--form"), f"unknown form {form!r}")
    _, family, block, operation, privileged = SYSTEMS[method]
    started = time.perf_counter()
    rows = run_rows(ctx, method, form, drop)
    write_jsonl_atomic(out, rows)
    seconds = time.perf_counter() - started
    configuration: Dict[str, Any] = {"method": method, "depth": ctx.depth,
                                     "score_rounding": f"{SIGNIFICANT} significant digits"}
    if any("pages" in row for row in rows):
        configuration["pages"] = (f"best 3 pages (assigned pages for SDR) of the top "
                                  f"{PAGE_DEPTH} documents")
    if method not in PRIVILEGED_ONLY:
        configuration.update({"k1": k1, "b": b, "tokenizer": "nclue.retrieval.tokenize (lowercase, "
                              "[^\\W_]+, Lucene English stop set, no stemming)"})
    if method == "bm25-cond-rr":
        configuration.update({"condition_list_depth": ctx.depth,
                              "combination": "round robin, skip duplicates"})
    elif method.startswith("bm25-cond") or method.startswith("bm25-pagecond"):
        configuration.update({"normalization": "max", "condition_list_depth": "all matching",
                              "unranked": "documents missing a condition (combined score 0)"})
    if drop is not None:
        configuration["drop_condition"] = drop
        operation = f"{operation}; condition c{drop} masked"
        block = "controls"
        family = "control"
    run_id = run_id_for(out)
    entry = {"id": run_id, "file": out.name, "sha256": sha256_file(out), "family": family,
             "block": spec.get("block", block), "operation": operation,
             "base": spec.get("base"), "form": form, "configuration": configuration,
             "privileged": privileged, "inputs": run_inputs(ctx, method),
             "producer": f"nclue retrieve (nclue {__version__})"}
    if record:
        record_run(out, entry)
    print(f"nclue retrieve: {run_id}: {len(rows)} queries in {seconds:.1f}s", file=sys.stderr)
    return entry


def _load_index(args, release: Release) -> Optional[LexicalIndex]:
    if args.pages is None:
        return None
    started = time.perf_counter()
    index = LexicalIndex.from_file(args.pages, args.k1, args.b, keep_docs=release.corpus)
    missing = sorted(set(release.corpus) - set(index.collection.docids))
    if missing:
        raise InputError(args.pages, f"{len(missing)} corpus documents have no pages, "
                                     f"e.g. {missing[0]!r}")
    for doc, docid in enumerate(index.collection.docids):
        have = len(index.collection.doc_units[doc])
        want = release.corpus[docid].pages
        if have != want:
            raise InputError(args.pages, f"document {docid!r} has {have} pages here but "
                                         f"{want} in the corpus metadata")
    print(f"nclue retrieve: indexed {index.collection.n_docs} documents, "
          f"{index.collection.n_pages} pages, {len(index.pages.postings)} terms in "
          f"{time.perf_counter() - started:.1f}s", file=sys.stderr)
    return index


def cmd_retrieve(args) -> int:
    release = load_release(args.release)
    specs: List[Tuple[Dict[str, Any], Path]] = []
    if args.plan:
        plan = read_json(args.plan)
        if not isinstance(plan, dict) or not isinstance(plan.get("runs"), list):
            raise InputError(args.plan, "expected an object with a 'runs' list")
        folder = Path(args.release) / "runs"
        for number, item in enumerate(plan["runs"], start=1):
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str)
                                                     for k in ("id", "method", "form")):
                raise InputError(args.plan, f"run {number}: needs string fields id, method, form")
            drop = item.get("drop")
            if drop is not None and (isinstance(drop, bool) or not isinstance(drop, int)):
                raise InputError(args.plan, f"run {number}: drop must be an integer")
            spec = dict(item, _where=f"{args.plan} run {number}")
            specs.append((spec, folder / f"{item['id']}.jsonl.gz"))
    else:
        if not (args.method and args.out):
            raise InputError("nclue retrieve", "give --method and --out, or --plan")
        specs.append(({"method": args.method, "form": args.form, "drop": args.drop,
                       "base": args.base}, Path(args.out)))
    if args.depth < 1:
        raise InputError("--depth", f"must be >= 1, got {args.depth}")
    if not (args.k1 >= 0 and 0 <= args.b <= 1):
        raise InputError("--k1/--b", f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={args.k1}, "
                                     f"b={args.b}")
    seen_ids = set()
    for spec, out in specs:  # check every run before producing any (no half-done plans)
        where = spec.get("_where", "nclue retrieve")
        run_id = run_id_for(out)
        if run_id in seen_ids:
            raise InputError(where, f"run id {run_id!r} appears twice")
        seen_ids.add(run_id)
        if spec["method"] not in SYSTEMS:
            raise InputError(where, f"unknown method {spec['method']!r}; expected one of "
                                    f"{', '.join(SYSTEMS)}")
        if spec["form"] not in FORMS:
            raise InputError(where, f"unknown form {spec['form']!r}; expected one of "
                                    f"{', '.join(FORMS)}")
        if spec.get("drop") is not None and spec["drop"] not in (1, 2, 3):
            raise InputError(where, f"drop must be 1, 2 or 3, got {spec['drop']!r}")
    needs_pages = any(spec["method"] not in PRIVILEGED_ONLY for spec, _ in specs)
    index = _load_index(args, release) if needs_pages or args.pages else None
    inputs = {"queries": _release_sha(args.release, "queries")}
    if index is not None:
        inputs["pages"] = sha256_file(args.pages)
    for spec, _ in specs:
        for name in PRIVILEGED_INPUTS.get(spec["method"], ()):
            inputs[name] = _release_sha(args.release, name)
    ctx = Context(release, index, args.depth, inputs)
    entries = [produce(ctx, spec, out, args.k1, args.b, record=not args.no_index)
               for spec, out in specs]
    if args.json:
        print(dumps_canonical(entries, indent=2))
    return 0



#: the input files each privileged system reads besides the queries (others read the page text)
PRIVILEGED_INPUTS = {"oracle": ("qrels",), "single-page-floor-facts": ("evidence",)}
#: systems that read only the release (no page text)
PRIVILEGED_ONLY = tuple(PRIVILEGED_INPUTS)


def run_inputs(ctx: Context, method: str) -> Dict[str, str]:
    """sha256 of the files this system read: queries, and page text or privileged release files."""
    names = ("queries",) + PRIVILEGED_INPUTS.get(method, ("pages",))
    return {name: ctx.inputs[name] for name in names if name in ctx.inputs}


def _release_sha(release_dir: str, stem: str) -> str:
    for name in (f"{stem}.jsonl", f"{stem}.jsonl.gz"):
        path = Path(release_dir) / name
        if path.exists():
            return sha256_file(path)
    raise InputError(Path(release_dir) / f"{stem}.jsonl", "file not found")


FUSERS = {"rrf": lambda lists, depth: fusion.rrf(lists, fusion.RRF_K, depth),
          "round-robin": lambda lists, depth: fusion.round_robin(lists, depth)}


def cmd_fuse(args) -> int:
    if args.depth < 1:
        raise InputError("--depth", f"must be >= 1, got {args.depth}")
    if len(set(args.inputs)) != len(args.inputs):
        raise InputError("--inputs", "a run is listed twice")
    release = load_release(args.release)
    folder = Path(args.release) / "runs"
    runs = [load_run(folder / f"{run_id}.jsonl.gz", release, "input", run_id=run_id)
            for run_id in args.inputs]
    fuser = FUSERS[args.method]
    rows = []
    for qid in sorted(release.queries):
        lists = [list(run.rankings[qid].docs) if qid in run.rankings else [] for run in runs]
        fused = fuser(lists, args.depth)
        rows.append(hits_row(qid, [Hit(d, s) for d, s in fused]))
    out = folder / f"{args.id}.jsonl.gz"
    write_jsonl_atomic(out, rows)
    forms = sorted({_form_of(folder, r) for r in args.inputs} - {None})
    entry = {"id": args.id, "file": out.name, "sha256": sha256_file(out), "family": "fusion",
             "block": args.block, "operation": ("equal-weight RRF" if args.method == "rrf"
                                                else "round-robin interleaving"),
             "base": args.base if args.base else args.inputs[0],
             "form": forms[0] if len(forms) == 1 else "mixed",
             "configuration": {"method": args.method, "inputs": list(args.inputs),
                               "depth": args.depth,
                               **({"k": fusion.RRF_K} if args.method == "rrf" else {}),
                               "ties": "stable input order" if args.method == "rrf"
                               else "none (strictly decreasing)",
                               "score_rounding": f"{SIGNIFICANT} significant digits"},
             "privileged": False,
             "inputs": {run_id: sha256_file(folder / f"{run_id}.jsonl.gz") for run_id in args.inputs},
             "producer": f"nclue fuse (nclue {__version__})"}
    if not args.no_index:
        record_run(out, entry)
    print(f"nclue fuse: {args.id}: {len(rows)} queries", file=sys.stderr)
    if args.json:
        print(dumps_canonical(entry, indent=2))
    return 0


def _form_of(folder: Path, run_id: str) -> Optional[str]:
    path = folder / "index.json"
    if not path.exists():
        return None
    for item in read_json(path).get("runs", []):
        if isinstance(item, dict) and item.get("id") == run_id:
            return item.get("form")
    return None


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "retrieve", help="run a plain-Python lexical system or control over a release",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--release", required=True, help="release folder (e.g. data/v1)")
    parser.add_argument("--pages", help="page text JSONL(.gz) (e.g. build/v1/pages.jsonl.gz)")
    parser.add_argument("--method", choices=sorted(SYSTEMS), help="the system to run")
    parser.add_argument("--form", choices=FORMS, default="clean", help="query form (default clean)")
    parser.add_argument("--drop", type=int, choices=(1, 2, 3),
                        help="mask condition c_N (condition-masking control)")
    parser.add_argument("--base", help="base run id recorded in runs/index.json")
    parser.add_argument("--out", help="output run file <release>/runs/<run_id>.jsonl.gz")
    parser.add_argument("--plan", help="JSON {'runs': [{'id','method','form','drop'?,'base'?,"
                                       "'block'?}]}: several runs over one index build")
    parser.add_argument("--k1", type=float, default=DEFAULT_K1, help="BM25 k1 (default 0.9)")
    parser.add_argument("--b", type=float, default=DEFAULT_B, help="BM25 b (default 0.4)")
    parser.add_argument("--depth", type=int, default=DEPTH, help="ranking depth (default 100)")
    parser.add_argument("--no-index", action="store_true", help="do not touch runs/index.json")
    parser.add_argument("--json", action="store_true",
                        help="print the runs' index entries as JSON on stdout")
    parser.set_defaults(func=cmd_retrieve)

    fuse = subparsers.add_parser(
        "fuse", help="fuse existing runs by id (equal-weight RRF k=60, or round robin)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fuse.add_argument("--release", required=True, help="release folder (e.g. data/v1)")
    fuse.add_argument("--inputs", nargs="+", required=True, help="run ids in <release>/runs/")
    fuse.add_argument("--method", choices=sorted(FUSERS), default="rrf")
    fuse.add_argument("--id", required=True, help="id of the fused run")
    fuse.add_argument("--base", help="base run id (default: the first input)")
    fuse.add_argument("--block", default="complementarity", help="matrix block recorded")
    fuse.add_argument("--depth", type=int, default=DEPTH, help="fused depth (default 100)")
    fuse.add_argument("--no-index", action="store_true", help="do not touch runs/index.json")
    fuse.add_argument("--json", action="store_true",
                      help="print the run's index entry as JSON on stdout")
    fuse.set_defaults(func=cmd_fuse)
