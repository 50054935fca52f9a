"""Published numbers of bifet2015 §4.1 (Tables 2, 3 and 4), kept as data for comparison.

Bifet, Morales, Read, Holmes, Pfahringer (2015), "Efficient Online Evaluation of Big Data
Stream Classifiers", KDD. Every value is a fraction of 50 runs that reject the null
hypothesis at alpha = 0.05 with 10 folds; the column groups are *no change* (two seeds of
the same randomised learner: rejections are type I errors) and *change* with pnoise = 0.05
and 0.10 (a noise-filtered learner: non-rejections are type II errors).

Table 3 (McNemar, per stream) and Table 4 (Wilcoxon, per stream) do not name the
prequential variant; their *Average* rows equal the McNemar non-prequential row and the
Wilcoxon prequential row of Table 2 respectively, which is what :data:`TABLE3_VARIANT` and
:data:`TABLE4_VARIANT` record (the tests check those averages against Table 2).

>>> TABLE2[("wilcoxon", True)][(0.0, "cv")]
0.1
>>> TABLE3["SEA(50)"][(0.05, "bootstrap")]
0.69
"""

from __future__ import annotations

__all__ = [
    "CHANGES",
    "PAPER_STREAMS",
    "SCHEMES",
    "TABLE2",
    "TABLE2_SECONDS",
    "TABLE3",
    "TABLE3_VARIANT",
    "TABLE4",
    "TABLE4_VARIANT",
]

#: Column groups: pnoise of the second learner (0.0 = same algorithm, another seed).
CHANGES = (0.0, 0.05, 0.10)
#: Column order inside each group, as printed in the paper.
SCHEMES = ("bootstrap", "cv", "split")
#: Row order of Tables 3 and 4.
PAPER_STREAMS = (
    "CovType",
    "Electricity",
    "Poker",
    "LED(50000)",
    "SEA(50)",
    "SEA(50000)",
    "HYP(10,0.001)",
    "HYP(10,0.0001)",
    "RBF(0,0)",
    "RBF(50,0.001)",
    "RBF(10,0.001)",
    "RBF(50,0.0001)",
    "RBF(10,0.0001)",
)


def _cols(values: list[float]) -> dict[tuple[float, str], float]:
    """Nine values in the paper's column order -> {(pnoise, scheme): value}."""
    keys = [(c, s) for c in CHANGES for s in SCHEMES]
    return dict(zip(keys, values, strict=True))


#: bifet2015 Table 2: {(test, prequential): {(pnoise, scheme): fraction}}, aggregated over
#: all streams.
TABLE2 = {
    ("mcnemar", False): _cols([0.71, 0.52, 0.66, 0.86, 0.80, 0.73, 0.88, 0.84, 0.75]),
    ("mcnemar", True): _cols([0.77, 0.80, 0.42, 0.88, 0.94, 0.56, 0.90, 0.95, 0.58]),
    ("sign", False): _cols([0.11, 0.11, 0.10, 0.77, 0.82, 0.44, 0.82, 0.88, 0.50]),
    ("sign", True): _cols([0.12, 0.12, 0.09, 0.77, 0.83, 0.44, 0.82, 0.89, 0.50]),
    ("wilcoxon", False): _cols([0.11, 0.11, 0.14, 0.79, 0.84, 0.51, 0.83, 0.90, 0.55]),
    ("wilcoxon", True): _cols([0.11, 0.10, 0.19, 0.80, 0.84, 0.54, 0.83, 0.91, 0.59]),
}

#: bifet2015 Table 2, last two rows: average time of one experiment in seconds,
#: {prequential: {(pnoise, scheme): seconds}}.
TABLE2_SECONDS = {
    False: _cols([883, 1105, 415, 877, 1121, 422, 900, 1148, 421]),
    True: _cols([813, 1202, 109, 820, 1214, 111, 808, 1294, 112]),
}


