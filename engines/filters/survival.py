"""The survival instinct (compiled): which root columns would entomb the next disc.

A column is bottom-packed, so the vertical run through a disc is its column's
height: a disc of value ``n`` placed as the ``(n+1)``-th disc of a column or
higher cannot pop vertically until a disc below it goes.  The register's
strict rule (theory ``TH-20260822-survival-instinct-vertical-clear-26f173b5``,
experiment ``EX-20260822-survival-instinct-root-filter-8531cbd9``) refuses such
a placement when, moreover, the run of occupied cells through the landing cell
in its row (the disc counted) is already longer than ``n``: the disc is then
buried both ways the moment it lands.  Values 1 and 2 (and grey discs) are
never refused.  The rule reads the board before anything pops, so it is a
function of the public state alone.  Its readable twin is
:mod:`engines.filters.survival_ref`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.nibbles import col_height, is_legal

#: the smallest disc value the rule ever refuses
LOWEST_VALUE = 3


@njit(cache=True)
def survival_refused(cols: np.ndarray, disc: np.int64) -> np.int64:
    """Bit ``c`` set for each legal column ``c`` of ``cols`` where ``disc`` would be entombed
    on landing (see the module); every legal column may be refused."""
    refused = np.int64(0)
    if disc < LOWEST_VALUE or disc > 7:
        return refused
    heights = np.zeros(7, dtype=np.int64)
    for c in range(7):
        heights[c] = col_height(cols[c])
    for c in range(7):
        if not is_legal(cols, c):
            continue
        h = heights[c]  # the disc lands at height h: it is the (h + 1)-th disc of its column
        if h + 1 <= disc:
            continue
        run = 1
        left = c - 1
        while left >= 0 and heights[left] > h:
            run += 1
            left -= 1
        right = c + 1
        while right < 7 and heights[right] > h:
            run += 1
            right += 1
        if run > disc:
            refused |= np.int64(1) << c
    return refused
