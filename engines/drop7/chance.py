"""Fair chance nodes: mirror canonicalisation, state-keyed stratified samples.

Search and training average a move over ``S`` chance samples without ever
seeing the game seed.  Sample ``s`` of the chance node reached by playing
``column`` with ``disc`` on a public state is keyed by a hash of that public
state (:func:`chance_key`), so the same state always gets the same samples:

* the next disc of sample ``s`` is ``1 + floor(7 (s + f) / S)`` with ``f`` a
  key-derived fraction; with ``S = 7`` it is exactly ``s + 1``;
* reveal event ``k`` of sample ``s`` uses stratum ``(s + rot_k) mod S``
  (:data:`engines.drop7.core.SRC_STRATIFIED`).

The register's samples (``SRC_REGISTER``, :mod:`engines.drop7.register_rng`)
are an option of the same kernels: ``src`` picks the source and ``key`` is then
the register's state seed, shared by every column of a node.

Boards are mirror-canonicalised (the lexicographically smaller of the board
and its left-right mirror in row-major order, top row first) before they are
keyed, so a position and its mirror image get mirrored samples.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from engines.drop7 import register_rng
from engines.drop7.board import MOVES_PER_LEVEL
from engines.drop7.core import (
    OUT_CLEARED,
    OUT_LEN,
    OUT_OVER,
    OUT_POINTS,
    OUT_POPPED,
    OUT_REVEALS,
    OUT_ROSE,
    OUT_WAVES,
    SC_H,
    SC_POP,
    SC_REV,
    SC_RUN,
    SC_STOP_DEPTH,
    SCRATCH_LEN,
    SRC_REGISTER,
    SRC_STRATIFIED,
    STOPPED,
    cascade,
    col_height,
    drop_pops,
    finish_move,
    gravity,
    play_move,
    reveal_parts,
    reveal_sample,
    scan,
    waves,
)
from engines.drop7.nibbles import count_flags, occupied
from engines.drop7.rng import DOMAIN_CHANCE, GAMMA, counter_word, fmix64, unit_float


@njit(cache=True)
def mirrored_is_smaller(cols) -> bool:
    """True when the left-right mirror precedes the board in row-major order (the plain
    reading of the rule, cell by cell; the kernels use :func:`mirror_precedes`)."""
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
        f |= occupied(d) << (2 - c)
    if f == 0:
        return False
    p = 63 - leading_zeros(np.uint64(f))
    sh = 4 * (p >> 2)
    c = 2 - (p & 3)
    return ((cols[6 - c] >> sh) & 0xF) < ((cols[c] >> sh) & 0xF)


@njit(cache=True, inline="always")
def canonicalise(cols, dst) -> bool:
    """Write the canonical board into ``dst``; True when it is the mirror."""
    flip = mirror_precedes(cols)
    for c in range(7):
        dst[c] = cols[6 - c] if flip else cols[c]
    return flip


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


@njit(cache=True, inline="always")
def next_disc(src, key, strata, sample) -> np.int64:
    """Next disc of chance sample ``sample`` from source ``src``."""
    if src == SRC_REGISTER:
        return register_rng.sample_disc(key, strata, sample)
    return sample_disc(key, strata, sample)


@njit(cache=True)
def play_sample(cols, column, disc, moves_remaining, key, strata, sample, scratch, out):
    """:func:`play_sample_of` with our own samples (``SRC_STRATIFIED``)."""
    return play_sample_of(SRC_STRATIFIED, cols, column, disc, moves_remaining, key, strata,
                          sample, scratch, out)


@njit(cache=True)
def play_sample_of(src, cols, column, disc, moves_remaining, key, strata, sample, scratch, out):
    """Play a move in place with the reveals of chance sample ``sample`` from source ``src``
    (``SRC_STRATIFIED``, or ``SRC_REGISTER`` with ``key`` the register's node seed).

    Returns ``(status, moves_remaining_after)`` like
    :func:`engines.drop7.core.play_move`; ``out[OUT_REVEALS] == 0`` means the
    move revealed nothing, so every sample of this chance node gives the same
    board.
    """
    return play_move(cols, column, disc, moves_remaining, src, key, scratch, 0,
                     strata, sample, scratch, out)


# ---- every stratum of one move at once -------------------------------------------------------
#
# The samples of a move share everything before its first reveal: the drop and
# every wave before it are played once by core.cascade with ``stop_at_reveal``,
# and each sample then writes its values and goes on with the same cascade.
# tests/test_train_strata.py holds it equal to ``play_sample`` on every sample.

# play_strata: one row of ``res`` per sample
RES_MR, RES_POINTS, RES_OVER, RES_WAVES, RES_REVEALS = range(5)
RES_LEN = 5
#: length of the int64 scratch array play_strata needs
STRATA_SCRATCH_LEN = 3 * SCRATCH_LEN
# from SCRATCH_LEN on: what the samples of play_strata share
_SB = SCRATCH_LEN  # [_SB:_SB+7] the board after the first revealing wave (reveal cells grey)
_SN = SCRATCH_LEN + 7  # number of reveal cells
_SD = SCRATCH_LEN + 8  # chain depth of the wave after the revealing one
_SP = SCRATCH_LEN + 9  # poppers of the shared board (its reveal cells are grey: never poppers)
_SH = SCRATCH_LEN + 10  # [_SH:_SH+7] its column heights
_SQ = SCRATCH_LEN + 17  # [_SQ:_SQ+7] its poppers, column by column
#: reveal cells in draw order, two words each: ``c | k << 3 | height << 6 | run << 9 | rot << 12``
#: and the 53-bit fraction of the reveal's stratified value (:func:`core.stratum_parts`)
_SR = SCRATCH_LEN + 24


@njit(cache=True, _nrt=False)
def _share_reveal(src, cols, key, strata, scratch) -> None:
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
            if (scratch[SC_REV + c] >> (4 * k)) & 1:
                below = scratch[SC_POP + c] & ((1 << (4 * k)) - 1)
                scratch[_SR + 2 * n] = c | ((k - count_flags(below)) << 3)
                n += 1
    gravity(cols, scratch)
    scratch[_SP] = scan(cols, scratch)
    for c in range(7):
        scratch[_SH + c] = scratch[SC_H + c]
        scratch[_SQ + c] = scratch[SC_POP + c]
    for i in range(n):
        e = scratch[_SR + 2 * i]
        c = e & 7
        run = (scratch[SC_RUN + c] >> (4 * (e >> 3))) & 0xF
        rot, m = reveal_parts(src, key, i, strata)
        scratch[_SR + 2 * i] = e | (scratch[SC_H + c] << 6) | (run << 9) | (rot << 12)
        scratch[_SR + 2 * i + 1] = m
    for c in range(7):
        scratch[_SB + c] = cols[c]
    scratch[_SN] = n
    scratch[_SD] = scratch[SC_STOP_DEPTH] + 1


@njit(cache=True, _nrt=False)
def _finish_sample(src, cols, mr, key, strata, s, scratch, out) -> np.int64:
    """Sample ``s`` from the shared board on: its reveal values, the rest of its cascade and
    the rest of the move (:func:`core.finish_move`).  Returns the moves remaining after."""
    for c in range(7):
        cols[c] = scratch[_SB + c]
        scratch[SC_H + c] = scratch[_SH + c]
        scratch[SC_POP + c] = scratch[_SQ + c]
    pops = scratch[_SP]
    for i in range(scratch[_SN]):
        e = scratch[_SR + 2 * i]
        c = e & 7
        sh = 4 * ((e >> 3) & 7)
        v = reveal_sample(src, e >> 12, scratch[_SR + 2 * i + 1], s, strata)
        cols[c] = (cols[c] & ~(0xF << sh)) | (v << sh)
        if v == ((e >> 6) & 7) or v == ((e >> 9) & 7):  # the revealed disc pops at once
            scratch[SC_POP + c] |= 1 << sh
            pops = 1
    depth = scratch[_SD]
    if pops:  # the next wave's poppers: the shared board's and the revealed discs that pop
        depth = waves(cols, depth, src, key, scratch, 0, strata, s, scratch, out,
                      False)
    return finish_move(cols, depth, mr, out[OUT_ROSE] != 0, src, key, scratch, 0,
                       strata, s, scratch, out, False)


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
def _shared_part(src, cols, column, disc, mr, key, strata, scratch, out) -> np.int64:
    """The move up to its first reveal; returns the moves remaining after, or
    ``STOPPED`` when a reveal stopped it (``out[OUT_ROSE]`` tells in which cascade)."""
    for i in range(OUT_LEN):
        out[i] = 0
    w = cols[column]
    h = col_height(w)
    pops = drop_pops(cols, column, h, disc)
    cols[column] = w | (disc << (4 * h))
    depth = 1
    if pops:
        depth = cascade(cols, 1, src, key, scratch, 0, strata, 0, scratch, out, True)
    if depth != STOPPED:
        depth = finish_move(cols, depth, mr, False, src, key, scratch, 0, strata, 0,
                            scratch, out, True)
    if depth == STOPPED:
        _share_reveal(src, cols, key, strata, scratch)
    return depth


@njit(cache=True, _nrt=False)
def play_strata(cols, column, disc, moves_remaining, key, strata, boards, res, row0, scratch,
                out) -> np.int64:
    """:func:`play_strata_of` with our own samples (``SRC_STRATIFIED``)."""
    return play_strata_of(SRC_STRATIFIED, cols, column, disc, moves_remaining, key, strata,
                          boards, res, row0, scratch, out)


@njit(cache=True, _nrt=False)
def play_strata_of(src, cols, column, disc, moves_remaining, key, strata, boards, res, row0,
                   scratch, out) -> np.int64:
    """Every chance sample of one move, sharing the work before the first reveal.

    Sample ``s`` (``0 <= s < strata``) equals :func:`play_sample_of` ``(src, cols,
    column, disc, moves_remaining, key, strata, s)``: its board goes to
    ``boards[row0 + s]`` and its results to ``res[row0 + s]`` (``RES_*``:
    moves remaining after, points, game over, waves, reveals).  Returns the
    number of rows written: 1 when the move reveals nothing (every sample is
    that board), else ``strata``.  ``cols`` (a settled board, the column
    legal) is work space: it ends holding the last row's board; ``scratch``
    is int64 work space of at least ``STRATA_SCRATCH_LEN``.

    The drop and every wave before the first reveal are played once, and the
    revealing wave up to its values (:func:`core.cascade` with
    ``stop_at_reveal``).  A sample then writes its values and runs the
    cascade on only when one of them pops or the shared board holds a
    popper, and finishes the move (:func:`core.finish_move`).
    """
    mr = _shared_part(src, cols, column, disc, moves_remaining, key, strata, scratch, out)
    if mr != STOPPED:
        _record(cols, mr, out, boards, res, row0)
        return 1
    rose_at = out[OUT_ROSE]
    mr_shared = MOVES_PER_LEVEL if rose_at else moves_remaining
    points, waves_, popped, cleared = (out[OUT_POINTS], out[OUT_WAVES], out[OUT_POPPED],
                                       out[OUT_CLEARED])
    for s in range(strata):
        for i in range(OUT_LEN):
            out[i] = 0
        out[OUT_POINTS] = points
        out[OUT_WAVES] = waves_
        out[OUT_POPPED] = popped
        out[OUT_REVEALS] = scratch[_SN]
        out[OUT_CLEARED] = cleared
        out[OUT_ROSE] = rose_at
        mr2 = _finish_sample(src, cols, mr_shared, key, strata, s, scratch, out)
        _record(cols, mr2, out, boards, res, row0 + s)
    return strata
