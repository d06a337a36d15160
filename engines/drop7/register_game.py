"""A game on the research register's own streams (its 32-bit game seeds), for replays.

Our games draw discs and reveals from our counter-based streams (docs/rng.md);
the register's headless games draw them from its 32-bit seed
(:mod:`engines.drop7.register_rng`).  The rules are the same, so a register
game is our engine fed the register's discs and, move by move, its reveals as
an explicit list (``SRC_LIST``).  With the register's search sampling
(``sampling: register``) a fair search replays a published register game move
for move (docs/search.md, "The register's sampling").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7 import core, register_rng

#: reveals a move may draw (a move reveals at most every grey of the board, 49)
MAX_REVEALS_PER_MOVE = 64


@njit(cache=True)
def new_register_game(seed, state, cols) -> None:
    """Reset ``state`` and ``cols`` to the opening of register game ``seed``."""
    core.opening(register_rng.game_disc(seed, 0), state, cols)


@njit(cache=True)
def advance_register(seed, column, state, cols, scratch, out) -> np.int64:
    """:func:`engines.drop7.core.advance` on register game ``seed``'s streams."""
    m = state[core.ST_MOVES_PLAYED]
    rs = register_rng.game_reveal_seed(seed, m)
    reveals = np.empty(MAX_REVEALS_PER_MOVE, dtype=np.int64)
    for j in range(MAX_REVEALS_PER_MOVE):
        reveals[j] = register_rng.game_reveal(rs, j)
    status, mr = core.play_move(cols, column, state[core.ST_NEXT_DISC],
                                state[core.ST_MOVES_REMAINING], core.SRC_LIST, np.uint64(0),
                                reveals, 0, 7, 0, scratch, out)
    if status != core.OK:
        return status
    if core.settle(m, mr, state, out):
        state[core.ST_NEXT_DISC] = register_rng.game_disc(seed, m + 1)
    return core.OK
