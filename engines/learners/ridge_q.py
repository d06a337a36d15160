"""The ridge one-ply Q (``ridge-q``): a claim's declaration of the fit ``drop7 fit-q`` makes.

``weights: {NAME: {train: {learner: ridge-q, roots_policy: P, reference: P, games: N, ...}}}``
declares the fit of :mod:`engines.play.oneply_q_fit`: the roots of ``games`` training-role
games of ``roots_policy`` (from ``first_game``, a root every ``every`` decisions), each legal
column labelled by the ``reference`` search, ridge with ``lambda`` on the ``target``.  It is
one fit, so one checkpoint (at step ``games``), of :data:`~engines.filters.oneply_q.N_FEATURES`
weights, which play as a ``q`` arm, not as a leaf.  The fit's defaults live here, where the
declaration reads them, and :mod:`engines.play.oneply_q_fit` imports them.

A claim trains it (:mod:`protocol.parts.direct_training`: the plan of every learner trained
to its end by one job): the fit is written to ``q/`` in its training directory, its manifest's
SHA-256 is the frozen record, and a ``q`` arm with ``weights: NAME`` plays it.  A profile
shrinks ``games`` (``claims.<id>.weights.<name>.games``) and both policies' searches as it
shrinks an arm's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.learners.registry import Fail, LearnerKind, register_learner

#: the register's penalty (its 4-fold cross-validation over games picked the grid's smallest)
DEFAULT_LAMBDA = 1e-3
#: what the fit regresses: the raw values, or values and features less their root's mean
TARGETS = ("raw", "centred")

#: the frozen fit in its training directory and its record (the manifest, with its SHA-256)
FROZEN = ("q", "q/manifest.json")

_POLICY = {"type": "string", "minLength": 1}
_COUNT = {"type": "integer", "minimum": 1, "maximum": 1_000_000}

#: the keys of a ridge-q declaration (``learner`` aside)
KEYS: dict[str, Any] = {
    "roots_policy": {**_POLICY, "description": "the policy whose games give the roots"},
    "reference": {**_POLICY, "description": "the search whose column values are the labels"},
    "games": {**_COUNT, "description": "training-role games whose decisions are the roots"},
    "every": {**_COUNT, "default": 1, "description": "a root every this many decisions"},
    "first_game": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807,
                   "default": 0},
    "lambda": {"type": "number", "minimum": 0, "default": DEFAULT_LAMBDA,
               "description": "the ridge penalty on standardised features"},
    "target": {"enum": list(TARGETS), "default": "raw",
               "description": "raw values, or values and features centred per root"},
}


def check(train: Mapping[str, Any], fail: Fail) -> None:
    """The policies parse (the reference is a search); the games stop short of the training
    health's unseen games (:data:`engines.train.evaluate.UNSEEN_GAME`, never a fit's)."""
    from engines.play.arm_specs import PolicyError, SearchSpec
    from engines.play.policy_grammar import parse_policy
    from engines.train.evaluate import UNSEEN_GAME

    if train.get("first_game", 0) + train["games"] > UNSEEN_GAME:
        fail("first_game", f"games {train.get('first_game', 0):,} to "
             f"{train.get('first_game', 0) + train['games'] - 1:,} reach the training health's "
             f"unseen games (from {UNSEEN_GAME:,})")

    for key in ("roots_policy", "reference"):
        try:
            spec = parse_policy(train[key])
        except PolicyError as exc:
            fail(key, str(exc))
            continue
        if key == "reference" and not isinstance(spec, SearchSpec):
            fail(key, f"{train[key]} is not a search (the reference values every column)")


def command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 fit-q`` writing the one fit of ``end`` games to ``out/q`` (:data:`FROZEN`)."""
    del start  # one fit: nothing to resume
    return ["drop7", "fit-q", "--roots-policy", recipe["roots_policy"], "--reference",
            recipe["reference"], "--games", end, "--every",
            recipe.get("every", 1), "--first-game", recipe.get("first_game", 0), "--lambda",
            recipe.get("lambda", DEFAULT_LAMBDA), "--target", recipe.get("target", "raw"),
            "--out", f"{out}/{FROZEN[0]}", "--replace"]


def _entries(layout: str | None) -> int:
    from engines.filters.oneply_q import N_FEATURES  # the numba module only when asked

    return N_FEATURES


def seconds(recipe: Mapping[str, Any], game: Callable[[str], float]) -> float:
    """The roots' games, and one reference decision per root (it values every column)."""
    return recipe["games"] * (game(recipe["roots_policy"])
                              + game(recipe["reference"]) / recipe.get("every", 1))


RIDGE_Q = register_learner(LearnerKind(
    name="ridge-q", produces="the one-ply Q's weights (a q arm's)", keys=KEYS,
    required=("roots_policy", "reference", "games"), checkpoints=lambda train: 1,
    is_checkpoint=lambda train, step: step == train["games"], entries=_entries,
    command=command, curve="ridge-q", check=check, plays="q", budget="games", frozen=FROZEN,
    seconds=seconds, policies=("roots_policy", "reference")))
