"""A run's result as Jupyter shows it: the ``_repr_html_`` of
:class:`~distval.results.memory.EvaluationResult`.

One self-contained HTML fragment: the run's title, the verdicts as a table (one row per
learner pair: the pair and its verdict line, the same line the terminal, ``summary.md`` and
the report print), the baseline line, the measures tables the terminal prints (what the
verdicts compare, on the same rows, first, then each learner's own windows; the same columns
and numbers, as HTML tables) and one figure, :meth:`EvaluationResult.plot`, as
a PNG data URI.

>>> import distval
>>> res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=2,
...                        test_every=200)
>>> page = result_html(res, figure=False)
>>> page.count('<td class="verdict">'), "<img" in page
(1, False)
"""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING, Any, Protocol

from distval.config import RunConfig

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from distval.results.answer import Answer

__all__ = ["Shown", "html_table", "result_html"]


class Shown(Protocol):
    """What :func:`result_html` reads of a result (an ``EvaluationResult``)."""

    config: RunConfig
    final: Any

    def summary(self) -> dict[str, Any]: ...
    def answer(self) -> Answer: ...
    def to_text(self, verbose: bool = False, width: int = 100) -> str: ...
    def plot(self, measure: str | None = None) -> Figure: ...

_STYLE = (
    "<style>.distval-result table{border-collapse:collapse;margin:.4em 0}"
    ".distval-result td,.distval-result th{padding:.15em .6em;border-bottom:1px solid #ddd;"
    "text-align:right}.distval-result td:first-child,.distval-result th:first-child"
    "{text-align:left}.distval-result td.verdict{text-align:left}</style>"
)


def html_table(columns: list[str], rows: list[list[str]]) -> str:
    """Columns and rows as an HTML table (the cells escaped).

    >>> html_table(["a", "b"], [["x", "<1"]])
    '<table><tr><th>a</th><th>b</th></tr><tr><td>x</td><td>&lt;1</td></tr></table>'
    """
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _figure_uri(result: Shown) -> str:
    fig = result.plot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def result_html(result: Shown, figure: bool = True) -> str:
    """``result`` as one HTML fragment (see the module); ``figure=False`` leaves the figure
    out."""
    from distval.results.answer import answer_tables

    s: dict[str, Any] = result.summary()
    cfg = result.config
    title = result.to_text().splitlines()[0]
    parts = [_STYLE, '<div class="distval-result">', f"<h4>{html.escape(title)}</h4>"]
    if s["verdicts"]:
        rows = "".join(
            f"<tr><td>{html.escape(str(v['learner_a']))} vs {html.escape(str(v['learner_b']))}"
            f'</td><td class="verdict">{html.escape(str(v["line"]))}</td></tr>'
            for v in s["verdicts"]
        )
        parts.append(f"<table><tr><th>pair</th><th>verdict</th></tr>{rows}</table>")
    if s.get("baseline"):
        parts.append(f'<p class="baseline">{html.escape(s["baseline"]["line"])}</p>')
    answer = result.answer()
    for caption, cols, cells, _ in answer_tables(answer, short=True):
        parts += [f"<p>{html.escape(caption)}</p>", html_table(cols, cells)]
    if figure and result.final is not None:
        parts.append(f'<img alt="{html.escape(cfg.measure)} over the stream" '
                     f'src="{_figure_uri(result)}">')
    parts.append("</div>")
    return "".join(parts)
