"""The training kernels' benchmark drivers (numba): recorded inputs, then one part timed.

``drop7 bench train`` (:mod:`engines.train.bench`) records the states and
afterstate boards of greedy play with frozen tables (:func:`collect_states`,
:func:`collect_boards`), then times the move choice alone or its engine half
(:func:`choose_all`), feature extraction (:func:`indices_of`) and the table
lookups alone (:func:`gather_all`).  :func:`cycles` reads the cycle counter
the lane kernel's phase timings count in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.core import (
    ST_MOVES_REMAINING,
    ST_NEXT_DISC,
    advance,
    finished,
    new_game,
)
from engines.drop7.game_loop import game_arrays
from engines.drop7.nibbles import CENTRE
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import entry_indices
from engines.train.cycles import cycle_counter
from engines.train.kernel import (
    SI_MR,
    STRATA,
    W_SBOARD,
    W_SCOUNT,
    W_SINFO,
    choose_move,
    new_work,
    play_samples,
)


@njit(cache=True)
def cycles() -> np.int64:
    """The cycle counter the lane kernel times its phases with."""
    return cycle_counter()


@njit(cache=True)
def collect_boards(tab, bias, spec, seeds, boards, mrs) -> np.int64:
    """Greedy play with frozen tables, recording every afterstate board evaluated.

    ``boards[k]`` (canonical) and ``mrs[k]`` get the chance states whose
    ``U`` the move choices read, in evaluation order, until the buffers are
    full; returns how many were recorded (benchmark input).
    """
    work = new_work(spec)
    sboard, sinfo, scount = work[W_SBOARD], work[W_SINFO], work[W_SCOUNT]
    state, cols, scratch, out = game_arrays()
    k = 0
    cap = boards.shape[0]
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        new_game(seed, state, cols)
        while not finished(state):
            c, _ = choose_move(tab, bias, spec, cols, state[ST_MOVES_REMAINING],
                               state[ST_NEXT_DISC], work)
            for i in range(7):
                cc = CENTRE[i]
                for s in range(scount[cc]):
                    r = STRATA * cc + s
                    if sinfo[r, SI_MR] >= 0 and k < cap:
                        boards[k, :] = sboard[r]
                        mrs[k] = sinfo[r, SI_MR]
                        k += 1
            if k >= cap:
                return k
            advance(seed, c, state, cols, scratch, out)
    return k


@njit(cache=True)
def collect_states(tab, bias, spec, seeds, states) -> np.int64:
    """Greedy play with frozen tables, recording each decision's ``(cols[7], moves remaining,
    next disc)`` in ``states`` rows until full; returns how many (benchmark input)."""
    work = new_work(spec)
    state, cols, scratch, out = game_arrays()
    k = 0
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        new_game(seed, state, cols)
        while not finished(state):
            if k >= states.shape[0]:
                return k
            states[k, :7] = cols
            states[k, 7] = state[ST_MOVES_REMAINING]
            states[k, 8] = state[ST_NEXT_DISC]
            k += 1
            c, _ = choose_move(tab, bias, spec, cols, state[ST_MOVES_REMAINING],
                               state[ST_NEXT_DISC], work)
            advance(seed, c, state, cols, scratch, out)
    return k


@njit(cache=True)
def choose_all(tab, bias, spec, states, engine_only) -> np.int64:
    """The move choice of every recorded state (:func:`collect_states`); with
    ``engine_only`` its engine half alone (:func:`play_samples`).  Returns a checksum."""
    work = new_work(spec)
    cols = np.zeros(7, dtype=np.int64)
    total = 0
    for i in range(states.shape[0]):
        for k in range(7):
            cols[k] = states[i, k]
        if engine_only:
            play_samples(tab, spec, cols, states[i, 7], states[i, 8], work)
            total += work[W_SCOUNT][3]
        else:
            c, _ = choose_move(tab, bias, spec, cols, states[i, 7], states[i, 8], work)
            total += c
    return total


@njit(cache=True)
def indices_of(boards, mrs, spec, idx) -> None:
    """``idx[k, :n]`` = entry indices of each canonical board (feature extraction)."""
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    cb = np.zeros(7, dtype=np.int64)
    row = np.zeros(max(spec[1], 1), dtype=np.int64)
    for k in range(boards.shape[0]):
        for i in range(7):
            cb[i] = boards[k, i]
        n = entry_indices(cb, mrs[k], spec, pat, row)
        for j in range(n):
            idx[k, j] = row[j]


@njit(cache=True)
def gather_all(tab, bias, idx, n) -> float:
    """Sum of ``U`` over rows of precomputed indices (table lookups alone)."""
    p0 = 0.0
    p1 = 0.0
    for k in range(idx.shape[0]):
        j = 0
        while j + 1 < n:
            p0 += tab[idx[k, j]]
            p1 += tab[idx[k, j + 1]]
            j += 2
        if j < n:
            p0 += tab[idx[k, j]]
    return p0 + p1 + bias * idx.shape[0]
