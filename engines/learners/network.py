"""The network leaf's learners: ``nnue-distil`` and ``nnue-evolve`` (docs/training.md, "The
network leaf's learners").

``train: {learner: nnue-distil, teacher: {depth: 5, strata: 7}, games: 64, epochs: 8, ...}``
labels training-role roots with the fair search's column values and fits the network to them
(:mod:`engines.learners.distil`, ``drop7 nnue-distil``; a checkpoint an epoch);
``train: {learner: nnue-evolve, start: {file, sha256}, population: 32, games: 32,
generations: 60, search: {depth: 3, strata: 7}, ...}`` evolves a network by whole games
(:mod:`engines.learners.evolve`, ``drop7 nnue-evolve``; a checkpoint a generation, its curve
the weight search's).  Both produce network weights, played by the ``nnue`` leaf.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.learners.distil import TARGETS
from engines.learners.registry import LearnerKind, register_learner
from engines.leaves.nnue_class import HIDDEN, MAX_HIDDEN, MAX_MID, MID, Sizes

_SEARCH = {"type": "object", "additionalProperties": False, "required": ["depth", "strata"],
           "properties": {"depth": {"type": "integer", "minimum": 1, "maximum": 6},
                          "strata": {"type": "integer", "minimum": 1, "maximum": 7}}}
_SEED = {"type": "integer", "minimum": 0, "maximum": 4294967295, "default": 0}
_FIRST = {"type": "integer", "minimum": 0, "maximum": 9223372036854775807, "default": 0}

DISTIL_KEYS: dict[str, Any] = {
    "teacher": {**_SEARCH, "description": "the fair search whose column values label roots"},
    "games": {"type": "integer", "minimum": 2, "maximum": 100_000,
              "description": "training-role games whose roots are labelled"},
    "every": {"type": "integer", "minimum": 1, "maximum": 10_000, "default": 1},
    "holdout": {"type": "integer", "minimum": 2, "maximum": 1000, "default": 5,
                "description": "game k is held out when k % holdout == holdout - 1"},
    "target": {"enum": list(TARGETS), "default": "columns"},
    "hidden": {"type": "integer", "minimum": 1, "maximum": MAX_HIDDEN, "default": HIDDEN},
    "mid": {"type": "integer", "minimum": 1, "maximum": MAX_MID, "default": MID},
    "epochs": {"type": "integer", "minimum": 1, "maximum": 10_000},
    "batch": {"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 64},
    "rate": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 3e-4},
    "probe": {**_SEARCH, "description": "the search the held-out top-1 plays the network in"},
    "seed": _SEED, "first_game": _FIRST,
}

EVOLVE_KEYS: dict[str, Any] = {
    "start": {"$ref": "#/$defs/pinned", "description": "the start network (distilled or "
                                                       "pinned)"},
    "population": {"type": "integer", "minimum": 2, "maximum": 1024},
    "generations": {"type": "integer", "minimum": 1, "maximum": 10_000},
    "games": {"type": "integer", "minimum": 1, "maximum": 4096},
    "sigma": {"type": "number", "exclusiveMinimum": 0, "maximum": 10, "default": 0.05,
              "description": "mutation step, a fraction of each tensor's spread"},
    "elites": {"type": "integer", "minimum": 1, "maximum": 1024, "default": 4},
    "tournament": {"type": "integer", "minimum": 1, "maximum": 64, "default": 3},
    "finalists": {"type": "integer", "minimum": 1, "maximum": 1024, "default": 8},
    "select_games": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 128},
    "search": _SEARCH, "seed": _SEED, "first_game": _FIRST,
}


def _sizes_entries(layout: str | None) -> int:
    return Sizes(HIDDEN, MID).parameters


def distil_command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 nnue-distil`` until epoch ``end`` into ``out``."""
    t, p = recipe["teacher"], recipe.get("probe", {"depth": 1, "strata": 7})
    words: list[object] = [
        "drop7", "nnue-distil", "--teacher", f"search:leaf=linear,d={t['depth']},s={t['strata']}",
        "--games", recipe["games"], "--every", recipe.get("every", 1),
        "--holdout", recipe.get("holdout", 5), "--target", recipe.get("target", "columns"),
        "--hidden", recipe.get("hidden", HIDDEN), "--mid", recipe.get("mid", MID),
        "--epochs", end, "--batch", recipe.get("batch", 64), "--rate", recipe.get("rate", 3e-4),
        "--probe-depth", p["depth"], "--probe-strata", p["strata"],
        "--first-game", recipe.get("first_game", 0), "--seed", recipe.get("seed", 0),
        "--out", out]
    return [*words, "--resume"] if start else words


def evolve_command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 nnue-evolve`` until generation ``end`` into ``out`` (``start``: its pinned
    ``{path, sha256}``)."""
    s, begin = recipe["search"], recipe["start"]
    words: list[object] = [
        "drop7", "nnue-evolve", "--start", f"{begin['sha256']}:{begin['path']}",
        "--population", recipe["population"], "--generations", end, "--games", recipe["games"],
        "--sigma", recipe.get("sigma", 0.05), "--elites", recipe.get("elites", 4),
        "--tournament", recipe.get("tournament", 3), "--finalists", recipe.get("finalists", 8),
        "--select-games", recipe.get("select_games", 128), "--depth", s["depth"],
        "--strata", s["strata"], "--first-game", recipe.get("first_game", 0),
        "--seed", recipe.get("seed", 0), "--out", out]
    return [*words, "--resume"] if start else words


def _steps(key: str):
    return (lambda train: train[key],
            lambda train, step: 0 < step <= train[key])


DISTIL = register_learner(LearnerKind(
    "nnue-distil", "network weights distilled from a teacher search", DISTIL_KEYS,
    ("teacher", "games", "epochs"), *_steps("epochs"), _sizes_entries, distil_command,
    "distil", leaf="nnue", pinned="nnue-file", planned=False))
EVOLVE = register_learner(LearnerKind(
    "nnue-evolve", "network weights evolved by whole games (mutation-only GA)", EVOLVE_KEYS,
    ("start", "population", "generations", "games", "search"), *_steps("generations"),
    _sizes_entries, evolve_command, "search", leaf="nnue", pinned="nnue-file", planned=False))
