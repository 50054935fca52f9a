"""config.json carries a format number; one reader function upgrades every older format."""

from __future__ import annotations

import json

import pytest

from distval.config import CONFIG_FORMAT, RunConfig, read_config
from distval.errors import DistvalError


def test_a_saved_configuration_carries_todays_format_number():
    assert RunConfig().to_dict()["format"] == CONFIG_FORMAT == 2


def test_format_1_is_upgraded_to_todays_names():
    old = {"stream": "sea", "n_folds": 4, "delta": 0.01}  # unnumbered: format 1
    cfg = RunConfig.from_dict(json.loads(json.dumps(old)))
    assert cfg.adwin_delta == 0.01 and cfg.n_folds == 4
    assert read_config(old)["format"] == CONFIG_FORMAT


def test_a_newer_format_is_refused():
    with pytest.raises(DistvalError, match="format 3, newer than this distval reads"):
        read_config({"format": 3})


def test_unknown_keys_are_refused_with_the_closest_known_name():
    with pytest.raises(DistvalError, match=r"key 'adwin_detla' \(did you mean 'adwin_delta'"):
        RunConfig.from_dict({"adwin_detla": 0.01})
    # a results directory keeps keys a caller added with save(extra=...)
    assert read_config({"note": "mine"}, strict=False)["note"] == "mine"
