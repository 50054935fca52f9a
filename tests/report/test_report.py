"""The report: figures, self-contained HTML and Markdown of a results directory.

The HTML is parsed with the standard library and every figure and table its contents list
promises is looked up; embedded PNGs are decoded and checked for size and non-blank content;
the tables are compared with values computed here from the Parquet files.
"""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from screen_tables import paired_means

import distval
from distval import cli
from distval.errors import DistvalError
from distval.report import make_report
from distval.report.figures import plot_baselines, plot_measure
from distval.report.significance import P_FLOOR, plot_tests
from distval.report.tables import decision_table
from distval.results import load_results
from distval.results.answer import answer_tables


class _Page(HTMLParser):
    """Collects the contents links, figures (id -> image src) and tables (id -> rows)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.figures: dict[str, str | None] = {}
        self.tables: dict[str, list[list[str]]] = {}
        self.headers: dict[str, list[str]] = {}
        self.external: list[str] = []
        self._figure = self._table = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_head = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        if tag in ("script", "link", "iframe") or (
            tag == "img" and not a.get("src", "").startswith("data:")
        ):
            self.external.append(tag)
        if tag == "figure":
            self._figure = a["id"]
            self.figures[a["id"]] = None
        if tag == "img" and self._figure:
            self.figures[self._figure] = a.get("src")
        if tag == "table":
            self._table = a["id"]
            self.tables[a["id"]], self.headers[a["id"]] = [], []
        if tag == "thead":
            self._in_head = True
        if tag == "tr" and self._table:
            self._row = []
        if tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure = None
        if tag == "table":
            self._table = None
        if tag == "thead":
            self._in_head = False
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        if tag == "tr" and self._row is not None:
            if self._in_head:
                self.headers[self._table] = self._row
            else:
                self.tables[self._table].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _parse(path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _png_of(src: str) -> bytes:
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    return base64.b64decode(src[len(prefix) :])


@pytest.fixture(scope="module")
def run3(tmp_path_factory):
    """Three learners (two of them the baselines), ADWIN forgetting, all tests."""
    d = tmp_path_factory.mktemp("run3")
    distval.evaluate(
        stream="sea",
        n_rows=3000,
        learners=("ht", "majority", "persistent"),
        n_folds=3,
        test_every=200,
        output_dir=d,
        overwrite=True,
    )
    out = d / "report"
    return d, make_report(d, out)


@pytest.fixture(scope="module")
def auc_run(tmp_path_factory):
    """Three learners compared by AUC (a measure spelt otherwise than its option)."""
    d = tmp_path_factory.mktemp("auc")
    distval.evaluate(stream="sea", n_rows=1200, learners=("nb", "ht", "majority"), n_folds=3,
                     test_every=400, measure="auc", output_dir=d)
    return d


def test_the_recent_windows_table_holds_pandas_means_of_the_paired_table_as_the_summary_words_it(
    auc_run,
):
    """The report's recent-windows table against pandas' means of the run's paired table at
    the last check (the folds where both learners have a value), each pair with its
    verdict's leader first, AUC printed as itself (four decimals), and headed as
    ``summary.md`` heads the same table."""
    d = auc_run
    res = load_results(d)
    (_, cols, rows, _), = [t for t in answer_tables(res.answer(), learners=False)
                           if t[1][2] == "A, recent windows"]
    want = paired_means(res)
    assert len(rows) == 3
    for a, b, va, vb, folds in rows:
        pair, flip = ((a, b), False) if (a, b) in want.index else ((b, a), True)
        mean = want.loc[pair]
        assert int(folds) == mean["folds"]
        wa, wb = (mean["value_b"], mean["value_a"]) if flip else (mean["value_a"],
                                                                  mean["value_b"])
        assert float(va.split(" ±")[0]) == pytest.approx(wa, abs=5e-5)
        assert float(vb.split(" ±")[0]) == pytest.approx(wb, abs=5e-5)
        assert wa >= wb  # AUC has no sequence: the fold-level leader first
    summary = (d / "summary.md").read_text().splitlines()
    heads = [line.strip("| ").split(" | ") for line in summary if line.startswith("| A | B |")]
    assert cols in heads


@pytest.fixture(scope="module")
def run1(tmp_path_factory):
    """One learner, sliding-window forgetting: no tests, no ADWIN, no baseline learners."""
    d = tmp_path_factory.mktemp("run1")
    distval.evaluate(
        stream="sea",
        n_rows=1000,
        learners=("nb",),
        n_folds=2,
        forgetting="window",
        window=200,
        test_every=250,
        output_dir=d,
    )
    return d, make_report(d)


PROMISED3 = {
    "tab-verdicts",
    "fig-verdict_1",  # one figure per learner pair
    "fig-verdict_2",
    "fig-verdict_3",
    "fig-accuracy",
    "fig-kappa_m",
    "fig-tests",
    "fig-critical_difference",
    "fig-q",
    "fig-cost",  # each learner's CPU and bytes over rows, beside the cost table
    "fig-adwin_width",
    "fig-baselines",
    "tab-same_rows",
    "tab-recent",
    "tab-cost",
    "tab-measures",
    "tab-tests",
    "tab-q",
    "tab-decisions",
    "tab-config",
}


def test_html_keeps_every_promise(run3):
    _, html = run3
    page = _parse(html)
    assert set(page.links) == PROMISED3
    for target in page.links:
        assert target in page.figures or target in page.tables, target
    for fid, src in page.figures.items():
        assert src is not None, fid
    for tid, rows in page.tables.items():
        assert rows and all(len(r) == len(page.headers[tid]) for r in rows), tid
    assert page.external == []  # nothing fetched from elsewhere
    assert "http://" not in html.read_text() and "https://" not in html.read_text()


def test_pngs_decode_to_large_nonblank_images_equal_to_files(run3):
    _, html = run3
    page = _parse(html)
    for fid, src in page.figures.items():
        data = _png_of(src)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        # (a line diagram such as the critical-difference one compresses to a few KB;
        # the pixel checks below say it is not blank)
        assert 2_000 < len(data) < 400_000, (fid, len(data))
        on_disk = html.parent / f"{fid.removeprefix('fig-')}.png"
        assert on_disk.read_bytes() == data
        img = mpimg.imread(io.BytesIO(data), format="png")
        h, w = img.shape[:2]
        assert h >= 300 and w >= 600, (fid, img.shape)
        grey = img[..., :3].mean(axis=2)
        assert grey.var() > 1e-3, fid  # not blank
        assert (grey < 0.5).mean() > 0.005, fid  # some dark ink: lines, text


def test_verdict_table_is_the_last_look_of_verdicts_parquet(run3):
    d, html = run3
    page = _parse(html)
    v = pd.read_parquet(d / "verdicts.parquet")
    last = v[v["position"] == v["position"].max()]
    assert page.tables["tab-verdicts"][:-1] == [
        [f"{a} vs {b}", line] for a, b, line in zip(last["learner_a"], last["learner_b"],
                                                     last["line"])
    ]
    # the last row: the baseline line, naming the learners whose accuracy over all rows is
    # not above the Persistent classifier's on the same rows (from folds.parquet)
    tag, line = page.tables["tab-verdicts"][-1]
    f = pd.read_parquet(d / "folds.parquet")
    f = f[(f["position"] == f["position"].max()) & (f["forgetting"] == "cumulative")]
    means = f.groupby("learner")[["accuracy", "p_per"]].mean()
    below = [lb for lb in ("ht", "majority", "persistent")
             if means.loc[lb, "accuracy"] <= means.loc[lb, "p_per"] + 1e-12]
    assert tag == "baseline" and "persistent" in below
    head = line.split(" not beat")[0].removeprefix("baseline: ")
    assert sorted(head.replace(" and ", ", ").replace(" does", "").replace(" do", "")
                  .split(", ")) == sorted(below)
    assert f"Persistent's {100 * means['p_per'].mean():.1f} %" in line
    paired = pd.read_parquet(d / "paired.parquet")
    assert len(paired) == 3 * 3 * v["position"].nunique()  # pairs x folds per look


def test_measures_table_equals_fold_means_from_parquet(run3):
    d, html = run3
    page = _parse(html)
    folds = pd.read_parquet(d / "folds.parquet")
    last = folds[folds["position"] == folds["position"].max()]
    head = page.headers["tab-measures"]
    rows = page.tables["tab-measures"]
    assert {(r[0], r[1]) for r in rows} == {
        (lab, kind) for lab in ("ht", "majority", "persistent") for kind in ("adwin", "cumulative")
    }
    for row in rows:
        sel = last[(last["learner"] == row[0]) & (last["forgetting"] == row[1])]
        assert int(row[2]) == 3
        for measure in ("accuracy", "kappa_m", "kappa_per"):
            text = row[head.index(measure)]  # in percent, two decimals
            mean, sd = (float(x) for x in text.split(" ± "))
            assert mean == pytest.approx(100 * sel[measure].mean(), abs=6e-3)
            assert sd == pytest.approx(100 * sel[measure].std(ddof=1), abs=6e-3)


def test_final_tests_table_equals_last_rows_of_tests_parquet(run3):
    d, html = run3
    page = _parse(html)
    tests = pd.read_parquet(d / "tests.parquet")
    last = tests[tests["position"] == 3000]
    rows = page.tables["tab-tests"]
    assert len(rows) == len(last)
    # 3 pairs x (sign, Wilcoxon, McNemar cumulative/window/fading) + Friedman at least
    assert {(r[0], r[1], r[2]) for r in rows} >= {
        (a, b, t)
        for a, b in (("ht", "majority"), ("ht", "persistent"), ("majority", "persistent"))
        for t in ("sign", "wilcoxon", "mcnemar", "mcnemar_window", "mcnemar_fading")
    } | {("*", "*", "friedman")}
    for r in rows:
        t = last[(last["learner_a"] == r[0]) & (last["learner_b"] == r[1]) & (last["test"] == r[2])]
        assert len(t) == 1
        p = t["pvalue"].iloc[0]
        if r[7] == "< 1e-16":  # never printed as 0
            assert p < 1e-16
        else:
            assert float(r[7]) == pytest.approx(p, rel=1e-3, abs=1e-300)
        assert r[8] == ("yes" if t["reject"].iloc[0] else "no")
        paired = ", paired" if r[2] in ("sign", "wilcoxon") else ""  # the same rows
        assert r[3] == f"{t['measure'].iloc[0]}, {t['forgetting'].iloc[0]}{paired}"
        assert r[9] == (t["favours"].iloc[0] or "–")
        if r[2] in ("sign", "wilcoxon", "friedman"):
            # the decision is p < alpha (bifet2015 §4): checked independently of the column
            assert (r[8] == "yes") == bool(p < 0.05)
        if r[2].startswith("mcnemar"):  # McNemar's values are the errors in its own scope
            assert r[3].startswith("errors, ")


def test_decision_table_against_direct_computation(run3):
    d, html = run3
    tests = pd.read_parquet(d / "tests.parquet")
    got = {(r["learner_a"], r["learner_b"], r["test"]): r for r in decision_table(tests)}
    descriptive = set(tests["test"]) - set(tests.dropna(subset=["pvalue"])["test"])
    tests = tests[~tests["test"].isin(descriptive)]
    for key, g in tests.groupby(["learner_a", "learner_b", "test"]):
        pos, rej = g["position"].tolist(), g["reject"].tolist()
        r = got[key]
        assert r["checks"] == len(rej) == 15
        assert r["share_rejected"] == pytest.approx(sum(rej) / len(rej))
        assert r["first_rejected"] == next((p for p, x in zip(pos, rej) if x), None)
        since = None
        for p, x in zip(reversed(pos), reversed(rej)):
            if not x:
                break
            since = p
        assert r["rejected_since"] == since
    page = _parse(html)
    assert len(page.tables["tab-decisions"]) == len(got)


def test_decision_table_worked_example():
    t = pd.DataFrame(
        {
            "position": [100, 200, 300, 100, 200, 300],
            "test": ["sign"] * 3 + ["wilcoxon"] * 3,
            "learner_a": "a",
            "learner_b": "b",
            "reject": [False, True, False, False, False, False],
        }
    )
    sign, wil = decision_table(t)
    assert (sign["first_rejected"], sign["rejected_since"]) == (200, None)
    assert sign["share_rejected"] == pytest.approx(1 / 3)
    assert (wil["first_rejected"], wil["share_rejected"]) == (None, 0.0)


def test_markdown_summary_links_written_figures(run3):
    _, html = run3
    md = (html.parent / "report.md").read_text()
    for name in ("accuracy", "kappa_m", "tests", "adwin_width", "baselines"):
        assert f"]({name}.png)" in md
        assert (html.parent / f"{name}.png").stat().st_size > 0
    assert "| learner | forgetting | folds |" in md


def _named_lines(ax):
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def test_figures_distinguishable_in_grey_and_labelled_with_units(run3):
    d, _ = run3
    res = load_results(d)
    for fig in (plot_measure(res, "accuracy"), plot_tests(res), plot_baselines(res)):
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            assert "(rows)" in ax.get_xlabel()
            assert ax.get_title()
            ylabel = ax.get_ylabel()
            if ylabel:  # the decision lanes are labelled by test name instead
                assert any(u in ylabel for u in ("(%)", "p-value", "statistic", "(rows)"))
            lines = [ln for ln in _named_lines(ax) if ln.get_marker() not in ("None", None, "")]
            looks = [(str(ln.get_linestyle()), ln.get_marker()) for ln in lines]
            assert len(set(looks)) == len(looks), looks  # not colour alone


def test_tests_figure_shows_alpha_clipped_pvalues_and_decisions(run3):
    d, _ = run3
    res = load_results(d)
    fig = plot_tests(res)
    tests = pd.read_parquet(d / "tests.parquet")
    pair = tests[(tests["learner_a"] == "ht") & (tests["learner_b"] == "majority")]
    ax_p, ax_d = fig.axes[:2]  # p-values (one log axis) and decisions; no statistics axis
    alpha_lines = [ln for ln in ax_p.get_lines() if ln.get_label().startswith("alpha")]
    assert len(alpha_lines) == 1 and set(alpha_lines[0].get_ydata()) == {0.05}
    for ln in _named_lines(ax_p):
        if ln.get_label().startswith("alpha"):
            continue
        p = pair[pair["test"] == ln.get_label()]["pvalue"].to_numpy()
        np.testing.assert_allclose(ln.get_ydata(), np.maximum(p, P_FLOOR))
    # decision lanes: the bars of each test cover exactly its rejecting checks
    lanes = [t.get_text() for t in ax_d.get_yticklabels()]
    covered = {}
    for bar in ax_d.patches:
        lane = lanes[round(bar.get_y() + bar.get_height() / 2)]
        covered[lane] = covered.get(lane, 0) + bar.get_width()
    for test in lanes:
        n_rej = int(pair[pair["test"] == test]["reject"].sum())
        assert covered.get(test, 0) == pytest.approx(200 * n_rej)


def test_single_learner_window_run_promises_only_what_exists(run1):
    d, html = run1
    assert html == d / "report.html"
    page = _parse(html)
    # every run draws its learner against the no-change classifier and the majority class
    assert set(page.links) == {"fig-accuracy", "fig-kappa_m", "fig-baselines", "tab-measures",
                               "tab-cost", "fig-cost", "tab-config"}
    assert not (d / "tests.png").exists() and not (d / "adwin_width.png").exists()
    kinds = {r[1] for r in page.tables["tab-measures"]}
    assert kinds == {"window", "cumulative"}


def test_bad_directories_give_clear_errors(tmp_path):
    with pytest.raises(DistvalError, match="does not exist"):
        make_report(tmp_path / "missing")
    with pytest.raises(DistvalError, match=r"no folds\.parquet"):
        make_report(tmp_path)
    (tmp_path / "folds.parquet").write_text("not parquet")
    with pytest.raises(DistvalError, match="cannot read"):
        make_report(tmp_path)


def test_cli_report_and_errors(run1, tmp_path, capsys):
    d, _ = run1
    out = tmp_path / "rep"
    assert cli.main(["report", str(d), "--output", str(out)]) == 0
    assert (out / "report.html").exists() and (out / "accuracy.png").exists()
    assert cli.main(["report", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("distval: error:") and "Traceback" not in err


def test_run_with_report_flag(tmp_path):
    out = tmp_path / "run"
    argv = ["run", "--stream", "sea", "--n-rows", "600", "--learners", "nb", "--folds", "2",
            "--test-every", "200", "--backend", "inprocess", "--no-progress",
            "--output", str(out), "--report"]  # fmt: skip
    assert cli.main(argv) == 0
    page = _parse(out / "report.html")
    assert set(page.links) == {"fig-accuracy", "fig-kappa_m", "fig-adwin_width", "fig-baselines",
                               "tab-measures", "tab-cost", "fig-cost", "tab-config"}  # fmt: skip
    rows = page.tables["tab-measures"]
    folds = pd.read_parquet(out / "folds.parquet")
    last = folds[(folds["position"] == 600) & (folds["forgetting"] == "adwin")]
    assert float(rows[0][3].split(" ± ")[0]) == pytest.approx(100 * last["accuracy"].mean(),
                                                              abs=6e-3)  # percent


def test_robustness_directory_reports_its_original_run(run1, tmp_path):
    d, _ = run1
    original = tmp_path / "original"
    original.mkdir()
    for name in ("config.json", "folds.parquet"):
        (original / name).write_bytes((d / name).read_bytes())
    (tmp_path / "accuracy.png").write_bytes(b"robustness figure")
    assert make_report(tmp_path) == original / "report.html"
    assert (tmp_path / "accuracy.png").read_bytes() == b"robustness figure"  # left alone


def test_a_results_directory_of_the_old_format_is_still_reported(tmp_path):
    """Before q.parquet, tests.parquet held the Q statistic as ``q*`` rows, the fold means
    as ``mean_a``/``mean_b`` on every row and ``n``: such a directory still reports."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from distval.report import make_report
    from distval.results import load_results

    d = tmp_path / "old"
    res = distval.evaluate(
        stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=2, test_every=300,
        output_dir=d,
    )
    (d / "q.parquet").unlink()
    old = [
        {"position": t["position"], "test": t["test"], "learner_a": t["learner_a"],
         "learner_b": t["learner_b"], "mean_a": 0.5, "mean_b": 0.4, "statistic": t["statistic"],
         "pvalue": t["pvalue"], "reject": t["reject"],
         "n": t["folds_used"] or t["discordant_pairs"] or 0}
        for t in res.test_rows
    ] + [
        {"position": q["position"], "test": "q" + {"cumulative": "", "window": "_window",
                                                    "fading": "_fading"}[q["forgetting"]],
         "learner_a": q["learner_a"], "learner_b": q["learner_b"], "mean_a": 0.5,
         "mean_b": 0.4, "statistic": q["q"], "pvalue": float("nan"), "reject": False, "n": 1}
        for q in res.q_rows
    ]
    pq.write_table(pa.Table.from_pylist(old), d / "tests.parquet")
    saved = load_results(d)
    assert not saved.tests["test"].str.startswith("q").any()
    assert len(saved.q) == len(res.q_rows)
    assert saved.q["q"].tolist() == pytest.approx([q["q"] for q in res.q_rows])
    mc = saved.tests[saved.tests["test"] == "mcnemar"]
    assert mc["measure"].eq("errors").all() and mc["value_a"].isna().all()  # not fold means
    assert make_report(d).exists()
    assert json.loads((d / "config.json").read_text())["learners"] == ["nb", "majority"]


