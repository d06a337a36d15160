"""The extra term ``aligned_double_hit`` (numba): two hits on a solid grey in one wave.

A solid grey cracks on its first hit and reveals on its second, so two of its
numbered neighbours popping in the same cascade reveal it at once.  Per solid
grey the term takes, over pairs of its orthogonal numbered neighbours that can
pop in the same wave, the largest product of their supports
``union(add, rel)``; it sums these over the solid greys in row-major order.
The pair rule, in the words of docs/leaf.md ("Extra terms"):

* two neighbours on one line through the grey (above and below, or left and
  right) count only when neither's readiness is mostly release
  (``rel <= add``): a disc waiting for run-mates to leave pops in a later wave;
* a neighbour on the grey's column and one on its row count only when their
  completion paths (:func:`completion_path`) share no cell.

The readable twin is :mod:`engines.leaves.double_hit_ref`; both agree bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from engines.leaves.linear import _NO_COST, _stack_i64, _union

SOLID = 8


@njit(cache=True, inline="always")
def completion_path(i, cell, h, run_lo, run_hi) -> np.int64:
    """The empty cells (a row-major bit board) that completing the numbered disc at ``i``
    would fill: above its column up to elevation v when ``v > h_c``, and, when its row run
    is shorter than v, the cells up to its elevation in the columns of every cheapest
    window of ``hadd`` (the union over all of them, so a board and its mirror agree)."""
    r = i // 7
    c = i - 7 * r
    v = cell[i]
    e = 7 - r
    path = np.int64(0)
    if v > h[c]:
        for row in range(7 - v, 7 - h[c]):
            path |= np.int64(1) << (7 * row + c)
    lo = run_lo[i]
    hi = run_hi[i]
    if v <= hi - lo + 1:
        return path
    best = _NO_COST
    best_cells = np.int64(0)
    first = hi - v + 1 if hi - v + 1 > 0 else 0
    last = lo if lo < 7 - v else 7 - v
    for a in range(first, last + 1):
        if a > 0 and h[a - 1] >= e:
            continue
        if a + v < 7 and h[a + v] >= e:
            continue
        cost = 0
        cells = np.int64(0)
        for j in range(a, a + v):
            if h[j] >= e:
                continue
            cost += e - h[j]
            for row in range(r, 7 - h[j]):
                cells |= np.int64(1) << (7 * row + j)
        if cost <= 0:
            continue
        if cost < best:
            best = cost
            best_cells = cells
        elif cost == best:
            best_cells |= cells
    return path | best_cells


@njit(cache=True, inline="always")
def aligned_double_hit(cell, h, numbered_bits, grey_bits, run_lo, run_hi, add, rel) -> float:
    """The term's value from the fair leaf's facts (:func:`engines.leaves.linear.fill_terms`)."""
    near = numba.carray(_stack_i64(4), (4,))  # up, down, left, right: a disc's cell or -1
    paths = numba.carray(_stack_i64(4), (4,))  # their completion paths (-1: not yet made)
    total = 0.0
    bits = grey_bits
    while bits:
        i = trailing_zeros(bits)
        bits &= bits - 1
        if cell[i] != SOLID:
            continue
        c = i % 7
        near[0] = i - 7 if i >= 7 and (numbered_bits >> (i - 7)) & 1 else -1
        near[1] = i + 7 if i < 42 and (numbered_bits >> (i + 7)) & 1 else -1
        near[2] = i - 1 if c > 0 and (numbered_bits >> (i - 1)) & 1 else -1
        near[3] = i + 1 if c < 6 and (numbered_bits >> (i + 1)) & 1 else -1
        for k in range(4):
            paths[k] = -1
        best = 0.0
        for a in range(4):
            x = near[a]
            if x < 0:
                continue
            for b in range(a + 1, 4):
                y = near[b]
                if y < 0:
                    continue
                if (a < 2) == (b < 2):  # one line through the grey
                    if rel[x] > add[x] or rel[y] > add[y]:
                        continue
                else:  # one on its column, one on its row
                    if paths[a] < 0:
                        paths[a] = completion_path(x, cell, h, run_lo, run_hi)
                    if paths[b] < 0:
                        paths[b] = completion_path(y, cell, h, run_lo, run_hi)
                    if paths[a] & paths[b]:
                        continue
                q = _union(add[x], rel[x]) * _union(add[y], rel[y])
                if q > best:
                    best = q
        total += best
    return total
