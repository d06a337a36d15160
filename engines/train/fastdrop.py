"""A shortcut for the commonest afterstate: a drop on which nothing pops.

Training evaluates about a dozen afterstates per move; most are plain drops.
On a settled board (no poppers, as every board of a game is between moves)
a disc dropped at ``(column c, height h)`` can only create poppers

* in column ``c`` (its height became ``h + 1``): a numbered disc of value
  ``h + 1`` there, or
* in the row run through the new disc (the runs left and right of it merged
  into one of length ``L``): a numbered disc of value ``L`` in that run;

every other cell keeps its row run and its column height.  If the move ends
the level, the rise shifts every column up over a grey floor: row runs are
unchanged and the floor holds no numbered disc, so the only new poppers are
discs equal to their column's new height.

:func:`quick_drop` applies the move when none of these cases pops and
reports failure otherwise, and the caller falls back to the engine
(:func:`engines.drop7.chance.play_sample`).  Tests hold the shortcut equal
to the engine on every simple drop of many games.  It never draws a random
number: a drop on which nothing pops reveals nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.board import LEVEL_BONUS, MOVES_PER_LEVEL, SOLID
from engines.drop7.core import col_height

_TOP = 0xF000000


@njit(cache=True, _nrt=False)
def quick_drop(board, column, disc, moves_remaining):
    """Drop ``disc`` in ``column`` of the settled ``board`` in place if nothing pops.

    Returns ``(ok, moves_remaining_after, points, game_over)``; with ``ok``
    false the board is untouched and the engine must play the move.  The
    column must be legal.
    """
    w = board[column]
    h = col_height(w)
    # column poppers: a numbered disc equal to the new height h + 1
    nh = h + 1
    if disc == nh:
        return False, moves_remaining, 0, False
    for k in range(h):
        if ((w >> (4 * k)) & 0xF) == nh:
            return False, moves_remaining, 0, False
    # row run through (column, h)
    sh = 4 * h
    lo = column
    while lo > 0 and ((board[lo - 1] >> sh) & 0xF) != 0:
        lo -= 1
    hi = column
    while hi < 6 and ((board[hi + 1] >> sh) & 0xF) != 0:
        hi += 1
    run = hi - lo + 1
    if disc == run:
        return False, moves_remaining, 0, False
    for c in range(lo, hi + 1):
        if c != column and ((board[c] >> sh) & 0xF) == run:
            return False, moves_remaining, 0, False
    mr = moves_remaining - 1
    if mr > 0:
        board[column] = w | (disc << sh)
        over = True
        for c in range(7):
            if (board[c] & _TOP) == 0:
                over = False
                break
        return True, mr, 0, over
    # the move ends the level: game over if the top row is occupied, else rise
    nw = w | (disc << sh)
    top = nw & _TOP
    for c in range(7):
        if c != column:
            top |= board[c] & _TOP
    if top != 0:
        board[column] = nw
        return True, 0, 0, True
    for c in range(7):
        x = nw if c == column else board[c]
        hc = col_height(x) + 1
        for k in range(hc - 1):
            if ((x >> (4 * k)) & 0xF) == hc:
                return False, moves_remaining, 0, False
    for c in range(7):
        x = nw if c == column else board[c]
        board[c] = (x << 4) | SOLID
    over = True
    for c in range(7):
        if (board[c] & _TOP) == 0:
            over = False
            break
    return True, MOVES_PER_LEVEL, np.int64(LEVEL_BONUS), over
