"""A game's arrays and the game loop over a player: one home for both.

:func:`game_arrays` makes the four arrays a game is played in (its state,
its board, the engine's scratch and one move's results), for Python and for
compiled code alike; :func:`play_out` is the Python loop over a player:
``new_game``, then choose and advance until the game is done.  Every Python
caller that plays a game move by move (the games driver of
:mod:`engines.play.games`, the bench positions, the leaf and referee benches)
goes through :func:`play_out`; what it records or checks per decision it
does in its ``choose``.  Loops that numba must compile whole keep their own
loop over :func:`game_arrays` (docs/architecture.md lists them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from engines.drop7 import core, register_game

#: ``choose(state, cols) -> column``: the player's decision on the public state
Chooser = Callable[[np.ndarray, np.ndarray], int]


@njit(cache=True)
def game_arrays():
    """``(state, cols, scratch, out)``: zeroed ``ST_*`` state, seven column words, the
    scratch :func:`engines.drop7.core.advance` works in, and one move's ``OUT_*`` results."""
    return (np.zeros(core.ST_LEN, dtype=np.int64), np.zeros(7, dtype=np.int64),
            np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64), np.zeros(core.OUT_LEN, dtype=np.int64))


def play_out(seed: int | np.integer, choose: Chooser, state: np.ndarray | None = None,
             cols: np.ndarray | None = None, register: bool = False) -> np.ndarray:
    """Play game ``seed`` to its end with ``choose``; returns the final state (``ST_*``).

    ``state`` and ``cols`` (given or fresh) hold the game as it goes, so a
    caller keeps the state a game reached if ``choose`` raises.  A move the
    engine refuses raises ``RuntimeError``.  ``register``: the game of the research
    register's 32-bit seed ``seed`` on its streams (:mod:`engines.drop7.register_game`).
    """
    fresh_state, fresh_cols, scratch, out = game_arrays()
    state = fresh_state if state is None else state
    cols = fresh_cols if cols is None else cols
    if register:
        if not 0 <= int(seed) < 1 << 32:
            raise ValueError(f"a register game seed has 32 bits, got {seed}")
        key = np.uint64(seed)
        start, advance = register_game.new_register_game, register_game.advance_register
    else:
        key = np.uint64(seed)
        start, advance = core.new_game, core.advance
    start(key, state, cols)
    while not core.finished(state):
        status = advance(key, choose(state, cols), state, cols, scratch, out)
        if status != core.OK:
            raise RuntimeError(f"engine status {status} at move "
                               f"{int(state[core.ST_MOVES_PLAYED])}")
    return state
