"""The report page: figures and tables of a results directory as HTML and Markdown.

``distval report RESULTS_DIR`` (and ``distval run --report``) reads what a run wrote
(``config.json``, ``folds.parquet``, ``tests.parquet``; see :mod:`distval.results`) and writes

- ``accuracy.png`` and ``kappa_m.png``: every fold's value over time, the mean over folds and
  the fold-to-fold spread (min-max band), one panel per learner (bifet2015 Fig 2 shows the
  same measures for one run; the κm statistic is bifet2015 §5);
- ``tests.png`` (two learners or more): each across-fold test's statistic and p-value over
  time with the significance level and the decision (H0 rejected or not) at every check
  (bifet2015 §4 and Table 2 for the tests; Friedman for three learners or more);
- ``adwin_width.png`` (ADWIN forgetting): the width of each fold's ADWIN window (bifet2015
  §6, Fig 3);
- ``baselines.png`` (when a Majority or Persistent learner is evaluated): the learners'
  accuracy against those baselines and κm / κper relative to them (κper is zliobaite2015
  §4.4, Eq. 13; compare its Fig 2);
- ``cost.png`` (a run that measured its cost): each learner's CPU seconds and model size
  against the stream's rows, beside the cost table (:mod:`distval.report.cost`);
- ``report.html``: one page with the figures embedded as PNG data URIs and the tables
  (final measures, final tests, decisions over time, configuration); it loads nothing from
  the network;
- ``report.md``: the same tables in Markdown, with links to the PNG files.

Figures use the non-interactive Agg backend; every learner or test has its own line style
and marker as well as colour, so that they remain distinguishable in grey-scale print.

>>> import tempfile, distval
>>> d = tempfile.mkdtemp()
>>> _ = distval.evaluate(stream="sea", n_rows=2000, learners=("nb", "majority"), n_folds=3,
...                      test_every=500, output_dir=d, overwrite=True)
>>> make_report(d).name
'report.html'
"""


from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distval.errors import DistvalError
from distval.files import write_file
from distval.report import tables
from distval.report.cost import plot_cost
from distval.report.figures import (
    FORMATS,
    plot_adwin_width,
    plot_baselines,
    plot_measure,
    plot_q,
    png_bytes,
    save_figure,
)
from distval.report.pairs import plot_pair_verdict
from distval.report.significance import plot_critical_difference, plot_tests
from distval.results import SavedRun, load_results, markdown_table
from distval.results.answer import answer_tables, cost_table
from distval.results.compact import label_words

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["make_report"]


