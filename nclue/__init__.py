"""nclue: measure whether retrievers cover all the evidence a conjunctive request asks for.

Standard library only (Python >= 3.9). See README.md for the two commands that verify a release.

The Python API (:mod:`nclue.api`)::

    import nclue
    release = nclue.load_release("data/example")
    run = nclue.load_run("data/example/runs/example_lexical.jsonl.gz", release)
    nclue.score(release, run)["nclue_score@10"]      # 50.0
"""

__version__ = "0.1.0"

from .api import (Comparison, ScoreResult, compare, load_release, load_run,  # noqa: E402
                  run_from_mapping, score)

__all__ = ["Comparison", "ScoreResult", "__version__", "compare", "load_release", "load_run",
           "run_from_mapping", "score"]