def test_figures_as_pdf_and_svg_at_a_dpi_and_one_log_pvalue_axis(tmp_path):
    import json

    from distval.report import make_report
    from distval.report.figures import plot_measure, plot_q
    from distval.report.significance import plot_critical_difference, plot_tests
    from distval.results import load_results

    d = tmp_path / "r"
    distval.evaluate(
        stream="SEA(50)", n_rows=4000, learners=("nb", "majority", "ht"),
        n_folds=6, test_every=500, drift=True, ph_lambda=5.0, output_dir=d,
    )
    out = tmp_path / "rep"
    code = cli.main(["report", str(d), "--output", str(out), "--format", "png,pdf,svg",
                     "--dpi", "150"])
    assert code == 0
    for fmt in ("png", "pdf", "svg"):
        assert (out / f"tests.{fmt}").stat().st_size > 0 and (out / f"q.{fmt}").exists()
    assert (out / "tests.pdf").read_bytes()[:4] == b"%PDF"
    assert b"<svg" in (out / "accuracy.svg").read_bytes()[:400]
    make_report(d, tmp_path / "compact")  # default: the page's own 90-dpi PNGs
    wide = mpimg.imread(out / "accuracy.png").shape[1]
    compact = mpimg.imread(tmp_path / "compact" / "accuracy.png").shape[1]
    assert wide == pytest.approx(150 / 90 * compact, rel=0.02)
    res = load_results(d)
    # tests figure: every p-value axis is logarithmic, no axis of statistics is left
    fig = plot_tests(res)
    p_axes = [ax for ax in fig.axes if ax.get_yscale() == "log"]
    assert p_axes and all("p-value" in ax.get_ylabel() for ax in p_axes)
    assert not [ax for ax in fig.axes if "statistic" in ax.get_ylabel()]
    # Q figure: the lines are q.parquet's values
    q = pd.read_parquet(d / "q.parquet")
    fig = plot_q(res)
    line = next(ln for ln in fig.axes[0].get_lines() if ln.get_label() == "cumulative")
    first = q[(q.learner_a == "nb") & (q.learner_b == "majority") & (q.forgetting == "cumulative")]
    np.testing.assert_allclose(line.get_ydata(), first["q"].to_numpy())
    # drift detections are drawn on the measure figures, at events.parquet's positions
    ev = pd.read_parquet(d / "events.parquet")
    assert len(ev)
    ticks = [ln for ax in plot_measure(res).axes for ln in ax.get_lines()
             if ln.get_label() == "drift detected"]
    assert sorted(np.concatenate([t.get_xdata() for t in ticks])) == sorted(ev["position"])
    # critical-difference diagram: learners at the Friedman average ranks of summary.json
    summary = json.loads((d / "summary.json").read_text())
    ranks = summary["friedman"]["average_ranks"]
    fig = plot_critical_difference(res)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    for label, r in zip(res.labels, ranks):
        assert f"{label} ({r:.2f})" in texts
    assert f"CD = {summary['friedman']['critical_difference']:.2f}" in texts


