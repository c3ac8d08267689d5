"""``nclue verify-construction``: re-derive every label of a constructed release independently."""

import sys

from ..errors import VerificationError
from ..formats import dumps_canonical


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify-construction",
        help="re-derive every gold's and subset's page sets and gates from local page text",
        description="A second code path (nclue.instrument.verify) re-derives the page set of every "
                    "condition from page text and outlines, re-enumerates each query's judged "
                    "documents, and re-checks clue counts, labels and both page gates by brute force. "
                    "Exit status 0 with zero disagreements, 1 otherwise.")
    parser.add_argument("--input", required=True, help="build folder, e.g. build/v1")
    parser.add_argument("--release", required=True, help="release folder, e.g. data/v1")
    parser.add_argument("--provenance", help="construction record (default "
                                             "provenance/construction_<release name>.json)")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument("--quote-audit", metavar="JSONL",
                        help="also run the quote-backed audit of a stratified sample and write its rows "
                             "here (e.g. audit/quote_audit_v1.jsonl) and its agreement summary next to "
                             "it (..._summary.json)")
    parser.add_argument("--check-audit", metavar="JSONL",
                        help="re-check a stored quote audit against the local page text (sha256, "
                             "offsets, and that each quote establishes its condition)")
    parser.add_argument("--audit-size", type=int, default=300, help="audit sample size (default 300)")
    parser.add_argument("--audit-seed", type=int, default=20261201,  # = quote_audit.QUOTE_AUDIT_SEED
                        help="audit sampling seed")
    parser.add_argument("--label-version", metavar="ID",
                        help="also re-derive a support-rule repair (e.g. P1) of the release by the "
                             "verifier's own implementation of the rule and compare it pair by pair")
    parser.add_argument("--rule", default="audit/label_audit/support_rule_P1.json",
                        help="the support rule's parameters (with --label-version)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from ..instrument.verify import verify_release

    provenance = args.provenance or str(Path("provenance") / f"construction_{Path(args.release).name}.json")
    if args.quote_audit:
        from ..outputs import check_output
        inputs = [args.input, args.release, provenance]
        check_output(args.quote_audit, inputs, allow_stdout=False, what="quote audit")
        check_output(str(args.quote_audit).rsplit(".jsonl", 1)[0] + "_summary.json", inputs,
                     allow_stdout=False, what="quote audit summary")
    report = verify_release(args.input, args.release, provenance)
    if args.json:
        print(dumps_canonical(report, indent=2))
    else:
        print(f"{report['queries']} queries, {report['qrels_checked']} qrels: {report['gold']} gold, "
              f"{report['subset']} subset; gate failures {report['gate_failures']}; single-page-solvable "
              f"golds {report['single_page_solvable_golds']}; distinct-page-valid golds "
              f"{report['distinct_page_valid_golds']}; disagreements {report['disagreements']}")
        for problem in report["problems"][:50]:
            print("  " + dumps_canonical(problem), file=sys.stderr)
    if args.quote_audit:
        from ..formats import write_json_atomic, write_jsonl_atomic
        from ..instrument.quote_audit import run_audit

        rows, summary = run_audit(args.input, args.release, provenance, args.audit_size, args.audit_seed)
        write_jsonl_atomic(args.quote_audit, rows)
        summary_path = str(args.quote_audit).rsplit(".jsonl", 1)[0] + "_summary.json"
        write_json_atomic(summary_path, summary)
        cond, grade = summary["conditions"], summary["exact_grade"]
        print(f"quote audit: {summary['pairs']} pairs, {summary['condition_decisions']} condition "
              f"decisions; conditions agree {cond['agree']}/{cond['n']} ({cond['percent']}%, kappa "
              f"{cond['cohen_kappa']}); exact grades agree {grade['agree']}/{grade['n']} "
              f"({grade['percent']}%); written to {args.quote_audit} and {summary_path}",
              file=sys.stderr if args.json else sys.stdout)
    if args.label_version:
        from ..instrument.verify_rule import verify_rule_version
        from ..label_audit.repair import apply_repair, read_repair, repair_paths
        from ..release import load_release
        base = load_release(args.release)
        rows_path, lineage_path = repair_paths(args.release, args.label_version)
        from ..formats import read_json
        lineage = read_json(lineage_path)
        repaired = apply_repair(base, read_repair(rows_path, base), rows_path)
        rule_report = verify_rule_version(args.input, args.release, provenance, args.rule, repaired)
        no_gold = sorted(q for q in repaired.queries if not repaired.golds(q))
        if no_gold != sorted(lineage.get("removed_queries") or []):
            rule_report["problems"].append({"problem": "removed_queries differ from the queries left without a gold"})
            rule_report["disagreements"] += 1
        for problem in rule_report["problems"][:50]:
            print("  " + dumps_canonical(problem), file=sys.stderr)
        print(f"label version {args.label_version}: {rule_report['pairs_checked']} pairs re-derived by the "
              f"verifier's rule; disagreements {rule_report['disagreements']}",
              file=sys.stderr if args.json else sys.stdout)
        if rule_report["disagreements"]:
            raise VerificationError(f"{rule_report['disagreements']} disagreements with label version "
                                    f"{args.label_version}")
    if args.check_audit:
        from ..instrument.quote_audit import check_audit

        audit_problems = check_audit(args.input, args.check_audit, provenance)
        for problem in audit_problems[:50]:
            print("  " + problem, file=sys.stderr)
        print(f"audit check: {len(audit_problems)} problems in {args.check_audit}",
              file=sys.stderr if args.json else sys.stdout)
        if audit_problems:
            raise VerificationError(f"{len(audit_problems)} problems in the stored quote audit")
    if report["disagreements"]:
        raise VerificationError(f"{report['disagreements']} disagreements with the construction")
    return 0
