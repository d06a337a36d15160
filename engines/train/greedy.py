"""Greedy one-ply play with frozen tables: the training policy without learning (numba).

:func:`play_greedy` plays whole games with the move choice of
:mod:`engines.train.kernel` (``choose_move``) and traces the value of each
chance state against the points realised; ``drop7 evaluate``
reads it.  Its game loop stays inside the compiled function (one call plays
every game).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.chance import canonicalise
from engines.drop7.core import (
    OUT_POINTS,
    ST_GAME_OVER,
    ST_MOVES_REMAINING,
    ST_NEXT_DISC,
    advance,
    finished,
    new_game,
)
from engines.drop7.game_loop import game_arrays
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import entry_indices, gather
from engines.train.kernel import RISE, choose_move, new_work


@njit(cache=True)
def play_greedy(tab, bias, spec, seeds, results, trace_u, trace_r, trace_game) -> np.int64:
    """Whole games of greedy one-ply play with frozen tables (no learning).

    ``results[g]`` gets each game's final state (``ST_*``).  For the first
    ``len(trace_u)`` moves overall, ``trace_u[k]`` is ``U(s)`` of the chance
    state the move was chosen from, ``trace_r[k]`` the realised points of the
    move (in rises) and ``trace_game[k]`` the game index.  Returns the moves
    traced.
    """
    work = new_work(spec)
    idx = np.zeros(max(spec[1], 1), dtype=np.int64)
    canon = np.zeros(7, dtype=np.int64)
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    state, cols, scratch, out = game_arrays()
    k = 0
    cap = trace_u.shape[0]
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        new_game(seed, state, cols)
        canonicalise(cols, canon)
        m = entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx)
        u = gather(tab, bias, idx, m)
        while not finished(state):
            c, _ = choose_move(tab, bias, spec, cols, state[ST_MOVES_REMAINING],
                               state[ST_NEXT_DISC], work)
            advance(seed, c, state, cols, scratch, out)
            if k < cap:
                trace_u[k] = u
                trace_r[k] = out[OUT_POINTS] / RISE
                trace_game[k] = g
                k += 1
            if state[ST_GAME_OVER] == 0:
                canonicalise(cols, canon)
                m = entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx)
                u = gather(tab, bias, idx, m)
        results[g, :] = state
    return k
