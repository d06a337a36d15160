"""The search's exact-value tables: the node table and the leaf cache.

A node's value is a function of its public state and its depth alone, and the
same state is met again along other paths (two moves in the other order,
samples that share a board), so each decision keeps two tables: the *node
table* holds the value of every inner decision node (canonical board, disc,
moves remaining, depth) and the *leaf cache* the disc-free part of every
frontier board of a leaf kernel kind declared ``cached``
(:data:`engines.search.leaf.KERNEL_KINDS`).  A hit compares the whole state (and
the decision's generation), so it returns the very float the search would
compute again.  A table is int64 ``(2**bits, 8)``, one 64-byte row an entry;
its float view holds the value; a one-row table is off.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engines.drop7.rng import fmix64

#: log2 of the entries of the node table by search depth (about twice the distinct inner
#: nodes of a d3 / d4 decision); depth 1 has no inner nodes
NODE_TABLE_BITS = {1: 0, 2: 9, 3: 13, 4: 17, 5: 20, 6: 20}
#: most log2 entries of a node table (64 MB)
MAX_NODE_TABLE_BITS = 20
#: log2 of the entries of the linear leaf's cache (512 KB: stays in the L2 cache)
LEAF_CACHE_BITS = 13

_GEN_MASK = (1 << 25) - 1
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)


@njit(cache=True, inline="always")
def _entry(canon, meta, gen):
    """The key words and the slot mask's hash of the state ``(canon, meta)`` in decision
    ``gen``: the seven column words packed two to a word (28 bits each), the last one
    with ``meta`` and ``gen``."""
    k0 = canon[0] | (canon[1] << 28)
    k1 = canon[2] | (canon[3] << 28)
    k2 = canon[4] | (canon[5] << 28)
    k3 = canon[6] | ((meta | 512) << 28) | ((gen & _GEN_MASK) << 38)
    h = fmix64(np.uint64(k0) * _M1 + np.uint64(k1) * _M2 + np.uint64(k2) * _M3 + np.uint64(k3))
    return k0, k1, k2, k3, h


@njit(cache=True, inline="always")
def lookup(table, canon, meta, gen):
    """``(slot, hit)`` of a state in an exact-value table: a hit compares the whole key, so
    the value stored there is always the state's own."""
    k0, k1, k2, k3, h = _entry(canon, meta, gen)
    slot = np.int64(h & np.uint64(table.shape[0] - 1))
    hit = (table[slot, 3] == k3 and table[slot, 0] == k0 and table[slot, 1] == k1
           and table[slot, 2] == k2)
    return slot, hit


@njit(cache=True, inline="always")
def store(table, values, canon, meta, gen, value) -> None:
    """Put a state's value in its slot (one 64-byte row; the entry there goes)."""
    k0, k1, k2, k3, h = _entry(canon, meta, gen)
    slot = np.int64(h & np.uint64(table.shape[0] - 1))
    table[slot, 0] = k0
    table[slot, 1] = k1
    table[slot, 2] = k2
    table[slot, 3] = k3
    values[slot, 4] = value


def node_table_bits(depth: int, reveals: int) -> int:
    """log2 of a node table's entries: :data:`NODE_TABLE_BITS`, grown for a factored node
    by about ``sqrt(M)`` per inner ply (only moves that reveal play ``M`` times the samples,
    a bit less than half of them); only speed depends on it."""
    bits = NODE_TABLE_BITS[depth]
    if depth == 1 or reveals == 1:
        return bits
    grow = (depth - 1) * math.log2(reveals) / 2
    return max(bits, min(MAX_NODE_TABLE_BITS, bits + round(grow)))


def empty_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty exact-value table of ``2**bits`` entries (one row of 8 words each) and its
    float view; ``bits = 0`` gives the one-row table that switches it off."""
    table = np.zeros((1 << bits, 8), dtype=np.int64)
    return table, table.view(np.float64)