class _Sections:
    """The report's sections in page order: figures (with PNG bytes) and tables."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def figure(self, key: str, title: str, caption: str, fig: Figure | None) -> None:
        if fig is not None:
            self.items.append(
                {
                    "kind": "figure",
                    "id": f"fig-{key}",
                    "file": f"{key}.png",
                    "title": title,
                    "caption": caption,
                    "png": png_bytes(fig),
                    "figure": fig,
                }
            )

    def table(
        self, key: str, title: str, caption: str, cols_rows: tuple[list[str], list[list[str]]]
    ) -> None:
        cols, rows = cols_rows
        if rows:
            self.items.append(
                {
                    "kind": "table",
                    "id": f"tab-{key}",
                    "title": title,
                    "caption": caption,
                    "columns": cols,
                    "rows": rows,
                }
            )


def _sections(res: SavedRun) -> list[dict[str, Any]]:
    """Figures (with PNG bytes) and tables of the report, in page order."""
    page = _Sections()
    _verdict_sections(page, res)
    _measure_sections(page, res)
    if not res.tests.empty:
        _test_sections(page, res)
    page.figure(
        "adwin_width",
        "ADWIN window width",
        "Rows inside each fold's ADWIN window: it shrinks after a detected change.",
        plot_adwin_width(res),
    )
    page.figure("baselines", "Baselines", res.task.baseline_caption, plot_baselines(res))
    page.table(
        "config", "Configuration", "The run's settings (config.json).", tables.config_rows(res)
    )
    return page.items


def _verdict_sections(page: _Sections, res: SavedRun) -> None:
    """The verdict lines, then one figure per pair: its paired differences over time, the
    confidence sequence, the margin and the verdict."""
    verdicts = getattr(res, "verdicts", None)
    paired = getattr(res, "paired", None)
    if verdicts is None or paired is None or not len(verdicts):
        return
    last = verdicts[verdicts["position"] == verdicts["position"].max()]
    measure = str(res.config.get("measure", "accuracy"))
    loss = {"brier": "Brier score difference", "log_loss": "log-loss difference"}.get(
        measure, res.task.loss)
    caption = (
        f"One line per pair, from the confidence sequence of the per-row {loss} "
        "(valid at every look) and the Wilcoxon test across folds on the paired windows (the "
        "rows each fold tested with both learners)."
    )
    if measure == "auc":
        caption = (
            "One line per pair, from the Wilcoxon (else sign) test across folds on each "
            "fold's AUC of both learners over its paired window (the rows it tested with "
            "both): AUC has no per-row loss, so no confidence sequence."
        )
    page.table(
        "verdicts",
        "Verdicts",
        caption,
        (["pair", "verdict"],
         [[f"{a} vs {b}", line] for a, b, line in
          zip(last["learner_a"], last["learner_b"], last["line"])]
         + [["baseline", str(base["line"])] for base in [(res.summary or {}).get("baseline")]
            if base]),
    )
    if not len(paired):
        return
    forgetting = str(paired["forgetting"].iloc[0])
    what = "accuracy difference" if res.task.percent(measure) else f"{measure} advantage"
    band = "" if measure == "auc" else (
        "; band: the confidence sequence of the running mean of the per-row difference "
        "(dashed), valid at every look"
    )
    for i, (a, b) in enumerate(dict.fromkeys(zip(last["learner_a"], last["learner_b"]))):
        page.figure(
            f"verdict_{i + 1}",
            f"{a} vs {b}",
            f"Thin lines: each fold's {what} of {a} over {b} over its paired {forgetting} "
            f"window (the rows it tested with both); thick: their mean{band}"
            + ("; dashed grey: the margin." if float(last["margin"].max()) > 0 else "."),
            plot_pair_verdict(paired, verdicts, a, b, forgetting=forgetting, measure=measure,
                              percent=res.task.percent(measure),
                              sequence=res.task.sequence_axis),
        )


def _measure_sections(page: _Sections, res: SavedRun) -> None:
    """The final measures and the measures over time."""
    fg, task = res.forgetting, res.task
    titles = {"A, all rows": ("same_rows", "What the verdicts rest on"),
              "A, recent windows": ("recent", "The recent paired windows")}
    answer = res.answer()
    for caption, cols, rows, _ in answer_tables(answer, learners=False):
        key, title = titles[cols[2]]
        page.table(key, title, caption, (cols, rows))
    cost = cost_table(answer)
    if cost is not None:
        page.table("cost", "What each learner cost", cost[0], (cost[1], cost[2]))
        page.figure(
            "cost", "Cost over rows",
            "Each learner's thread CPU seconds in its own learn and predict calls and its "
            "model's size (MB), both summed over its folds, at every test position; a "
            "size that could not be measured is not drawn (the table says why).",
            plot_cost(res))
    page.table(
        "measures",
        "Final measures",
        f"Mean ± sd over folds at row {res.final_position}, {task.units}: each learner "
        f"under {fg} forgetting over its own windows (which may hold other rows than another "
        "learner's: the verdicts compare the table above)"
        + (" and cumulatively. " if fg != "cumulative" else ". ") + task.measures_note,
        tables.measures_table(res),
    )
    for key, title, caption in task.over_time:
        page.figure(key, title, caption, plot_measure(res, key))
    measure = str(res.config.get("measure", "accuracy"))
    if measure not in {key for key, _, _ in task.over_time} and measure in res.folds:
        page.figure(
            measure,
            f"{measure} over time",
            f"The run's measure ({measure}) of each learner over its own {fg} windows: "
            "thin lines single folds, thick the mean over folds.",
            plot_measure(res, measure),
        )


def _test_sections(page: _Sections, res: SavedRun) -> None:
    """The tests over time, the critical-difference diagram, Q and the final decisions."""
    alpha = res.config.get("alpha", 0.05)
    page.figure(
        "tests",
        "Across-fold tests over time",
        f"p-values against alpha = {alpha} (one log scale) and the decision at every "
        "check, with the learner the data favour."
        + _VALID_CAPTION.get(str(res.config.get("sequential", "none")), ""),
        plot_tests(res),
    )
    page.figure(
        "critical_difference",
        "Critical-difference diagram",
        "Nemenyi test after Friedman: learners at their average rank over the folds; a bar "
        "joins learners whose ranks differ by less than the critical difference.",
        plot_critical_difference(res),
    )
    page.figure(
        "q",
        "Q statistic over time",
        "log(errors A / errors B), cumulative, over the window and faded; below 0 favours "
        "A. Drift detections (with --drift) are the ticks on the measure figures.",
        plot_q(res),
    )
    page.table(
        "tests",
        "Final test decisions",
        f"At row {int(res.tests['position'].max())}.",
        tables.final_tests_table(res),
    )
    page.table(
        "q",
        "Q statistic",
        "log(errors A / errors B) over the (row, fold) pairs both learners tested "
        "(gama2013): negative favours A.",
        tables.final_q_table(res),
    )
    page.table(
        "decisions",
        "Decisions over time",
        "How often and since when each test rejected H0 (equal performance).",
        tables.decisions_rows(res),
    )


#: What the tests figure adds under each ``--sequential`` rule.
_VALID_CAPTION = {
    "none": " Decisions are fixed-alpha tests at each check: stopping at the first rejection "
    "errs more often than alpha.",
    "spending": " Dotted: each test's alpha-spending limit (decisions valid under peeking, "
    "solid bars); pale bars: p below alpha only, not valid if the checks are watched.",
    "evalue": " sign_evalue: the e-process's anytime-valid p-value (1/largest e-value), "
    "valid against alpha at every check; the other tests are fixed-alpha at each check.",
}


def _title(res: SavedRun) -> str:
    """The report's title: stream, task, scheme, rows, how labels arrived
    (:func:`~distval.results.compact.label_words`), the measure."""
    c = res.config
    stream = c.get("stream_name") or c.get("stream") or "elec2"
    if res.task.title_word:
        stream += f", {res.task.title_word}"
    scheme = f"{c.get('n_folds', '?')}-fold {c.get('scheme', '')}".strip()
    labels = label_words(c.get("delay"), c.get("label_probability"), c.get("delay_column"))
    tail = f"{labels}, measure {c.get('measure') or 'accuracy'}"
    cut = res.interrupted_at
    if cut is not None:
        return f"distval report: {stream}, {scheme}, interrupted at row {cut}{tail}"
    return f"distval report: {stream}, {scheme}, {res.final_position} rows{tail}"


def _markdown(res: SavedRun, sections: list[dict[str, Any]]) -> str:
    lines = [f"# {_title(res)}", "", f"Learners: {', '.join(res.labels)}.", ""]
    for s in sections:
        lines += [f"## {s['title']}", "", s["caption"], ""]
        if s["kind"] == "figure":
            lines += [f"![{s['title']}]({s['file']})", ""]
        else:
            lines += [markdown_table(s["columns"], s["rows"]), ""]
    return "\n".join(lines)


_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #ddd}
figcaption,p.caption{color:#555;font-size:.9em}
table{border-collapse:collapse;font-size:.85em}th,td{border:1px solid #ccc;padding:.25em .6em}
th{background:#f0f0f0}td{text-align:right}td:first-child,td:nth-child(2){text-align:left}
"""


