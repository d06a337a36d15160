"""N-tuple value of a chance state (numba), in units of one rise (17,000 points).

``U(s)`` is the sum of the active entries of the chance state ``s``: the
board after a move has fully resolved, with its moves remaining, before the
next disc is known.  The board is mirror-canonicalised first, then each
tuple of the layout reads its pattern (see :mod:`engines.ntuple.layouts`
for slots and digit order) and the phase ``clamp(moves_remaining, 1, 5) - 1``
picks the table of a phased tuple; a fill-bucketed layout reads the copy of
the board's fill bucket (:func:`fill_offset`).

Kernels (all ``@njit``):

* ``ntuple_value(cols, moves_remaining, tables, spec) -> float`` for search:
  ``tables`` is the float32 value array (a memmap is fine).
* ``board_patterns(canon, pat)`` fills the 74 slot patterns of a board.
* ``entry_indices(canon, moves_remaining, spec, pat, idx) -> n`` writes the
  table entries of the ``n`` active tuples.
* ``gather(values, bias, idx, n)``: ``bias + sum(values[idx[j]])``.
* ``slot_offsets(spec)`` and ``board_entries(canon, soff, phase, out, r, tab)``:
  the entries of all 74 slots in one pass, each prefetched (the trainer).
* ``prefetch(arr, i)``, ``prefetch_write(arr, i)``: LLVM prefetch intrinsics.

The kernels the trainer calls per afterstate are compiled without
reference counting (``_nrt=False``; they allocate nothing).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from engines.drop7.chance import mirror_precedes
from engines.drop7.nibbles import col_height, count_flags, occupied
from engines.ntuple.layouts import FILL_CELLS, N_SLOTS, SPEC_FIELDS, SPEC_HEADER


def _decimal_table() -> np.ndarray:
    """``DEC3[x]``: the 3 nibbles of ``x`` (12 bits) read as decimal digits, low first."""
    x = np.arange(4096, dtype=np.int64)
    return ((x & 0xF) + 10 * ((x >> 4) & 0xF) + 100 * ((x >> 8) & 0xF)).astype(np.int32)


DEC3 = _decimal_table()
_P10 = np.array([10**i for i in range(8)], dtype=np.int64)


@njit(cache=True, inline="always")
def phase_of(moves_remaining) -> np.int64:
    """Phase bucket ``clamp(moves_remaining, 1, 5) - 1``."""
    m = moves_remaining
    if m < 1:
        m = 1
    if m > 5:
        m = 5
    return m - 1


@njit(cache=True, inline="always")
def fill_measure(by, cols) -> np.int64:
    """Occupied cells (``by == FILL_CELLS``) or the tallest column's height of a board."""
    m = 0
    for c in range(7):
        if by == FILL_CELLS:
            m += count_flags(occupied(cols[c]))
        else:
            m = max(m, col_height(cols[c]))
    return m


@njit(cache=True, inline="always")
def fill_tail(spec) -> np.int64:
    """Where a bucketed spec's fill tail starts, or -1 for an unbucketed spec."""
    t = SPEC_HEADER + SPEC_FIELDS * spec[1]
    return t if spec.shape[0] > t else -1


@njit(cache=True, inline="always")
def fill_offset(spec, cols) -> np.int64:
    """``bucket * stride``: how far the board's fill bucket's copy of the tables starts (0
    for an unbucketed layout).  Any orientation of the board gives the same."""
    t = fill_tail(spec)
    if t < 0:
        return 0
    m = fill_measure(spec[t], cols)
    b = 0
    for i in range(spec[t + 2]):
        if m >= spec[t + 3 + i]:
            b += 1
    return b * spec[t + 1]


@njit(cache=True, inline="always")
def row_pattern(canon, k) -> np.int64:
    """Pattern of the row at height ``k`` (slot ``6 - k``): column ``c`` is digit ``c``."""
    sh = 4 * k
    acc = 0
    for c in range(6, -1, -1):
        acc = 10 * acc + ((canon[c] >> sh) & 0xF)
    return acc


@njit(cache=True, inline="always")
def col_pattern(w) -> np.int64:
    """Pattern of a column word (slot ``7 + c``): height ``k`` is digit ``k``."""
    return (DEC3[w & 0xFFF] + 1000 * np.int64(DEC3[(w >> 12) & 0xFFF])
            + 1000000 * ((w >> 24) & 0xF))


@njit(cache=True, inline="always")
def win23_pattern(wl, wr, sh) -> np.int64:
    """Pattern of the 2 wide x 3 tall window over columns ``wl, wr`` from bit ``sh`` up
    (cell ``(dc, dk)`` is digit ``dk + 3 dc``)."""
    return DEC3[(wl >> sh) & 0xFFF] + 1000 * np.int64(DEC3[(wr >> sh) & 0xFFF])


