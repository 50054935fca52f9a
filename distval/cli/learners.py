"""``distval learners``: the built-in learner names and what they build."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``distval learners`` takes no options."""


def main(args: argparse.Namespace) -> int:
    from distval.learners import BUILTIN, moa

    for name, (_, what) in BUILTIN.items():
        print(f"{name:12s} {what}")
    print("sklearn:NAME scikit-learn classifiers with partial_fit, in mini-batches "
          "(SGDClassifier, Perceptron, MultinomialNB, MLPClassifier, ...)")
    moa.print_families()
    return 0
