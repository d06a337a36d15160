"""The fast engine: numba kernels over packed boards.

A board is seven ``int64`` column words (see :mod:`engines.drop7.board`).
The kernels here are the hot path of play, training and search; the readable
twin in :mod:`engines.drop7.rules` states the same rules plainly and the tests
hold the two equal.

Reveal values come from one of three sources, chosen by ``kind``:

* ``SRC_SEEDED``: the game's counter-based stream, ``key`` = the move's
  reveal key (:func:`engines.drop7.rng.reveal_key`).
* ``SRC_LIST``: an explicit list ``rarr[rpos:]`` (replay records).
* ``SRC_STRATIFIED``: search samples: reveal event ``k`` of sample ``s`` of
  ``S`` uses stratum ``(s + rot_k) mod S`` and the value
  ``1 + floor(7 (stratum + frac_k) / S)``, where ``rot_k`` and ``frac_k`` come
  from ``key`` (a hash of the public state) and ``k``.  With ``S = 7`` a
  single reveal meets each value exactly once over the samples.

Game state for drivers lives in an ``int64`` array indexed by the ``ST_*``
constants; the seed stays with the driver and never enters a policy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.board import (
    CLEAR_BONUS,
    LEVEL_BONUS,
    MAX_MOVES,
    MOVES_PER_LEVEL,
    SOLID,
    WAVE_SCORE,
)
from engines.drop7.rng import (
    DOMAIN_DISC,
    DOMAIN_POLICY,
    DOMAIN_REVEAL,
    counter_word,
    fmix64,
    stream_key,
    u7,
    unit_float,
)

SRC_SEEDED, SRC_LIST, SRC_STRATIFIED = 0, 1, 2

# Results of one move, written into an int64 array of length OUT_LEN.
OUT_POINTS, OUT_WAVES, OUT_POPPED, OUT_REVEALS, OUT_CLEARED, OUT_ROSE, OUT_OVER = range(7)
OUT_LEN = 8
# Status codes of play_move.
OK, ERR_ILLEGAL, ERR_REVEALS = 0, 1, 2

# Game state array layout.
(ST_SCORE, ST_LEVEL, ST_MOVES_REMAINING, ST_MOVES_PLAYED, ST_GAME_OVER, ST_CENSORED,
 ST_CLEARS, ST_NEXT_DISC, ST_POPPED, ST_WAVES) = range(10)
ST_LEN = 10

SCRATCH_LEN = 64
_TOP_NIBBLE = 0xF000000  # nibble 6: the top row of a column


def _run_lengths() -> np.ndarray:
    """``RUNLEN[mask, c]``: length of the run of set bits through bit c (0 if unset)."""
    table = np.zeros((128, 7), dtype=np.int64)
    for mask in range(128):
        for c in range(7):
            if not mask >> c & 1:
                continue
            lo = c
            while lo > 0 and mask >> (lo - 1) & 1:
                lo -= 1
            hi = c
            while hi < 6 and mask >> (hi + 1) & 1:
                hi += 1
            table[mask, c] = hi - lo + 1
    return table


RUNLEN = _run_lengths()


@njit(cache=True, inline="always")
def col_height(w: np.int64) -> np.int64:
    """Height of a bottom-packed column word."""
    return ((w != 0) + (w > 0xF) + (w > 0xFF) + (w > 0xFFF) + (w > 0xFFFF)
            + (w > 0xFFFFF) + (w > 0xFFFFFF))


@njit(cache=True, inline="always")
def is_legal(cols: np.ndarray, column: np.int64) -> bool:
    """A column is legal when its top cell is empty."""
    return (cols[column] & _TOP_NIBBLE) == 0


@njit(cache=True)
def legal_mask(cols: np.ndarray) -> np.int64:
    """Bit c set when column c is legal."""
    m = 0
    for c in range(7):
        if (cols[c] & _TOP_NIBBLE) == 0:
            m |= 1 << c
    return m


@njit(cache=True)
def _reveal(kind, key, rarr, pos, strata, sample, j):
    """Value of the ``j``-th reveal of the move from the chosen source (-1: none left)."""
    if kind == SRC_SEEDED:
        return u7(counter_word(key, j))
    if kind == SRC_LIST:
        if pos + j >= rarr.shape[0]:
            return -1
        return rarr[pos + j]
    w = counter_word(key, j)
    rot = np.int64(w % np.uint64(strata))
    frac = unit_float(fmix64(w))
    stratum = (sample + rot) % strata
    v = 1 + np.int64(7.0 * (stratum + frac) / strata)
    return v if v <= 7 else 7


_LOW = 0x1111111  # bit 0 of each of the seven nibbles


@njit(cache=True, inline="always")
def _zero_nibbles(x: np.int64) -> np.int64:
    """Flag (bit 4k) of every nibble of ``x`` that is zero."""
    return ~(x | (x >> 1) | (x >> 2) | (x >> 3)) & _LOW


@njit(cache=True, inline="always")
def score_wave(scratch, depth, out) -> None:
    """Score a wave whose poppers (flags per column) are in ``scratch[14:21]``."""
    n = 0
    for c in range(7):
        n += ((scratch[14 + c] * _LOW) >> 24) & 0xF
    out[OUT_POINTS] += n * WAVE_SCORE[depth]
    out[OUT_WAVES] += 1
    out[OUT_POPPED] += n


@njit(cache=True)
def cascade(cols, depth, kind, key, rarr, rpos, strata, sample, scratch, out):
    """Resolve waves from chain depth ``depth`` until none pops.

    Works on nibble flags (bit ``4k`` of a column word's companion mask marks
    the cell at height ``k``): a numbered disc of value v pops when v equals
    the column height (``col_height``) or its row run (``RUNLEN``).  Adds
    points, waves, popped discs and reveals used to ``out``; returns the depth
    after the last wave (unchanged if nothing popped), or -1 when a list
    source runs out of reveals.

    Scratch layout: [0:7] heights, [7:14] row masks, [14:21] popper flags,
    [21:28] solid flags, [28:35] cracked flags, [35:42] reveal flags.
    """
    while True:
        for k in range(7):
            scratch[7 + k] = 0
        for c in range(7):
            hc = col_height(cols[c])
            scratch[c] = hc
            for k in range(7):
                scratch[7 + k] |= (hc > k) << c
        any_pop = 0
        for c in range(7):
            w = cols[c]
            hc = scratch[c]
            grey = (w >> 3) & _LOW
            numbered = ~_zero_nibbles(w) & ~grey & _LOW
            runs = 0
            for k in range(7):
                runs |= RUNLEN[scratch[7 + k], c] << (4 * k)
            pop = numbered & (_zero_nibbles(w ^ (hc * _LOW)) | _zero_nibbles(w ^ runs))
            scratch[14 + c] = pop
            scratch[21 + c] = grey & ~w
            scratch[28 + c] = grey & w
            any_pop |= pop
        if any_pop == 0:
            return depth
        score_wave(scratch, depth, out)
        any_rev = 0
        for c in range(7):
            solid = scratch[21 + c]
            cracked = scratch[28 + c]
            scratch[35 + c] = 0
            if solid == 0 and cracked == 0:
                continue
            left = scratch[13 + c] if c > 0 else 0
            right = scratch[15 + c] if c < 6 else 0
            below = (scratch[14 + c] << 4) & _LOW
            above = scratch[14 + c] >> 4
            hit1 = left | right | below | above
            hit2 = ((left & right) | (left & below) | (left & above)
                    | (right & below) | (right & above) | (below & above))
            rv = (cracked & hit1) | (solid & hit2)
            scratch[35 + c] = rv
            any_rev |= rv
            cols[c] |= solid & hit1 & ~hit2  # 8 -> 9: set bit 0 of the nibble
        if any_rev:
            j = out[OUT_REVEALS]
            for k in range(6, -1, -1):  # row-major order: top row first
                for c in range(7):
                    if (scratch[35 + c] >> (4 * k)) & 1:
                        v = _reveal(kind, key, rarr, rpos, strata, sample, j)
                        if v < 0:
                            return -1
                        j += 1
                        cols[c] = (cols[c] & ~(0xF << (4 * k))) | (v << (4 * k))
            out[OUT_REVEALS] = j
        for c in range(7):
            p = scratch[14 + c]
            if p == 0:
                continue
            w = cols[c]
            nw = 0
            j2 = 0
            for k in range(scratch[c]):
                if not ((p >> (4 * k)) & 1):
                    nw |= ((w >> (4 * k)) & 0xF) << (4 * j2)
                    j2 += 1
            cols[c] = nw
        depth += 1


@njit(cache=True)
def _drop_may_pop(cols, column, hc) -> bool:
    """Can a disc just dropped at height ``hc`` of ``column`` start a wave?

    Assumes the board was settled before the drop (true of every position
    reached by play): only the dropped column (its height grew) and the row
    run through the new disc (its length grew) can hold a new popper.
    """
    w = cols[column]
    numbered = ~_zero_nibbles(w) & ~(w >> 3) & _LOW
    if numbered & _zero_nibbles(w ^ ((hc + 1) * _LOW)):
        return True
    lo = column
    while lo > 0 and col_height(cols[lo - 1]) > hc:
        lo -= 1
    hi = column
    while hi < 6 and col_height(cols[hi + 1]) > hc:
        hi += 1
    run = hi - lo + 1
    shift = 4 * hc
    for c in range(lo, hi + 1):
        if ((cols[c] >> shift) & 0xF) == run:
            return True
    return False


@njit(cache=True)
def play_move(cols, column, disc, moves_remaining, kind, key, rarr, rpos, strata, sample,
              scratch, out):
    """Drop ``disc`` in ``column`` and resolve the whole move in place.

    Seeded and stratified sources assume a settled board (no latent
    poppers), which lets a drop that cannot pop skip the board scan; list
    sources (replay, whose start boards may hold latent poppers) always scan.
    ``out`` receives points, waves, popped, reveals used, cleared, rose and
    game_over (``OUT_*``); returns ``(status, moves_remaining_after)``.
    The caller guarantees the game is not over.
    """
    for i in range(OUT_LEN):
        out[i] = 0
    if column < 0 or column > 6 or (cols[column] & _TOP_NIBBLE) != 0:
        return ERR_ILLEGAL, moves_remaining
    w = cols[column]
    hc = col_height(w)
    cols[column] = w | (disc << (4 * hc))
    if kind == SRC_LIST or _drop_may_pop(cols, column, hc):
        depth = cascade(cols, 1, kind, key, rarr, rpos, strata, sample, scratch, out)
    else:
        depth = 1
    if depth < 0:
        return ERR_REVEALS, moves_remaining
    empty = True
    for c in range(7):
        if cols[c] != 0:
            empty = False
    if empty:
        out[OUT_POINTS] += CLEAR_BONUS
        out[OUT_CLEARED] = 1
    moves_remaining -= 1
    if moves_remaining == 0:
        top = 0
        for c in range(7):
            top |= cols[c] & _TOP_NIBBLE
        if top != 0:
            out[OUT_OVER] = 1
            return OK, moves_remaining
        for c in range(7):
            cols[c] = (cols[c] << 4) | SOLID
        out[OUT_ROSE] = 1
        out[OUT_POINTS] += LEVEL_BONUS
        moves_remaining = MOVES_PER_LEVEL
        depth = cascade(cols, depth, kind, key, rarr, rpos, strata, sample, scratch, out)
        if depth < 0:
            return ERR_REVEALS, moves_remaining
        empty = True
        for c in range(7):
            if cols[c] != 0:
                empty = False
        if empty:
            out[OUT_POINTS] += CLEAR_BONUS
            out[OUT_CLEARED] = 1
    if legal_mask(cols) == 0:
        out[OUT_OVER] = 1
    return OK, moves_remaining


@njit(cache=True)
def new_game(seed, state, cols):
    """Reset ``state`` and ``cols`` to the opening position of game ``seed``."""
    for i in range(ST_LEN):
        state[i] = 0
    for c in range(7):
        cols[c] = SOLID
    state[ST_LEVEL] = 1
    state[ST_MOVES_REMAINING] = MOVES_PER_LEVEL
    state[ST_NEXT_DISC] = u7(counter_word(stream_key(np.uint64(seed), DOMAIN_DISC), 0))


@njit(cache=True)
def advance(seed, column, state, cols, scratch, out):
    """Play the state's next disc in ``column`` on game ``seed``; returns a status.

    Updates score, level, counters, the next disc, game over and censoring
    (a game stops after ``MAX_MOVES`` moves).
    """
    useed = np.uint64(seed)
    m = state[ST_MOVES_PLAYED]
    key = counter_word(stream_key(useed, DOMAIN_REVEAL), m)
    status, mr = play_move(cols, column, state[ST_NEXT_DISC], state[ST_MOVES_REMAINING],
                           SRC_SEEDED, key, scratch, 0, 7, 0, scratch, out)
    if status != OK:
        return status
    state[ST_MOVES_REMAINING] = mr
    state[ST_SCORE] += out[OUT_POINTS]
    state[ST_LEVEL] += out[OUT_ROSE]
    state[ST_CLEARS] += out[OUT_CLEARED]
    state[ST_POPPED] += out[OUT_POPPED]
    state[ST_WAVES] += out[OUT_WAVES]
    state[ST_MOVES_PLAYED] = m + 1
    if out[OUT_OVER]:
        state[ST_GAME_OVER] = 1
    elif m + 1 >= MAX_MOVES:
        state[ST_CENSORED] = 1
    else:
        state[ST_NEXT_DISC] = u7(counter_word(stream_key(useed, DOMAIN_DISC), m + 1))
    return OK


@njit(cache=True, inline="always")
def finished(state) -> bool:
    """True when the game is over or censored."""
    return state[ST_GAME_OVER] != 0 or state[ST_CENSORED] != 0


POLICY_RANDOM, POLICY_CENTRE_FIRST, POLICY_LOWEST_COLUMN = 0, 1, 2
_CENTRE = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)


@njit(cache=True)
def baseline_choice(policy, seed, state, cols):
    """Column chosen by a baseline policy (the public state plus its own coin)."""
    if policy == POLICY_RANDOM:
        lm = legal_mask(cols)
        n = 0
        for c in range(7):
            n += lm >> c & 1
        w = counter_word(stream_key(np.uint64(seed), DOMAIN_POLICY), state[ST_MOVES_PLAYED])
        pick = np.int64(((w >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
        for c in range(7):
            if lm >> c & 1:
                if pick == 0:
                    return c
                pick -= 1
    if policy == POLICY_CENTRE_FIRST:
        for i in range(7):
            if is_legal(cols, _CENTRE[i]):
                return _CENTRE[i]
    best = -1
    best_h = 99
    for i in range(7):  # lowest column, ties to the more central
        c = _CENTRE[i]
        hc = col_height(cols[c])
        if hc < 7 and hc < best_h:
            best = c
            best_h = hc
    return best


@njit(cache=True)
def play_baseline_games(seeds, policy, results):
    """Play whole games of a baseline policy; ``results[g]`` gets the final state."""
    state = np.zeros(ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(OUT_LEN, dtype=np.int64)
    total = 0
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        new_game(seed, state, cols)
        while not finished(state):
            c = baseline_choice(policy, seed, state, cols)
            advance(seed, c, state, cols, scratch, out)
        results[g, :] = state
        total += state[ST_MOVES_PLAYED]
    return total
