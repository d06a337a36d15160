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

from engines.drop7.core import SRC_STRATIFIED, play_move
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
