"""The TC-TD learners: n-tuple tables (``ntuple``, layouts A-E) and the fair leaf's weights
(``linear``), trained by ``drop7 train`` (:mod:`engines.train`).

Both take moves and a checkpoint every so many moves; an ``ntuple`` learner names its layout
and may train in lanes.  Their checkpoints' health is :mod:`analysis.health`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.learners.registry import Fail, LearnerKind, register_learner
from engines.leaves.kinds import N_TERMS
from engines.ntuple.layouts import layout_names

_COUNT = {"type": "integer", "minimum": 1, "maximum": 9223372036854775807}

#: the keys of a TC-TD declaration (``learner`` aside)
KEYS: dict[str, Any] = {
    "layout": {"enum": layout_names(),
               "description": "the n-tuple layout (ntuple only): A..E, or one keyed on a fill "
                              "rule, A+occ5 (five buckets of occupied cells) or A+hgt5 (of the "
                              "tallest column) (docs/training.md, Fill-bucketed layouts)"},
    "moves": {**_COUNT, "description": "training moves"},
    "every": {**_COUNT,
              "description": "a checkpoint and a validation point every this many moves"},
    "first_game": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807,
                   "default": 0},
    "alpha": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
              "description": "the step size (the range every learner accepts, "
                             "engines.train.kernel.ALPHA_MAX)"},
    "init": {
        "description": "a warm start: continue training from the frozen artefact W of another "
                       "claim C ({claim: C, weights: W}, the same learner and layout) or from a "
                       "pinned file ({file: PATH, sha256: HEX}); the values are copied, the "
                       "accumulators start fresh (docs/training.md, Warm starts)",
        "oneOf": [{"type": "object", "additionalProperties": False,
                   "required": ["claim", "weights"],
                   "properties": {"claim": {"$ref": "#/$defs/claim_id"},
                                  "weights": {"$ref": "#/$defs/name"}}},
                  {"$ref": "#/$defs/pinned"}]},
    "lanes": {"type": "integer", "minimum": 1, "maximum": 1024,
              "description": "training games side by side (absent: 1, the sequential trainer; "
                             "ntuple only; moves and every are multiples of it); the tables "
                             "depend on it, not on the threads that run it"},
}


def checkpoints(train: Mapping[str, Any]) -> int:
    """Checkpoints of ``moves`` trained with one every ``every`` moves (the length of
    :func:`contracts.train_directory.checkpoint_steps`, without building it)."""
    return -(-train["moves"] // train["every"])


def is_checkpoint(train: Mapping[str, Any], step: int) -> bool:
    """Whether ``step`` moves is a checkpoint."""
    moves, every = train["moves"], train["every"]
    return 0 < step <= moves and (step % every == 0 or step == moves)


def check(train: Mapping[str, Any], fail: Fail) -> None:
    """A layout for tables and none for the linear weights, lanes for tables only, every within
    moves, budgets in whole rounds of lanes."""
    if train["learner"] == "ntuple" and "layout" not in train:
        fail("layout", "an ntuple learner needs a layout (A..E, or one with a fill rule)")
    if train["learner"] == "linear" and "layout" in train:
        fail("layout", "a linear learner has no layout")
    if train["every"] > train["moves"]:
        fail("every", f"{train['every']:,} is larger than moves = {train['moves']:,}")
    lanes = train.get("lanes", 1)
    if lanes > 1 and train["learner"] != "ntuple":
        fail("lanes", "only an ntuple learner trains in lanes")
    for key in ("moves", "every"):
        if train[key] % lanes:
            fail(key, f"{train[key]:,} is not a multiple of lanes = {lanes} (lanes train in "
                 "whole rounds)")


def command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """``drop7 train`` of one segment, from ``start`` moves to ``end`` (``recipe``: the planned
    training's, its ``init`` a warm start's source, a pinned file's ``{path, sha256}`` or an
    artefact's ``{path, record}``); the state it started from is discarded once its own is
    written."""
    words: list[object] = [
        "drop7", "train", "--layout", recipe["layout"], "--moves", end, "--every",
        recipe["every"], "--first-game", recipe["first_game"], "--out", out, "--start", start,
        "--log-every", 30, "--lanes", recipe.get("lanes", 1)]
    if recipe["alpha"] is not None:
        words += ["--alpha", recipe["alpha"]]
    init = recipe.get("init")
    if init:
        words += ["--init", init["path"]]
        words += (["--init-sha256", init["sha256"]] if init.get("sha256")
                  else ["--init-record", init["record"]])
    if start:
        words.append("--discard-start")
    return words


def _table_entries(layout: str | None) -> int:
    from engines.ntuple.layouts import get_layout

    return get_layout(layout).entries


def _td(name: str, produces: str, leaf: str, pinned: str, entries) -> LearnerKind:
    return LearnerKind(name=name, produces=produces, keys=KEYS, required=("moves", "every"),
                       checkpoints=checkpoints, is_checkpoint=is_checkpoint, entries=entries,
                       command=command, curve="health", leaf=leaf, pinned=pinned, check=check)


NTUPLE = register_learner(_td("ntuple", "n-tuple tables", "ntuple", "ntuple-file",
                              _table_entries))
LINEAR = register_learner(_td("linear", "the fair leaf's weights", "linear-trained",
                              "linear-file", lambda layout: N_TERMS))
