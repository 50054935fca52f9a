"""``python -m distval.cli``: the ``distval`` command."""

import sys

from distval.cli import command

sys.exit(command())
