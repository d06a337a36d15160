"""Any player as a ranker: its choice at a root and, when it can give them, every column's value.

A ranking panel (docs/panels.md) compares how players order the legal
columns of a root.  :func:`rank` asks a player for its :class:`Ranking`:

* a search or ``direct`` player (:class:`~engines.play.players.SearchPolicy`)
  gives the root's chance value of every column from the very search that
  chooses (:meth:`engines.search.searcher.Searcher.choose_values`), so its
  choice, counts and tables are those of a game's decision;
* an external program gives its ``move``, and its values when it offers the
  protocol's ``values`` feature (docs/referee.md); one that does not is
  ranked by its choice alone;
* a baseline gives its choice alone.

Values are float64, NaN for an illegal column (``-inf`` for a legal column a
search that prunes its root did not search); ``nodes`` and ``leaves`` are the
work of this root, a pruned search's prior's included (None where the player
does not report it).

A player's fault is handled as a game's decision is (:mod:`engines.play.games`):
a choice that is not a legal column is ``illegal``, a choice that raises (a
program's time-out or exit) ``unfinished`` and logged; either way the ranking
takes the centre-first column and no values.  Values that are not a value of
every legal column (:meth:`~engines.play.external_policy.ExternalPolicy.column_values`
gives None) are ``illegal``, values that raise ``unfinished``; the choice
stands and the root has no values.  :attr:`Ranking.fault` names it (the
panel table's ``fault``, :data:`~contracts.panel_table.FAULTS`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from contracts.panel_table import FAULTS
from engines.drop7 import core
from engines.play.arm_specs import PolicyError
from engines.play.games import centre_first
from engines.play.players import Policy, SearchPolicy

ILLEGAL, UNFINISHED = FAULTS


@dataclass(frozen=True)
class Ranking:
    """A player's answer at one root."""

    choice: int
    values: np.ndarray | None
    nodes: int | None
    leaves: int | None
    fault: str | None = None  #: ``illegal`` or ``unfinished`` (see the module's docstring)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def offers_values(policy: Policy) -> bool:
    """Whether :func:`rank` gets every column's value from ``policy``."""
    if isinstance(policy, SearchPolicy):
        return True
    return bool(getattr(policy, "offers_values", False))


def rank(policy: Policy, state: np.ndarray, cols: np.ndarray,
         log: Callable[[str], None] = _stderr) -> Ranking:
    """The player's choice at the public state ``(state, cols)`` and its column values (None
    for a player that gives its choice alone, or at a fault: see the module's docstring;
    ``log`` is told of a choice or values that raised)."""
    if isinstance(policy, SearchPolicy) and policy.spec.filter is not None:
        raise PolicyError(f"{policy.name}: a ranker values every legal column; give it "
                          "without its root filter f=")
    nodes0, leaves0 = policy.work()
    fault: str | None = None
    values: np.ndarray | None = None
    if isinstance(policy, SearchPolicy):
        choice, raw = policy.searcher.choose_values(cols, int(state[core.ST_NEXT_DISC]),
                                                    int(state[core.ST_MOVES_REMAINING]))
        legal = np.array([core.is_legal(cols, c) for c in range(7)])
        # an illegal column has no value (NaN); a legal one a pruned root left out keeps -inf
        values = np.where(np.isneginf(raw) & ~legal, np.nan, raw)
    else:
        try:
            choice = int(policy.choose(state, cols))
            if not (0 <= choice <= 6 and core.is_legal(cols, choice)):
                fault = ILLEGAL
        except Exception as exc:  # as a game's decision: counted, centre-first taken
            fault = UNFINISHED
            log(f"{policy.name} failed ({type(exc).__name__}: {exc}); centre-first taken, "
                "no values")
        if fault is not None:
            choice = centre_first(cols)
        elif offers_values(policy):
            try:
                values = policy.column_values(state, cols)
                fault = ILLEGAL if values is None else None
            except Exception as exc:
                fault = UNFINISHED
                log(f"{policy.name} failed to give values ({type(exc).__name__}: {exc}); "
                    "no values at this root")
    nodes1, leaves1 = policy.work()
    nodes = None if nodes0 is None or nodes1 is None else nodes1 - nodes0
    leaves = None if leaves0 is None or leaves1 is None else leaves1 - leaves0
    return Ranking(int(choice), values, nodes, leaves, fault)
