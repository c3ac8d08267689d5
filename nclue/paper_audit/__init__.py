"""Paper audit: check a paper's printed numbers against each other, against whole counts, and data.

Input is a hand-made transcription (``claims/papers/<paper>.json``, layout in
``claims/papers/README.md``): every numeric table cell and prose claim kept as its *printed string*,
plus relations between them declared as data. Nothing here knows about a particular paper; the two
audited papers are n-Clue / CrossPage (arXiv 2607.24165) and Multi3IR / SPIN.

The package has one module per concept:

- :mod:`.printed`: printed numbers and their rounding intervals;
- :mod:`.transcription`: loading and validating a transcription;
- :mod:`.evaluator`: interval expressions and the tolerance rule (EXACT / WITHIN_ROUNDING / FAIL,
  NOT_INFORMATIVE for whole-count checks that cannot fail, REVIEW for a failure that rests on a
  reading the paper does not fix);
- :mod:`.relations`: the relation kinds, one module per family, and their registry;
- :mod:`.verdicts`: verdict counts, the summary line and the frozen-verdict files;
- :mod:`.report`: the JSON and Markdown reports;
- :mod:`.reproduction`: recomputing mapped table values from a release.

:func:`verify_transcription` (one transcription: its checks and summary line, audited once) and
:func:`orphan_verdicts` are what ``reproduce.py`` calls.
"""

from .evaluator import (EXACT, FAIL, NOT_INFORMATIVE, REVIEW, VERDICT_ORDER, WITHIN, Evaluated,
                        Evaluator)
from .printed import Printed, fmt, normalize_text, parse_printed
from .relations import KINDS, Result, audit, feasible_counts
from .report import report_json, report_markdown
from .reproduction import (SLICES, reproduce_from_release, reproduction_counts,
                           resolve_release_folder, slice_qids)
from .transcription import SCHEMA, Transcription, load_transcription, transcription_from_document
from .verdicts import (VERDICTS_SCHEMA, check_verdicts, counts_by_kind, orphan_verdicts,
                       review_readings, summary_line, summary_lines, transcriptions, verdict_counts,
                       verdicts_document, verdicts_path, verify_frozen_verdicts, verify_transcription)

__all__ = [
    "EXACT", "FAIL", "NOT_INFORMATIVE", "REVIEW", "VERDICT_ORDER", "WITHIN", "Evaluated", "Evaluator",
    "Printed", "fmt", "normalize_text", "parse_printed",
    "KINDS", "Result", "audit", "feasible_counts",
    "report_json", "report_markdown",
    "SLICES", "reproduce_from_release", "reproduction_counts", "resolve_release_folder", "slice_qids",
    "SCHEMA", "Transcription", "load_transcription", "transcription_from_document",
    "VERDICTS_SCHEMA", "check_verdicts", "counts_by_kind", "review_readings", "summary_line",
    "summary_lines", "verdict_counts", "verdicts_document", "verdicts_path", "verify_frozen_verdicts",
    "verify_transcription", "orphan_verdicts", "transcriptions",
]
