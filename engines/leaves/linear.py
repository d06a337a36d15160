"""The frozen fair leaf ``linear``: 18 terms over the packed board (numba).

This is the fast twin of :mod:`engines.leaves.linear_ref`, which states the
definition plainly; ``docs/leaf.md`` has the feature table and every decision
where the spec leaves room.  Both twins accumulate every float term in the
same order (row-major, top row first, left to right), so they agree bit for
bit, and so does ``value = sum(weights[i] * terms[i])`` summed in table order.

Hot-path API (all ``@njit``; ``cols`` = seven ``int64`` column words):

* ``linear_value(cols, moves_remaining, next_disc, weights) -> float``
* ``linear_value_no_disc(cols, moves_remaining, weights) -> float`` (terms
  1..17) and ``next_disc_term(cols, next_disc) -> float`` (term 18), so a
  chance node computes the board part once and adds
  ``weights[17] * next_disc_term(...)`` per sampled disc; the sum equals
  ``linear_value`` exactly.
* ``linear_terms(cols, moves_remaining, next_disc, out)`` fills ``out[:18]``.
* ``linear_terms_many`` / ``linear_values_many``: the same over a batch of
  states (``boards`` int64[n, 7]), for ``drop7 leaf-terms``, benchmarks and
  training.

No call allocates on the heap: the per-cell work arrays live on the kernel's
stack (:func:`_stack_f64`), so the leaf can run millions of times inside a
search without touching the allocator.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from engines.drop7.core import col_height
from engines.leaves.kinds import N_TERMS, NEXT_DISC_TERM

#: The table's names, in the table's order (index i = term i + 1).
TERM_NAMES: tuple[str, ...] = (
    "open_columns",
    "height_load",
    "solid_cells",
    "cracked_cells",
    "numbered_cells",
    "high_low_numbers",
    "direct_potential",
    "latent_chain_potential",
    "cracked_exposure",
    "solid_exposure",
    "adjacent_ones",
    "triple_twos",
    "dead_low_numbers",
    "covered_height_risk",
    "low_number_height_risk",
    "danger_height_squared",
    "rise_pressure",
    "next_disc_vertical_options",
)

#: The frozen hand-written weights of the spec, in the table's order.
FAIR_WEIGHTS = np.array(
    [180.0, -20.0, -620.0, -220.0, -18.0, -90.0, 1600.0, 700.0, 100.0, 40.0,
     -550.0, -750.0, -120.0, -95.0, -85.0, -1250.0, -35.0, 220.0],
    dtype=np.float64,
)
FAIR_WEIGHTS.setflags(write=False)


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lookup tables over 7-bit masks and small integers.

    ``RUN_LO[mask * 7 + i]`` / ``RUN_HI[...]``: first and last bit of the run of
    set bits through bit ``i`` (-1 when bit ``i`` is clear); ``POPCOUNT[mask]``;
    ``READY[k] = ready(k)`` for ``0 <= k < 64`` (exact powers of two).
    """
    lo_t = np.full(128 * 7, -1, dtype=np.int64)
    hi_t = np.full(128 * 7, -1, dtype=np.int64)
    for mask in range(128):
        for i in range(7):
            if mask >> i & 1:
                lo = hi = i
                while lo > 0 and mask >> (lo - 1) & 1:
                    lo -= 1
                while hi < 6 and mask >> (hi + 1) & 1:
                    hi += 1
                lo_t[mask * 7 + i], hi_t[mask * 7 + i] = lo, hi
    popcount = np.array([bin(m).count("1") for m in range(128)], dtype=np.int64)
    ready = np.array([0.0] + [math.ldexp(1.0, 1 - k) for k in range(1, 64)])
    return lo_t, hi_t, popcount, ready


RUN_LO, RUN_HI, POPCOUNT, READY = _tables()

_NO_COST = 1 << 30
_NOT_COL0 = sum(1 << (7 * r) for r in range(7)) * 0x7E  # cells with c >= 1
_NOT_COL6 = sum(1 << (7 * r) for r in range(7)) * 0x3F  # cells with c <= 5


