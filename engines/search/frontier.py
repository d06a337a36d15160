"""The leaf value of a resolved child at a depth-1 node, as the search kernel adds it.

The leaf kind's facts (:data:`engines.search.leaf.KERNEL_KINDS`) choose the path,
never its name: by difference from the node's frame (:mod:`engines.search.ntuple_delta`,
not cached: the same board under another node may differ in the last bit), on the
canonical board or not, the next disc inside the leaf (``joint``) or not, a disc-free
part from the leaf cache (``cached``, :mod:`engines.search.value_table`) or not (or
none), a next-disc part or not.  Inlined into the kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.chance import canonicalise, next_disc
from engines.search.leaf import (
    BASE_PART,
    BY_DIFFERENCE,
    CACHED,
    CANONICAL,
    JOINT,
    has_disc_part,
    has_fact,
    leaf_base,
    leaf_by_difference,
    leaf_disc,
    leaf_joint,
)
from engines.search.stats import STAT_LEAF_HITS, STAT_LEAVES
from engines.search.value_table import lookup, store


@njit(cache=True, inline="always")
def _cached_base(kind, leafbuf, mr2, weights, tables, spec, lc, lcf, gen, stats) -> np.float64:
    """The disc-free part of a ``cached`` leaf kind at a canonical board, from the leaf cache
    when it is there (a one-row cache is off: every value is computed)."""
    if lc.shape[0] == 1:
        return leaf_base(kind, leafbuf, mr2, weights, tables, spec)
    slot, hit = lookup(lc, leafbuf, mr2, gen)
    if hit:
        stats[STAT_LEAF_HITS] += 1
        return lcf[slot, 4]
    base = leaf_base(kind, leafbuf, mr2, weights, tables, spec)
    store(lc, lcf, leafbuf, mr2, gen, base)
    return base


@njit(cache=True, inline="always")
def frontier(kind, child, mr2, src, key, strata, one_sample, s, frame, leafbuf, weights,
             tables, spec, slot_j, nt_i, nt_f, lc, lcf, gen, stats):
    """Leaf value (points) of a resolved, non-terminal child at a depth-1 node.

    With ``one_sample`` the value for the next disc of sample ``s`` only;
    otherwise the mean over all ``strata`` next discs (the board is shared).
    ``frame`` is the board a ``by_difference`` leaf differences from: the node's
    canonical board, or that board risen when the node's moves bring a rise.
    """
    stats[STAT_LEAVES] += 1
    if has_fact(BY_DIFFERENCE, kind):  # no next disc, no cache
        return leaf_by_difference(kind, child, mr2, frame, tables, spec, slot_j, nt_i, nt_f)
    board = child
    if has_fact(CANONICAL, kind):
        canonicalise(child, leafbuf)
        board = leafbuf
    if has_fact(JOINT, kind):  # the next disc inside: all samples' discs at once
        return leaf_joint(kind, board, mr2, src, key, strata, one_sample, s, tables, spec)
    base = 0.0
    if has_fact(CACHED, kind):
        base = _cached_base(kind, board, mr2, weights, tables, spec, lc, lcf, gen, stats)
    elif has_fact(BASE_PART, kind):
        base = leaf_base(kind, board, mr2, weights, tables, spec)
    if not has_disc_part(kind):
        return base
    if one_sample:
        return base + leaf_disc(kind, board, next_disc(src, key, strata, s), weights)
    acc = 0.0
    for t in range(strata):
        acc += leaf_disc(kind, board, next_disc(src, key, strata, t), weights)
    return base + acc / strata
