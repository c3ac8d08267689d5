"""``python -m nclue``: same as the ``nclue`` console script."""

import sys

from .cli import main

sys.exit(main())
