"""``nclue audit-paper``: check a paper's printed numbers against each other, counts, and data.

See :mod:`nclue.paper_audit` (tolerance rule: :mod:`nclue.paper_audit.evaluator`; relation kinds:
:mod:`nclue.paper_audit.relations`) and ``claims/papers/README.md`` for the transcription layout.
"""

import argparse
import sys
from typing import Any

from ..formats import dumps_canonical, write_json_atomic, write_text_atomic

DESCRIPTION = """\
Audit a paper's reported numbers from a hand-made transcription (claims/papers/<paper>.json):
every relation declared there is evaluated rounding-aware and reported FAIL, REVIEW (it fails
only under a reading the paper does not fix, which it names), WITHIN_ROUNDING, EXACT or
NOT_INFORMATIVE, FAIL lines first, with the counts by relation kind. Kinds: sums,
differences, ratios and percentages (equal, compare); one quantity printed twice (same,
same_table: no rounding slack); breakdowns against their whole (aggregate); prose counts against
table structure (tally); quantified sentences against every cell (quantified); implied orderings
and bounds (order, bound, sign); design counts (design); claims of superiority or generality
against every row of their table (superiority); distinct items against per-category counts
(distinct); cross-references against the parts the paper has (xref); whole-count checks (grim,
count, count_marked, and joint_counts: several rates from one set of counts), NOT_INFORMATIVE
when they could not fail for their N and precision. Tolerance:
every printed input contributes half a unit in its last printed place (counts are exact); the
result's half-unit is added. With --release, every table value the transcription maps to a run is
recomputed from that release (reproduced / not reproduced / no input). A malformed transcription
ends with one line naming the file and the problem (exit status 2)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit-paper", help="rounding-aware consistency audit of a paper's printed numbers",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("transcription", metavar="TRANSCRIPTION",
                        help="transcription JSON, e.g. claims/papers/nclue.json")
    parser.add_argument("--json", action="store_true",
                        help="print the JSON report instead of Markdown")
    parser.add_argument("--out", metavar="DIR",
                        help="also write <paper>.audit.md and <paper>.audit.json into DIR "
                             "(created if missing)")
    parser.add_argument("--release", metavar="PATH",
                        help="release folder (nclue layout, or the original n-Clue release with "
                             "data/v1/): recompute the mapped table values from its runs")
    parser.add_argument("--write-verdicts", metavar="FILE",
                        help="write the frozen-verdict file (relation id -> verdict), e.g. "
                             "audit/papers/<paper>.verdicts.json")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from .. import paper_audit as pa
    from ..outputs import check_output, check_output_dir

    out = check_output_dir(args.out, [args.transcription]) if args.out else None
    if args.write_verdicts:
        check_output(args.write_verdicts, [args.transcription])
    tr = pa.load_transcription(args.transcription)
    print(f"auditing {tr.paper}: {len(tr.values)} values, {len(tr.relations)} declared relations",
          file=sys.stderr)
    results = pa.audit(tr)
    reproduction = None
    if args.release:
        reproduction = pa.reproduce_from_release(tr, args.release)
    report = pa.report_json(tr, results, reproduction)
    markdown = pa.report_markdown(tr, results, reproduction)
    if out is not None:
        write_text_atomic(out / f"{tr.paper}.audit.md", markdown, [args.transcription])
        write_json_atomic(out / f"{tr.paper}.audit.json", report, [args.transcription])
    if args.write_verdicts:
        write_json_atomic(args.write_verdicts, pa.verdicts_document(tr, results),
                          [args.transcription])
    if args.json:
        sys.stdout.write(dumps_canonical(report, indent=2) + "\n")
    else:
        sys.stdout.write(markdown)
    print(pa.summary_line(tr.paper, results), file=sys.stderr)
    return 0
