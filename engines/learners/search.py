"""The weight-search learners: ``cmaes`` and ``cem`` (:mod:`engines.learners.weight_search`).

A declaration ``train: {learner: cmaes, target: leaf, population: 16, generations: 40,
sigma: 0.25, games: 32, search: {depth: 4, strata: 5}, ...}`` searches the target vector by
games on training-role seeds, ``drop7 weight-search`` running it; a checkpoint is a
generation (``every`` is only counted toward the claim's checkpoint cap), its curve the best
and mean score per generation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from contracts.weights_dir import MANIFEST
from engines.filters.kf_weights import KF_TRAINED_RECORD, KF_TRAINED_WEIGHTS
from engines.learners.registry import Fail, LearnerKind, fair_search, register_learner
from engines.learners.vectors import STARTS, TARGETS, start_word
from engines.learners.weight_search import FITNESS, FREEZE, FROZEN_DIR

#: the keys of a weight-search declaration (``learner`` aside)
KEYS: dict[str, Any] = {
    "target": {"enum": list(TARGETS), "description": "the searched vector "
               "(engines.learners.vectors)"},
    "population": {"type": "integer", "minimum": 4, "maximum": 1024,
                   "description": "candidates a generation (CMA-ES weighs the better half)"},
    "generations": {"type": "integer", "minimum": 1, "maximum": 9_999},
    "every": {"type": "integer", "minimum": 1, "maximum": 9_999,
              "description": "counted toward the claim's checkpoint cap and checked within "
                             "the generations; the search itself writes every generation"},
    "sigma": {"type": "number", "exclusiveMinimum": 0, "maximum": 10,
              "description": "CMA-ES's step, or CEM's initial spread, in scaled coordinates"},
    "elite": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
              "description": "CEM's elite fraction"},
    "games": {"type": "integer", "minimum": 1, "maximum": 4096,
              "description": "games every candidate plays a generation, on the same seeds"},
    "search": {"type": "object", "additionalProperties": False,
               "required": ["depth", "strata"],
               "properties": {"depth": {"type": "integer", "minimum": 1, "maximum": 6},
                              "strata": {"type": "integer", "minimum": 1, "maximum": 7}}},
    "start": {"description": "the start vector: shipped (the target's shipped weights), zero, "
                             "a pinned file or {weights: NAME}, the same vector this claim "
                             "trains by one job (another search's, kf-q's six weights)",
              "default": STARTS[0],
              "oneOf": [{"enum": list(STARTS)}, {"$ref": "#/$defs/pinned"},
                        {"$ref": "#/$defs/trained"}]},
    # no schema default: an absent fitness is the score and leaves the planned recipe, and so
    # the protocol hash of a claim declared before the key, as it was
    "fitness": {"enum": list(FITNESS),
                "description": "what scores a candidate: its games' mean final score (absent), "
                               "or their mean length in moves (the register's lifetime "
                               "objective)"},
    "freeze": {"enum": list(FREEZE), "default": "mean",
               "description": "the vector a checkpoint freezes: the distribution's mean or "
                              "the generation's best candidate"},
    "seed": {"type": "integer", "minimum": 0, "maximum": 4294967295, "default": 0},
    "first_game": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807,
                   "default": 0},
}


def _every(train: Mapping[str, Any]) -> int:
    return train.get("every", 1)


def checkpoints(train: Mapping[str, Any]) -> int:
    """One every ``every`` generations and one at the last."""
    return math.ceil(train["generations"] / _every(train))


def is_checkpoint(train: Mapping[str, Any], step: int) -> bool:
    """Whether generation ``step`` is a checkpoint."""
    return 0 < step <= train["generations"] and (
        step % _every(train) == 0 or step == train["generations"])


def check(train: Mapping[str, Any], fail: Fail) -> None:
    """A leaf target names its search, the KF target none; ``elite`` is CEM's; ``every``
    within the generations."""
    leaf = train["target"] != "kf"
    if leaf and "search" not in train:
        fail("search", f"target {train['target']} plays inside a search: declare "
             "{depth, strata}")
    if not leaf and "search" in train:
        fail("search", "the KF policy plays one ply: target kf takes no search")
    if "elite" in train and train["learner"] != "cem":
        fail("elite", "only the cross-entropy method (learner cem) has an elite fraction")
    if _every(train) > train["generations"]:
        fail("every", f"{_every(train)} is more than generations = {train['generations']}")


def command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 weight-search`` until generation ``end`` into ``out`` (resuming its newest
    generation when ``start`` > 0); ``recipe``: the declaration's keys, a pinned start as
    ``{path, sha256}``, a trained one as ``{trained: DIR}``."""
    search = recipe.get("search", {"depth": 1, "strata": 7})
    words: list[object] = [
        "drop7", "weight-search", "--kind", recipe["learner"], "--target", recipe["target"],
        "--population", recipe["population"], "--generations", end, "--sigma", recipe["sigma"],
        "--games", recipe["games"], "--depth", search["depth"], "--strata", search["strata"],
        "--start", start_word(recipe.get("start", STARTS[0])),
        "--freeze", recipe.get("freeze", "mean"), "--first-game", recipe.get("first_game", 0),
        "--seed", recipe.get("seed", 0), "--out", out]
    if "elite" in recipe:
        words += ["--elite", recipe["elite"]]
    if recipe.get("fitness", FITNESS[0]) != FITNESS[0]:  # absent: the words it always had
        words += ["--fitness", recipe["fitness"]]
    return [*words, "--resume"] if start else words


