"""The counter-based random streams of a game (see docs/rng.md).

Every random number of a game is a pure function of its 64-bit game seed and
a counter, so a player's choices never shift later draws and two policies on
one seed see the same discs (common random numbers):

* ``fmix64`` is the SplitMix64 finaliser (Stafford's variant 13).
* ``stream_key(seed, domain) = fmix64(seed ^ domain)`` separates the streams.
* The disc of move ``m``: ``u7(fmix64(key_disc + (m + 1) * GAMMA))``.
* Reveal ``j`` (0-based, in draw order) of move ``m``:
  ``u7(fmix64(move_key + (j + 1) * GAMMA))`` with
  ``move_key = fmix64(key_reveal + (m + 1) * GAMMA)``.
* ``u7(x)`` maps a 64-bit word to 1..7 exactly uniformly: ``hi = x >> 32``;
  if ``hi < 4294967292`` (the largest multiple of 7 below 2^32) the value
  is ``1 + hi % 7``, else ``x = fmix64(x + GAMMA)`` and try again.

All arithmetic is modulo 2^64.  The functions are numba-compiled and callable
from Python with plain ints.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(s) for s in (30, 27, 31, 32, 11))
_LIMIT7 = np.uint64(4294967292)
_SEVEN = np.uint64(7)
_ONE = np.uint64(1)

DOMAIN_DISC = np.uint64(0x6469736373000001)  # "discs"
DOMAIN_REVEAL = np.uint64(0x72657665616C0002)  # "reveal"
DOMAIN_POLICY = np.uint64(0x706F6C6963790003)  # "policy": a baseline policy's own coin
DOMAIN_CHANCE = np.uint64(0x6368616E63650004)  # "chance": search samples, keyed by state
DOMAIN_LABEL = np.uint64(0x6C6162656C000005)  # "label": outcome labels' continuations

SEED_MAX = (1 << 64) - 1


@njit(cache=True, inline="always")
def fmix64(z: np.uint64) -> np.uint64:
    """SplitMix64 finaliser: a bijective 64-bit mixer."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def counter_word(key: np.uint64, counter: np.int64) -> np.uint64:
    """The ``counter``-th word of the stream ``key`` (counter >= 0)."""
    return fmix64(np.uint64(key) + np.uint64(counter + 1) * GAMMA)


@njit(cache=True, inline="always")
def u7(x: np.uint64) -> np.int64:
    """Map a 64-bit word to 1..7, exactly uniform by rejection."""
    x = np.uint64(x)
    while True:
        hi = x >> _S32
        if hi < _LIMIT7:
            return np.int64(hi % _SEVEN) + 1
        x = fmix64(x + GAMMA)


@njit(cache=True, inline="always")
def unit_float(x: np.uint64) -> np.float64:
    """Map a 64-bit word to [0, 1) with 53 bits."""
    return np.float64(np.uint64(x) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def stream_key(seed: np.uint64, domain: np.uint64) -> np.uint64:
    """Key of one of a game's streams."""
    return fmix64(np.uint64(seed) ^ np.uint64(domain))


@njit(cache=True)
def disc_of_move(seed: np.uint64, move: np.int64) -> np.int64:
    """The disc (1..7) dropped at move ``move`` of game ``seed``."""
    return u7(counter_word(stream_key(seed, DOMAIN_DISC), move))


@njit(cache=True)
def reveal_key(seed: np.uint64, move: np.int64) -> np.uint64:
    """Key of the reveal stream of move ``move`` of game ``seed``."""
    return counter_word(stream_key(seed, DOMAIN_REVEAL), move)


@njit(cache=True)
def reveal_value(move_key: np.uint64, j: np.int64) -> np.int64:
    """Value (1..7) of the ``j``-th reveal drawn during a move."""
    return u7(counter_word(move_key, j))
