"""The Klein-Friedmann Q-learner as a learner kind: ``kf-q`` (:mod:`engines.learners.kf_q`; no
numba here: the protocol reads it).

A declaration ``train: {learner: kf-q, games: 50000, every: 5000, schedule: upstream}``
learns a kf arm's six weights by the register's Q-learning recipe, ``drop7 kf-train``
running it (one job to the last checkpoint, resuming what a killed job left); a
checkpoint falls every ``every`` games, its curve is the greedy policy against random
play, and the last checkpoint is frozen beside its record (no selection: the weights are
not a leaf, so no validation search reads them).  The protocol plans it in
:mod:`protocol.parts.direct_training`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.filters.kf_weights import FEATURES, KF_FILE, KF_TRAINED_RECORD, KF_TRAINED_WEIGHTS
from engines.learners.registry import Fail, LearnerKind, register_learner

#: the step-size schedules, by name: the code the kernel reads (:mod:`engines.learners.kf_q`)
SCHEDULES = {"upstream": 0, "per-game": 1, "harmonic": 2, "constant": 3}
#: most training games of one run
MAX_GAMES = 10**9
#: the curve's first game in the training role (far beyond any training run: a declaration's
#: first game and games stop short of it)
VALIDATION_GAME = 10**12
#: the exploration seed unless one is given
DEFAULT_EXPLORE_SEED = 0x6B660000

#: the keys of a kf-q declaration (``learner`` aside); no defaults in the schema (the plan
#: fills :data:`DEFAULTS`)
KEYS: dict[str, Any] = {
    "games": {"type": "integer", "minimum": 1, "maximum": MAX_GAMES,
              "description": "training games"},
    "every": {"type": "integer", "minimum": 1, "maximum": MAX_GAMES,
              "description": "a checkpoint and a curve point every this many games"},
    "schedule": {"enum": list(SCHEDULES),
                 "description": "the step size (absent: upstream, 1/t per move); the theory's "
                                "slower schedules 1/games, 1/(1 + t/50,000) and 1e-3"},
    "first_game": {"type": "integer", "minimum": 0, "maximum": VALIDATION_GAME - MAX_GAMES,
                   "description": "the first game of the seed bank's training role "
                                  "(absent: 0)"},
    "explore_seed": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807,
                     "description": "the exploration stream's seed (absent: 0x6b660000)"},
}
#: seconds of CPU a training game costs (about 36 moves at 600,000 moves a second, plus the
#: checkpoints' games), for the estimate
GAME_SECONDS = 1e-4

#: what an absent key means
DEFAULTS = {"schedule": "upstream", "first_game": 0, "explore_seed": DEFAULT_EXPLORE_SEED}


def checkpoints(train: Mapping[str, Any]) -> int:
    """One every ``every`` games and one at the last (the start aside)."""
    return -(-train["games"] // train["every"])


def is_checkpoint(train: Mapping[str, Any], step: int) -> bool:
    """Whether ``step`` games is a checkpoint."""
    return 0 < step <= train["games"] and (step % train["every"] == 0 or step == train["games"])


def check(train: Mapping[str, Any], fail: Fail) -> None:
    """``every`` within the games."""
    if train["every"] > train["games"]:
        fail("every", f"{train['every']:,} is larger than games = {train['games']:,}")


def command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 kf-train`` to ``end`` games into ``out``, resuming the newest checkpoint there
    (``start`` is not needed: the command finds it)."""
    del start
    r = {**DEFAULTS, **recipe}
    return ["drop7", "kf-train", "--games", end, "--every", r["every"], "--schedule",
            r["schedule"], "--first-game", r["first_game"], "--explore-seed",
            r["explore_seed"], "--validation-games", r["validation_games"], "--out", out,
            "--resume"]


def seconds(recipe: Mapping[str, Any], game: Any = None) -> float:
    """Estimated CPU seconds of the training and its curve (``game`` is not needed)."""
    return recipe["games"] * GAME_SECONDS


KF_Q = register_learner(LearnerKind(
    name="kf-q", produces="a kf arm's six weights (Klein-Friedmann Q-learning)", keys=KEYS,
    required=("games", "every"), checkpoints=checkpoints, is_checkpoint=is_checkpoint,
    entries=lambda layout: len(FEATURES), command=command, curve="kf-q", pinned=KF_FILE,
    check=check, plays="kf", budget="games", shrink="train_games", spacing="every",
    frozen=(KF_TRAINED_WEIGHTS, KF_TRAINED_RECORD), seconds=seconds, defaults=DEFAULTS,
    figures=("final_moves",), vector="kf"))
