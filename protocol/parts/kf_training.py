"""Weights a claim trains with the Klein-Friedmann Q-learner (``train: {learner: kf-q}``).

Such weights are a kf arm's six weights (``{play: kf, weights: NAME}``), not a
leaf: they have no validation search and no gates; their curve is the
learner's own (the greedy policy against random play at every checkpoint,
:mod:`engines.learners.kf_q_train`), and the last checkpoint is frozen with its
SHA-256 beside it in the training directory.  A profile shrinks the games and
the checkpoints' spacing (``shrink.train_games`` and ``shrink.checkpoints``, or
``claims.<id>.weights.<name>.games`` and ``every``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.filters.kf_weights import KF_TRAINED_RECORD, KF_TRAINED_WEIGHTS, KF_WEIGHTS
from engines.learners.kf_q_kind import DEFAULTS, KF_Q
from protocol.claim import Claim, kf_q_weights
from protocol.commands import train
from protocol.parts.base import KeyCheck, ProfileSettings, moves_text, names_of
from protocol.paths import Paths

#: the curve's games at every checkpoint (the same for every claim)
CURVE_GAMES = 64
#: seconds of CPU a training game costs (about 36 moves at 600,000 moves a second, plus the
#: checkpoints' games), for the estimate
GAME_SECONDS = 1e-4


def check_kf_q(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each kf-q weights' name (not a named vector's; its keys are its learner's check,
    :mod:`engines.learners.kf_q_kind`), and every kf arm's weights: a named vector, a pinned
    file or kf-q weights this claim trains."""
    learned = kf_q_weights(doc)
    for name in learned:
        if name in KF_WEIGHTS:
            chk.fail(f"weights.{name}", f"{name!r} is a named KF vector "
                     "(engines/filters/kf_weights.py): give the trained weights another name")
    for name, arm in doc["arms"].items():
        w = arm.get("weights")
        if arm["play"] == "kf" and isinstance(w, str) and w not in KF_WEIGHTS and w not in learned:
            chk.fail(f"arms.{name}.weights", f"{w!r} is neither a named vector "
                     f"({', '.join(KF_WEIGHTS)}) nor kf-q weights this claim trains "
                     f"({names_of(learned)})")


@dataclass(frozen=True)
class KfTraining:
    """One kf-q weights of a claim at this profile's budget."""

    claim: str
    name: str
    games: int
    every: int
    schedule: str
    first_game: int
    explore_seed: int
    dir: str

    @property
    def weights_file(self) -> str:
        """The frozen weights (the last checkpoint's, in the KF weights file format)."""
        return f"{self.dir}/{KF_TRAINED_WEIGHTS}"

    @property
    def record(self) -> str:
        """The frozen weights' record (their SHA-256)."""
        return f"{self.dir}/{KF_TRAINED_RECORD}"

    @property
    def curve(self) -> str:
        """The learner's curve and health at every checkpoint."""
        from engines.learners.kf_q_train import CURVE

        return f"{self.dir}/{CURVE}"

    @property
    def seconds(self) -> float:
        """Estimated CPU seconds of the training and its curve."""
        return self.games * GAME_SECONDS

    def command(self) -> str:
        """The ``drop7 kf-train`` line that trains (or resumes) these weights."""
        return train(KF_Q.name, self.recipe(), self.games, self.dir, 0)

    def recipe(self) -> dict[str, Any]:
        """What determines the weights, with the checkpoint spacing."""
        return {"games": self.games, "every": self.every, "schedule": self.schedule,
                "first_game": self.first_game, "explore_seed": self.explore_seed,
                "validation_games": CURVE_GAMES}


def plan_kf_training(claim: Claim, prof: ProfileSettings, paths: Paths,
                     shrunk: list[str]) -> dict[str, KfTraining]:
    """Every kf-q weights at this profile's budget (each shrink listed in ``shrunk``)."""
    out = {}
    for name, w in claim.kf_q.items():
        t = {**DEFAULTS, **w["train"]}
        games = prof.size(("weights", name, "games"), "train_games", t["games"])
        every = prof.over.get("weights", {}).get(name, {}).get("every")
        if every is None:
            every = min(t["every"], games)
            cap = prof.caps.get("checkpoints")
            if cap and -(-games // every) > cap:
                every = -(-games // cap)
        elif every > games:
            prof.fail(f"claims.{claim.id}.weights.{name}.every", f"{every:,} is larger than the "
                      f"{games:,} games trained")
        if (games, every) != (t["games"], t["every"]):
            shrunk.append(f"{name}: trained {moves_text(games)} games, a checkpoint every "
                          f"{moves_text(every)} (declared: {moves_text(t['games'])} every "
                          f"{moves_text(t['every'])})")
        out[name] = KfTraining(claim.id, name, games, every, t["schedule"], t["first_game"],
                               t["explore_seed"],
                               paths.path("train", claim=claim.id, weights=name))
    return out
