"""The fast engine: numba kernels over packed boards.

A board is seven ``int64`` column words (see :mod:`engines.drop7.board`;
the nibble tests are in :mod:`engines.drop7.nibbles`).  The kernels here are
the hot path of play, training and search, and each rule has one home:
:func:`cascade` (with every reveal source), :func:`drop_pops` and
:func:`rise_pops` (can a drop or a rise on a settled board pop anything),
:func:`finish_move` (clear bonus, countdown, rise, game over) and
:func:`quick_drop` (a move on which nothing pops, without the cascade).  The readable
twin in :mod:`engines.drop7.rules` states the same rules plainly and the
tests hold the two equal.

Reveal values come from one of four sources, chosen by ``kind``:

* ``SRC_SEEDED``: the game's counter-based stream, ``key`` = the move's
  reveal key (:func:`engines.drop7.rng.reveal_key`).
* ``SRC_LIST``: an explicit list ``rarr[rpos:]`` (replay records).
* ``SRC_STRATIFIED``: search samples: reveal event ``k`` of sample ``s`` of
  ``S`` uses stratum ``(s + rot_k) mod S`` and the value
  ``1 + floor(7 (stratum + frac_k) / S)``, where ``rot_k`` and ``frac_k`` come
  from ``key`` (a hash of the public state) and ``k``.  With ``S = 7`` a
  single reveal meets each value exactly once over the samples.
* ``SRC_REGISTER``: search samples drawn as the research register draws them
  (:mod:`engines.drop7.register_rng`, ``key`` = its state seed): the same
  stratified shape, a rotation per event and a jitter per sample.

Game state for drivers lives in an ``int64`` array indexed by the ``ST_*``
constants; the seed stays with the driver and never enters a policy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7 import register_rng
from engines.drop7.board import (
    CLEAR_BONUS,
    LEVEL_BONUS,
    MAX_MOVES,
    MOVES_PER_LEVEL,
    SOLID,
    WAVE_SCORE,
)
from engines.drop7.nibbles import (
    LOW,
    any_top,
    col_height,
    count_board_flags,
    count_flags,
    drop_cells,
    equal_to,
    flag_bits,
    greys,
    is_empty,
    is_legal,
    legal_mask,
    numbered,
    occupied,
    zero_nibbles,
)
from engines.drop7.rng import (
    DOMAIN_DISC,
    DOMAIN_REVEAL,
    counter_word,
    fmix64,
    stream_key,
    u7,
)

__all__ = ["col_height", "is_legal", "legal_mask"]  # re-exported for drivers and tests

SRC_SEEDED, SRC_LIST, SRC_STRATIFIED, SRC_REGISTER = 0, 1, 2, 3

# Results of one move, written into an int64 array of length OUT_LEN.
OUT_POINTS, OUT_WAVES, OUT_POPPED, OUT_REVEALS, OUT_CLEARED, OUT_ROSE, OUT_OVER = range(7)
OUT_LEN = 8
# Status codes of play_move.
OK, ERR_ILLEGAL, ERR_REVEALS = 0, 1, 2

# Game state array layout.
(ST_SCORE, ST_LEVEL, ST_MOVES_REMAINING, ST_MOVES_PLAYED, ST_GAME_OVER, ST_CENSORED,
 ST_CLEARS, ST_NEXT_DISC, ST_POPPED, ST_WAVES) = range(10)
ST_LEN = 10

#: length of the int64 scratch array of a move (callers allocate twice that)
SCRATCH_LEN = 64
# scratch of a wave: heights, occupied flags, popper flags, row runs, reveal flags (7 each),
# and the chain depth of a wave where the cascade stopped
SC_H, SC_OCC, SC_POP, SC_RUN, SC_REV, SC_STOP_DEPTH = 0, 7, 14, 21, 28, 35

#: cascade and finish_move results below 0: a list source ran out of reveals, or the
#: cascade stopped at a revealing wave before drawing its values (``stop_at_reveal``)
REVEALS_OUT, STOPPED = -1, -2

_F53 = 1.0 / 9007199254740992.0


def _run_flags() -> np.ndarray:
    """``RUN_FLAGS[7 m + c]``: flags (bit ``4j``) of the run of set bits of the 7-bit row
    mask ``m`` through bit ``c`` (0 when bit ``c`` is clear)."""
    table = np.zeros(128 * 7, dtype=np.int64)
    for m in range(128):
        for c in range(7):
            j = c
            while 0 <= j < 7 and m >> j & 1:
                table[7 * m + c] |= 1 << (4 * j)
                j -= 1
            j = c + 1
            while j < 7 and m >> c & 1 and m >> j & 1:
                table[7 * m + c] |= 1 << (4 * j)
                j += 1
    return table


RUN_FLAGS = _run_flags()


@njit(cache=True, inline="always")
def stratum_parts(key, j, strata):
    """``(rot, m)`` of stratified reveal event ``j``: the same for every sample (its stratum
    rotation, and its fraction ``m / 2**53``)."""
    w = counter_word(key, j)
    return np.int64(w % np.uint64(strata)), np.int64(fmix64(w) >> np.uint64(11))


@njit(cache=True, inline="always")
def stratum_value(rot, m, sample, strata) -> np.int64:
    """The value sample ``sample`` of ``strata`` draws for a reveal with parts ``(rot, m)``."""
    stratum = (sample + rot) % strata
    v = 1 + np.int64(7.0 * (stratum + np.float64(m) * _F53) / strata)
    return v if v <= 7 else 7


@njit(cache=True, inline="always")
def reveal_parts(kind, key, j, strata):
    """The sample-free parts of stratified reveal ``j`` of a chance source
    (``SRC_STRATIFIED`` or ``SRC_REGISTER``)."""
    if kind == SRC_REGISTER:
        return register_rng.reveal_parts(key, j, strata)
    return stratum_parts(key, j, strata)


@njit(cache=True, inline="always")
def reveal_sample(kind, rot, m, sample, strata) -> np.int64:
    """The value sample ``sample`` draws for a reveal with parts :func:`reveal_parts`."""
    if kind == SRC_REGISTER:
        return register_rng.event_value(rot, m, sample, strata)
    return stratum_value(rot, m, sample, strata)


@njit(cache=True, inline="always")
def _reveal(kind, key, rarr, pos, strata, sample, j):
    """Value of the ``j``-th reveal of the move from the chosen source (-1: none left)."""
    if kind == SRC_SEEDED:
        return u7(counter_word(key, j))
    if kind == SRC_LIST:
        if pos + j >= rarr.shape[0]:
            return -1
        return rarr[pos + j]
    rot, m = reveal_parts(kind, key, j, strata)
    return reveal_sample(kind, rot, m, sample, strata)


@njit(cache=True, inline="always")
def score_wave(scratch, depth, out) -> None:
    """Score a wave whose poppers (flags per column) are in ``scratch[SC_POP:]``."""
    n = count_board_flags(scratch, SC_POP)
    out[OUT_POINTS] += n * WAVE_SCORE[depth]
    out[OUT_WAVES] += 1
    out[OUT_POPPED] += n


@njit(cache=True, inline="always")
def scan(cols, scratch) -> np.int64:
    """Heights, occupied flags, poppers and row runs of ``cols`` into ``scratch``.

    A numbered disc of value v pops when v equals its column's height or its
    row run, the run of full cells through it.  With ``F`` the occupied
    flags, the left part of column ``c``'s runs is ``L_c = (L_{c-1} + 1) &
    F_{c-1}`` nibble by nibble (0 where the left neighbour is empty), the
    right part likewise, and the run ``L + R + 1``.  Returns the poppers
    OR-ed over the columns (0: the board is settled).
    """
    left = 0
    for c in range(7):
        w = cols[c]
        f = occupied(w)
        scratch[SC_OCC + c] = f
        scratch[SC_H + c] = col_height(w)
        scratch[SC_RUN + c] = left
        left = (left + LOW) & (f * 0xF)
    right = 0
    any_pop = 0
    for c in range(6, -1, -1):
        w = cols[c]
        f = scratch[SC_OCC + c]
        runs = scratch[SC_RUN + c] + right + LOW
        scratch[SC_RUN + c] = runs
        right = (right + LOW) & (f * 0xF)
        pop = f & ~(w >> 3) & (equal_to(w, scratch[SC_H + c]) | zero_nibbles(w ^ runs))
        scratch[SC_POP + c] = pop
        any_pop |= pop
    return any_pop


@njit(cache=True, inline="always")
def hit_greys(cols, depth, scratch, out) -> np.int64:
    """Score the wave of the poppers in ``scratch`` and hit the greys beside them.

    A solid grey hit once cracks (in ``cols``: 8 -> 9); a cracked grey hit, or
    a solid one hit twice, is revealed: its flags go to ``scratch[SC_REV:]``.
    Returns the reveal flags OR-ed over the columns.
    """
    score_wave(scratch, depth, out)
    any_rev = 0
    for c in range(7):
        w = cols[c]
        g = greys(w)
        pop = scratch[SC_POP + c]
        left = scratch[SC_POP + c - 1] if c > 0 else 0
        right = scratch[SC_POP + c + 1] if c < 6 else 0
        below = (pop << 4) & LOW
        above = pop >> 4
        hit1 = left | right | below | above
        hit2 = ((left & right) | (left & below) | (left & above)
                | (right & below) | (right & above) | (below & above))
        solid = g & ~w
        rv = (g & w & hit1) | (solid & hit2)
        scratch[SC_REV + c] = rv
        any_rev |= rv
        cols[c] = w | (solid & hit1 & ~hit2)  # set bit 0 of the nibble
    return any_rev


@njit(cache=True, _nrt=False)
def draw_reveals(cols, kind, key, rarr, rpos, strata, sample, scratch, out) -> bool:
    """Give the greys flagged in ``scratch[SC_REV:]`` their values, in row-major order (top
    row first, then left to right); False when a list source runs out."""
    rows = 0
    for c in range(7):
        rows |= scratch[SC_REV + c]
    j = out[OUT_REVEALS]
    for k in range(6, -1, -1):
        if not (rows >> (4 * k)) & 1:
            continue
        for c in range(7):
            if (scratch[SC_REV + c] >> (4 * k)) & 1:
                v = _reveal(kind, key, rarr, rpos, strata, sample, j)
                if v < 0:
                    return False
                j += 1
                cols[c] = (cols[c] & ~(0xF << (4 * k))) | (v << (4 * k))
    out[OUT_REVEALS] = j
    return True


@njit(cache=True, inline="always")
def gravity(cols, scratch) -> None:
    """Drop the poppers of the wave (flags in ``scratch[SC_POP:]``); the cells above fall."""
    for c in range(7):
        if scratch[SC_POP + c] != 0:
            cols[c] = drop_cells(cols[c], scratch[SC_POP + c])


@njit(cache=True, _nrt=False)
def waves(cols, depth, kind, key, rarr, rpos, strata, sample, scratch, out,
          stop_at_reveal) -> np.int64:
    """The cascade from a scanned board with poppers (:func:`scan` filled ``scratch``).

    Returns the chain depth after the last wave, ``REVEALS_OUT``, or, with
    ``stop_at_reveal``, ``STOPPED`` at the first wave that reveals a grey:
    that wave is scored and its greys cracked, its reveal flags and poppers
    stay in ``scratch`` (its depth in ``scratch[SC_STOP_DEPTH]``), and
    nothing is drawn or dropped.
    """
    while True:
        if hit_greys(cols, depth, scratch, out) != 0:
            if stop_at_reveal:
                scratch[SC_STOP_DEPTH] = depth
                return STOPPED
            if not draw_reveals(cols, kind, key, rarr, rpos, strata, sample, scratch, out):
                return REVEALS_OUT
        gravity(cols, scratch)
        depth += 1
        if scan(cols, scratch) == 0:
            return depth


@njit(cache=True, inline="always")
def cascade(cols, depth, kind, key, rarr, rpos, strata, sample, scratch, out,
            stop_at_reveal=False) -> np.int64:
    """Resolve waves from chain depth ``depth`` until none pops (see :func:`waves`).

    Adds points, waves, popped discs and reveals used to ``out``; returns the
    depth after the last wave (unchanged if nothing popped).
    """
    if scan(cols, scratch) == 0:
        return depth
    return waves(cols, depth, kind, key, rarr, rpos, strata, sample, scratch, out,
                 stop_at_reveal)


@njit(cache=True, inline="always")
def drop_pops(cols, column, height, disc) -> bool:
    """Does dropping ``disc`` on the settled board ``cols`` (column ``column`` of height
    ``height``) make a popper?

    On a settled board (no poppers, as every position reached by play) only
    the dropped column (its height grew) and the row run through the new
    disc (its length grew) can hold a new popper.
    """
    tall = height + 1
    sh = 4 * height
    row = disc << (4 * column)  # the row of the new disc, one nibble a column
    for c in range(7):
        row |= ((cols[c] >> sh) & 0xF) << (4 * c)
    run = RUN_FLAGS[7 * flag_bits(occupied(row)) + column]
    return ((disc == tall) | (equal_to(cols[column], tall) != 0)
            | ((equal_to(row, count_flags(run)) & run) != 0))


@njit(cache=True, inline="always")
def rise_pops(cols) -> bool:
    """Would the rise pop anything on the settled board ``cols`` (top row empty)?

    The rise lifts every column over a grey floor: row runs stay, so only a
    numbered disc equal to its column's new height can pop.
    """
    p = 0
    for c in range(7):
        w = cols[c]
        p |= numbered(w) & equal_to(w, col_height(w) + 1)
    return p != 0


@njit(cache=True, inline="always")
def clear_bonus(cols, out) -> None:
    """The clear bonus when the board is empty."""
    if is_empty(cols):
        out[OUT_POINTS] += CLEAR_BONUS
        out[OUT_CLEARED] = 1


@njit(cache=True, inline="always")
def finish_move(cols, depth, mr, risen, kind, key, rarr, rpos, strata, sample, scratch, out,
                stop_at_reveal) -> np.int64:
    """The end of a move whose cascade has settled at chain depth ``depth``.

    The clear bonus; unless the move ``risen`` already, the countdown and at
    its end game over (a disc in the top row) or the rise, its bonus and its
    cascade (:func:`rise_pops` first: most rises pop nothing); then game
    over when no column is legal.  Returns the moves remaining after, or a
    negative :func:`cascade` result of the rise's cascade.
    """
    clear_bonus(cols, out)
    if not risen:
        mr -= 1
        if mr == 0:
            if any_top(cols):
                out[OUT_OVER] = 1
                return 0
            pops = rise_pops(cols)
            for c in range(7):
                cols[c] = (cols[c] << 4) | SOLID
            out[OUT_ROSE] = 1
            out[OUT_POINTS] += LEVEL_BONUS
            mr = MOVES_PER_LEVEL
            if pops:
                depth = cascade(cols, depth, kind, key, rarr, rpos, strata, sample, scratch, out,
                                stop_at_reveal)
                if depth < 0:
                    return depth
                clear_bonus(cols, out)
    if legal_mask(cols) == 0:
        out[OUT_OVER] = 1
    return mr


@njit(cache=True, _nrt=False)
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
    if column < 0 or column > 6 or not is_legal(cols, column):
        return ERR_ILLEGAL, moves_remaining
    w = cols[column]
    h = col_height(w)
    pops = kind == SRC_LIST or drop_pops(cols, column, h, disc)
    cols[column] = w | (disc << (4 * h))
    depth = 1
    if pops:
        depth = cascade(cols, 1, kind, key, rarr, rpos, strata, sample, scratch, out)
        if depth < 0:
            return ERR_REVEALS, moves_remaining
    mr = finish_move(cols, depth, moves_remaining, False, kind, key, rarr, rpos, strata, sample,
                     scratch, out, False)
    if mr < 0:
        return ERR_REVEALS, MOVES_PER_LEVEL
    return OK, mr


@njit(cache=True, inline="always")
def quick_drop(board, column, disc, moves_remaining):
    """Play a move on which nothing pops in place, without the cascade.

    The commonest move of search and training: on a settled board
    :func:`drop_pops` and, when the move ends the level, :func:`rise_pops`
    say nothing pops, so the move earns no wave points and reveals nothing.
    Returns ``(ok, moves_remaining_after, points, game_over)``; with ``ok``
    false something pops, the board is untouched and the engine must play
    the move.  The column must be legal.
    """
    w = board[column]
    h = col_height(w)
    if drop_pops(board, column, h, disc):
        return False, moves_remaining, np.int64(0), False
    board[column] = w | (disc << (4 * h))
    mr = moves_remaining - 1
    if mr > 0:
        return True, mr, np.int64(0), legal_mask(board) == 0
    if any_top(board):
        return True, mr, np.int64(0), True
    if rise_pops(board):
        board[column] = w
        return False, moves_remaining, np.int64(0), False
    for c in range(7):
        board[c] = (board[c] << 4) | SOLID
    return True, np.int64(MOVES_PER_LEVEL), np.int64(LEVEL_BONUS), legal_mask(board) == 0


@njit(cache=True)
def new_game(seed, state, cols):
    """Reset ``state`` and ``cols`` to the opening position of game ``seed``."""
    opening(u7(counter_word(stream_key(np.uint64(seed), DOMAIN_DISC), 0)), state, cols)


@njit(cache=True, inline="always")
def opening(disc, state, cols):
    """Reset ``state`` and ``cols`` to the opening position (one grey row) with first disc
    ``disc``, whatever stream drew it."""
    for i in range(ST_LEN):
        state[i] = 0
    for c in range(7):
        cols[c] = SOLID
    state[ST_LEVEL] = 1
    state[ST_MOVES_REMAINING] = MOVES_PER_LEVEL
    state[ST_NEXT_DISC] = disc


@njit(cache=True, inline="always")
def settle(m, mr, state, out) -> bool:
    """Book move ``m`` just played (``mr`` moves remaining after, results in ``out``) in
    ``state``; True when the game goes on and needs its next disc."""
    state[ST_MOVES_REMAINING] = mr
    state[ST_SCORE] += out[OUT_POINTS]
    state[ST_LEVEL] += out[OUT_ROSE]
    state[ST_CLEARS] += out[OUT_CLEARED]
    state[ST_POPPED] += out[OUT_POPPED]
    state[ST_WAVES] += out[OUT_WAVES]
    state[ST_MOVES_PLAYED] = m + 1
    if out[OUT_OVER]:
        state[ST_GAME_OVER] = 1
        return False
    if m + 1 >= MAX_MOVES:
        state[ST_CENSORED] = 1
        return False
    return True


@njit(cache=True, inline="always")
def advance_keyed(disc_key, reveal_key, column, state, cols, scratch, out):
    """:func:`advance` with the game's disc and reveal stream keys given."""
    m = state[ST_MOVES_PLAYED]
    key = counter_word(reveal_key, m)
    status, mr = play_move(cols, column, state[ST_NEXT_DISC], state[ST_MOVES_REMAINING],
                           SRC_SEEDED, key, scratch, 0, 7, 0, scratch, out)
    if status != OK:
        return status
    if settle(m, mr, state, out):
        state[ST_NEXT_DISC] = u7(counter_word(disc_key, m + 1))
    return OK


@njit(cache=True)
def advance(seed, column, state, cols, scratch, out):
    """Play the state's next disc in ``column`` on game ``seed``; returns a status.

    Updates score, level, counters, the next disc, game over and censoring
    (a game stops after ``MAX_MOVES`` moves).
    """
    useed = np.uint64(seed)
    return advance_keyed(stream_key(useed, DOMAIN_DISC), stream_key(useed, DOMAIN_REVEAL), column,
                         state, cols, scratch, out)


@njit(cache=True, inline="always")
def finished(state) -> bool:
    """True when the game is over or censored."""
    return state[ST_GAME_OVER] != 0 or state[ST_CENSORED] != 0
