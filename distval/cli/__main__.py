"""``python -m distval.cli``: the ``distval`` command."""

import sys

from distval.cli import main

sys.exit(main())
