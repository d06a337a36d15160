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