#: one-ply games of the health each generation (frozen vector, start, random): the command's
#: default ``--health-games`` (engines/learners/search_cli.py), counted once per arm
HEALTH_GAMES = 32


def frozen(train: Mapping[str, Any]) -> tuple[str, str]:
    """The frozen vector as an arm reads it (:data:`FROZEN_DIR`), and its record: a linear
    weights directory (its manifest) for a leaf target, a KF weights file and its record for
    ``kf``."""
    if train["target"] == "kf":
        return f"{FROZEN_DIR}/{KF_TRAINED_WEIGHTS}", f"{FROZEN_DIR}/{KF_TRAINED_RECORD}"
    return FROZEN_DIR, f"{FROZEN_DIR}/{MANIFEST}"


def plays(train: Mapping[str, Any]) -> str:
    """A leaf target's vector is an arm's leaf; the KF target's a kf arm's weights."""
    return "kf" if train["target"] == "kf" else "leaf"


def candidate_policy(train: Mapping[str, Any]) -> str:
    """A policy that plays a leaf target's candidate as the search does, for the cost model."""
    s = train["search"]
    return fair_search(s["depth"], s["strata"])


#: CPU seconds of one KF game (or a random one) in the search's own process: 3.3 s a
#: generation of 65 x 256 games of about 40 moves and the health's 96 (measured 2026-12-06); the
#: arms' cost model counts a game's shard overhead, which a search's games do not pay
KF_GAME_SECONDS = 2e-4


def seconds(recipe: Mapping[str, Any], game: Callable[[str], float]) -> float:
    """Candidates and the control on ``games`` games a generation, and the one-ply health."""
    if recipe["target"] == "kf":
        per_game = (recipe["population"] + 1) * recipe["games"] + 3 * HEALTH_GAMES
        return recipe["generations"] * per_game * KF_GAME_SECONDS
    one_ply = game(fair_search(1, 7))
    per = ((recipe["population"] + 1) * recipe["games"] * game(candidate_policy(recipe))
           + HEALTH_GAMES * (2 * one_ply + game("random")))
    return recipe["generations"] * per


def _search(name: str, says: str) -> LearnerKind:
    return LearnerKind(
        name=name, produces=says, keys=KEYS,
        required=("target", "population", "generations", "sigma", "games"),
        checkpoints=checkpoints, is_checkpoint=is_checkpoint,
        entries=lambda target: TARGETS[target or "leaf"].length, command=command,
        curve="search", leaf="linear-trained", pinned="linear-file", check=check,
        plays=plays, budget="generations", frozen=frozen, seconds=seconds,
        searches=("search",), sizes=("population", "games"), figures=("best_gain",),
        vector=lambda train: train["target"])


CMAES = register_learner(_search("cmaes", "a searched weight vector (CMA-ES)"))
CEM = register_learner(_search("cem", "a searched weight vector (cross-entropy)"))
