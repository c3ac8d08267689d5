"""Regenerate the documentation that is generated from declarations in the code:

* the measure definitions table in README.md (between ``<!-- generated: measures -->`` and
  ``<!-- /generated -->``), from :mod:`nclue.measures`;
* ``docs/REPORT_SPEC.md``, every ``report.json`` key, from the spec dataclasses of
  :mod:`nclue.tables` and :mod:`nclue.report`;
* the measure × tie rule table in docs/ARCHITECTURE.md (``<!-- generated: tie-contract -->``),
  from :mod:`nclue.tie_contract`.

Run: python tools/make_docs.py        (tests/test_docs_generated.py checks both are current)
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nclue.formats import write_text_atomic  # noqa: E402
from nclue.measures import definitions_markdown  # noqa: E402
from nclue.report.spec import spec_reference  # noqa: E402
from nclue.tie_contract import contract_markdown  # noqa: E402

OPEN, CLOSE = "<!-- generated: measures -->\n", "<!-- /generated -->\n"
CONTRACT_OPEN = "<!-- generated: tie-contract -->\n"


def readme_with_definitions(text: str) -> str:
    """README text with its generated measures block replaced by the registry's table."""
    start, end = text.index(OPEN) + len(OPEN), text.index(CLOSE)
    return text[:start] + definitions_markdown() + text[end:]


def architecture_with_contract(text: str) -> str:
    """docs/ARCHITECTURE.md with its generated tie-contract block replaced by the registry's
    measure × tie rule table (:func:`nclue.tie_contract.contract_markdown`)."""
    start = text.index(CONTRACT_OPEN) + len(CONTRACT_OPEN)
    end = text.index(CLOSE, start)
    return text[:start] + contract_markdown() + text[end:]


def main() -> int:
    readme = ROOT / "README.md"
    write_text_atomic(readme, readme_with_definitions(readme.read_text(encoding="utf-8")))
    write_text_atomic(ROOT / "docs" / "REPORT_SPEC.md", spec_reference())
    architecture = ROOT / "docs" / "ARCHITECTURE.md"
    write_text_atomic(architecture,
                      architecture_with_contract(architecture.read_text(encoding="utf-8")))
    print("wrote README.md (measure definitions), docs/REPORT_SPEC.md and docs/ARCHITECTURE.md "
          "(tie contract)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
