"""The TreeStrap learner (``treestrap``): n-tuple tables trained with the fair search as the actor
and every decision node of its tree as a target, by ``drop7 train --treestrap``
(:mod:`engines.train.treestrap`).

Its declaration is an ``ntuple`` learner's (layout, moves, every, alpha, lanes, a warm start)
with the search that plays (``search: dDsS``, the register's d3s7 by default) and the nodes it
trains (``targets: tree``, or ``root`` for the register's visited-states-only ablation).  Its
weights are n-tuple tables like TC-TD's, so they validate, freeze and play as the ``ntuple``
leaf, and their health is :mod:`analysis.health`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.learners import td
from engines.learners.registry import Fail, LearnerKind, register_learner

#: the keys of a TreeStrap declaration (``learner`` aside): TC-TD's, and the search and targets
KEYS: dict[str, Any] = {
    **td.KEYS,
    "layout": {"enum": ["A", "B", "C", "D", "E"], "description": "the n-tuple layout"},
    "search": {"type": "string", "pattern": "^d[1-3]s[1-7]$", "default": "d3s7",
               "description": "the fair search that plays and whose nodes are targets (dDsS, "
                              "depth 1-3, strata 1-7; the register's d3s7)"},
    "targets": {"enum": ["tree", "root"], "default": "tree",
                "description": "tree: every decision node of the search is a target; root: the "
                               "root alone (the register's searchtd ablation)"},
}
#: the declaration's keys the training recipe carries besides TC-TD's (with their defaults)
RECIPE_KEYS = ("search", "targets")
#: CPU seconds of a d3s7 TreeStrap move on layout A (the opening moves of one lane, fresh
#: tables: 8 moves in 1.3 s beside other work) over a TC-TD move's (110,000 a second)
_D3S7_MOVE_COST = 0.17 * 110_000


def move_cost(train: Mapping[str, Any]) -> float:
    """A TreeStrap move in TC-TD moves: a d3s7 move's cost scaled by its search's leaves,
    ``(7 S)^D`` (d3s7: 117,649)."""
    depth, strata = (int(x) for x in train.get("search", KEYS["search"]["default"])[1:].split("s"))
    return _D3S7_MOVE_COST * (7 * strata) ** depth / 49 ** 3


def check(train: Mapping[str, Any], fail: Fail) -> None:
    """TC-TD's checks of an ``ntuple`` learner (a layout, every within moves, whole rounds)."""
    td.check({**train, "learner": "ntuple"}, fail)


def command(recipe: Mapping[str, Any], end: int, out: str, start: int) -> list[object]:
    """TC-TD's ``drop7 train`` words with the search and the targets."""
    return [*td.command(recipe, end, out, start), "--treestrap",
            recipe.get("search", KEYS["search"]["default"]), "--targets",
            recipe.get("targets", KEYS["targets"]["default"])]


TREESTRAP = register_learner(LearnerKind(
    name="treestrap", produces="n-tuple tables", keys=KEYS, required=("layout", "moves", "every"),
    checkpoints=td.checkpoints, is_checkpoint=td.is_checkpoint, entries=td.NTUPLE.entries,
    command=command, curve="health", leaf="ntuple", pinned="ntuple-file", check=check,
    recipe_keys=RECIPE_KEYS, move_cost=move_cost))
