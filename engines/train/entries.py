"""Table entries and values of a move's afterstates (numba, for the trainer's choice).

Every afterstate of a move is close to the move's *base*: the canonical
board before the move (shifted up over a grey floor when the move brings a
rise), in the afterstates' phase.  Its entry indices are found the cheapest
exact way (all rows are indexed by slot, 74 wide):

* a quiet drop (nothing pops): the base's indices in the afterstate's
  orientation, plus ``disc`` times the cell's digit weight on the at most 14
  tuples through the new cell (:func:`drop_entries`);
* a chance sample a few cells away from an earlier sample of the same column
  and orientation (the strata of a move differ in the revealed discs): that
  sample's indices, moved likewise for each differing cell
  (:func:`near_entries`);
* any other board, and every board of a fill-bucketed layout: all 74
  patterns (:func:`engines.ntuple.value.board_entries`).

Each entry is prefetched as soon as it is known, so the table misses
overlap the engine work of the following columns.  ``U`` of a sample then
sums all of its active entries in tuple order in four interleaved partial
sums (:func:`sample_value`, the order of
:func:`engines.ntuple.value.gather`): the very float a gather from scratch
gives, whichever way the indices were found.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from engines.drop7.nibbles import count_flags, occupied
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import cell_map, prefetch, slot_offsets, tuple_slot


@njit(cache=True)
def layout_maps(spec):
    """``(soff, jslot, cs, cw, cn)``: what the kernels read of a layout.

    ``soff[phase, slot]`` the first entry of each slot's table
    (:func:`engines.ntuple.value.slot_offsets`), ``jslot[j]`` the slot of
    active tuple ``j``, and for cell ``i = 7 c + k`` of a canonical board the
    ``cn[i]`` active slots ``cs[i, :]`` through it with the weight ``cw[i, :]``
    of its digit (:func:`engines.ntuple.value.cell_map`, by slot).
    """
    n = spec[1]
    jslot = np.zeros(max(n, 1), dtype=np.int64)
    for j in range(n):
        jslot[j] = tuple_slot(spec, j)
    cj, cw, cn = cell_map(spec)
    cs = np.zeros_like(cj)
    for i in range(49):
        for q in range(cn[i]):
            cs[i, q] = jslot[cj[i, q]]
    return slot_offsets(spec), jslot, cs, cw, cn


@njit(cache=True, inline="always")
def by_difference(soff) -> bool:
    """Whether a layout's afterstate entries may be derived from a nearby board's: not for a
    fill-bucketed layout (a sixth row of ``soff``), whose nearby board may read another
    bucket's copy of the tables."""
    return soff.shape[0] < 6


@njit(cache=True, inline="always")
def drop_entries(tab, r, o, cell, disc, bidx, sidx, cs, cw, cn) -> None:
    """``sidx[r]``: the base's entries ``bidx[o]`` plus ``disc`` times the weight of
    ``cell`` in each tuple through it (those entries prefetched)."""
    for i in range(N_SLOTS):
        sidx[r, i] = bidx[o, i]
    for q in range(cn[cell]):
        slot = cs[cell, q]
        e = sidx[r, slot] + disc * cw[cell, q]
        sidx[r, slot] = e
        prefetch(tab, e)


@njit(cache=True, inline="always")
def changed_cells(board, sboard, ref) -> np.int64:
    """How many cells of ``board`` differ from ``sboard[ref]``."""
    total = 0
    for c in range(7):
        total += count_flags(occupied(board[c] ^ sboard[ref, c]))
    return total


@njit(cache=True, inline="always")
def near_entries(tab, r, ref, board, sboard, sidx, cs, cw, cn) -> None:
    """``sidx[r]`` for ``board`` from the entries of sample ``ref`` (a few cells apart): each
    differing cell moves the tuples through it by its digit change times its weight.  The
    moved entries are prefetched once all cells are in (a tuple may hold two of them)."""
    for i in range(N_SLOTS):
        sidx[r, i] = sidx[ref, i]
    for c in range(7):
        flags = occupied(board[c] ^ sboard[ref, c])
        while flags:
            sh = trailing_zeros(flags)
            flags &= flags - 1
            cell = 7 * c + (sh >> 2)
            step = ((board[c] >> sh) & 0xF) - ((sboard[ref, c] >> sh) & 0xF)
            for q in range(cn[cell]):
                sidx[r, cs[cell, q]] += step * cw[cell, q]
    for c in range(7):
        flags = occupied(board[c] ^ sboard[ref, c])
        while flags:
            cell = 7 * c + (trailing_zeros(flags) >> 2)
            flags &= flags - 1
            for q in range(cn[cell]):
                prefetch(tab, sidx[r, cs[cell, q]])


@njit(cache=True, inline="always")
def contiguous_from(n, jslot) -> np.int64:
    """``j0`` when the layout's slots are ``j0, j0 + 1, ...`` (every layout but the test
    ones), else -1."""
    if n > 0 and jslot[n - 1] - jslot[0] == n - 1:
        return jslot[0]
    return -1


@njit(cache=True, inline="always")
def sample_value(tab, bias, n, r, sidx, jslot, j0) -> float:
    """``bias + U`` of sample ``r`` (``n`` active tuples), summed in the order of
    :func:`engines.ntuple.value.gather`; ``j0`` from :func:`contiguous_from`."""
    p0 = 0.0
    p1 = 0.0
    p2 = 0.0
    p3 = 0.0
    j = 0
    if j0 >= 0:
        while j + 3 < n:
            p0 += tab[sidx[r, j0 + j]]
            p1 += tab[sidx[r, j0 + j + 1]]
            p2 += tab[sidx[r, j0 + j + 2]]
            p3 += tab[sidx[r, j0 + j + 3]]
            j += 4
    else:
        while j + 3 < n:
            p0 += tab[sidx[r, jslot[j]]]
            p1 += tab[sidx[r, jslot[j + 1]]]
            p2 += tab[sidx[r, jslot[j + 2]]]
            p3 += tab[sidx[r, jslot[j + 3]]]
            j += 4
    if j < n:
        p0 += tab[sidx[r, jslot[j]]]
    if j + 1 < n:
        p1 += tab[sidx[r, jslot[j + 1]]]
    if j + 2 < n:
        p2 += tab[sidx[r, jslot[j + 2]]]
    return bias + ((p0 + p1) + (p2 + p3))
