"""``python -m nclue``: same as the ``nclue`` console script."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while importing: no traceback either
    print("nclue: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
