"""``distval describe``: Table 3 characteristics and Δ(ℓ) from the command line (zliobaite2015)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from distval.cli import main
from distval.streams import open_stream


def _labels(stream):
    return np.concatenate([c.y for c in stream.chunks(5000)])


def test_describe_a_parquet_file_matches_numpy(tmp_path, capsys):
    path = str(Path(__file__).resolve().parents[1] / "data" / "ozone8hr.parquet")
    out = tmp_path / "d.json"
    assert main(["describe", path, "--lags", "2", "--json", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    d = json.loads(out.read_text())
    labels = pq.read_table(path, columns=["class"])["class"].to_numpy().astype(str)
    values, counts = np.unique(labels, return_counts=True)
    assert d["rows"] == len(labels) == 2534 and d["attributes"] == 72
    assert dict(zip(d["classes"], d["class_counts"])) == dict(zip(values, counts.tolist()))
    assert d["p_majority"] == pytest.approx(counts.max() / len(labels))
    assert d["p_persistence"] == pytest.approx(np.mean(labels[1:] == labels[:-1]))
    # Δ(1) of the minority class "1" = P(1 | 1) - P(1), counted directly.
    prev, cur = labels[:-1], labels[1:]
    direct = np.mean(cur[prev == "1"] == "1") - np.mean(labels == "1")
    assert d["delta"][d["classes"].index("1")][0] == pytest.approx(direct)
    assert "| 2,534 |" in text and "Δ(2)" in text


def test_describe_a_generator_and_its_shuffles(tmp_path):
    spec = "sea"
    outs = {}
    for shuffle in (None, "within-class", "iid"):
        out = tmp_path / f"{shuffle}.json"
        argv = ["describe", spec, "--n-rows", "3000", "--seed", "2", "--json", str(out)]
        if shuffle:
            argv += ["--shuffle", shuffle]
        assert main(argv) == 0
        outs[shuffle] = json.loads(out.read_text())
    y = _labels(open_stream(spec, n_rows=3000, seed=2))
    assert outs[None]["p_persistence"] == pytest.approx(np.mean(y[1:] == y[:-1]))
    # The within-class shuffle keeps the label sequence: same P(T) and Δ.
    assert outs["within-class"]["p_persistence"] == outs[None]["p_persistence"]
    np.testing.assert_allclose(outs["within-class"]["delta"], outs[None]["delta"])
    # The iid shuffle keeps the class counts (as a set, indices may be renumbered).
    assert sorted(outs["iid"]["class_counts"]) == sorted(outs[None]["class_counts"])


def test_describe_bad_input_is_one_clear_error(capsys):
    assert main(["describe", "no-such-file.parquet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("distval: error:") and "Traceback" not in err
    with pytest.raises(SystemExit) as exc:
        main(["describe", "elec2", "--lags", "0"])
    assert exc.value.code == 2
