"""Incremental n-tuple leaf values at the last ply of the search.

At a depth-1 node every child board differs from the (canonical) parent
board in a few cells unless the move brought a rise: a quiet drop changes one
cell, a pop a few columns.  The per-tuple values of the parent board (a
*frame*, at the children's phase) are looked up once and kept; a child's
value is then the frame's sum plus, for the tuples whose cells changed, the
new entry minus the old one.  Sibling nodes that share a board (the chance
samples of a move without reveals differ only in the next disc) reuse the
frame.  A child whose canonical form is the mirror image uses the frame of
the mirrored parent (computed on first need), so values stay mirror-exact.

The result equals :func:`engines.ntuple.value.ntuple_value` of the child up to
float64 rounding of the sum (about 1e-16 relative).  A fill-bucketed layout's
child may read another bucket's copy than its parent, so its value is
:func:`~engines.ntuple.value.ntuple_value` itself.

Work arrays: ``nt_i`` int64 ``(4, 74)``: rows 0 and 1 the slot patterns of the
two frames; row 2 the cache key (parent words ``[0:7]``, phase ``[7]``, bit
mask of frames ready ``[8]``); row 3 scratch (changed-cell flags ``[0:7]``,
frame words ``[7:14]``, the child in frame orientation ``[14:21]``).
``nt_f`` float64 ``(2, 75)``: per-tuple values of each frame, and their sum
at ``[o, 74]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.chance import mirror_precedes
from engines.drop7.nibbles import occupied
from engines.ntuple.layouts import N_SLOTS, SPEC_FIELDS, SPEC_HEADER
from engines.ntuple.value import (
    board_patterns,
    fill_tail,
    ntuple_value,
    phase_of,
    slot_pattern,
    tuple_entry,
    tuple_slot,
)

_SUM = N_SLOTS  # column of nt_f holding a frame's sum


def work_arrays() -> tuple[np.ndarray, np.ndarray]:
    """Fresh ``(nt_i, nt_f)`` work arrays (the cache starts empty)."""
    nt_i = np.zeros((4, N_SLOTS), dtype=np.int64)
    nt_i[2, 7] = -1  # no phase: nothing cached
    return nt_i, np.zeros((2, N_SLOTS + 1), dtype=np.float64)


def slot_index(spec: np.ndarray) -> np.ndarray:
    """``slot -> active tuple j`` of a layout spec (-1 when the slot is not used)."""
    out = np.full(N_SLOTS, -1, dtype=np.int64)
    if spec.shape[0] > SPEC_HEADER:
        for j in range(int(spec[1])):
            out[int(spec[SPEC_HEADER + SPEC_FIELDS * j])] = j
    return out


@njit(cache=True, _nrt=False)
def _frame(o, canon, ph, tables, spec, nt_i, nt_f) -> None:
    """Look up and keep the per-tuple values of the parent (``o = 1``: its mirror)."""
    frame = nt_i[3, 7:14]
    for c in range(7):
        frame[c] = canon[6 - c] if o == 1 else canon[c]
    pat = nt_i[o]
    board_patterns(frame, pat)
    total = 0.0
    for j in range(spec[1]):
        v = np.float64(tables[tuple_entry(spec, j, ph, pat[tuple_slot(spec, j)])])
        nt_f[o, j] = v
        total += v
    nt_f[o, _SUM] = total


@njit(cache=True, inline="always")
def _swap(o, x, ph, slot, tables, spec, slot_j, nt_f) -> np.float64:
    """New entry minus the frame's entry for one slot (0 if the layout lacks it)."""
    j = slot_j[slot]
    if j < 0:
        return 0.0
    return np.float64(tables[tuple_entry(spec, j, ph, slot_pattern(x, slot))]) - nt_f[o, j]


@njit(cache=True, _nrt=False)
def child_value(child, mr2, canon, tables, spec, slot_j, nt_i, nt_f) -> np.float64:
    """n-tuple value (rises) of ``child`` with ``mr2`` moves remaining, by difference
    from the frame of the board ``canon`` (any board; close to the child is fast)."""
    if fill_tail(spec) >= 0:
        return ntuple_value(child, mr2, tables, spec)
    mirror = mirror_precedes(child)
    o = 1 if mirror else 0
    ph = phase_of(mr2)
    key = nt_i[2]
    same = key[7] == ph
    if same:
        for c in range(7):
            if key[c] != canon[c]:
                same = False
                break
    if not same:
        for c in range(7):
            key[c] = canon[c]
        key[7] = ph
        key[8] = 0
    if not (key[8] >> o) & 1:
        _frame(o, canon, ph, tables, spec, nt_i, nt_f)
        key[8] |= 1 << o
    xs = nt_i[3, 14:21]
    m = nt_i[3]
    rows = 0
    for c in range(7):
        xc = child[6 - c] if mirror else child[c]
        xs[c] = xc
        fc = canon[6 - c] if mirror else canon[c]
        m[c] = occupied(xc ^ fc)  # the cells that changed
        rows |= m[c]
    total = nt_f[o, _SUM]
    if rows == 0:
        return total
    for k in range(7):  # rows: slot 6 - k holds height k
        if (rows >> (4 * k)) & 1:
            total += _swap(o, xs, ph, 6 - k, tables, spec, slot_j, nt_f)
    for c in range(7):  # cols
        if m[c]:
            total += _swap(o, xs, ph, 7 + c, tables, spec, slot_j, nt_f)
    for c0 in range(6):  # win23: 2 wide x 3 tall, bottom heights 0..4
        mm = m[c0] | m[c0 + 1]
        if mm:
            for k0 in range(5):
                if (mm >> (4 * k0)) & 0x111:
                    total += _swap(o, xs, ph, 14 + 5 * c0 + k0, tables, spec, slot_j, nt_f)
    for c0 in range(5):  # win32: 3 wide x 2 tall, bottom heights 0..5
        mm = m[c0] | m[c0 + 1] | m[c0 + 2]
        if mm:
            for k0 in range(6):
                if (mm >> (4 * k0)) & 0x11:
                    total += _swap(o, xs, ph, 44 + 6 * c0 + k0, tables, spec, slot_j, nt_f)
    return total