@njit(cache=True, inline="always")
def win32_pattern(w0, w1, w2, sh) -> np.int64:
    """Pattern of the 3 wide x 2 tall window over columns ``w0, w1, w2`` from bit ``sh`` up
    (cell ``(dc, dk)`` is digit ``dk + 2 dc``)."""
    return (DEC3[(w0 >> sh) & 0xFF] + 100 * np.int64(DEC3[(w1 >> sh) & 0xFF])
            + 10000 * np.int64(DEC3[(w2 >> sh) & 0xFF]))


@njit(cache=True, inline="always")
def tuple_slot(spec, j) -> np.int64:
    """Slot of active tuple ``j`` of a layout."""
    return spec[SPEC_HEADER + SPEC_FIELDS * j]


@njit(cache=True, inline="always")
def tuple_entry(spec, j, ph, pattern) -> np.int64:
    """Table entry of active tuple ``j`` of a layout in phase ``ph`` for a pattern."""
    f = SPEC_HEADER + SPEC_FIELDS * j
    return spec[f + 1] + ph * spec[f + 2] + pattern


@njit(cache=True, _nrt=False)
def board_patterns(canon, pat) -> None:
    """Fill ``pat[0:74]`` with the pattern of every slot of the (canonical) board."""
    for c in range(7):
        pat[7 + c] = col_pattern(canon[c])
    for k in range(7):
        pat[k_to_row(k)] = row_pattern(canon, k)
    for c0 in range(6):
        for k0 in range(5):
            pat[14 + 5 * c0 + k0] = win23_pattern(canon[c0], canon[c0 + 1], 4 * k0)
    for c0 in range(5):
        for k0 in range(6):
            pat[44 + 6 * c0 + k0] = win32_pattern(canon[c0], canon[c0 + 1], canon[c0 + 2],
                                                  4 * k0)


def _prefetch_codegen(rw: int):
    """Code of an LLVM ``prefetch`` (high locality) of ``arr[i]``; ``rw`` 1: for a write."""

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(rw), i32(3), i32(1)])
        return context.get_dummy_value()

    return codegen


@intrinsic
def prefetch(typingctx, arr, i):
    """LLVM ``prefetch`` (read, high locality) of ``arr[i]`` (1-D array)."""
    return types.void(arr, i), _prefetch_codegen(0)


@intrinsic
def prefetch_write(typingctx, arr, i):
    """LLVM ``prefetch`` for a write (``prefetchw``: the line arrives owned) of ``arr[i]``."""
    return types.void(arr, i), _prefetch_codegen(1)


#: ``slot_offsets`` of a slot the layout lacks: its entries are negative, never read
NO_SLOT = -(1 << 40)


@njit(cache=True)
def slot_offsets(spec):
    """``soff[phase, slot]``: the first entry of the slot's table in that phase
    (``NO_SLOT`` for a slot the layout lacks), so an entry is ``soff[phase, slot] +
    pattern`` (:func:`board_entries`).  A bucketed layout gets a sixth row, its spec's
    fill tail from column 0, which :func:`board_entries` adds the board's bucket by."""
    t = fill_tail(spec)
    soff = np.full((5 if t < 0 else 6, N_SLOTS), NO_SLOT, dtype=np.int64)
    for j in range(spec[1]):
        for ph in range(5):
            soff[ph, tuple_slot(spec, j)] = tuple_entry(spec, j, ph, 0)
    if t >= 0:
        for i in range(spec.shape[0] - t):
            soff[5, i] = spec[t + i]
    return soff


@njit(cache=True, inline="always")
def soff_fill_offset(soff, canon) -> np.int64:
    """:func:`fill_offset` from the sixth row of :func:`slot_offsets` (0 without one)."""
    if soff.shape[0] < 6:
        return 0
    m = fill_measure(soff[5, 0], canon)
    b = 0
    for i in range(soff[5, 2]):
        if m >= soff[5, 3 + i]:
            b += 1
    return b * soff[5, 1]


@njit(cache=True, inline="always")
def _put(out, r, slot, e, tab) -> None:
    """``out[r, slot] = e``, and prefetch ``tab[e]`` when the slot is the layout's."""
    out[r, slot] = e
    if e >= 0:
        prefetch(tab, e)