def test_report_rejects_an_unknown_format_in_one_line(run1, capsys):
    d, _ = run1
    assert cli.main(["report", str(d), "--format", "gif"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("distval: error: unknown figure format 'gif'") and err.count("\n") == 1


def test_a_spending_run_draws_its_valid_limits_and_marks_its_decisions(tmp_path):
    """The tests figure draws each test's alpha-spending limit beside alpha (one line per
    distinct schedule), the table says which decisions are sequential (alpha spending)."""
    from distval.report.tables import final_tests_table

    d = tmp_path / "spend"
    distval.evaluate(stream="sea", n_rows=1500, learners=("nb", "majority"), n_folds=10,
                     test_every=300, forgetting="cumulative", sequential="spending",
                     output_dir=d)
    res = load_results(d)
    tests = pd.read_parquet(d / "tests.parquet")
    ax_p = plot_tests(res).axes[0]
    limits = [ln for ln in ax_p.get_lines() if ln.get_label().startswith("valid limit")]
    # statistics over all rows share the recursion's limits, windowed ones the union bound's
    named = {ln.get_label().split(": ")[1]: ln for ln in limits}
    assert set(named) == {"sign, wilcoxon, mcnemar", "mcnemar_window, mcnemar_fading"}
    for label, test in (("sign, wilcoxon, mcnemar", "mcnemar"),
                        ("mcnemar_window, mcnemar_fading", "mcnemar_window")):
        limit = tests[tests["test"] == test]["boundary"]
        np.testing.assert_allclose(named[label].get_ydata(), np.maximum(limit, P_FLOOR), 1e-5)
    cols, rows = final_tests_table(res)
    # the column says whether the row's rule stays valid when watched, not that it rejected
    assert "rule valid when watched" in cols and "sequential" not in cols and "p limit" in cols
    valid = [r[cols.index("rule valid when watched")] for r in rows]
    assert set(valid) == {"yes"}
    assert make_report(d).exists()
    assert "alpha-spending limit" in (d / "report.md").read_text()


def test_tests_written_before_sequential_decisions_load_as_fixed_alpha(run3, tmp_path):
    import shutil

    import pyarrow.parquet as pq

    d = tmp_path / "before"
    shutil.copytree(run3[0], d, ignore=shutil.ignore_patterns("report"))
    t = pq.read_table(d / "tests.parquet")
    pq.write_table(t.drop_columns(["boundary", "anytime_valid"]), d / "tests.parquet")
    assert "anytime_valid" not in pq.read_schema(d / "tests.parquet").names
    saved = load_results(d)
    assert not saved.tests["anytime_valid"].any() and saved.tests["boundary"].isna().all()
    assert make_report(d).exists()


# -- issue 30 item 9: long learner names, legends, favoured learners, one axis, formats ----

LONG = {
    "hoeffding_tree_with_a_very_long_descriptive_name_grace50": "ht(grace_period=50)",
    "gaussian_naive_bayes_also_with_quite_a_long_label": "nb",
    "majority": "majority",
}


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    d = tmp_path_factory.mktemp("long") / "run"
    distval.evaluate(
        stream="sea", n_rows=2000, learners=LONG, n_folds=5, test_every=500, output_dir=d
    )
    return d


def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _inside(inner, outer, tol=1.0):
    return (
        inner.x0 >= outer.x0 - tol
        and inner.y0 >= outer.y0 - tol
        and inner.x1 <= outer.x1 + tol
        and inner.y1 <= outer.y1 + tol
    )


def _data_points(fig):
    """Display coordinates of every plotted line point of every visible axes."""
    pts = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for ln in ax.get_lines():
            xy = np.column_stack([ln.get_xdata(), ln.get_ydata()]).astype(float)
            xy = xy[np.isfinite(xy).all(axis=1)]
            if len(xy) and ln.get_transform() == ax.transData:
                pts.append(ax.transData.transform(xy))
    return np.concatenate(pts) if pts else np.empty((0, 2))


def test_long_names_keep_titles_and_labels_in_the_figure_and_legends_off_the_data(long_names):
    from distval.report.significance import plot_tests

    res = load_results(long_names)
    for fig in (plot_tests(res), plot_measure(res), plot_baselines(res)):
        r = _drawn(fig)
        titles = [fig._suptitle] + [ax.title for ax in fig.axes if ax.get_visible()]
        boxes = [t.get_window_extent(r) for t in titles if t is not None and t.get_text()]
        assert all(t.get_fontsize() >= 9 for t in titles if t is not None and t.get_text())
        for box in boxes:
            assert _inside(box, fig.bbox), "a title runs off the figure"
        for i, a in enumerate(boxes):  # no two titles overlap
            for b in boxes[i + 1 :]:
                assert not a.overlaps(b)
        for ax in fig.axes:
            for t in ax.texts:  # the "favours" labels: inside their axes
                assert _inside(t.get_window_extent(r), ax.bbox), t.get_text()
        points = _data_points(fig)
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
        assert legends
        for leg in legends:
            box = leg.get_window_extent(r)
            on = (
                (points[:, 0] > box.x0)
                & (points[:, 0] < box.x1)
                & (points[:, 1] > box.y0)
                & (points[:, 1] < box.y1)
            )
            assert not on.any(), "a legend covers plotted data"


def test_decision_bars_have_the_colour_of_the_favoured_learner(long_names):
    """Each rejection's bar is drawn in the colour of the learner the test favours at that
    check (tests.parquet's ``favours``), the colour that learner has in the other figures."""
    from matplotlib.colors import to_rgba

    from distval.report.figures import STYLES
    from distval.report.significance import plot_tests

    res = load_results(long_names)
    tests = pd.read_parquet(long_names / "tests.parquet")
    fig = plot_tests(res)
    colour = {lab: to_rgba(STYLES[i][0]) for i, lab in enumerate(res.labels)}
    checked = 0
    for row, ax_d in enumerate(fig.axes[1::2]):
        a, b = list(dict.fromkeys(zip(tests["learner_a"], tests["learner_b"])))[row]
        pair = tests[(tests["learner_a"] == a) & (tests["learner_b"] == b)]
        lanes = [t.get_text() for t in ax_d.get_yticklabels()]
        for bar in ax_d.patches:
            test = lanes[round(bar.get_y() + bar.get_height() / 2)]
            end = bar.get_x() + bar.get_width()
            hit = pair[(pair["test"] == test) & np.isclose(pair["position"], end)]
            fav = hit["favours"].iloc[0]
            assert bool(hit["reject"].iloc[0])
            assert bar.get_facecolor() == pytest.approx(colour[fav]), (test, end, fav)
            checked += 1
    assert checked > 0


def _bar_runs(bars, renderer):
    """The rendered extents of the bars, each run of adjoining bars of one colour in one lane
    (a bar per check) merged into one."""
    from matplotlib.transforms import Bbox

    runs = []
    key = lambda b: (round(b.get_y(), 6), b.get_facecolor(), b.get_x())  # noqa: E731
    for bar in sorted(bars, key=key):
        box = bar.get_window_extent(renderer)
        same = runs and runs[-1][0] == key(bar)[:2] and abs(runs[-1][1].x1 - box.x0) < 1.0
        if same:
            runs[-1][1] = Bbox.union([runs[-1][1], box])
        else:
            runs.append([key(bar)[:2], box])
    return [box for _, box in runs]


def test_favours_labels_cover_no_other_bar_and_stay_in_their_panel(long_names):
    """The "favours" labels of the decision panels, from matplotlib's rendered extents: each
    inside its panel, none over another label or over a bar other than the one it ends (a
    label inside a bar lies wholly within that bar), at a readable size; every title at
    9 pt or more. The run's tests are edited so that one test rejects at the last check only
    (a short bar: its label goes beside it, the x axis extended, its ticks within the
    stream) beside bars that reject throughout (labels inside them)."""
    from matplotlib.patches import Rectangle

    res = load_results(long_names)
    t = res.tests
    last = t["position"] == t["position"].max()
    pair = (t["learner_a"] == t["learner_a"].iloc[0]) & (t["learner_b"] == t["learner_b"].iloc[0])
    short = pair & (t["test"] == "mcnemar")
    res.tests = t.assign(reject=np.where(short, last, t["reject"]),
                         favours=np.where(short & last, t["learner_a"], t["favours"]))
    fig = plot_tests(res)
    r = _drawn(fig)
    titles = [fig._suptitle] + [ax.title for ax in fig.axes]
    titles += [leg.get_title() for leg in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
               if leg is not None]
    assert all(x.get_fontsize() >= 9 for x in titles if x is not None and x.get_text())
    placed = {"left": 0, "right": 0}
    for ax in fig.axes:
        if not ax.texts:
            continue
        assert max(ax.get_xticks()) <= res.final_position
        bars = _bar_runs([b for b in ax.patches if isinstance(b, Rectangle)
                          and b.get_width() > 0], r)
        boxes = [x.get_window_extent(r) for x in ax.texts]
        end = ax.transData.transform((res.final_position, 0))[0]
        for i, (text, box) in enumerate(zip(ax.texts, boxes)):
            assert text.get_fontsize() >= 8 and _inside(box, ax.bbox), text.get_text()
            assert not any(box.overlaps(other) for other in boxes[i + 1:]), text.get_text()
            for extent in bars:
                if box.overlaps(extent):  # only the bar it ends, and wholly inside it
                    assert _inside(box, extent, tol=0.0), (text.get_text(), extent)
                    assert extent.x1 == pytest.approx(end), text.get_text()
            placed[text.get_horizontalalignment()] += 1
    assert placed["left"] >= 1 and placed["right"] >= 1  # beside a bar, and inside one


def test_the_measure_figure_draws_every_learner_on_one_axis(long_names):
    res = load_results(long_names)
    fig = plot_measure(res, "accuracy")
    together = [ax for ax in fig.axes if [ln.get_label() for ln in ax.get_lines()][:3] == list(
        LONG
    )]
    assert len(together) == 1
    prim = res.primary
    for ln, label in zip(together[0].get_lines(), LONG):
        means = prim[prim["learner"] == label].groupby("position")["accuracy"].mean()
        np.testing.assert_allclose(ln.get_ydata(), 100 * means.to_numpy())


def test_type_error_charts_come_as_png_svg_and_pdf(tmp_path):
    from type_error_grids import CHEAP

    out = tmp_path / "o"
    argv = ["reproduce", "type-errors", "--streams", "SEA(50)", "--runs", "1"]
    argv += ["--n-rows", "60", "--schemes", "cv", "--learner", CHEAP]
    argv += ["--backend", "inprocess", "--output", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    magic = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}
    for chart in ("type_errors", "peeking"):
        for fmt, head in magic.items():
            assert (out / f"{chart}.{fmt}").read_bytes()[:5].startswith(head)


@pytest.fixture(scope="module")
def delayed(tmp_path_factory):
    """Labels 400 rows late, a look every 100 rows: the first looks score a few rows."""
    d = tmp_path_factory.mktemp("delayed")
    distval.evaluate(stream="sea", n_rows=1500, learners=("nb", "ht"), n_folds=3,
                     test_every=100, delay=400, output_dir=d)
    return load_results(d)


def test_curves_of_delayed_labels_start_once_a_fold_has_scored_enough_rows(delayed):
    """No curve starts at a false 0 % or 100 %: a fold's value is drawn only from the first
    look at which its cumulative row count (folds.parquet's n) reaches MIN_SCORED; the title
    says so."""
    from distval.metrics.trackers import MIN_SCORED

    f = delayed.folds
    cum = f[f["forgetting"] == "cumulative"]
    enough = cum.groupby(["learner", "position"])["n"].max() >= MIN_SCORED
    assert not enough.all() and enough.any()  # some looks have too few rows
    fig = plot_measure(delayed, "accuracy")
    title = " ".join(fig._suptitle.get_text().split())
    assert f"drawn once it has scored {MIN_SCORED} rows" in title
    (ax0, *_) = fig.axes
    for line in ax0.get_lines():
        label = line.get_label()
        if label not in ("nb", "ht"):
            continue
        for x, y in zip(line.get_xdata(), line.get_ydata()):
            assert np.isfinite(y) == bool(enough[label, x]), (label, x)


def test_baselines_figure_draws_the_no_change_classifier_on_the_same_rows(delayed):
    """A run without baseline learners still shows Persistent's accuracy on the rows the
    folds tested: the mean over folds of p_per (folds.parquet) at each look."""
    fig = plot_baselines(delayed)
    ax_a = fig.axes[0]
    (line,) = [ln for ln in ax_a.get_lines() if ln.get_label().startswith("Persistent")]
    prim = delayed.primary
    nb = prim[prim["learner"] == "nb"]
    want = nb.groupby("position")["p_per"].mean()
    got = dict(zip(line.get_xdata(), line.get_ydata()))
    drawn = [x for x, y in got.items() if np.isfinite(y)]
    assert len(drawn) > 5
    for x in drawn:
        assert got[x] == pytest.approx(100 * want[x])


MOA_LONG = [
    "moa:meta.AdaptiveRandomForest -s 10 -j 1 -l (ARFHoeffdingTree -e 2000000 -g 50 -c 0.01)",
    "moa:trees.HoeffdingAdaptiveTree -g 50 -c 0.01 -t 0.05 -l NBAdaptive",
    "moa:bayes.NaiveBayes",
    "moa:functions.MajorityClass",
]


def _texts_off_canvas(fig):
    """The visible, non-empty texts of ``fig`` whose rendered box leaves the canvas."""
    from matplotlib.text import Text

    r = _drawn(fig)
    hidden = set()  # tick labels of ticks outside the view limits: matplotlib skips them
    for ax in fig.axes:
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not min(lo, hi) - 1e-9 <= tick.get_loc() <= max(lo, hi) + 1e-9:
                    hidden |= {id(tick.label1), id(tick.label2)}
    return [t.get_text() for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden
            and not _inside(t.get_window_extent(r), fig.bbox)]


def test_no_text_of_any_figure_leaves_the_canvas_with_long_moa_names(long_names):
    """Every figure of a run with long names, and the critical-difference diagram of the
    per-run and suite kinds with full MOA specs, keeps every text on the canvas (checked
    with matplotlib's renderer boxes); the per-run diagram says it ranks folds of one
    stream."""
    from distval.experiments.suite.figures import plot_cd
    from distval.report.figures import plot_adwin_width, plot_q
    from distval.report.significance import draw_critical_difference, plot_critical_difference

    res = load_results(long_names)
    cd = plot_critical_difference(res)
    assert cd is not None
    title = " ".join(cd.axes[0].get_title().split()) + " ".join(
        (cd._suptitle.get_text() if cd._suptitle else "").split())
    assert "folds of one stream" in title
    figures = [plot_measure(res), plot_tests(res), plot_baselines(res), plot_q(res),
               plot_adwin_width(res), cd]
    ranks = [1.4, 2.2, 2.9, 3.5]
    figures.append(draw_critical_difference(
        ranks, MOA_LONG, 1.48,
        "Average ranks over 4 streams (1 = best); Nemenyi CD at alpha = 0.05; Friedman "
        "(Iman–Davenport) does not reject"))
    suite = {"comparison": {"learners": MOA_LONG, "streams": ["a", "b", "c", "d"],
                            "average_ranks": dict(zip(MOA_LONG, ranks)), "alpha": 0.05,
                            "friedman": {"critical_difference": 2.35, "reject": False}}}
    figures.append(plot_cd(suite))
    for fig in figures:
        assert fig is not None
        assert _texts_off_canvas(fig) == []


def test_an_auc_run_with_delayed_labels_reports_its_measure_delay_and_label_share(tmp_path):
    """The report of `--measure auc --delay 300 --label-probability 0.5`: the title names
    the delay, the label share and the measure; the final measures table has an auc column
    equal to the folds' mean AUC (folds.parquet); an AUC figure is drawn; the pair's figure
    draws each fold's paired AUC difference (paired.parquet)."""
    d = tmp_path / "auc"
    distval.evaluate(stream="sea", n_rows=2000, learners=("nb", "ht"), n_folds=3,
                     test_every=500, delay=300, label_probability=0.5, measure="auc",
                     output_dir=d)
    html = make_report(d)
    page = _parse(html)
    title = html.read_text().split("<h1>")[1].split("</h1>")[0]
    assert "labels 300 rows late" in title and "50 % revealed" in title
    assert title.endswith("measure auc")
    assert "fig-auc" in page.figures and "fig-verdict_1" in page.figures
    head, rows = page.headers["tab-measures"], page.tables["tab-measures"]
    col = head.index("auc")
    f = pd.read_parquet(d / "folds.parquet")
    last = f[(f["position"] == f["position"].max()) & (f["forgetting"] == "adwin")]
    for row in rows:
        if row[1] == "adwin":
            want = last[last["learner"] == row[0]]["auc"].mean()
            assert row[col].startswith(f"{want:.4f}")
