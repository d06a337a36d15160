"""The Klein-Friedmann Q-learner (compiled): the six KF weights learned by linear Q-learning.

The register's recipe (theory ``TH-20260902-kf-linear-q-transfer-68b41d66`` and
its approach folder ``approaches/value-policy-learning/klein-friedmann-linear-q``
in keshavsaharia/drop7-bench), played in this engine:

* ``Q(s, a) = sum_k w_k * phi_k(s, a)`` over the six features of
  :mod:`engines.filters.kf`, summed in feature order over the features that
  are *present*: row and column detonations always are, "tallest column" when
  the landing height is the highest and at most two columns share it (even
  when its value is 0), the other three when they are not 0;
* weights start at zero; ``t`` counts moves (every decision, explored or not)
  and ``g`` games started;
* epsilon-greedy over the legal columns with ``epsilon = t ** -0.25``; the
  greedy choice is the KF policy's (highest value, rightmost of equals:
  :func:`engines.filters.kf.kf_values`), so frozen weights play as trained;
* survival reward: 1 for a move the game survives, 0 for the move that ends it;
* target ``r + gamma * max(-1, max_a' Q(s', a'))`` over all seven columns of
  the next position (a full column's features are all absent, so its Q is 0:
  the register's port evaluates full columns too, and starts the max at -1),
  ``r`` alone at the game's end;
* update ``w_k <- w_k - eta * ((Q - target) * phi_k + lambda * w_k)`` for each
  present feature only (the ridge term too), lambda 0.1, gamma 1;
* the step ``eta`` by :data:`SCHEDULES`: ``upstream`` 1/t (t per move), the
  theory's clause (iv) ``per-game`` 1/g, ``harmonic`` 1/(1 + t/50,000) and
  ``constant`` 1e-3.

Exploration draws are counter-based (:mod:`engines.drop7.rng`): the coin and
the pick of move ``t`` are words ``2t`` and ``2t + 1`` of the stream of the
learner's own seed, so the weights after ``g`` games are a function of the
config and ``g`` alone, and a run stopped at any checkpoint and resumed gives
the same bits.  The readable twin of one update is :mod:`engines.learners.kf_q_ref`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7 import core
from engines.drop7.board import SIZE
from engines.drop7.game_loop import game_arrays
from engines.drop7.nibbles import col_height
from engines.drop7.rng import counter_word, stream_key
from engines.filters.kf import N_FEATURES, kf_features, kf_values
from engines.learners.kf_q_kind import SCHEDULES

__all__ = ["SCHEDULES", "play_greedy", "q_update", "step_size", "train_games"]

#: the harmonic schedule's tau and the constant schedule's step (the theory's clause iv)
HARMONIC_TAU = 50_000.0
CONSTANT_ETA = 1e-3
#: the exploration stream's domain (separate from the game's streams: the policy never sees
#: the game seed)
DOMAIN_EXPLORE = np.uint64(0x6B66717870000006)  # "kfqxp"

# params: float64 array the kernel reads
P_SCHEDULE, P_LAMBDA, P_GAMMA, P_SIGN = range(4)
N_PARAMS = 4
# counters: int64 array the kernel carries (the whole state beside the weights)
C_MOVES, C_GAMES, C_UPDATES, C_NONFINITE = range(4)
N_COUNTERS = 4
# stats of one call: float64
S_ABS_ERROR, S_MOVES, S_SCORE = range(3)
N_STATS = 3

_UNIT = 1.0 / 9007199254740992.0  # 2 ** -53


@njit(cache=True, inline="always")
def present(features: np.ndarray, x: int, tallest: bool, k: int) -> bool:
    """Whether feature ``k`` of column ``x`` is present (see the module doc)."""
    if k == 1 or k == 2:
        return True
    if k == 3:
        return tallest
    return features[x, k] != 0


@njit(cache=True)
def tallest_flags(cols: np.ndarray, out: np.ndarray) -> None:
    """``out[x]``: column ``x`` is the highest and at most two columns share that height (the
    condition of feature 3's presence; full columns included, as the register's port has it)."""
    high = 0
    for c in range(SIZE):
        high = max(high, col_height(cols[c]))
    n_high = 0
    for c in range(SIZE):
        n_high += col_height(cols[c]) == high
    for c in range(SIZE):
        out[c] = col_height(cols[c]) == high and n_high <= 2


@njit(cache=True)
def q_value(weights: np.ndarray, features: np.ndarray, x: int, tallest: bool) -> float:
    """``Q`` of column ``x``: the weighted sum of its present features, in feature order."""
    q = 0.0
    for k in range(N_FEATURES):
        if present(features, x, tallest, k):
            q += weights[k] * features[x, k]
    return q


@njit(cache=True)
def step_size(schedule: int, moves: np.int64, games: np.int64) -> float:
    """``eta`` of the update after move ``moves`` (counted from 1) of game ``games`` (from 1)."""
    if schedule == 0:
        return 1.0 / moves
    if schedule == 1:
        return 1.0 / max(games, 1)
    if schedule == 2:
        return 1.0 / (1.0 + moves / HARMONIC_TAU)
    return CONSTANT_ETA


@njit(cache=True)
def q_update(weights, phi, tallest, reward, next_features, next_tallest, terminal, eta, lam,
             gamma, sign) -> float:
    """One Q-learning update of ``weights`` in place from the played column's features ``phi``
    (``float64[6]`` row, ``tallest`` its feature 3 presence) and the next position's
    ``next_features`` (``int64[7, 6]``) and ``next_tallest`` (unused when ``terminal``);
    returns ``Q - target``.  ``sign`` is 1 (tests pass -1 to check their learning test
    catches a broken update)."""
    row = phi.reshape((1, N_FEATURES))
    q = q_value(weights, row, 0, tallest)
    best = 0.0
    if not terminal:
        best = -1.0
        for x in range(SIZE):
            v = q_value(weights, next_features, x, next_tallest[x])
            if v > best:
                best = v
    error = q - (reward + gamma * best)
    for k in range(N_FEATURES):
        if present(row, 0, tallest, k):
            w = weights[k]
            weights[k] = w - sign * eta * (error * row[0, k] + lam * w)
    return error


@njit(cache=True)
def _explore_column(key, moves, cols, epsilon) -> np.int64:
    """The explored column of move ``moves`` (its coin below ``epsilon``), else -1."""
    coin = np.float64(counter_word(key, 2 * moves) >> np.uint64(11)) * _UNIT
    if not coin < epsilon:
        return -1
    n = 0
    for c in range(SIZE):
        n += col_height(cols[c]) < SIZE
    w = counter_word(key, 2 * moves + 1)
    pick = np.int64(((w >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
    for c in range(SIZE):
        if col_height(cols[c]) < SIZE:
            if pick == 0:
                return c
            pick -= 1
    return -1


@njit(cache=True, nogil=True)
def train_games(weights, counters, params, explore_seed, seed_start, seed_count, first_game,
                n_games, stats) -> None:
    """Train ``weights`` on ``n_games`` whole training games, from game ``counters[C_GAMES]``
    (game ``g`` is seed ``seed_start + (first_game + g) mod seed_count``); ``counters`` and
    ``weights`` carry everything a later call needs."""
    state, cols, scratch, out = game_arrays()
    feats = np.zeros((SIZE, N_FEATURES), dtype=np.int64)
    nfeats = np.zeros((SIZE, N_FEATURES), dtype=np.int64)
    tall = np.zeros(SIZE, dtype=np.bool_)
    ntall = np.zeros(SIZE, dtype=np.bool_)
    values = np.zeros(SIZE)
    phi = np.zeros(N_FEATURES)
    key = stream_key(np.uint64(explore_seed), DOMAIN_EXPLORE)
    schedule = np.int64(params[P_SCHEDULE])
    for _ in range(n_games):
        g = counters[C_GAMES]
        seed = np.uint64(seed_start) + (np.uint64(first_game) + np.uint64(g)) % np.uint64(
            seed_count)
        core.new_game(seed, state, cols)
        counters[C_GAMES] += 1
        while not core.finished(state):
            counters[C_MOVES] += 1
            t = counters[C_MOVES]
            disc = state[core.ST_NEXT_DISC]
            column = _explore_column(key, t, cols, t ** -0.25)
            if column < 0:
                column = kf_values(cols, disc, weights, values)
            kf_features(cols, disc, feats)
            tallest_flags(cols, tall)
            for k in range(N_FEATURES):
                phi[k] = feats[column, k]
            core.advance(seed, column, state, cols, scratch, out)
            over = state[core.ST_GAME_OVER] != 0
            if not over:
                kf_features(cols, state[core.ST_NEXT_DISC], nfeats)
                tallest_flags(cols, ntall)
            eta = step_size(schedule, t, counters[C_GAMES])
            error = q_update(weights, phi, tall[column], 0.0 if over else 1.0, nfeats, ntall,
                             over, eta, params[P_LAMBDA], params[P_GAMMA], params[P_SIGN])
            counters[C_UPDATES] += 1
            stats[S_ABS_ERROR] += abs(error)
        stats[S_MOVES] += state[core.ST_MOVES_PLAYED]
        stats[S_SCORE] += state[core.ST_SCORE]
    for k in range(N_FEATURES):
        if not np.isfinite(weights[k]):
            counters[C_NONFINITE] = 1


@njit(cache=True, nogil=True)
def play_greedy(weights, seeds, moves, scores) -> None:
    """Whole games of the greedy KF policy with ``weights`` (no exploration, no learning)."""
    state, cols, scratch, out = game_arrays()
    values = np.zeros(SIZE)
    for i in range(seeds.shape[0]):
        core.new_game(seeds[i], state, cols)
        while not core.finished(state):
            column = kf_values(cols, state[core.ST_NEXT_DISC], weights, values)
            core.advance(seeds[i], column, state, cols, scratch, out)
        moves[i] = state[core.ST_MOVES_PLAYED]
        scores[i] = state[core.ST_SCORE]
