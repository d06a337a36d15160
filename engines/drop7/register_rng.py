"""The research register's chance sampling, as an option of the search (docs/search.md).

The register's fair search (keshavsaharia/drop7-bench,
``approaches/fair-expectimax/rust-engine/src/rng.rs`` and ``search.rs``) keys
the samples of a decision node by a 32-bit *state seed*: an FNV-1a hash of the
node's canonical public state, mixed with a policy seed and the remaining
depth.  Every column of the node shares that seed.  Sample ``s`` of ``S``
draws each value from a stratified unit: event ``e`` gets an event seed
``mix32(seed ^ domain ^ (e + 1) * 0x85EBCA6B)``, a stratum rotation (the event
seed mod ``S``) and a per-sample jitter, and the value is
``1 + floor(7 * unit)``.  Reveals are events ``0, 1, ...`` of the reveal
domain in draw order; the next disc is event 0 of the disc domain.

This module is the one place these rules live: the kernels call it through
:func:`engines.drop7.core.reveal_parts` and :func:`engines.drop7.chance.next_disc`.
All arithmetic is modulo 2^32, carried in ``uint64``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: the kernels' flag for our own state-and-column keyed samples (docs/rng.md)
OWN_SAMPLING = -1

_U32 = np.uint64(0xFFFFFFFF)
_REVEAL_DOMAIN = np.uint64(0x5245564C)  # "REVL"
_DISC_DOMAIN = np.uint64(0x44495343)  # "DISC"
_SAMPLE_MUL = np.uint64(0x9E3779B9)
_DEPTH_MUL = np.uint64(0x85EBCA6B)
_FNV_BASIS = np.uint64(0x811C9DC5)
_FNV_PRIME = np.uint64(0x01000193)
_TWO32 = 4294967296.0
_S15, _S16 = np.uint64(15), np.uint64(16)
_A, _B = np.uint64(0x7FEB352D), np.uint64(0x846CA68B)


@njit(cache=True, inline="always")
def mix32(v: np.uint64) -> np.uint64:
    """The register's 32-bit finaliser (a two-multiply xorshift mixer)."""
    v = np.uint64(v) & _U32
    v ^= v >> _S16
    v = (v * _A) & _U32
    v ^= v >> _S15
    v = (v * _B) & _U32
    return v ^ (v >> _S16)


@njit(cache=True)
def state_seed(canon, disc, moves_remaining, policy_seed, depth) -> np.uint64:
    """Seed of a decision node's samples: FNV-1a over the canonical board's cells (row
    0 = top first, each cell code + 1), then the next disc and the moves remaining,
    mixed with the policy seed and the node's remaining depth."""
    h = _FNV_BASIS
    for k in range(6, -1, -1):  # row 0 (top) is nibble 6
        for c in range(7):
            h ^= np.uint64(((canon[c] >> (4 * k)) & 0xF) + 1)
            h = (h * _FNV_PRIME) & _U32
    h ^= np.uint64(disc)
    h = (h * _FNV_PRIME) & _U32
    h ^= np.uint64(moves_remaining)
    d = (np.uint64(depth + 1) * _DEPTH_MUL) & _U32
    return mix32(h ^ np.uint64(policy_seed) ^ d)


@njit(cache=True, inline="always")
def event_parts(seed, domain, event, count):
    """``(rotation, event seed)`` of draw ``event``: the same for every sample."""
    e = mix32(np.uint64(seed) ^ domain ^ ((np.uint64(event + 1) * _DEPTH_MUL) & _U32))
    return np.int64(e % np.uint64(count)), np.int64(e)


@njit(cache=True, inline="always")
def event_value(rot, event_seed, sample, count) -> np.int64:
    """Value 1..7 that sample ``sample`` of ``count`` draws for an event with these parts."""
    stratum = (sample + rot) % count
    jitter = np.float64(mix32(np.uint64(event_seed)
                              ^ ((np.uint64(sample + 1) * _SAMPLE_MUL) & _U32))) / _TWO32
    unit = (np.float64(stratum) + jitter) / np.float64(count)
    return np.int64(unit * 7.0) + 1


@njit(cache=True, inline="always")
def reveal_parts(seed, j, count):
    """:func:`event_parts` of reveal ``j`` of a move (reveals in draw order)."""
    return event_parts(seed, _REVEAL_DOMAIN, j, count)


@njit(cache=True)
def sample_disc(seed, count, sample) -> np.int64:
    """Next disc of sample ``sample`` of ``count`` (event 0 of the disc domain)."""
    rot, e = event_parts(seed, _DISC_DOMAIN, 0, count)
    return event_value(rot, e, sample, count)


# ---- the register's game stream (its headless games: rust-engine/src/engine.rs and rng.rs) ----
#
# A register game has a 32-bit seed.  The disc of move m is
# 1 + floor(7 * mix32(seed ^ (m + 1) * 0x9E3779B9 ^ "NEXT") / 2^32); the reveals of move m come,
# in draw order, from a Mulberry32 generator seeded mix32(seed ^ (m + 1) * 0x85EBCA6B ^ "REVL"),
# each 1 + floor(7 * output / 2^32).  Mulberry32's state advances by a constant, so its j-th
# output is a function of (seed, j) and the reveals stay counter-based here.

_NEXT_DOMAIN = np.uint64(0x4E455854)  # "NEXT"
_GOLDEN = np.uint64(0x9E3779B9)
_MULBERRY_STEP = np.uint64(0x6D2B79F5)
_S7, _S14, _S32 = np.uint64(7), np.uint64(14), np.uint64(32)
_ONE, _SIXTY_ONE = np.uint64(1), np.uint64(61)


@njit(cache=True, inline="always")
def _seven(bits) -> np.int64:
    """1..7 from 32 random bits, as the register maps them (``(bits * 7) >> 32``)."""
    return np.int64((np.uint64(bits) * np.uint64(7)) >> _S32) + 1


@njit(cache=True)
def game_disc(seed, move) -> np.int64:
    """The disc of move ``move`` of register game ``seed`` (move 0: the first disc)."""
    mv = (np.uint64(move + 1) * _GOLDEN) & _U32
    return _seven(mix32(np.uint64(seed) ^ mv ^ _NEXT_DOMAIN))


@njit(cache=True)
def game_reveal_seed(seed, move) -> np.uint64:
    """The seed of move ``move``'s reveal generator in register game ``seed``."""
    mv = (np.uint64(move + 1) * _DEPTH_MUL) & _U32
    return mix32(np.uint64(seed) ^ mv ^ _REVEAL_DOMAIN)


@njit(cache=True)
def game_reveal(reveal_seed, j) -> np.int64:
    """Reveal ``j`` (0-based, in draw order) of a move: Mulberry32's ``j``-th output."""
    v = (np.uint64(reveal_seed) + np.uint64(j + 1) * _MULBERRY_STEP) & _U32
    v = ((v ^ (v >> _S15)) * (v | _ONE)) & _U32
    v ^= (v + ((v ^ (v >> _S7)) * (v | _SIXTY_ONE))) & _U32
    return _seven(v ^ (v >> _S14))
