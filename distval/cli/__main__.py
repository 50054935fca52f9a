"""``python -m distval.cli``: the ``distval`` command."""

from distval.cli import program

program()