def _per_stream(columns: list[list[float]]) -> dict[str, dict[tuple[float, str], float]]:
    """Nine columns of 13 per-stream values -> {stream: {(pnoise, scheme): value}}."""
    keys = [(c, s) for c in CHANGES for s in SCHEMES]
    return {
        stream: {key: col[i] for key, col in zip(keys, columns, strict=True)}
        for i, stream in enumerate(PAPER_STREAMS)
    }


#: bifet2015 Table 3: McNemar's test per stream, {stream: {(pnoise, scheme): fraction}}.
TABLE3 = _per_stream(
    [
        [0.86, 0.45, 0.73, 0.92, 0.67, 0.68, 0.61, 0.61, 0.89, 0.26, 0.88, 0.76, 0.89],
        [0.64, 0.16, 0.45, 0.85, 0.35, 0.35, 0.32, 0.40, 0.80, 0.20, 0.74, 0.68, 0.80],
        [0.98, 0.79, 0.86, 0.96, 0.88, 0.89, 0.61, 0.83, 0.36, 0.36, 0.36, 0.37, 0.36],
        [0.97, 0.99, 0.82, 0.96, 0.69, 0.70, 1.00, 1.00, 0.98, 0.18, 0.97, 0.91, 0.96],
        [0.98, 0.92, 0.78, 0.92, 0.39, 0.41, 1.00, 1.00, 0.98, 0.43, 0.96, 0.76, 0.92],
        [0.98, 0.88, 0.98, 1.00, 0.89, 0.89, 1.00, 1.00, 0.39, 0.39, 0.39, 0.39, 0.37],
        [0.98, 1.00, 0.96, 0.99, 0.70, 0.71, 1.00, 1.00, 0.99, 0.20, 0.98, 0.91, 0.98],
        [0.99, 1.00, 0.99, 0.96, 0.43, 0.44, 1.00, 1.00, 0.99, 0.44, 0.98, 0.76, 0.94],
        [0.99, 0.94, 1.00, 1.00, 0.89, 0.89, 1.00, 1.00, 0.40, 0.39, 0.40, 0.41, 0.40],
    ]
)
#: The Table 2 row that Table 3 breaks down: (test, prequential).
TABLE3_VARIANT = ("mcnemar", False)

#: bifet2015 Table 4: Wilcoxon's signed-rank test per stream.
TABLE4 = _per_stream(
    [
        [0.12, 0.12, 0.08, 0.11, 0.11, 0.10, 0.09, 0.13, 0.11, 0.14, 0.12, 0.10, 0.10],
        [0.10, 0.13, 0.10, 0.09, 0.12, 0.09, 0.10, 0.09, 0.10, 0.10, 0.10, 0.11, 0.09],
        [0.10, 0.14, 0.10, 0.10, 0.14, 0.09, 0.13, 0.11, 0.32, 0.30, 0.32, 0.31, 0.31],
        [0.99, 1.00, 0.79, 0.82, 0.26, 0.21, 1.00, 1.00, 1.00, 0.32, 1.00, 1.00, 1.00],
        [1.00, 1.00, 1.00, 0.49, 0.27, 0.29, 1.00, 1.00, 1.00, 1.00, 1.00, 0.85, 1.00],
        [0.63, 0.72, 1.00, 1.00, 0.11, 0.11, 1.00, 1.00, 0.29, 0.33, 0.28, 0.31, 0.32],
        [1.00, 1.00, 1.00, 1.00, 0.36, 0.32, 1.00, 1.00, 1.00, 0.13, 1.00, 0.99, 1.00],
        [1.00, 1.00, 1.00, 0.99, 0.45, 0.49, 1.00, 1.00, 1.00, 1.00, 1.00, 0.86, 1.00],
        [0.97, 0.98, 1.00, 1.00, 0.12, 0.11, 1.00, 1.00, 0.33, 0.29, 0.28, 0.30, 0.29],
    ]
)
#: The Table 2 row that Table 4 breaks down: (test, prequential).
TABLE4_VARIANT = ("wilcoxon", True)
