"""Fair chance nodes: mirror canonicalisation, state-keyed stratified samples.

Search and training average a move over ``S`` chance samples without ever
seeing the game seed.  Sample ``s`` of the chance node reached by playing
``column`` with ``disc`` on a public state is keyed by a hash of that public
state (:func:`chance_key`), so the same state always gets the same samples:

* the next disc of sample ``s`` is ``1 + floor(7 (s + f) / S)`` with ``f`` a
  key-derived fraction; with ``S = 7`` it is exactly ``s + 1``;
* reveal event ``k`` of sample ``s`` uses stratum ``(s + rot_k) mod S``
  (:data:`engines.drop7.core.SRC_STRATIFIED`).

Boards are mirror-canonicalised (the lexicographically smaller of the board
and its left-right mirror in row-major order, top row first) before they are
keyed, so a position and its mirror image get mirrored samples.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from engines.drop7.board import CLEAR_BONUS, LEVEL_BONUS, MOVES_PER_LEVEL, SOLID
from engines.drop7.core import (
    _LOW,
    _TOP_NIBBLE,
    OUT_CLEARED,
    OUT_LEN,
    OUT_OVER,
    OUT_POINTS,
    OUT_POPPED,
    OUT_REVEALS,
    OUT_ROSE,
    OUT_WAVES,
    SCRATCH_LEN,
    SRC_STRATIFIED,
    _drop_may_pop,
    _reveal,
    _zero_nibbles,
    col_height,
    legal_mask,
    play_move,
    score_wave,
)
from engines.drop7.rng import DOMAIN_CHANCE, GAMMA, counter_word, fmix64, unit_float


@njit(cache=True)
def mirrored_is_smaller(cols) -> bool:
    """True when the left-right mirror precedes the board in row-major order."""
    for k in range(6, -1, -1):  # row 0 (top) is nibble 6
        shift = 4 * k
        for c in range(3):
            a = (cols[c] >> shift) & 0xF
            b = (cols[6 - c] >> shift) & 0xF
            if a != b:
                return b < a
    return False


@njit(cache=True, inline="always")
def mirror_precedes(cols) -> bool:
    """:func:`mirrored_is_smaller` without a loop (the same answer on every board).

    The first cell (row-major, top row first) where the board and its mirror
    differ is the highest nibble flagged in ``F = Σ diff(c, 6-c) << (2 - c)``
    over the column pairs ``c = 0, 1, 2`` (a higher row wins, then a smaller
    column); the mirror precedes when its value there is smaller.
    """
    f = 0
    for c in range(3):
        d = cols[c] ^ cols[6 - c]
        f |= (~_zero_nibbles(d) & _LOW) << (2 - c)
    if f == 0:
        return False
    p = 63 - leading_zeros(np.uint64(f))
    sh = 4 * (p >> 2)
    c = 2 - (p & 3)
    return ((cols[6 - c] >> sh) & 0xF) < ((cols[c] >> sh) & 0xF)


@njit(cache=True)
def canonicalise(cols, dst) -> bool:
    """Write the canonical board into ``dst``; True when it is the mirror."""
    if mirrored_is_smaller(cols):
        for c in range(7):
            dst[c] = cols[6 - c]
        return True
    for c in range(7):
        dst[c] = cols[c]
    return False


@njit(cache=True)
def chance_key(cols, disc, moves_remaining, column) -> np.uint64:
    """Hash of a public state and the column played: the key of its samples."""
    h = DOMAIN_CHANCE
    for c in range(7):
        h = fmix64((h ^ np.uint64(cols[c])) + GAMMA)
    tail = np.uint64(disc | (moves_remaining << 4) | (column << 8))
    return fmix64((h ^ tail) + GAMMA)


@njit(cache=True)
def sample_disc(key, strata, sample) -> np.int64:
    """Next disc of sample ``sample`` of ``strata`` (exactly ``sample + 1`` at S = 7)."""
    frac = unit_float(counter_word(key ^ GAMMA, 0))
    v = 1 + np.int64(7.0 * (sample + frac) / strata)
    return v if v <= 7 else 7


@njit(cache=True)
def play_sample(cols, column, disc, moves_remaining, key, strata, sample, scratch, out):
    """Play a move in place with the reveals of chance sample ``sample``.

    Returns ``(status, moves_remaining_after)`` like
    :func:`engines.drop7.core.play_move`; ``out[OUT_REVEALS] == 0`` means the
    move revealed nothing, so every sample of this chance node gives the same
    board.
    """
    return play_move(cols, column, disc, moves_remaining, SRC_STRATIFIED, key, scratch, 0,
                     strata, sample, scratch, out)




# ---- every stratum of one move at once -------------------------------------------------------
#
# A second implementation of the stratified cascade of ``core.cascade`` (same
# rules, same draw order), written for speed: heights and row runs come from
# nibble-parallel arithmetic on the column words (no per-cell loop, no table),
# and a cascade can stop at its first reveal, so the samples of a move share
# everything before it.  tests/test_train_strata.py holds it equal to
# ``play_sample`` on every sample of many positions.

# play_strata: one row of ``res`` per sample
RES_MR, RES_POINTS, RES_OVER, RES_WAVES, RES_REVEALS = range(5)
RES_LEN = 5
#: length of the int64 scratch array play_strata needs
STRATA_SCRATCH_LEN = 3 * SCRATCH_LEN
# scratch (3 * SCRATCH_LEN): [0:7] heights, [7:14] occupied flags, [14:21] poppers, [21:28]
# row runs, [28:35] reveal flags; from SCRATCH_LEN on, what the samples of play_strata share
_SB = SCRATCH_LEN  # [_SB:_SB+7] the board after the first revealing wave (reveal cells grey)
_SN = SCRATCH_LEN + 7  # number of reveal cells
_SD = SCRATCH_LEN + 8  # chain depth of the wave after the revealing one
_SP = SCRATCH_LEN + 9  # poppers of the shared board (its reveal cells are grey: never poppers)
_SH = SCRATCH_LEN + 10  # [_SH:_SH+7] its column heights
_SQ = SCRATCH_LEN + 17  # [_SQ:_SQ+7] its poppers, column by column
#: reveal cells in draw order, two words each: ``c | k << 3 | height << 6 | run << 9 | rot << 12``
#: and the 53-bit fraction of the reveal's stratified value (see :func:`_reveal_parts`)
_SR = SCRATCH_LEN + 24
_F53 = 1.0 / 9007199254740992.0
_STOPPED = -1


@njit(cache=True, inline="always")
def _numbered(w):
    """Flag (bit 4k) of every numbered disc (1-7) of a column word."""
    return ~_zero_nibbles(w) & ~(w >> 3) & _LOW


@njit(cache=True, _nrt=False)
def _scan(cols, scratch) -> np.int64:
    """Heights, occupied flags, poppers and row runs of ``cols`` into ``scratch[0:28]``.

    A row run is the run of full cells through a cell: with ``F`` the
    occupied flags, the left part of column ``c`` is
    ``L_c = (L_{c-1} + 1) & F_{c-1}`` nibble by nibble (0 where the left
    neighbour is empty), the right part likewise, and the run ``L + R + 1``.
    Returns the poppers OR-ed over the columns (0: the board is settled).
    """
    left = 0
    for c in range(7):
        f = ~_zero_nibbles(cols[c]) & _LOW
        scratch[7 + c] = f
        scratch[c] = ((f * _LOW) >> 24) & 0xF
        scratch[21 + c] = left
        left = (left + _LOW) & (f * 0xF)
    right = 0
    any_pop = 0
    for c in range(6, -1, -1):
        w = cols[c]
        runs = scratch[21 + c] + right + _LOW
        scratch[21 + c] = runs
        right = (right + _LOW) & (scratch[7 + c] * 0xF)
        pop = _numbered(w) & (_zero_nibbles(w ^ (scratch[c] * _LOW)) | _zero_nibbles(w ^ runs))
        scratch[14 + c] = pop
        any_pop |= pop
    return any_pop


@njit(cache=True, _nrt=False)
def _hits(cols, depth, scratch, out) -> np.int64:
    """Score the wave of the poppers in ``scratch`` and hit the greys beside them.

    A solid grey hit once cracks (in ``cols``); a cracked grey hit, or a solid
    one hit twice, is revealed: its flags go to ``scratch[28:35]``.  Returns
    the reveal flags OR-ed over the columns.
    """
    score_wave(scratch, depth, out)
    any_rev = 0
    for c in range(7):
        w = cols[c]
        grey = (w >> 3) & _LOW
        scratch[28 + c] = 0
        if grey == 0:
            continue
        pop = scratch[14 + c]
        left = scratch[13 + c] if c > 0 else 0
        right = scratch[15 + c] if c < 6 else 0
        below = (pop << 4) & _LOW
        above = pop >> 4
        hit1 = left | right | below | above
        hit2 = ((left & right) | (left & below) | (left & above)
                | (right & below) | (right & above) | (below & above))
        solid = grey & ~w
        rv = (grey & w & hit1) | (solid & hit2)
        scratch[28 + c] = rv
        any_rev |= rv
        cols[c] = w | (solid & hit1 & ~hit2)  # 8 -> 9: set bit 0 of the nibble
    return any_rev


@njit(cache=True, inline="always")
def _compact(w, pop) -> np.int64:
    """Column word ``w`` without the cells flagged in ``pop`` (the top one first)."""
    while pop:
        low = (1 << (63 - leading_zeros(np.uint64(pop)))) - 1  # the nibbles below it
        w = (w & low) | ((w >> 4) & ~low)
        pop &= low
    return w


@njit(cache=True, _nrt=False)
def _gravity(cols, scratch) -> None:
    """Drop the poppers of the wave (flags and heights in ``scratch``)."""
    for c in range(7):
        if scratch[14 + c] != 0:
            cols[c] = _compact(cols[c], scratch[14 + c])


@njit(cache=True, inline="always")
def _reveal_parts(key, j, strata):
    """``(rot, m)`` of reveal event ``j``: what ``core._reveal`` draws for every sample alike
    (its stratum rotation, and its fraction ``m / 2**53``)."""
    w = counter_word(key, j)
    return np.int64(w % np.uint64(strata)), np.int64(fmix64(w) >> np.uint64(11))


@njit(cache=True, inline="always")
def _stratum_value(rot, m, sample, strata) -> np.int64:
    """The value ``core._reveal`` gives sample ``sample`` for a reveal with parts ``(rot, m)``."""
    stratum = (sample + rot) % strata
    v = 1 + np.int64(7.0 * (stratum + np.float64(m) * _F53) / strata)
    return v if v <= 7 else 7


@njit(cache=True, _nrt=False)
def _share_reveal(cols, depth, key, strata, scratch) -> None:
    """Finish the first revealing wave without its values (shared by every sample).

    Drops the poppers (the reveal cells stay grey) and keeps in
    ``scratch[SCRATCH_LEN:]`` the board, the chain depth of the next wave,
    that board's poppers, and its reveal cells in draw order (top row first,
    then left to right, as the flags stood before gravity), each with its
    place after gravity, its column's height and row run there, and the
    parts of its value that do not depend on the sample.
    """
    n = 0
    for k in range(6, -1, -1):
        for c in range(7):
            if (scratch[28 + c] >> (4 * k)) & 1:
                below = scratch[14 + c] & ((1 << (4 * k)) - 1)
                scratch[_SR + 2 * n] = c | ((k - (((below * _LOW) >> 24) & 0xF)) << 3)
                n += 1
    _gravity(cols, scratch)
    scratch[_SP] = _scan(cols, scratch)
    for c in range(7):
        scratch[_SH + c] = scratch[c]
        scratch[_SQ + c] = scratch[14 + c]
    for i in range(n):
        e = scratch[_SR + 2 * i]
        c = e & 7
        run = (scratch[21 + c] >> (4 * (e >> 3))) & 0xF
        rot, m = _reveal_parts(key, i, strata)
        scratch[_SR + 2 * i] = e | (scratch[c] << 6) | (run << 9) | (rot << 12)
        scratch[_SR + 2 * i + 1] = m
    for c in range(7):
        scratch[_SB + c] = cols[c]
    scratch[_SN] = n
    scratch[_SD] = depth + 1


@njit(cache=True, _nrt=False)
def cascade_strata(cols, depth, key, strata, sample, scratch, out, share) -> np.int64:
    """``core.cascade`` with stratified reveals (sample ``sample`` of ``strata``, keyed by
    ``key``); returns the depth after the last wave.

    With ``share`` it stops at the first wave that reveals a grey, before
    drawing any value: the wave is scored, its greys cracked and its poppers
    dropped, and what the samples share is kept (:func:`_share_reveal`);
    it then returns ``_STOPPED``.
    """
    if _scan(cols, scratch) == 0:
        return depth
    return _waves(cols, depth, key, strata, sample, scratch, out, share)


@njit(cache=True, _nrt=False)
def _waves(cols, depth, key, strata, sample, scratch, out, share) -> np.int64:
    """:func:`cascade_strata` from a wave whose poppers (and the heights) are in ``scratch``."""
    while True:
        any_rev = _hits(cols, depth, scratch, out)
        if any_rev != 0:
            if share:
                _share_reveal(cols, depth, key, strata, scratch)
                return _STOPPED
            j = out[OUT_REVEALS]
            for k in range(6, -1, -1):  # row-major order: top row first
                for c in range(7):
                    if (scratch[28 + c] >> (4 * k)) & 1:
                        v = _reveal(SRC_STRATIFIED, key, scratch, 0, strata, sample, j)
                        j += 1
                        cols[c] = (cols[c] & ~(0xF << (4 * k))) | (v << (4 * k))
            out[OUT_REVEALS] = j
        _gravity(cols, scratch)
        depth += 1
        if _scan(cols, scratch) == 0:
            return depth


@njit(cache=True, inline="always")
def _clear_bonus(cols, out) -> None:
    """The clear bonus when the board is empty."""
    for c in range(7):
        if cols[c] != 0:
            return
    out[OUT_POINTS] += CLEAR_BONUS
    out[OUT_CLEARED] = 1


@njit(cache=True, _nrt=False)
def _rise_part(cols, depth, key, strata, sample, scratch, out, share, settled) -> np.int64:
    """The move's end of level: game over, or the rise, its bonus and its cascade.

    Returns the cascade's depth (``_STOPPED`` when ``share`` stopped it), or 0
    when the game ended.  A board ``settled`` before it rose keeps its row
    runs, so only a disc equal to its column's new height can pop: when none
    does, the cascade's scan is skipped.
    """
    top = 0
    for c in range(7):
        top |= cols[c] & _TOP_NIBBLE
    if top != 0:
        out[OUT_OVER] = 1
        return 0
    for c in range(7):
        cols[c] = (cols[c] << 4) | SOLID
    out[OUT_ROSE] = 1
    out[OUT_POINTS] += LEVEL_BONUS
    if settled:
        pops = 0
        for c in range(7):
            w = cols[c]
            pops |= _numbered(w) & _zero_nibbles(w ^ (col_height(w) * _LOW))
        if pops == 0:
            return depth  # nothing pops; the grey floor keeps the board from being empty
    depth = cascade_strata(cols, depth, key, strata, sample, scratch, out, share)
    if depth != _STOPPED:
        _clear_bonus(cols, out)
    return depth


@njit(cache=True, _nrt=False)
def _finish_sample(cols, mr, key, strata, s, scratch, out) -> np.int64:
    """Sample ``s`` from the shared board on: its reveal values, the rest of its cascade and,
    unless the shared part already rose, the rest of ``core.play_move``.  Returns the moves
    remaining after."""
    for c in range(7):
        cols[c] = scratch[_SB + c]
        scratch[c] = scratch[_SH + c]
        scratch[14 + c] = scratch[_SQ + c]
    pops = scratch[_SP]
    for i in range(scratch[_SN]):
        e = scratch[_SR + 2 * i]
        c = e & 7
        sh = 4 * ((e >> 3) & 7)
        v = _stratum_value(e >> 12, scratch[_SR + 2 * i + 1], s, strata)
        cols[c] = (cols[c] & ~(0xF << sh)) | (v << sh)
        if v == ((e >> 6) & 7) or v == ((e >> 9) & 7):  # the revealed disc pops at once
            scratch[14 + c] |= 1 << sh
            pops = 1
    depth = scratch[_SD]
    if pops:  # the next wave's poppers: the shared board's and the revealed discs that pop
        depth = _waves(cols, depth, key, strata, s, scratch, out, False)
    _clear_bonus(cols, out)
    if out[OUT_ROSE] == 0:
        mr -= 1
        if mr == 0:
            if _rise_part(cols, depth, key, strata, s, scratch, out, False, True) == 0:
                return 0
            mr = MOVES_PER_LEVEL
    if legal_mask(cols) == 0:
        out[OUT_OVER] = 1
    return mr


@njit(cache=True, inline="always")
def _record(cols, mr, out, boards, res, row) -> None:
    for c in range(7):
        boards[row, c] = cols[c]
    res[row, RES_MR] = mr
    res[row, RES_POINTS] = out[OUT_POINTS]
    res[row, RES_OVER] = out[OUT_OVER]
    res[row, RES_WAVES] = out[OUT_WAVES]
    res[row, RES_REVEALS] = out[OUT_REVEALS]


@njit(cache=True, _nrt=False)
def _shared_part(cols, column, disc, mr, key, strata, scratch, out) -> np.int64:
    """The move up to its first reveal; returns the moves remaining after, or
    ``_STOPPED`` when a reveal stopped it (``out[OUT_ROSE]`` tells in which cascade)."""
    for i in range(OUT_LEN):
        out[i] = 0
    w = cols[column]
    hc = col_height(w)
    cols[column] = w | (disc << (4 * hc))
    depth = 1
    scanned = _drop_may_pop(cols, column, hc)
    if scanned:
        depth = cascade_strata(cols, 1, key, strata, 0, scratch, out, True)
        if depth == _STOPPED:
            return _STOPPED
    _clear_bonus(cols, out)
    mr -= 1
    if mr == 0:
        depth = _rise_part(cols, depth, key, strata, 0, scratch, out, True, scanned)
        if depth == _STOPPED:
            return _STOPPED
        if depth == 0:
            return 0
        mr = MOVES_PER_LEVEL
    if legal_mask(cols) == 0:
        out[OUT_OVER] = 1
    return mr


@njit(cache=True, _nrt=False)
def play_strata(cols, column, disc, moves_remaining, key, strata, boards, res, row0, scratch,
                out) -> np.int64:
    """Every chance sample of one move, sharing the work before the first reveal.

    Sample ``s`` (``0 <= s < strata``) equals :func:`play_sample` ``(cols,
    column, disc, moves_remaining, key, strata, s)``: its board goes to
    ``boards[row0 + s]`` and its results to ``res[row0 + s]`` (``RES_*``:
    moves remaining after, points, game over, waves, reveals).  Returns the
    number of rows written: 1 when the move reveals nothing (every sample is
    that board), else ``strata``.  ``cols`` (the board, the column legal) is
    work space: it ends holding the last row's board; ``scratch`` is int64
    work space of at least ``STRATA_SCRATCH_LEN``.

    The drop and every wave before the first reveal are played once, and the
    revealing wave up to its values (:func:`cascade_strata` with ``share``).
    A sample then writes its values and runs the cascade on only when one of
    them pops or the shared board holds a popper; the rest of the move (clear
    bonus, rise and its cascade, game over) follows ``core.play_move``.
    """
    mr = _shared_part(cols, column, disc, moves_remaining, key, strata, scratch, out)
    if mr != _STOPPED:
        _record(cols, mr, out, boards, res, row0)
        return 1
    rose_at = out[OUT_ROSE]
    points, waves, popped, cleared = (out[OUT_POINTS], out[OUT_WAVES], out[OUT_POPPED],
                                      out[OUT_CLEARED])
    mr_shared = MOVES_PER_LEVEL if rose_at else moves_remaining
    for s in range(strata):
        for i in range(OUT_LEN):
            out[i] = 0
        out[OUT_POINTS] = points
        out[OUT_WAVES] = waves
        out[OUT_POPPED] = popped
        out[OUT_REVEALS] = scratch[_SN]
        out[OUT_CLEARED] = cleared
        out[OUT_ROSE] = rose_at
        mr2 = _finish_sample(cols, mr_shared, key, strata, s, scratch, out)
        _record(cols, mr2, out, boards, res, row0 + s)
    return strata
