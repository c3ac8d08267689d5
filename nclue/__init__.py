"""nclue: measure whether retrievers cover all the evidence a conjunctive request asks for.

Standard library only (Python >= 3.9). See README.md for the two commands that verify a release.
"""

__version__ = "0.1.0"
