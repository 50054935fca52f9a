"""The learners of ``distval run`` when none are named: MOA's Hoeffding tree and naive Bayes
where MOA can run, river's ``ht`` and ``nb`` otherwise, and the line that says which.

MOA's two learners do the default job (Electricity, 10-fold bootstrap) in seconds where
river's take about a minute (docs/performance.md); they need the ``moa`` extra
(capymoa, which ships MOA's jar, and JPype) and a JDK. Every machine that has them runs the
same MOA learners, so gets the same numbers; a machine without them runs river's, and the
line says so and why. A run of ``--config`` keeps its saved learners.

>>> learners, line = default_learners(missing=None)
>>> learners
('HoeffdingTree=moa:trees.HoeffdingTree', 'NaiveBayes=moa:bayes.NaiveBayes')
>>> line.startswith("distval: learners: MOA's Hoeffding tree (HoeffdingTree)")
True
>>> learners, line = default_learners(missing="no JDK")
>>> learners, "river's Hoeffding tree (ht)" in line, line.endswith("(no JDK)")
(('ht', 'nb'), True, True)
"""

from __future__ import annotations

from distval.learners.moa import jvm

__all__ = ["MOA_LEARNERS", "RIVER_LEARNERS", "default_learners"]

#: The default job's learners where MOA can run, labelled with MOA's class names.
MOA_LEARNERS = ("HoeffdingTree=moa:trees.HoeffdingTree", "NaiveBayes=moa:bayes.NaiveBayes")
#: The default job's learners elsewhere (RunConfig's default).
RIVER_LEARNERS = ("ht", "nb")

_UNSET = object()


def default_learners(missing: object = _UNSET) -> tuple[tuple[str, ...], str]:
    """The learners of a run that names none and the run's first line, which says which;
    ``missing``: why MOA cannot run (None: it can; default: :func:`jvm.missing`)."""
    why = jvm.missing() if missing is _UNSET else missing
    if why is None:
        return MOA_LEARNERS, (
            "distval: learners: MOA's Hoeffding tree (HoeffdingTree) and naive Bayes "
            "(NaiveBayes), the default; --learners names others"
        )
    return RIVER_LEARNERS, (
        "distval: learners: river's Hoeffding tree (ht) and naive Bayes (nb), the default "
        "without MOA, whose two take seconds where these take about a minute on Electricity "
        f"({why})"
    )
