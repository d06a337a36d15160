"""Learners: every kind of a claim's ``train`` (:mod:`engines.learners.registry`).

Importing the package registers each learner module listed here; a new learner is its module
and one line below.
"""

from engines.learners import (  # noqa: F401  (each registers its learners)
    kf_q_kind,  # kf-q
    network,  # nnue-distil, nnue-evolve
    ridge_q,  # ridge-q
    search,  # cmaes, cem
    td,  # ntuple, linear
    treestrap,  # treestrap
)
from engines.learners.registry import LEARNERS, LearnerKind, get_learner, learner_leaf, train_schema

__all__ = ["LEARNERS", "LearnerKind", "get_learner", "learner_leaf", "train_schema"]
