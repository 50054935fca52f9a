"""Stage ③ of the pipeline: learners and the hosts that run their fold replicas.

``registry`` turns names and import paths into seeded replicas, ``weights`` is the
training-weight rule, ``temporal`` holds the temporal-dependence wrappers and ``host`` runs
predict-then-learn over a batch for a group of (learner, fold) slots.
"""

from distval.learners.batch import Batch, to_dicts
from distval.learners.host import LearnerHost
from distval.learners.registry import (
    BUILTIN,
    LearnerSpec,
    check_learner_class,
    learner_factory,
    learner_spec,
    parse_learner,
)
from distval.learners.replicas import make_replicas, replica_seed

__all__ = [
    "BUILTIN",
    "Batch",
    "LearnerHost",
    "LearnerSpec",
    "check_learner_class",
    "learner_factory",
    "learner_spec",
    "make_replicas",
    "parse_learner",
    "replica_seed",
    "to_dicts",
]