@njit(cache=True, _nrt=False)
def board_entries(canon, soff, ph, out, r, tab) -> None:
    """``out[r, slot] = soff[ph, slot] + pattern`` for all 74 slots of a (canonical) board,
    each of the layout's entries prefetched from ``tab`` as soon as it is known.

    :func:`board_patterns` and the entry offsets in one pass (the trainer's
    afterstates); a slot the layout lacks gets a negative entry.  A bucketed layout's
    entries are in the board's bucket (:func:`soff_fill_offset`).
    """
    f = soff_fill_offset(soff, canon)
    for c in range(7):
        _put(out, r, 7 + c, soff[ph, 7 + c] + f + col_pattern(canon[c]), tab)
    for k in range(7):
        _put(out, r, 6 - k, soff[ph, 6 - k] + f + row_pattern(canon, k), tab)
    for c0 in range(6):
        for k0 in range(5):
            slot = 14 + 5 * c0 + k0
            _put(out, r, slot, soff[ph, slot] + f
                 + win23_pattern(canon[c0], canon[c0 + 1], 4 * k0), tab)
    for c0 in range(5):
        for k0 in range(6):
            slot = 44 + 6 * c0 + k0
            _put(out, r, slot, soff[ph, slot] + f + win32_pattern(canon[c0], canon[c0 + 1],
                                                                  canon[c0 + 2], 4 * k0), tab)


@njit(cache=True, inline="always")
def k_to_row(k) -> np.int64:
    """Row (0 = top) of height ``k`` (0 = bottom)."""
    return 6 - k


@njit(cache=True, _nrt=False)
def entry_indices(canon, moves_remaining, spec, pat, idx) -> np.int64:
    """Write the table entry of each active tuple into ``idx``; returns their number."""
    n = spec[1]
    if n == 0:
        return 0
    board_patterns(canon, pat)
    ph = phase_of(moves_remaining)
    f = fill_offset(spec, canon)
    for j in range(n):
        idx[j] = tuple_entry(spec, j, ph, pat[tuple_slot(spec, j)]) + f
    return n


@njit(cache=True, inline="always")
def prefetch_entries(tab, idx, n) -> None:
    """Ask for ``tab[idx[j]]`` ahead of use, so the misses overlap other work."""
    for j in range(n):
        prefetch(tab, idx[j])


@njit(cache=True, inline="always")
def gather(tab, bias, idx, n) -> float:
    """``bias + sum(tab[idx[j]])``: independent loads issued back to back.

    The sum runs in four interleaved partial sums (tuple ``j`` into partial
    ``j % 4``, then ``(p0 + p1) + (p2 + p3)``), the order
    :func:`ntuple_value` uses too, so both give the same float.
    """
    p0 = 0.0
    p1 = 0.0
    p2 = 0.0
    p3 = 0.0
    j = 0
    while j + 3 < n:
        p0 += tab[idx[j]]
        p1 += tab[idx[j + 1]]
        p2 += tab[idx[j + 2]]
        p3 += tab[idx[j + 3]]
        j += 4
    if j < n:
        p0 += tab[idx[j]]
    if j + 1 < n:
        p1 += tab[idx[j + 1]]
    if j + 2 < n:
        p2 += tab[idx[j + 2]]
    return bias + ((p0 + p1) + (p2 + p3))


@njit(cache=True)
def cell_map(spec):
    """Which active tuples each cell feeds, and with which digit weight.

    Returns ``(cj, cw, cn)``: for cell ``(c, k)`` (``i = 7 c + k``, ``k`` the
    height), tuples ``cj[i, :cn[i]]`` read it as the digit of weight
    ``cw[i, :]`` (a power of ten), so a disc ``v`` placed in an empty cell
    adds ``v * cw`` to those tuples' entries.  Used to update indices after a drop.
    """
    cj = np.full((49, 14), -1, dtype=np.int64)
    cw = np.zeros((49, 14), dtype=np.int64)
    cn = np.zeros(49, dtype=np.int64)
    for j in range(spec[1]):
        slot = tuple_slot(spec, j)
        for c in range(7):
            for k in range(7):
                d = -1
                if slot < 7:
                    if k == 6 - slot:
                        d = c
                elif slot < 14:
                    if c == slot - 7:
                        d = k
                elif slot < 44:
                    c0 = (slot - 14) // 5
                    k0 = (slot - 14) % 5
                    if c0 <= c <= c0 + 1 and k0 <= k <= k0 + 2:
                        d = (k - k0) + 3 * (c - c0)
                else:
                    c0 = (slot - 44) // 6
                    k0 = (slot - 44) % 6
                    if c0 <= c <= c0 + 2 and k0 <= k <= k0 + 1:
                        d = (k - k0) + 2 * (c - c0)
                if d >= 0:
                    i = 7 * c + k
                    cj[i, cn[i]] = j
                    cw[i, cn[i]] = _P10[d]
                    cn[i] += 1
    return cj, cw, cn


