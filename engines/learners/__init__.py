"""Learners: every kind of a claim's ``train`` (:mod:`engines.learners.registry`).

Importing the package registers each learner module listed here; a new learner is its module
and one line below.
"""

from engines.learners import (
    ridge_q,  # noqa: F401  (registers ridge-q)
    search,  # noqa: F401  (registers cmaes, cem)
    td,  # noqa: F401  (registers ntuple, linear)
    treestrap,  # noqa: F401  (registers treestrap)
)
from engines.learners.registry import LEARNERS, LearnerKind, get_learner, learner_leaf, train_schema

__all__ = ["LEARNERS", "LearnerKind", "get_learner", "learner_leaf", "train_schema"]
