"""Nominal features reach river's trees as categories (nominal splits), others as codes."""

from __future__ import annotations

import random

from river import tree
from river.tree.nodes.branch import NominalBinaryBranch, NominalMultiwayBranch

from distval.config import RunConfig
from distval.engine.loop import LocalEvaluation, iter_batches, open_config_stream


def rows(n=3000, seed=1):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        colour = rng.choice(["red", "green", "blue", "black"])
        x = {"colour": colour, "noise": rng.random()}
        out.append((x, "yes" if colour in ("red", "blue") else "no"))
    return out


def test_a_hoeffding_tree_on_a_nominal_stream_makes_nominal_splits():
    data = rows()
    cfg = RunConfig(
        stream=data,
        learners=("ht(grace_period=100)", "nb"),
        n_folds=2,
        test_every=1000,
        batch_size=500,
    )
    stream = open_config_stream(cfg)
    local = LocalEvaluation(cfg, stream)
    for batch in iter_batches(stream, cfg):
        local.step(batch)
    ht, nb = local.host.models[0], local.host.models[2]
    root = ht._root
    assert isinstance(root, (NominalBinaryBranch, NominalMultiwayBranch))
    assert root.feature == "colour"
    # river itself, on the same rows with the strings, grows the same kind of split
    direct = tree.HoeffdingTreeClassifier(grace_period=100)
    for x, y in data:
        direct.learn_one(x, y)
    assert type(direct._root) is type(root) and direct._root.feature == "colour"
    # naive Bayes cannot take strings: it got the category codes, as numbers
    assert all(isinstance(v, float) for g in nb.gaussians.values() for v in [g["colour"].mu])
    assert ht.predict_one({"colour": "blue", "noise": 0.5}) == stream.classes.index("yes")


def test_a_category_known_only_later_still_splits_apart_from_the_known_ones(tmp_path):
    path = tmp_path / "nominal.csv"
    text = "".join(f"{x['colour']},{x['noise']},{y}\n" for x, y in rows(2000, seed=2))
    path.write_text("colour,noise,label\n" + text)
    cfg = RunConfig(stream=str(path), learners=("ht(grace_period=100)",), n_folds=2,
                    test_every=1000)
    stream = open_config_stream(cfg)
    local = LocalEvaluation(cfg, stream)
    for batch in iter_batches(stream, cfg):
        local.step(batch)
    root = local.host.models[0]._root
    assert isinstance(root, (NominalBinaryBranch, NominalMultiwayBranch))
    assert root.feature == "colour"
