"""Any player as a ranker: its choice at a root and, when it can give them, every column's value.

A ranking panel (docs/panels.md) compares how players order the legal
columns of a root.  :func:`rank` asks a player for its :class:`Ranking`:

* a search or ``direct`` player (:class:`~engines.play.players.SearchPolicy`)
  gives the root's chance value of every column from the very search that
  chooses (:meth:`engines.search.expectimax.Searcher.choose_values`), so its
  choice, counts and tables are those of a game's decision;
* an external program gives its ``move``, and its values when it offers the
  protocol's ``values`` feature (docs/referee.md); one that does not is
  ranked by its choice alone;
* a baseline gives its choice alone.

Values are float64, NaN for an illegal column; ``nodes`` and ``leaves`` are
the work of this root (None where the player does not report it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.drop7 import core
from engines.play.players import Policy, SearchPolicy


@dataclass(frozen=True)
class Ranking:
    """A player's answer at one root."""

    choice: int
    values: np.ndarray | None
    nodes: int | None
    leaves: int | None


def offers_values(policy: Policy) -> bool:
    """Whether :func:`rank` gets every column's value from ``policy``."""
    if isinstance(policy, SearchPolicy):
        return True
    return bool(getattr(policy, "offers_values", False))


def rank(policy: Policy, state: np.ndarray, cols: np.ndarray) -> Ranking:
    """The player's choice at the public state ``(state, cols)`` and its column values (None
    for a player that gives its choice alone)."""
    nodes0, leaves0 = policy.work()
    if isinstance(policy, SearchPolicy):
        choice, raw = policy.searcher.choose_values(cols, int(state[core.ST_NEXT_DISC]),
                                                    int(state[core.ST_MOVES_REMAINING]))
        values: np.ndarray | None = np.where(np.isneginf(raw), np.nan, raw)
    else:
        choice = policy.choose(state, cols)
        values = policy.column_values(state, cols) if offers_values(policy) else None
    nodes1, leaves1 = policy.work()
    nodes = None if nodes0 is None or nodes1 is None else nodes1 - nodes0
    leaves = None if leaves0 is None or leaves1 is None else leaves1 - leaves0
    return Ranking(int(choice), values, nodes, leaves)
