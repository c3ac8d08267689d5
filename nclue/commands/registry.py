"""The explicit list of CLI command modules (add one import and one entry per command)."""

from . import convert, coverage, retrieve, score, verify
from . import build, verify_construction
from . import compare
from . import audit_paper
from . import archive
from . import audit
from . import export
from . import croissant

COMMAND_MODULES = (score, verify, convert, coverage, build, verify_construction, retrieve, compare,
                   audit_paper, audit, archive, export, croissant)
