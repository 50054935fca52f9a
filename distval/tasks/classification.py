"""Classification: the learners predict a class label, scored by its 0/1 error.

Its measures are the confusion-matrix measures of :mod:`distval.metrics.confusion` (accuracy,
κ, κm, κper, κ+, the recalls, MCC, F1) and, when a run asks for one, the probabilistic ones
of :mod:`distval.metrics.probabilistic` (log-loss, Brier, AUC). Its baselines are the
majority class (κm; Bifet et al. 2015, §5) and the no-change classifier that predicts the
previous label (κper; Žliobaitė et al. 2015, §4.4, Eq. 13). Shares and κ print in percent.

>>> from distval.tasks import task_named
>>> t = task_named("classification")
>>> t.cell("accuracy", 0.8453, 0.0041), t.higher_is_better("brier")
('84.53 ± 0.41', False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from distval.columns import FOLD_SCHEMA
from distval.errors import DistvalError
from distval.metrics import FORGETTING, LOWER_IS_BETTER, MEASURES, PROBA_MEASURES
from distval.tasks.base import Config, Learners, Task, and_words, baselines, fold_mean

__all__ = ["Classification"]

#: Measures that are shares or κ statistics (printed in percent).
_PERCENT = frozenset(MEASURES)

#: Names of the measures in lines and headers, where they differ from the option's.
_WORDS = {"kappa": "κ", "kappa_m": "κm", "kappa_per": "κper", "kappa_plus": "κ+",
          "recall_harm": "harmonic mean of recalls", "log_loss": "log-loss",
          "brier": "Brier score", "auc": "AUC"}


class Classification(Task):
    """Class labels, 0/1 error (see the module)."""

    name = "classification"
    fold_schema = FOLD_SCHEMA
    compared = MEASURES + PROBA_MEASURES
    forgetting = FORGETTING
    tests = ("sign", "wilcoxon", "mcnemar", "friedman")
    shown = ("accuracy", "kappa", "kappa_m", "kappa_per", "kappa_plus", "recall_harm")
    compact = (("accuracy", "accuracy"), ("kappa", "κ"), ("kappa_m", "κm"),
               ("kappa_per", "κper"))
    cumulative = "accuracy"
    loss = "error difference"
    over_time = (
        ("accuracy", "Accuracy over time",
         "Thin lines: single folds; thick line: mean over folds; band: min-max over folds; "
         "dotted: cumulative mean."),
        ("kappa_m", "κm over time",
         "κm compares with the majority-class classifier: below 0 is worse than it."),
    )
    baseline_figure = ("accuracy", (("p_per", "Persistent (no change), same rows", "k--"),
                                    ("p_maj", "majority class share, same rows", "k:")))
    baseline_caption = (
        "Learners against the no-change (Persistent) classifier and the majority class, on "
        "the rows the folds tested (a learner under the dashed line has learnt less than "
        "the previous label tells).")
    relative = ((("kappa_m", "κm"), ("kappa_per", "κper")),
                ("κm (vs majority class) and κper (vs persistent)",
                 "κ relative to baseline (%)", 0.0, "below 0: worse than the baseline"))
    measures_note = ("κ+ is the geometric mean of κ and κper with each clipped at 0: it reads "
                     "0.00 wherever κper (or κ) is below 0.")
    units = "in percent"
    named_in_config = False

    def higher_is_better(self, measure: str) -> bool:
        return measure not in LOWER_IS_BETTER

    def percent(self, measure: str) -> bool:
        return measure in _PERCENT

    def label(self, measure: str) -> str:
        """The measure's name (:meth:`word`), with ``(%)`` where it prints in percent.

        >>> Classification().label("kappa_m"), Classification().label("auc")
        ('κm (%)', 'AUC')
        """
        return f"{self.word(measure)} (%)" if self.percent(measure) else self.word(measure)

    def word(self, measure: str) -> str:
        """
        >>> Classification().word("auc"), Classification().word("accuracy")
        ('AUC', 'accuracy')
        """
        return _WORDS.get(measure, measure)

    def units_of(self, measure: str) -> str:
        return self.units if self.percent(measure) else "as plain numbers"

    def measured(self, config: Config) -> tuple[str, ...]:
        """The probabilistic measures only when the run asked for one."""
        return MEASURES + PROBA_MEASURES if config.measure in PROBA_MEASURES else MEASURES

    def check(self, config: Config) -> None:
        if config.measure not in self.compared:
            if config.measure in ("rmse", "mae", "r2"):
                raise DistvalError(
                    f"measure {config.measure!r} is a regression measure: give --task regression"
                )
            raise DistvalError(
                f"unknown measure {config.measure!r}; choose one of {', '.join(self.compared)}"
            )

    def baseline(self, learners: Learners, names: Mapping[str, str]) -> dict[str, Any] | None:
        """The no-change and majority-class baselines over all rows, and the learners that
        do not beat the no-change classifier (Žliobaitė et al. 2015, §4: on a stream with
        long label runs, a learner under it has learnt less than the previous label tells).
        From each learner's cumulative means over folds: ``p_per`` (Persistent's accuracy on
        the rows the folds tested), ``p_maj`` (the majority class's share) and ``kappa_per``.

        >>> m = {"accuracy": {"mean": .795}, "p_per": {"mean": .853}, "p_maj": {"mean": .575},
        ...      "kappa_per": {"mean": -.396}}
        >>> b = Classification().baseline({"ht": {"cumulative": m}}, {})
        >>> b["below_persistent"], b["line"][:60]
        (['ht'], 'baseline: ht does not beat the no-change classifier: accurac')
        >>> arf = {"accuracy": {"mean": .891}, "p_per": {"mean": .853}, "kappa_per": {"mean": .26}}
        >>> Classification().baseline({"ht": {"cumulative": m}, "arf": {"cumulative": arf}},
        ...                           {})["line"].split("; ")[-1]
        'beating it: arf 89.1 %'
        """
        got = baselines(learners, "p_per", "p_maj")
        if got is None:
            return None
        cum, p_per, (p_maj,) = got
        mean = fold_mean
        below = [label for label, m in cum.items()
                 if (mean(m, "kappa_per") or 0.0) <= 0 and mean(m, "accuracy") is not None]
        shown = [names.get(label, label) for label in below]
        def pct(v: float | None, measure: str = "accuracy") -> str:  # the one unit policy
            return self.show(measure, v or 0.0)

        tail = f"majority class {pct(p_maj)}" if p_maj is not None else ""
        if below:
            accs = and_words([pct(mean(cum[b], "accuracy")) for b in below])
            kappas = and_words([pct(mean(cum[b], "kappa_per"), "kappa_per") for b in below])
            verb = "does" if len(below) == 1 else "do"
            line = (f"baseline: {and_words(shown)} {verb} not beat the no-change classifier: "
                    f"accuracy {accs} against Persistent's {pct(p_per)} on the same rows "
                    f"(κper {kappas}); {tail}")
            above = [label for label in cum if label not in below
                     and mean(cum[label], "accuracy") is not None]
            if above:  # every learner placed: those that beat it said too
                beat = and_words([f"{names.get(a, a)} {pct(mean(cum[a], 'accuracy'))}"
                                  for a in above])
                line = line.rstrip("; ") + f"; beating it: {beat}"
        else:
            line = (f"baseline: every learner beats the no-change classifier (Persistent "
                    f"{pct(p_per)} on the same rows, κper > 0); {tail}")
        return {"persistent": p_per, "majority": p_maj, "below_persistent": below,
                "line": line.rstrip("; ")}