@njit(cache=True, inline="always")
def slot_pattern(canon, slot) -> np.int64:
    """Pattern of one slot of the (canonical) board (no work arrays)."""
    if slot < 7:
        return row_pattern(canon, 6 - slot)
    if slot < 14:
        return col_pattern(canon[slot - 7])
    if slot < 44:
        c0 = (slot - 14) // 5
        return win23_pattern(canon[c0], canon[c0 + 1], 4 * ((slot - 14) % 5))
    c0 = (slot - 44) // 6
    return win32_pattern(canon[c0], canon[c0 + 1], canon[c0 + 2], 4 * ((slot - 44) % 6))


@njit(cache=True)
def ntuple_value(cols, moves_remaining, tables, spec) -> float:
    """U of the chance state ``(cols, moves_remaining)`` in rises; ``tables`` = float32 values.

    Allocation-free (search calls it at every leaf): the board is
    canonicalised in registers and each tuple's pattern computed on the fly.
    """
    mirror = mirror_precedes(cols)
    c0, c1, c2, c3, c4, c5, c6 = cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6]
    if mirror:
        c0, c1, c2, c3, c4, c5, c6 = c6, c5, c4, c3, c2, c1, c0
    canon = (c0, c1, c2, c3, c4, c5, c6)
    ph = phase_of(moves_remaining)
    f = fill_offset(spec, cols)
    n = spec[1]
    p0 = 0.0
    p1 = 0.0
    p2 = 0.0
    p3 = 0.0
    for j in range(0, n, 4):
        p0 += tables[_entry(canon, ph, spec, j) + f]
        if j + 1 < n:
            p1 += tables[_entry(canon, ph, spec, j + 1) + f]
        if j + 2 < n:
            p2 += tables[_entry(canon, ph, spec, j + 2) + f]
        if j + 3 < n:
            p3 += tables[_entry(canon, ph, spec, j + 3) + f]
    return (p0 + p1) + (p2 + p3)


@njit(cache=True, inline="always")
def _entry(canon, ph, spec, j) -> np.int64:
    """Table entry of tuple ``j`` for a canonical board (a tuple of 7 words) in phase ``ph``."""
    return tuple_entry(spec, j, ph, slot_pattern(canon, tuple_slot(spec, j)))


def ntuple_value_py(cols: np.ndarray, moves_remaining: int, tables: np.ndarray,
                    spec: np.ndarray) -> float:
    """Readable twin of :func:`ntuple_value` (tests hold the two equal)."""
    from engines.drop7.board import unpack

    grid = unpack(np.asarray(cols, dtype=np.int64)).astype(np.int64)  # row 0 on top
    mirror = grid[:, ::-1]
    if tuple(mirror.reshape(-1)) < tuple(grid.reshape(-1)):
        grid = mirror

    def cell(c: int, k: int) -> int:
        return int(grid[6 - k, c])

    pat = [0] * N_SLOTS
    for r in range(7):
        pat[r] = sum(int(grid[r, c]) * 10**c for c in range(7))
    for c in range(7):
        pat[7 + c] = sum(cell(c, k) * 10**k for k in range(7))
    for c0 in range(6):
        for k0 in range(5):
            pat[14 + 5 * c0 + k0] = sum(cell(c0 + dc, k0 + dk) * 10 ** (dk + 3 * dc)
                                        for dc in range(2) for dk in range(3))
    for c0 in range(5):
        for k0 in range(6):
            pat[44 + 6 * c0 + k0] = sum(cell(c0 + dc, k0 + dk) * 10 ** (dk + 2 * dc)
                                        for dc in range(3) for dk in range(2))
    phase = min(max(int(moves_remaining), 1), 5) - 1
    n = int(spec[1])
    copy = 0  # a bucketed layout: the first entry of the board's bucket's copy
    tail = [int(v) for v in spec[SPEC_HEADER + SPEC_FIELDS * n:]]
    if tail:
        by, stride, cuts = tail[0], tail[1], tail[3:3 + tail[2]]
        if by == FILL_CELLS:
            measure = int((grid != 0).sum())
        else:  # the tallest column: the highest occupied cell of any column, plus one
            measure = max((7 - r for r in range(7) for c in range(7) if grid[r, c]), default=0)
        copy = stride * sum(1 for cut in cuts if measure >= cut)
    total = 0.0
    for j in range(n):
        slot, first, stride = (int(v) for v in spec[SPEC_HEADER + SPEC_FIELDS * j:][:3])
        total += float(tables[copy + first + phase * stride + pat[slot]])
    return total


__all__ = ["DEC3", "NO_SLOT", "board_entries", "board_patterns", "cell_map", "col_pattern",
           "entry_indices", "fill_measure", "fill_offset", "fill_tail", "gather",
           "ntuple_value", "ntuple_value_py", "phase_of", "prefetch", "prefetch_entries",
           "prefetch_write", "row_pattern", "slot_offsets", "slot_pattern", "soff_fill_offset",
           "tuple_entry", "tuple_slot", "win23_pattern", "win32_pattern"]
