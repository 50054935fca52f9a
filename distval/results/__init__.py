"""Results of a run: kept in memory, appended to disk as they are produced, summarised.

An output directory holds:

- ``config.json``: the run's configuration (written first);
- ``folds.parquet``: per (position, learner, fold, forgetting) every measure — the time series;
- ``tests.parquet``: per (position, test, learner pair) what the test compared (``measure``
  under ``forgetting``, A's and B's ``value``), statistic, p-value, decision, the learner the
  data favour and what the test counted (``folds_used`` or ``discordant_pairs``);
- ``q.parquet``: per (position, learner pair, forgetting) the Q statistic and both errors;
- ``events.parquet`` (with drift detection): per detection its row, learner, fold, detector;
- ``summary.json`` and ``summary.md``: final measures (mean and standard deviation over folds)
  and final test decisions, written at the end (also after an interruption).

Parquet files are appended a row group at a time, at most a few seconds after the rows were
computed, so an interrupted run keeps what it had computed.

This package is the one owner of that format: :mod:`~distval.results.schema` (the files,
and the Arrow tables of the columns :mod:`distval.columns` declares),
:mod:`~distval.results.writer` (the output-directory policy and the appender),
:mod:`~distval.results.reader` (reading a directory back, of any version, as DataFrames),
:mod:`~distval.results.memory` (:class:`EvaluationResult`, a run in memory, its summary
and tables), :mod:`~distval.results.saved` (a directory loaded back as an
:class:`EvaluationResult`, two runs compared, CSV export) and
:mod:`~distval.results.tables` (Markdown and plain-text tables).
"""


from __future__ import annotations

from distval.results.memory import EvaluationResult
from distval.results.reader import SavedRun, load_results
from distval.results.schema import FILES, finite_or_none
from distval.results.tables import markdown_table, text_table
from distval.results.writer import ResultWriter, claim_output

# The Arrow schemas and SUMMARY_MEASURES are read from their one home,
# distval.results.schema (or distval.columns), not re-exported here.
__all__ = [
    "FILES",
    "EvaluationResult",
    "ResultWriter",
    "SavedRun",
    "claim_output",
    "finite_or_none",
    "load_results",
    "markdown_table",
    "text_table",
]
