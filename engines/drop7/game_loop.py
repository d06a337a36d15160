"""One whole game over a player, in Python: ``new_game``, then choose and advance until done.

Every Python caller that plays a game move by move (the games driver of
:mod:`engines.play.games`, the bench positions, the leaf bench, the tests)
goes through :func:`play_out`; what it records or checks per decision it does
in its ``choose``.  Compiled loops that must inline the engine (the baseline
games, training and greedy play) keep their own loop inside numba.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engines.drop7 import core

#: ``choose(state, cols) -> column``: the player's decision on the public state
Chooser = Callable[[np.ndarray, np.ndarray], int]


def play_out(seed: int | np.integer, choose: Chooser, state: np.ndarray | None = None,
             cols: np.ndarray | None = None) -> np.ndarray:
    """Play game ``seed`` to its end with ``choose``; returns the final state (``ST_*``).

    ``state`` and ``cols`` (given or fresh) hold the game as it goes, so a
    caller keeps the state a game reached if ``choose`` raises.  A move the
    engine refuses raises ``RuntimeError``.
    """
    state = np.zeros(core.ST_LEN, dtype=np.int64) if state is None else state
    cols = np.zeros(7, dtype=np.int64) if cols is None else cols
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    key = np.uint64(seed)
    core.new_game(key, state, cols)
    while not core.finished(state):
        status = core.advance(key, choose(state, cols), state, cols, scratch, out)
        if status != core.OK:
            raise RuntimeError(f"engine status {status} at move "
                               f"{int(state[core.ST_MOVES_PLAYED])}")
    return state
