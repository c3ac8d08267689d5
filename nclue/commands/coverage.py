"""``nclue coverage``: perspective coverage of runs (Multi3IR paper, eq. 5, eq. 6, Tables 6-7).

Perspectives come from an n-Clue release (each condition is a perspective; see
:func:`nclue.coverage.derive_perspectives`) or from a Multi3IR/PIR-style JSONL file
(``--perspectives``). Formats: :mod:`nclue.coverage` and ``docs/coverage.md``.
"""

import argparse
import sys
from typing import Any, Dict, List

from .. import coverage
from ..errors import InputError
from ..formats import dumps_canonical
from ..measures import REGISTRY
from ..runs import TIE_RULES

DESCRIPTION = """\
Perspective coverage of one or more runs (Multi3IR paper, sec. 5.1 and 6.3-6.4): hard coverage
HC@k (eq. 5), soft coverage SC@k (eq. 6) from a judgments file, knowledge-source coverage
(Table 6) and HC@k by dispersion quartile (Table 7). With --release each condition of a query is
a perspective supported by the judged documents whose evidence covers it (golds support every
condition); --perspectives reads external Multi3IR/PIR-style data instead. Values are means over
queries in percentage points."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "coverage", help="perspective coverage HC@k / SC@k of runs (Multi3IR)",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="run file(s): JSONL(.gz) or TREC, as `nclue` reads them")
    parser.add_argument("--release", metavar="DIR",
                        help="n-Clue release folder: derive perspectives from its conditions and "
                             "evidence, validate the runs against it")
    parser.add_argument("--perspectives", metavar="FILE",
                        help="perspective JSONL (qid, query, perspectives[{id, text, docs}]); "
                             "overrides the release's derived perspectives")
    parser.add_argument("--k", nargs="+", type=int, default=list(coverage.DEFAULT_KS),
                        metavar="K", help="cut-offs (default: 5 10 20 100)")
    parser.add_argument("--judgments", metavar="FILE",
                        help="judgments JSONL (qid, perspective, docid, verdict) for SC@k; only "
                             "'fully' counts")
    parser.add_argument("--source-field", action="append", default=[], metavar="NAME",
                        help="knowledge-source coverage over this document attribute (e.g. "
                             "modality, domain; repeatable); read from --sources, else from the "
                             "release corpus (its 'source' field or an extra field)")
    parser.add_argument("--sources", metavar="FILE",
                        help="document attribute JSONL ({docid, NAME: value, ...})")
    parser.add_argument("--vectors", metavar="FILE",
                        help="document vector JSONL ({docid, vector}) for the dispersion "
                             "quartiles of HC@k")
    parser.add_argument("--ties", default="input", choices=TIE_RULES,
                        help="score tie rule when reading runs: input (default: the file order; "
                             "a warning names the queries whose HC@k it decides), trec_eval "
                             "(docid descending) or expected (HC@k's exact expectation over tie "
                             "orders; SC@k and source coverage have none, so it refuses them)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from ..runs import load_run  # local imports: keep `nclue --help` light
    from ..tie_contract import file_order_warning, hc_decided_queries, hc_vector, plan

    if args.release is None and args.perspectives is None:
        raise InputError("nclue coverage", "give --release DIR or --perspectives FILE")
    if any(k < 1 for k in args.k):
        raise InputError("nclue coverage", "--k values must be positive integers")
    if args.sources is not None and not args.source_field:
        raise InputError(args.sources, "--sources needs at least one --source-field NAME")
    if args.judgments is not None:  # the tie contract refuses SC@k under --ties expected
        plan(REGISTRY.definition("sc"), args.ties, "--ties")
    if args.source_field:
        plan(REGISTRY.definition("source_coverage"), args.ties, "--ties")
    ks = coverage.check_ks(args.k)
    release = None
    if args.release is not None:
        from ..release import load_release
        release = load_release(args.release)
    if args.perspectives is not None:
        queries = coverage.load_perspectives(args.perspectives)
        where = args.perspectives
    else:
        queries = coverage.perspectives_from_release(release)
        where = args.release
    judgments = (coverage.load_judgments(args.judgments, queries)
                 if args.judgments is not None else None)
    sources: Dict[str, Dict[str, str]] = {}
    for name in args.source_field:
        if args.sources is not None:
            source_of = coverage.load_sources(args.sources, name)
            origin = args.sources
        elif release is not None:
            source_of = coverage.sources_from_release(release, name)
            origin = args.release
        else:
            raise InputError("nclue coverage", "--source-field needs --sources FILE or --release")
        coverage.check_sources(queries, source_of, name, origin)
        sources[name] = source_of
    dispersions = None
    if args.vectors is not None:
        vectors = coverage.load_vectors(args.vectors)
        dispersions = coverage.query_dispersions(queries, vectors, where=args.vectors)
    reports = []
    for path in args.runs:
        print(f"nclue coverage: {path}", file=sys.stderr)
        run = load_run(path, release, ties=args.ties)
        hard = None
        if args.ties == "expected":
            hard = {REGISTRY.measure("hc", k).name: hc_vector(queries, run, k) for k in ks}
        report = coverage.evaluate_coverage(queries, coverage.rankings_of(run), ks, judgments,
                                            sources or None, dispersions, hard)
        report["run"] = run.run_id
        decided = hc_decided_queries(queries, run, ks)
        report["tie_decided_queries"] = len(decided)
        if decided and args.ties == "input":
            what = f"HC@{ks[0]}" if len(ks) == 1 else f"HC@k (k = {', '.join(map(str, ks))})"
            print(file_order_warning(path, decided, what, "--ties trec_eval (or `nclue score "
                                     "--measures hc@k --ties expected`)"), file=sys.stderr)
        reports.append(report)
    output = {"perspectives": where, "ks": list(ks), "runs": reports, "ties": args.ties}
    if args.json:
        print(dumps_canonical(output, indent=2))
    else:
        print(render_text(output))
    return 0


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_text(output: Dict[str, Any]) -> str:
    """A plain-text table per run: one row per measure, one column per cut-off."""
    from ..tie_contract import rule_note
    ks = output["ks"]
    lines: List[str] = []
    for report in output["runs"]:
        lines.append(f"run {report['run']}: {report['queries']} queries, "
                     f"{report['missing_queries']} not ranked, "
                     f"{report['unsupported_perspectives']} perspectives without support")
        lines.append(f"  {rule_note(output['ties'])} Queries whose HC@k a tie decides: "
                     f"{report['tie_decided_queries']}")
        header = f"  {'measure':<22}" + "".join(f"{'@' + str(k):>9}" for k in ks)
        lines.append(header)
        by_family: Dict[str, Dict[int, float]] = {}
        for name, value in report["measures"].items():
            family, _, k = name.rpartition("@")
            by_family.setdefault(family, {})[int(k)] = value
        for name in sorted(by_family, key=lambda n: (n != "hc", n != "sc", n)):
            cells = "".join(f"{_cell(by_family[name].get(k)):>9}" for k in ks)
            lines.append(f"  {name.upper() if name in ('hc', 'sc') else name:<22}{cells}")
        unjudged = {k: REGISTRY.measure("unjudged", k).name for k in ks}
        if any(unjudged[k] in report for k in ks):
            cells = "".join(f"{report.get(unjudged[k], 0):>9}" for k in ks)
            lines.append(f"  {'unjudged pairs':<22}{cells}")
        if "quartiles" in report:
            lines.append(f"  HC by dispersion quartile ({report['undefined_dispersion']} queries "
                         "with < 2 positives left out)")
            rows = {k: report["quartiles"][REGISTRY.measure("hc", k).name] for k in ks}
            for index, label in enumerate(coverage.QUARTILE_LABELS):
                count = rows[ks[0]][index]["queries"]
                cells = "".join(f"{_cell(rows[k][index]['value']):>9}" for k in ks)
                lines.append(f"  {label + ' (' + str(count) + ')':<22}{cells}")
        lines.append("")
    return "\n".join(lines).rstrip("\n")
