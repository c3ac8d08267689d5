"""``nclue score RUN --release DIR``: score any run (JSONL or TREC) against a release."""

import json
import sys
from pathlib import Path

from .. import api
from ..claims import format_fixed
from ..measures import DEFAULT_K, REGISTRY, count_key, trec_eval_name
from ..metrics import evaluate, is_page_scored, outcome_measures, query_facts
from ..exports import qids_by_topic_number
from ..layout import ReleaseLayout
from ..release import load_queries, load_release, release_notes
from ..runs import TIE_RULES, checked_against, load_run
from ..tie_contract import decided_queries, file_order_warning, rule_note


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "score", help="score a run (our JSONL or a TREC run file) against a release",
        description="Score a ranking file against a release's qrels. Queries of the release that "
                    "the run lacks count as empty rankings. Values are percentage points.")
    parser.add_argument("run", help="run file: JSONL(.gz) {qid, docs, scores} or TREC 'qid Q0 docid rank score tag'")
    parser.add_argument("--release", required=True, help="release folder, e.g. data/v1")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="rank cutoff (default 10)")
    parser.add_argument("--ties", choices=TIE_RULES, default=None,
                        help="tie rule for equal scores: input order (default, as the paper), "
                             "trec_eval (docid descending; the default with --per-query "
                             "trec_eval) or expected (exact expectation over random orders "
                             "within tied scores)")
    parser.add_argument("--format", choices=("auto", "jsonl", "trec"), default="auto",
                        help="run format (default: detected from the first character)")
    parser.add_argument("--topic-numbers", action="store_true", dest="topic_numbers",
                        help="the TREC run's qids are the topic numbers of 'nclue export topics "
                             "--format trec' (Anserini reads TREC topic numbers as integers): "
                             "map them back to the release's qids")
    parser.add_argument("--json", action="store_true", help="print one JSON object (unrounded)")
    parser.add_argument("--measures", nargs="+", metavar="MEASURE",
                        help="only these measures: registry names (nclue_score@10, auc, ...; a bare "
                             "key takes --k) or exact aliases (nDCG@10, ndcg_cut.10, "
                             "gold:Success@10); names without an exact equivalent are refused")
    parser.add_argument("--per-query", choices=("tsv", "jsonl", "trec_eval"), dest="per_query",
                        help="print one value per query and measure instead of the summary: tsv "
                             "lines 'measure<TAB>qid<TAB>value' ending with 'all' rows, as "
                             "trec_eval -q, or JSON lines {qid, measure, value} (values in [0, 1]); "
                             "trec_eval: exactly trec_eval -q -c's lines (its names, 4 decimals, "
                             "per query then 'all'), for --measures given by trec_eval names "
                             "(ndcg_cut.10, gold:ndcg_cut.10, gold:success.10)")
    parser.set_defaults(func=run_score)


def print_per_query(result, fmt: str) -> None:
    """Per-query values (trec_eval -q / ir_measures -q style), then the means as 'all' rows."""
    for measure, vector in result.per_query.items():
        for qid in sorted(vector):
            if fmt == "tsv":
                print(f"{measure}\t{qid}\t{vector[qid]!r}")
            else:
                print(json.dumps({"measure": measure, "qid": qid, "value": vector[qid]},
                                 sort_keys=True))
        if fmt == "tsv":
            print(f"{measure}\tall\t{result.aggregates[measure] / 100.0!r}")


def trec_eval_names(asked, k: int):
    """``[(printed name, registry measure name)]`` in trec_eval's print order for ``--measures``
    asked by trec_eval names (:func:`nclue.measures.trec_eval_name`), or an error line."""
    if not asked:
        return ("--per-query trec_eval needs --measures given by trec_eval names "
                "(e.g. ndcg_cut.10 gold:ndcg_cut.10 gold:success.10)")
    chosen = {}
    for text in asked:
        name = REGISTRY.parse(text, default_k=k, where="--measures").name  # refusals first
        printed = trec_eval_name(text, default_k=k)
        if printed is None:
            return (f"--per-query trec_eval: {text!r} is not a trec_eval name (ndcg_cut.k, "
                    "gold:ndcg_cut.k, gold:success.k)")
        if chosen.get(printed, name) != name:
            return (f"--per-query trec_eval: {printed[2]} would name two measures (graded and "
                    "gold-only qrels are two trec_eval runs); ask for one of them")
        chosen[printed] = name
    return [(printed[2], chosen[printed]) for printed in sorted(chosen)]