@intrinsic
def _stack_f64(typingctx, size):
    """Pointer to ``size`` (a literal) uninitialised float64s on the caller's stack."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(types.float64), size=n)

    return types.CPointer(types.float64)(size), codegen


@intrinsic
def _stack_i64(typingctx, size):
    """Pointer to ``size`` (a literal) uninitialised int64s on the caller's stack."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(types.int64), size=n)

    return types.CPointer(types.int64)(size), codegen


@njit(cache=True, inline="always")
def _ready(k):
    """``ready(k) = 2^(1-k)`` for k >= 1, else 0."""
    if k < 1:
        return 0.0
    if k < 64:
        return READY[k]
    return math.ldexp(1.0, 1 - k)


@njit(cache=True, inline="always")
def _union(a, b):
    """``union(a, b) = 1 - (1-a)(1-b)``."""
    return 1.0 - (1.0 - a) * (1.0 - b)


@njit(cache=True, inline="always")
def _twos_runs(twos_bits, j0, step, k0, add, rel, triple):
    """``triple`` plus ``(run - 2)**2 * (1 - escape)`` for each maximal run of at least
    three twos among cells ``j0 + step * k``, ``k = k0 .. 6`` (a row or a column); a
    run's escape is the largest ``union(add, rel)`` of its cells."""
    k = k0
    while k < 7:
        if not (twos_bits >> (j0 + step * k)) & 1:
            k += 1
            continue
        start = k
        esc = 0.0
        while k < 7 and (twos_bits >> (j0 + step * k)) & 1:
            j = j0 + step * k
            esc = max(esc, _union(add[j], rel[j]))
            k += 1
        run = k - start
        if run >= 3:
            triple += float((run - 2) * (run - 2)) * (1.0 - esc)
    return triple


@njit(cache=True, inline="always")
def _sort_descending(buf, n):
    """Insertion-sort ``buf[:n]`` (at most 7 values) in place, largest first."""
    for i in range(1, n):
        key = buf[i]
        j = i
        while j > 0 and buf[j - 1] < key:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = key


@njit(cache=True, inline="always")
def next_disc_term(cols: np.ndarray, next_disc: int) -> float:
    """Term 18: columns with h < 7 and h + 1 == next_disc."""
    n = 0
    for c in range(7):
        h = col_height(cols[c])
        if h < 7 and h + 1 == next_disc:
            n += 1
    return float(n)


@njit(cache=True)
def _board_terms(cols, moves_remaining, t):
    """Terms 1..17 into ``t[0:17]`` (term 18 needs the disc: :func:`next_disc_term`)."""
    h = numba.carray(_stack_i64(7), (7,))
    cell = numba.carray(_stack_i64(49), (49,))
    run_lo = numba.carray(_stack_i64(49), (49,))
    run_hi = numba.carray(_stack_i64(49), (49,))
    add = numba.carray(_stack_f64(49), (49,))
    rel = numba.carray(_stack_f64(49), (49,))
    fill_terms(cols, moves_remaining, t, h, cell, run_lo, run_hi, add, rel)


