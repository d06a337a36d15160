"""The network leaf's learners: ``nnue-distil`` and ``nnue-evolve`` (docs/training.md, "The
network leaf's learners").

``train: {learner: nnue-distil, teacher: {depth: 5, strata: 7}, games: 64, epochs: 8, ...}``
labels training-role roots with the fair search's column values and fits the network to them
(:mod:`engines.learners.distil`, ``drop7 nnue-distil``; a checkpoint an epoch);
``train: {learner: nnue-evolve, start: {file, sha256}, population: 32, games: 32,
generations: 60, search: {depth: 3, strata: 7}, ...}`` evolves a network by whole games
(:mod:`engines.learners.evolve`, ``drop7 nnue-evolve``; a checkpoint a generation, its curve
the weight search's).  Both produce network weights, played by the ``nnue`` leaf: one
workflow job trains each to its end (:mod:`protocol.parts.direct_training`) and an arm plays
the frozen network with ``leaf: {weights: NAME}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from contracts.weights_dir import MANIFEST
from engines.learners.distil import NETWORK, TARGETS
from engines.learners.registry import LearnerKind, fair_search, register_learner
from engines.learners.vectors import start_word
from engines.learners.weight_search import FROZEN_DIR
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
    "probe_every": {"type": "integer", "minimum": 0, "maximum": 10_000, "default": 0,
                    "description": "the held-out top-1 every this many epochs too, the page's "
                                   "curve (0: the frozen network's alone)"},
    "seed": _SEED, "first_game": _FIRST,
}

EVOLVE_KEYS: dict[str, Any] = {
    "start": {"description": "the start network: pinned {file, sha256}, or {weights: NAME} "
                             "that this claim trains (nnue-distil's, say)",
              "oneOf": [{"$ref": "#/$defs/pinned"}, {"$ref": "#/$defs/trained"}]},
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
    # no default: a claim without it plans and hashes as before the key existed
    "reference": {**_SEARCH, "description": "a fair-leaf search that plays each generation's "
                                            "games too (the same seeds), its mean in the curve"},
}


def _sizes_entries(layout: str | None) -> int:
    return Sizes(HIDDEN, MID).parameters


def distil_command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 nnue-distil`` until epoch ``end`` into ``out``."""
    t, p = recipe["teacher"], recipe.get("probe", {"depth": 1, "strata": 7})
    words: list[object] = [
        "drop7", "nnue-distil", "--teacher", fair_search(t["depth"], t["strata"]),
        "--games", recipe["games"], "--every", recipe.get("every", 1),
        "--holdout", recipe.get("holdout", 5), "--target", recipe.get("target", "columns"),
        "--hidden", recipe.get("hidden", HIDDEN), "--mid", recipe.get("mid", MID),
        "--epochs", end, "--batch", recipe.get("batch", 64), "--rate", recipe.get("rate", 3e-4),
        "--probe-depth", p["depth"], "--probe-strata", p["strata"],
        "--probe-every", recipe.get("probe_every", 0),
        "--first-game", recipe.get("first_game", 0), "--seed", recipe.get("seed", 0),
        "--out", out]
    return [*words, "--resume"] if start else words


def evolve_command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 nnue-evolve`` until generation ``end`` into ``out`` (the recipe's ``start``: a
    pinned ``{path, sha256}``, or ``{trained: DIR}``, a network this claim trains, whose
    manifest holds its SHA-256)."""
    s, begin = recipe["search"], recipe["start"]
    words: list[object] = [
        "drop7", "nnue-evolve", "--start", start_word(begin),
        "--population", recipe["population"], "--generations", end, "--games", recipe["games"],
        "--sigma", recipe.get("sigma", 0.05), "--elites", recipe.get("elites", 4),
        "--tournament", recipe.get("tournament", 3), "--finalists", recipe.get("finalists", 8),
        "--select-games", recipe.get("select_games", 128), "--depth", s["depth"],
        "--strata", s["strata"], "--first-game", recipe.get("first_game", 0),
        "--seed", recipe.get("seed", 0), "--out", out]
    if "reference" in recipe:  # absent: the words it always had
        r = recipe["reference"]
        words += ["--reference-depth", r["depth"], "--reference-strata", r["strata"]]
    return [*words, "--resume"] if start else words


def _steps(key: str):
    return (lambda train: train[key],
            lambda train, step: 0 < step <= train[key])


def distil_seconds(recipe: Mapping[str, Any], game: Callable[[str], float]) -> float:
    """The teacher's games and a teacher decision per root (every ``every``-th decision), and
    the held-out probe of the network and its random start (the fit's numpy epochs are not
    priced: seconds beside the labels at the register's sizes)."""
    t, p = recipe["teacher"], recipe.get("probe", {"depth": 1, "strata": 7})
    every, held = recipe.get("every", 1), 1 / recipe.get("holdout", 5)
    teacher = game(fair_search(t["depth"], t["strata"]))
    probe = game(f"search:leaf=nnue:network,d={p['depth']},s={p['strata']}")
    return recipe["games"] * (teacher * (1 + 1 / every) + 2 * held * probe / every)


def evolve_seconds(recipe: Mapping[str, Any], game: Callable[[str], float]) -> float:
    """Every candidate and the control on ``games`` games a generation, the reference search
    on the same games (when declared), then the finalists' re-selection."""
    s = recipe["search"]
    one = game(f"search:leaf=nnue:network,d={s['depth']},s={s['strata']}")
    seconds = one * ((recipe["population"] + 1) * recipe["games"] * recipe["generations"]
                     + recipe.get("finalists", 8) * recipe.get("select_games", 128))
    if "reference" in recipe:
        r = recipe["reference"]
        seconds += (game(fair_search(r["depth"], r["strata"]))
                    * recipe["games"] * recipe["generations"])
    return seconds


DISTIL = register_learner(LearnerKind(
    name="nnue-distil", produces="network weights distilled from a teacher search",
    keys=DISTIL_KEYS, required=("teacher", "games", "epochs"), checkpoints=_steps("epochs")[0],
    is_checkpoint=_steps("epochs")[1], entries=_sizes_entries, command=distil_command,
    curve="distil", leaf="nnue", pinned="nnue-file", plays="leaf", budget="epochs",
    frozen=(NETWORK, f"{NETWORK}/{MANIFEST}"), seconds=distil_seconds,
    searches=("teacher", "probe"), sizes=("games",), figures=("holdout_top1",), vector="nnue"))
EVOLVE = register_learner(LearnerKind(
    name="nnue-evolve", produces="network weights evolved by whole games (mutation-only GA)",
    keys=EVOLVE_KEYS, required=("start", "population", "generations", "games", "search"),
    checkpoints=_steps("generations")[0], is_checkpoint=_steps("generations")[1],
    entries=_sizes_entries, command=evolve_command, curve="search", leaf="nnue",
    pinned="nnue-file", plays="leaf", budget="generations",
    frozen=(FROZEN_DIR, f"{FROZEN_DIR}/{MANIFEST}"), seconds=evolve_seconds,
    searches=("search", "reference"), sizes=("population", "games", "finalists", "select_games"),
    figures=("best_gain", "mean_above_reference_share", "mean_minus_reference"), vector="nnue"))