def trec_eval_lines(per_query, names, qids):
    """``trec_eval -q -c`` output lines (``%-22s\t%s\t%6.4f``): per query (string order) every
    measure in ``names`` order, then each measure's mean over ``qids`` as ``all`` (summed in qid
    order, as trec_eval accumulates). A query missing from a vector is not printed."""
    ordered = sorted(qids)
    lines = []
    for qid in ordered:
        for printed, name in names:
            if qid in per_query[name]:
                lines.append(f"{printed:<22}\t{qid}\t{per_query[name][qid]:6.4f}")
    for printed, name in names:
        values = [per_query[name][qid] for qid in ordered if qid in per_query[name]]
        mean = sum(values) / len(values) if values else 0.0
        lines.append(f"{printed:<22}\tall\t{mean:6.4f}")
    return lines


def topic_number_map(release_path) -> dict:
    """``{topic number: qid}`` of a release, from its queries file alone."""
    return qids_by_topic_number(load_queries(ReleaseLayout(Path(release_path)).existing_jsonl("queries")))


def needs_evidence(run, measures, k: int) -> bool:
    """Whether scoring ``run`` on ``measures`` (None: the default outcome measures) reads the
    release's support pages: the page measures of a page-scored run, and perspective coverage."""
    if is_page_scored(run):
        return True
    for name in measures or ():
        if REGISTRY.definition(REGISTRY.parse(name, default_k=k, where="--measures")).needs != "ranking":
            return True
    return False


def run_score(args) -> int:
    if args.k < 1:
        print("nclue: --k must be at least 1", file=sys.stderr)
        return 2
    if args.ties is None:
        args.ties = "trec_eval" if args.per_query == "trec_eval" else "input"
    trec_names = None
    if args.per_query == "trec_eval":
        trec_names = trec_eval_names(args.measures, args.k)
        if isinstance(trec_names, str):
            print(f"nclue: {trec_names}", file=sys.stderr)
            return 2
    qid_map = topic_number_map(args.release) if args.topic_numbers else None
    run = load_run(args.run, None, ties=args.ties, fmt=args.format, qid_map=qid_map)
    # evidence.jsonl is read only when a measure asked for needs support pages
    release = load_release(args.release, evidence=needs_evidence(run, args.measures, args.k))
    run = checked_against(run, release, args.run, qid_map)
    facts = query_facts(release)
    decided = decided_queries(facts, run, args.k)  # nclue.tie_contract
    if decided and args.ties == "input":
        print(file_order_warning(args.run, decided, f"the n-Clue or Gold Hit outcome at k={args.k}"),
              file=sys.stderr)
    tie_line = (f"  queries whose n-Clue or Gold Hit outcome a score tie decides: {len(decided)}"
                f"\n  {rule_note(args.ties)}")
    if args.measures or args.per_query:
        result = api.score(release, run, args.measures, k=args.k, facts=facts)
        for note in release_notes(release):  # stderr: stdout may be a per-query table
            print(f"nclue: note: {note}", file=sys.stderr)
        if trec_names is not None:
            print("\n".join(trec_eval_lines(result.per_query, trec_names, release.queries)))
            return 0
        if args.per_query:
            print(f"nclue: note: {rule_note(args.ties)}", file=sys.stderr)
            print_per_query(result, args.per_query)
            return 0
        if args.json:
            print(json.dumps(dict(result.aggregates, ties=args.ties, k=args.k, run=run.run_id,
                                  queries=result.queries, tie_decided_queries=len(decided)),
                             sort_keys=True))
            return 0
        for name, value in result.aggregates.items():
            print(f"  {name:<24} {format_fixed(value, 2):>7}")
        print(tie_line)
        return 0
    scores = evaluate(release, run, args.k, facts)
    scores["ties"] = args.ties
    scores["k"] = args.k
    scores["run"] = run.run_id
    scores["queries_in_run"] = sum(1 for q in run.rankings if q in release.queries)
    notes = release_notes(release)  # e.g. no evidence.jsonl: never score silently without it
    if notes:
        scores["notes"] = notes
    scores["tie_decided_queries"] = len(decided)
    if args.json:
        print(json.dumps(scores, sort_keys=True))
        return 0
    print(f"run {run.run_id} on {release.name}: {scores['queries']} queries "
          f"({scores['queries_in_run']} ranked), k={args.k}, ties={args.ties}")
    for note in notes:
        print(f"  note: {note}")
    for measure in outcome_measures(args.k):
        if measure.name in scores:
            count = count_key(measure)
            extra = f"  (over {scores[count]} queries)" if count in scores else ""
            print(f"  {measure.name:<24} {format_fixed(scores[measure.name], 2):>7}{extra}")
    print(tie_line)
    return 0