def _html(res: SavedRun, sections: list[dict[str, Any]]) -> str:

    title = escape(_title(res))
    toc = "".join(f'<li><a href="#{s["id"]}">{escape(s["title"])}</a></li>' for s in sections)
    body = []
    for s in sections:
        head = f"<h2>{escape(s['title'])}</h2>"
        if s["kind"] == "figure":
            data = base64.b64encode(s["png"]).decode("ascii")
            body.append(
                f'<section>{head}<figure id="{s["id"]}" data-file="{s["file"]}">'
                f'<img alt="{escape(s["title"])}" src="data:image/png;base64,{data}">'
                f"<figcaption>{escape(s['caption'])}</figcaption></figure></section>"
            )
        else:
            ths = "".join(f"<th>{escape(c)}</th>" for c in s["columns"])
            trs = "".join(
                "<tr>" + "".join(f"<td>{escape(v)}</td>" for v in r) + "</tr>" for r in s["rows"]
            )
            body.append(
                f'<section>{head}<p class="caption">{escape(s["caption"])}</p>'
                f'<table id="{s["id"]}"><thead><tr>{ths}</tr></thead>'
                f"<tbody>{trs}</tbody></table></section>"
            )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_CSS}</style></head><body><h1>{title}</h1>"
        f"<p>Learners: {escape(', '.join(res.labels))}.</p>"
        f'<nav><h2>Contents</h2><ul id="contents">{toc}</ul></nav>'
        + "\n".join(body)
        + "</body></html>\n"
    )


def make_report(
    results_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    formats: Sequence[str] = ("png",),
    dpi: int | None = None,
) -> Path:
    """Write the figures, ``report.html`` and ``report.md`` of a results directory.

    Parameters
    ----------
    results_dir
        A directory written by :func:`distval.evaluate` (``output_dir``) or ``distval run``
        (for a robustness run: its ``original`` sub-directory).
    out_dir
        Where to write (created if needed); default: the results directory itself.
    formats
        Figure files to write besides the page's: any of ``png``, ``pdf``, ``svg``.
    dpi
        Resolution of the figure files; default: PNG files are the page's own compact
        images (90 dpi, 64 colours) and PDF / SVG are written at 150 dpi.

    Returns
    -------
    pathlib.Path
        The path of ``report.html``.
    """
    formats = tuple(formats)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise DistvalError(
            f"unknown figure format {bad[0] if bad else ''!r}; choose among {', '.join(FORMATS)}"
        )
    if dpi is not None and (isinstance(dpi, bool) or not isinstance(dpi, int)
                            or not 10 <= dpi <= 2400):
        raise DistvalError(f"dpi must be a whole number from 10 to 2400, got {dpi!r}")
    res = load_results(results_dir)
    out = Path(out_dir) if out_dir is not None else res.directory

    if out.exists() and not out.is_dir():
        raise DistvalError(f"report output {out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    sections = _sections(res)
    for s in sections:
        if s["kind"] == "figure":
            for fmt in formats:
                path = out / Path(s["file"]).with_suffix(f".{fmt}")
                if fmt == "png" and dpi is None:
                    write_file(path, s["png"])
                else:
                    save_figure(s["figure"], path, fmt, dpi or 150)
    write_file(out / "report.md", _markdown(res, sections))
    path = write_file(out / "report.html", _html(res, sections))
    return path
