"""The grid's live page (``distval reproduce type-errors --live``): the
:class:`~distval.live.grid.GridState` of a grid, whose tables are those :func:`collect` makes
of the cells finished so far (bifet2015 Tables 2-4, beside the paper's values).

>>> import json, tempfile
>>> from distval.experiments.type_errors import make_grid
>>> state = grid_state(tempfile.mkdtemp(), make_grid("quick", streams=["SEA(50)"], runs=2,
...                                                   schemes=("cv",)))
>>> status = json.loads(state.to_json())["status"]
>>> status["done"], status["total"], status["runs"]
(0, 2, 2)
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

from distval.experiments.type_errors.cell import cell_key
from distval.experiments.type_errors.profiles import GridConfig
from distval.experiments.type_errors.tables import collect
from distval.live.grid import GridState

__all__ = ["ended_grid_state", "grid_state", "table_rows"]

#: The tables the page shows (bifet2015 Tables 2-4).
TABLES = ("table2", "table3", "table4")


def table_rows(config: GridConfig, cells: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Tables 2-4 of ``cells`` (:func:`collect`), each as its list of rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty slices of a grid that has just begun
        tables = collect(config, cells, None).tables
    return {name: tables[name].to_dict("records") for name in TABLES if name in tables}


def grid_state(directory: str | os.PathLike[str], config: GridConfig,
               backend: str = "inprocess") -> GridState:
    """The live page's state of ``config``'s grid, run into ``directory``."""
    keys = {cell_key(label, run, scheme) for run in range(config.runs)
            for label, _ in config.streams for scheme in config.schemes}
    about = {"learner": config.learner, "streams": [label for label, _ in config.streams],
             "runs": config.runs, "schemes": list(config.schemes)}
    return GridState(directory, keys, lambda cells: table_rows(config, cells), about=about,
                     backend=backend)


def ended_grid_state(directory: str | os.PathLike[str]) -> GridState:
    """The page of a grid's directory as it is (``grid.json``, ``cells.jsonl``), ended:
    finished if every cell is done, else interrupted (``distval report DIR --live``)."""
    d = Path(directory)
    state = grid_state(d, GridConfig.from_dict(json.loads((d / "grid.json").read_text())))
    state.end()
    return state
