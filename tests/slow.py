"""The slow end-to-end tests, marked (not a test module).

``NCLUE_TESTS=fast python -m unittest discover -s tests`` skips every test marked :func:`slow`:
README blocks, the browser, whole-release verifications and reproduce.py runs in child
processes, the bad-input list run as child processes, the offline install into a fresh venv,
bags of a small repository, interrupt trials, most of the generated tie-rule cases. The rest, the
fast part, is every unit and command test on hand-made data and data/example (README, "Tests").
The full suite (no variable) runs both, as .ci/run does.
"""

import os
import unittest

FAST = os.environ.get("NCLUE_TESTS", "").strip().lower() == "fast"


def slow(item):
    """Mark a test class or method as slow: skipped under ``NCLUE_TESTS=fast``."""
    return unittest.skipIf(FAST, "slow end-to-end test (skipped under NCLUE_TESTS=fast)")(item)
