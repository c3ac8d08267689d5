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
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

from ..errors import InputError
from ..formats import dumps_canonical, read_json, sha256_file, write_jsonl_atomic
from ..layout import ReleaseLayout
from ..outputs import check_output
from ..release import FORMS, Release, load_release, release_input_files
from ..retrieval.bm25 import LexicalIndex
from ..retrieval.index import DEFAULT_B, DEFAULT_K1
from ..retrieval.production import (DEPTH, FUSERS, RunRequest, check_form, fused_entry,
                                    fused_rows, run_entry, run_rows)
from ..retrieval.systems import SYSTEMS, RetrievalContext, system
from ..run_index import RunIndex, record_entries
from ..runs import load_run


def run_id_for(out: Path) -> str:
    name = out.name
    if not name.endswith(".jsonl.gz"):
        raise InputError(out, "run files are named <run_id>.jsonl.gz")
    return name[: -len(".jsonl.gz")]


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


def _requests(args, layout: ReleaseLayout) -> List[Tuple[RunRequest, Path]]:
    """The runs asked for (``--plan`` or one ``--method``), every one checked before any runs."""
    pairs: List[Tuple[RunRequest, Path]] = []
    if args.plan:
        plan = read_json(args.plan)
        if not isinstance(plan, dict) or not isinstance(plan.get("runs"), list):
            raise InputError(args.plan, "expected an object with a 'runs' list")
        for number, item in enumerate(plan["runs"], start=1):
            where = f"{args.plan} run {number}"
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str)
                                                     for k in ("id", "method", "form")):
                raise InputError(args.plan, f"run {number}: needs string fields id, method, form")
            drop = item.get("drop")
            if drop is not None and (isinstance(drop, bool) or not isinstance(drop, int)):
                raise InputError(args.plan, f"run {number}: drop must be an integer")
            request = RunRequest(item["id"], system(item["method"], where),
                                 check_form(item["form"], where), drop, item.get("base"),
                                 item.get("block"))
            pairs.append((request, layout.run_file(f"{item['id']}.jsonl.gz")))
    else:
        if not (args.method and args.out):
            raise InputError("nclue retrieve", "give --method and --out, or --plan")
        check_output(args.out, [args.pages, *release_input_files(args.release)],
                     allow_stdout=False, what="run file")
        out = Path(args.out)
        pairs.append((RunRequest(run_id_for(out), system(args.method), check_form(args.form, "--form"),
                                 args.drop, args.base), out))
    seen = set()
    for request, out in pairs:
        where = "nclue retrieve"
        if run_id_for(out) in seen:
            raise InputError(where, f"run id {run_id_for(out)!r} appears twice")
        seen.add(run_id_for(out))
        if request.drop is not None and request.drop not in (1, 2, 3):
            raise InputError(where, f"drop must be 1, 2 or 3, got {request.drop!r}")
        if not args.no_index and out.resolve().parent != layout.runs_dir.resolve():
            raise InputError(out, f"a run recorded in the index must be written to "
                                  f"{layout.runs_dir}/ (or pass --no-index)")
    return pairs


def cmd_retrieve(args) -> int:
    release = load_release(args.release)
    layout = ReleaseLayout.of(args.release)
    if args.depth < 1:
        raise InputError("--depth", f"must be >= 1, got {args.depth}")
    if not (args.k1 >= 0 and 0 <= args.b <= 1):
        raise InputError("--k1/--b", f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={args.k1}, "
                                     f"b={args.b}")
    pairs = _requests(args, layout)
    needs_pages = any(request.system.uses_bm25 for request, _ in pairs)
    index = _load_index(args, release) if needs_pages or args.pages else None
    inputs = {"queries": sha256_file(layout.existing_jsonl("queries"))}
    if index is not None:
        inputs["pages"] = sha256_file(args.pages)
    for request, _ in pairs:
        for name in request.system.reads:
            if name != "pages":
                inputs[name] = sha256_file(layout.existing_jsonl(name))
    ctx = RetrievalContext(release, index, args.depth)
    entries = []
    for request, out in pairs:
        started = time.perf_counter()
        rows = run_rows(ctx, request)
        write_jsonl_atomic(out, rows)
        entry = run_entry(request, rows, out.name, sha256_file(out), args.depth, args.k1, args.b,
                          inputs)
        if not args.no_index:
            record_entries(layout, [entry])
        print(f"nclue retrieve: {request.run_id}: {len(rows)} queries in "
              f"{time.perf_counter() - started:.1f}s", file=sys.stderr)
        entries.append(entry)
    if args.json:
        print(dumps_canonical(entries, indent=2))
    return 0


def cmd_fuse(args) -> int:
    if args.depth < 1:
        raise InputError("--depth", f"must be >= 1, got {args.depth}")
    if len(set(args.inputs)) != len(args.inputs):
        raise InputError("--inputs", "a run is listed twice")
    release = load_release(args.release)
    layout = ReleaseLayout.of(args.release)
    index = RunIndex.load(layout)
    for run_id in args.inputs:
        if run_id not in index:
            raise InputError("--inputs", f"run {run_id!r} is not in {layout.run_index}")
    runs = [load_run(index.path(run_id), release, "input", run_id=run_id) for run_id in args.inputs]
    rows = fused_rows(release, runs, args.method, args.depth)
    out = layout.run_file(f"{args.id}.jsonl.gz")
    write_jsonl_atomic(out, rows)
    entry = fused_entry(args.id, out.name, sha256_file(out), args.method, args.inputs,
                        {r: index[r].sha256 for r in args.inputs},
                        [index[r].info.get("form") for r in args.inputs], args.block, args.base,
                        args.depth)
    if not args.no_index:
        record_entries(layout, [entry])
    print(f"nclue fuse: {args.id}: {len(rows)} queries", file=sys.stderr)
    if args.json:
        print(dumps_canonical(entry, indent=2))
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "retrieve", help="run a plain-Python lexical system or control over a release",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--release", required=True, help="release folder (e.g. data/v1)")
    parser.add_argument("--pages", help="page text JSONL(.gz) (e.g. build/v1/pages.jsonl.gz)")
    parser.add_argument("--method", choices=list(SYSTEMS), help="the system to run")
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