@njit(cache=True, inline="always")
def fill_terms(cols, moves_remaining, t, h, cell, run_lo, run_hi, add, rel):
    """Terms 1..17 into ``t[0:17]``, leaving the board's facts for extra terms
    (:mod:`engines.leaves.linear_extra`): column heights ``h``, the codes ``cell`` of
    occupied cells, a numbered disc's row run ``[run_lo, run_hi]`` and its ``add`` and
    ``rel``; returns ``(numbered_bits, grey_bits)``.

    Cells are indexed row-major, ``i = 7 * row + column`` with row 0 on top,
    and the ``*_bits`` boards have bit ``i`` set for such cells.  Walking a
    board's set bits upward visits cells in row-major order, the order in
    which every float sum accumulates (as in the readable twin).  The stack
    arrays are not cleared: ``cell`` is read only at occupied cells and the
    per-disc arrays only at numbered discs.
    """
    col_numbered = numba.carray(_stack_i64(7), (7,))  # bit r: numbered disc in row r
    hadd = numba.carray(_stack_f64(49), (49,))
    vadd = numba.carray(_stack_f64(49), (49,))
    hrel = numba.carray(_stack_f64(49), (49,))
    vrel = numba.carray(_stack_f64(49), (49,))
    prefix = numba.carray(_stack_i64(8), (8,))     # prefix sums of max(0, e - h) along a row
    buf = numba.carray(_stack_f64(8), (8,))
    row_sorted = numba.carray(_stack_f64(8), (8,))   # adds of one row run, largest first
    col_sorted = numba.carray(_stack_f64(49), (49,))  # adds of column c at [7c, 7c+7)

    # Columns: unpack into cells and bitboards; heights, open columns, load, rise.
    occupied_bits = 0
    numbered_bits = 0
    grey_bits = 0
    ones_bits = 0
    twos_bits = 0
    open_columns = 0
    tallest = 0
    height_load = 0
    rise = 0.0
    mr = float(moves_remaining)
    for c in range(7):
        w = cols[c]
        hc = col_height(w)
        h[c] = hc
        col_numbered[c] = 0
        for k in range(hc):
            v = (w >> (4 * k)) & 0xF
            i = 7 * (6 - k) + c
            cell[i] = v
            is_numbered = np.int64(v <= 7)  # branch-free: cell kinds are hard to predict
            occupied_bits |= 1 << i
            numbered_bits |= is_numbered << i
            grey_bits |= (1 - is_numbered) << i
            ones_bits |= np.int64(v == 1) << i
            twos_bits |= np.int64(v == 2) << i
            col_numbered[c] |= is_numbered << (6 - k)
        if hc < 7:
            open_columns += 1
        if hc > tallest:
            tallest = hc
        height_load += hc * (hc + 1) * (2 * hc + 1) // 6  # sum of e^2 for e = 1..hc
        rise += float(hc * hc * hc) / mr

    # Greys (row-major): counts and covered height risk.
    n_solid = 0
    n_cracked = 0
    covered = 0.0
    bits = grey_bits
    while bits:
        i = trailing_zeros(bits)
        bits &= bits - 1
        r = i // 7
        c = i - 7 * r
        e = 7 - r
        risk = float(e * e) * (1.65 if c == 0 or c == 6 else 1.0)
        if cell[i] == 8:
            n_solid += 1
            covered += risk
        else:
            n_cracked += 1
            covered += risk * 0.72

    # Numbered discs (row-major): low-number counts; vadd / hadd / add.
    n_discs = 0
    high_low = 0
    low_risk = 0
    direct = 0.0
    prefix_row = -1
    bits = numbered_bits
    while bits:
        i = trailing_zeros(bits)
        bits &= bits - 1
        r = i // 7
        c = i - 7 * r
        e = 7 - r
        v = cell[i]
        n_discs += 1
        if v <= 2:
            k = e - 2 if e > 2 else 0
            low_risk += k * k
            if e >= 5:
                high_low += 1
        row_mask = (occupied_bits >> (7 * r)) & 0x7F
        lo = RUN_LO[row_mask * 7 + c]
        hi = RUN_HI[row_mask * 7 + c]
        run_lo[i] = lo
        run_hi[i] = hi
        va = _ready(v - h[c]) if v > h[c] else 0.0
        ha = 0.0
        if v > hi - lo + 1:
            if prefix_row != r:
                prefix_row = r
                prefix[0] = 0
                for j in range(7):
                    gap = e - h[j]
                    prefix[j + 1] = prefix[j] + (gap if gap > 0 else 0)
            best = _NO_COST
            first = hi - v + 1 if hi - v + 1 > 0 else 0
            last = lo if lo < 7 - v else 7 - v
            for a in range(first, last + 1):
                if a > 0 and h[a - 1] >= e:
                    continue
                if a + v < 7 and h[a + v] >= e:
                    continue
                cost = prefix[a + v] - prefix[a]
                if 0 < cost < best:
                    best = cost
            if best != _NO_COST:
                ha = _ready(best)
        vadd[i] = va
        hadd[i] = ha
        a_ = _union(ha, va)
        add[i] = a_
        direct += a_

    # Numbered discs again (row-major): hrel / vrel / rel; dead low numbers.
    # The excess-th largest add among a disc's run-mates is read from the run's adds
    # sorted once (largest first): dropping the disc's own add x from that list,
    # the k-th largest of the rest is sorted[k-1] if x < sorted[k-1], else sorted[k].
    latent = 0.0
    dead = 0.0
    row_key = -1        # the row run whose adds are in row_sorted
    col_done = 0        # bit c: the adds of column c are in col_sorted[7c:7c+7]
    bits = numbered_bits
    while bits:
        i = trailing_zeros(bits)
        bits &= bits - 1
        r = i // 7
        c = i - 7 * r
        v = cell[i]
        x = add[i]
        lo = run_lo[i]
        length = run_hi[i] - lo + 1
        hr = 0.0
        excess = length - v
        if excess > 0:
            mates = (numbered_bits >> (7 * r + lo)) & ((1 << length) - 1)
            n = POPCOUNT[mates]
            if n - 1 >= excess:
                if row_key != 7 * r + lo:
                    row_key = 7 * r + lo
                    for m in range(n):
                        row_sorted[m] = add[row_key + trailing_zeros(mates)]
                        mates &= mates - 1
                    _sort_descending(row_sorted, n)
                kth = row_sorted[excess - 1] if x < row_sorted[excess - 1] else row_sorted[excess]
                hr = kth * _ready(excess)
        vr = 0.0
        excess = h[c] - v
        if excess > 0:
            mates = col_numbered[c]
            n = POPCOUNT[mates]
            if n - 1 >= excess:
                if not (col_done >> c) & 1:
                    col_done |= 1 << c
                    for m in range(n):
                        col_sorted[7 * c + m] = add[7 * trailing_zeros(mates) + c]
                        mates &= mates - 1
                    _sort_descending(col_sorted[7 * c:], n)
                k = 7 * c + excess - 1
                kth = col_sorted[k] if x < col_sorted[k] else col_sorted[k + 1]
                vr = kth * _ready(excess)
        hrel[i] = hr
        vrel[i] = vr
        rl = _union(hr, vr)
        rel[i] = rl
        latent += rl
        if v <= 2 and length > v and h[c] > v:
            dead += 1.0 - _union(x, rl)

    # Pairs of 1s (row-major by the first of the pair): side by side, then one above the other.
    adjacent = 0.0
    bits = ones_bits & (((ones_bits >> 1) & _NOT_COL6) | (ones_bits >> 7))
    while bits:
        i = trailing_zeros(bits)
        bits &= bits - 1
        if i % 7 < 6 and (ones_bits >> (i + 1)) & 1:
            esc = max(_union(vadd[i], vrel[i]), _union(vadd[i + 1], vrel[i + 1]))
            adjacent += 1.0 - esc
        if i < 42 and (ones_bits >> (i + 7)) & 1:
            esc = max(_union(hadd[i], hrel[i]), _union(hadd[i + 7], hrel[i + 7]))
            adjacent += 1.0 - esc

    # Maximal runs of >= 3 twos: rows (top first), then columns (left first).
    triple = 0.0
    three_twos = twos_bits & (twos_bits - 1)  # twos_bits without its two lowest set bits
    three_twos &= three_twos - 1
    for r in range(7 - tallest if three_twos else 7, 7):
        triple = _twos_runs(twos_bits, 7 * r, 1, 0, vadd, vrel, triple)
    for c in range(7 if three_twos else 0):
        triple = _twos_runs(twos_bits, c, 7, 7 - h[c], hadd, hrel, triple)

    # Greys next to numbered discs (row-major); supports from up, down, left, right.
    # A grey with no numbered neighbour adds exactly +0.0 to either sum: skipped.
    near = ((numbered_bits << 7) | (numbered_bits >> 7) | ((numbered_bits << 1) & _NOT_COL0)
            | ((numbered_bits >> 1) & _NOT_COL6))
    crack_exp = 0.0
    solid_exp = 0.0
    bits = grey_bits & near
    while bits:
        i = trailing_zeros(bits)
        bits &= bits - 1
        n = 0
        if i >= 7 and (numbered_bits >> (i - 7)) & 1:
            buf[n] = _union(add[i - 7], rel[i - 7])
            n += 1
        if i < 42 and (numbered_bits >> (i + 7)) & 1:
            buf[n] = _union(add[i + 7], rel[i + 7])
            n += 1
        c = i % 7
        if c > 0 and (numbered_bits >> (i - 1)) & 1:
            buf[n] = _union(add[i - 1], rel[i - 1])
            n += 1
        if c < 6 and (numbered_bits >> (i + 1)) & 1:
            buf[n] = _union(add[i + 1], rel[i + 1])
            n += 1
        _sort_descending(buf, n)
        if cell[i] == 9:
            keep = 1.0
            for j in range(n):
                keep *= 1.0 - buf[j]
            crack_exp += 1.0 - keep
        else:
            s2 = buf[1] * 0.65 if n > 1 else 0.0
            solid_exp += buf[0] * 0.35 + s2

    danger = tallest - 4 if tallest > 4 else 0
    t[0] = float(open_columns)
    t[1] = float(height_load)
    t[2] = float(n_solid)
    t[3] = float(n_cracked)
    t[4] = float(n_discs)
    t[5] = float(high_low)
    t[6] = direct
    t[7] = latent
    t[8] = crack_exp
    t[9] = solid_exp
    t[10] = adjacent
    t[11] = triple
    t[12] = dead
    t[13] = covered
    t[14] = float(low_risk)
    t[15] = float(danger * danger)
    t[16] = rise
    return numbered_bits, grey_bits


