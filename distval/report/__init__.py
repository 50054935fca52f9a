"""Stage ⑥: a results directory as figures, one self-contained HTML page and Markdown.

:func:`make_report` is the entry point (``distval report``); :mod:`~distval.report.figures`
and :mod:`~distval.report.tables` hold the parts.
"""

from distval.report.page import make_report

__all__ = ["make_report"]
