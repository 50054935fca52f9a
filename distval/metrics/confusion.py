"""The measures: accuracy, the kappa family, recalls, MCC and F1 from confusion counts.

Every (learner, fold) pair is a *slot*. A slot's state is a confusion matrix ``C[slot]``
(rows = true class, columns = predicted class) and ``P[slot]``, how many of its rows the
Persistent classifier (previous true label of the whole stream) got right. Every measure is a
function of that state (:func:`measures`), so accuracy, kappa, kappa-M and kappa-per always
describe the same rows (Bifet et al. 2015, section 5). What the state covers is the
forgetting mechanism's business (:mod:`distval.metrics.trackers`).
"""

from __future__ import annotations

import numpy as np

from distval.errors import DistvalError

__all__ = [
    "FORGETTING",
    "MAX_CLASSES",
    "MEASURES",
    "class_count",
    "kappa_family",
    "measures",
    "pack",
    "unpack",
]

MEASURES = (
    "accuracy",
    "kappa",
    "kappa_m",
    "kappa_per",
    "kappa_plus",
    "recall_arith",
    "recall_geom",
    "recall_harm",
    "mcc",
    "f1",
    "p_maj",
    "p_per",
)
FORGETTING = ("adwin", "window", "fading", "ewma", "cumulative")

# A tested row as one code: true class << 16 | predicted class << 1 | persistent correct.
# Windows keep one int32 code per row (an ADWIN window on a stationary stream holds every
# row), so classes are limited to MAX_CLASSES; a confusion matrix that size would not fit in
# memory anyway.
PRED_SHIFT = 1
Y_SHIFT = 16
CLASS_MASK = (1 << 15) - 1
MAX_CLASSES = 1 << 15


def pack(y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray) -> np.ndarray:
    """Pack (true class, predicted class, persistent correct) into one int64 per row.

    >>> codes = pack(np.array([2, 0]), np.array([1, 0]), np.array([True, False]))
    >>> [a.tolist() for a in unpack(codes)]
    [[2, 0], [1, 0], [True, False]]
    """
    return (
        (y.astype(np.int64) << Y_SHIFT)
        | (pred.astype(np.int64) << PRED_SHIFT)
        | per_ok.astype(np.int64)
    )


def unpack(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of :func:`pack`."""
    return (codes >> Y_SHIFT) & CLASS_MASK, (codes >> PRED_SHIFT) & CLASS_MASK, (codes & 1) == 1


def _ratio(num: np.ndarray, den: np.ndarray, empty: float) -> np.ndarray:
    """``num / den``, ``empty`` where ``den`` is 0 (the callers silence numpy's warnings)."""
    return np.where(den == 0, empty, num / den)


def kappa_family(
    p0: np.ndarray, p_ran: np.ndarray, p_maj: np.ndarray, p_per: np.ndarray
) -> dict[str, np.ndarray]:
    """Accuracy and its chance-corrected variants against the three baselines.

    Bifet et al. 2015, section 5 (kappa, kappa-M, kappa-per, kappa+).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        # (p0 - pe) / (1 - pe) for each baseline; 0 when it is perfect (river's convention).
        pe = np.stack([p_ran, p_maj, p_per])
        kappa, kappa_m, kappa_per = _ratio(p0 - pe, 1.0 - pe, 0.0)
    return {
        "accuracy": p0,
        "kappa": kappa,
        "kappa_m": kappa_m,
        "kappa_per": kappa_per,
        "kappa_plus": np.sqrt(np.maximum(kappa, 0.0) * np.maximum(kappa_per, 0.0)),
    }


def measures(C: np.ndarray, P: np.ndarray) -> dict[str, np.ndarray]:
    """All the measures from confusion matrices and persistent-correct counts.

    ``C`` has shape (..., c, c) with rows = true class; ``P`` has shape (...). Rows with no
    tested instance give NaN. Kappa-type measures are 0 when their baseline is perfect.
    ``recall`` is per class (NaN for a class absent from the rows); its arithmetic, geometric
    and harmonic means run over the classes present. ``mcc`` and ``f1`` (of class index 1)
    are defined for two classes only, NaN otherwise.

    bifet2015 Table 5 (class + first):

    >>> m = measures(np.array([[40.0, 30.0], [5.0, 25.0]]), np.array(0.0))
    >>> {k: round(float(m[k]) * 100, 2) for k in ("accuracy", "kappa", "kappa_m", "mcc")}
    {'accuracy': 65.0, 'kappa': 32.69, 'kappa_m': -16.67, 'mcc': 37.28}
    >>> [round(float(m[k]) * 100, 2) for k in ("recall_arith", "recall_geom", "recall_harm")]
    [70.24, 69.01, 67.8]
    """
    C = np.asarray(C, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    c = C.shape[-1]
    n = C.sum(axis=(-2, -1))
    diag = np.diagonal(C, axis1=-2, axis2=-1)
    rows = C.sum(axis=-1)
    cols = C.sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        # p0 and the baselines' accuracies (random, majority, persistent), in one division
        p0, p_ran, p_maj, p_per = _ratio(
            np.stack([diag.sum(axis=-1), (rows * cols).sum(axis=-1),
                      rows.max(axis=-1) if c else n, P]),
            np.stack([n, n * n, n, n]),
            np.nan,
        )
        present = rows > 0
        n_present = present.sum(axis=-1)
        recall = np.where(present, diag / rows, np.nan)
        safe = np.where(present, recall, 1.0)
        # the sums over the classes present of recall, its log and its inverse
        sums, logs, inverses = np.where(present, [recall, np.log(safe), 1.0 / safe], 0.0).sum(-1)
        arith = sums / n_present
        geom = np.exp(logs / n_present)
        harm = n_present / inverses
        if c == 2:
            tn, fp, fn, tp = C[..., 0, 0], C[..., 0, 1], C[..., 1, 0], C[..., 1, 1]
            # (tp + fp) (tp + fn) (tn + fp) (tn + fn): the predicted and true class totals
            mcc_den = np.sqrt(cols[..., 1] * rows[..., 1] * rows[..., 0] * cols[..., 0])
            mcc = _ratio(tp * tn - fp * fn, mcc_den, 0.0)
            f1 = _ratio(2 * tp, 2 * tp + fp + fn, 0.0)
        else:
            mcc = f1 = np.full(n.shape, np.nan)
    out = {
        **kappa_family(p0, p_ran, p_maj, p_per),
        "recall_arith": arith,
        "recall_geom": geom,
        "recall_harm": harm,
        "mcc": mcc,
        "f1": f1,
        "p_maj": p_maj,
        "p_per": p_per,
    }
    empty = n == 0
    if empty.any():  # no tested row: NaN, not a perfect baseline's 0
        for key in ("kappa", "kappa_m", "kappa_per", "kappa_plus", "recall_arith",
                    "recall_geom", "recall_harm", "mcc", "f1"):
            out[key] = np.where(empty, np.nan, out[key])
    out["recall"] = recall
    out["n"] = n
    return out


def class_count(n_classes: int) -> int:
    if n_classes > MAX_CLASSES:
        raise DistvalError(
            f"a stream with {n_classes} classes: the measures support at most {MAX_CLASSES}"
        )
    return n_classes