@njit(cache=True)
def linear_terms(cols: np.ndarray, moves_remaining: int, next_disc: int,
                 out: np.ndarray) -> None:
    """Fill ``out[:18]`` with the 18 terms of the table, in its order."""
    _board_terms(cols, moves_remaining, out)
    out[NEXT_DISC_TERM] = next_disc_term(cols, next_disc)


@njit(cache=True, inline="always")
def linear_value_no_disc(cols: np.ndarray, moves_remaining: int, weights: np.ndarray) -> float:
    """``sum(weights[i] * term[i])`` over terms 1..17 (all but the next-disc term)."""
    t = numba.carray(_stack_f64(18), (N_TERMS,))  # N_TERMS: the intrinsic takes a literal
    _board_terms(cols, moves_remaining, t)
    value = 0.0
    for k in range(NEXT_DISC_TERM):
        value += weights[k] * t[k]
    return value


@njit(cache=True, inline="always")
def linear_value(cols: np.ndarray, moves_remaining: int, next_disc: int,
                 weights: np.ndarray) -> float:
    """The linear leaf's value in points: ``sum(weights[i] * term[i])`` in table order."""
    return (linear_value_no_disc(cols, moves_remaining, weights)
            + weights[NEXT_DISC_TERM] * next_disc_term(cols, next_disc))


@njit(cache=True)
def linear_terms_many(boards: np.ndarray, moves_remaining: np.ndarray, next_discs: np.ndarray,
                      out: np.ndarray) -> None:
    """``out[n, :18]`` = the terms of state n (``boards[n]``, ``moves_remaining[n]``, ...)."""
    for n in range(boards.shape[0]):
        linear_terms(boards[n], moves_remaining[n], next_discs[n], out[n])


@njit(cache=True)
def linear_values_many(boards: np.ndarray, moves_remaining: np.ndarray, next_discs: np.ndarray,
                       weights: np.ndarray, out: np.ndarray) -> None:
    """``out[n]`` = the leaf value of each state (a batch, for benchmarks and training)."""
    for n in range(boards.shape[0]):
        out[n] = linear_value(boards[n], moves_remaining[n], next_discs[n], weights)
