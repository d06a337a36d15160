"""The baseline players: random legal play, centre first and lowest column.

Each is a function of the public state and, for random play, the game's own
policy stream (``DOMAIN_POLICY``), so its games are reproducible from the
seed.  They are the floor every evaluator is read against (random play in
the training health, the baselines of the leaf's scaling) and live apart
from the rules (:mod:`engines.drop7.core`), which know no player.
:func:`play_baseline_games` is compiled with the engine's move inlined and
no allocation in its loop, the fastest way to play many whole games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.core import (
    ST_LEN,
    ST_MOVES_PLAYED,
    advance_keyed,
    finished,
    new_game,
)
from engines.drop7.game_loop import game_arrays
from engines.drop7.nibbles import CENTRE, col_height, is_legal, legal_mask, lowest_flag, popcount
from engines.drop7.rng import DOMAIN_DISC, DOMAIN_POLICY, DOMAIN_REVEAL, counter_word, stream_key

POLICY_RANDOM, POLICY_CENTRE_FIRST, POLICY_LOWEST_COLUMN = 0, 1, 2


@njit(cache=True, inline="always")
def _baseline_column(policy, policy_key, state, cols):
    """:func:`baseline_choice` with the game's policy stream key given."""
    if policy == POLICY_RANDOM:
        lm = legal_mask(cols)
        n = popcount(lm)
        w = counter_word(policy_key, state[ST_MOVES_PLAYED])
        pick = np.int64(((w >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
        for _ in range(pick):
            lm &= lm - 1
        return lowest_flag(lm) if lm else -1
    if policy == POLICY_CENTRE_FIRST:
        for i in range(7):
            if is_legal(cols, CENTRE[i]):
                return CENTRE[i]
    best = -1
    best_h = 99
    for i in range(7):  # lowest column, ties to the more central
        c = CENTRE[i]
        hc = col_height(cols[c])
        if hc < 7 and hc < best_h:
            best = c
            best_h = hc
    return best


@njit(cache=True)
def baseline_choice(policy, seed, state, cols):
    """Column chosen by a baseline policy (the public state plus its own coin)."""
    return _baseline_column(policy, stream_key(np.uint64(seed), DOMAIN_POLICY), state, cols)


@njit(cache=True)
def play_baseline_games(seeds, policy, results):
    """Play whole games of a baseline policy; ``results[g]`` gets the final state."""
    state, cols, scratch, out = game_arrays()
    return _baseline_games(seeds, policy, results, state, cols, scratch, out)


@njit(cache=True, _nrt=False)
def _baseline_games(seeds, policy, results, state, cols, scratch, out):
    """The loop of :func:`play_baseline_games` (no allocation, so no reference counting:
    counting the arrays handed to every move took an eighth of the time)."""
    total = 0
    for g in range(seeds.shape[0]):
        seed = np.uint64(seeds[g])
        disc_key = stream_key(seed, DOMAIN_DISC)
        reveal_key = stream_key(seed, DOMAIN_REVEAL)
        policy_key = stream_key(seed, DOMAIN_POLICY)
        new_game(seed, state, cols)
        while not finished(state):
            c = _baseline_column(policy, policy_key, state, cols)
            advance_keyed(disc_key, reveal_key, c, state, cols, scratch, out)
        for i in range(ST_LEN):
            results[g, i] = state[i]
        total += state[ST_MOVES_PLAYED]
    return total
