"""Fair ``dDsS`` expectimax: the compiled kernel and a small Python wrapper.

A decision node is a public state (board, next disc, moves remaining).  Its
value is the best over legal columns of the column's chance value; a chance
node averages ``S`` samples with weight ``1/S``:

* the board is mirror-canonicalised first and every column is tried on the
  canonical board, centre first (3, 2, 4, 1, 5, 0, 6); a strictly greater
  value replaces the best, so ties go to the more central column (of the
  canonical board) and a position and its mirror get mirrored choices;
* sample ``s`` plays the move with :func:`engines.drop7.chance.play_sample`
  under ``key = chance_key(canonical board, disc, moves remaining, column)``
  and fixes the next disc ``sample_disc(key, S, s)``; the seed is never seen;
* when sample 0 reveals nothing, the resolved board is the same for every
  sample: it is played once and only the next disc varies;
* a path is worth the points earned along it plus the leaf at depth 0
  (the leaf sees the canonical board); a move that ends the game is worth its
  points plus ``TERMINAL_UTILITY`` and no leaf is called.

Depth counts the player's own moves: ``d3`` is the root move plus two more,
then the leaf.  ``direct`` play is the same kernel at depth 1.  There is no
transposition table: every value is computed from its definition.

Statistics (``stats``): ``STAT_NODES`` counts moves applied (chance samples
played), ``STAT_LEAVES`` leaf evaluations (a disc-free base counts once),
``STAT_DECISIONS`` root decisions.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from engines.drop7.board import CENTRE_ORDER, SOLID, TERMINAL_UTILITY
from engines.drop7.chance import canonicalise, chance_key, sample_disc
from engines.drop7.core import (
    OUT_LEN,
    OUT_OVER,
    OUT_POINTS,
    OUT_REVEALS,
    SCRATCH_LEN,
    SRC_STRATIFIED,
    col_height,
    play_move,
)
from engines.search.leaf import (
    LEAF_NTUPLE,
    LEAF_ZERO,
    NTUPLE_SCALE,
    has_disc_part,
    leaf_base,
    leaf_disc,
)
from engines.search.ntuple_delta import child_value, slot_index, work_arrays

CENTRE = np.array(CENTRE_ORDER, dtype=np.int64)
STAT_NODES, STAT_LEAVES, STAT_DECISIONS = 0, 1, 2
STAT_LEN = 4
MAX_DEPTH = 6
MAX_STRATA = 64

_TERMINAL = np.float64(TERMINAL_UTILITY)
_WORD = 0xFFFFFFF  # the seven nibbles of a column word
_NEG = -np.inf


@njit(cache=True, inline="always")
def _play(cols, column, disc, mr, key, strata, sample, scratch, out):
    """:func:`engines.drop7.chance.play_sample`'s move, inlined and without its
    per-move slice of ``scratch`` (a stratified source never reads ``rarr``)."""
    return play_move(cols, column, disc, mr, SRC_STRATIFIED, key, scratch, 0, strata, sample,
                     scratch, out)


@njit(cache=True, inline="always")
def _quiet(canon, heights, c, disc) -> bool:
    """Does dropping ``disc`` in column ``c`` of a settled board pop nothing?

    Only column ``c`` (its height grew) and the row run through the new disc
    (its length grew) can hold a new popper.
    """
    k = heights[c]
    tall = k + 1
    if disc == tall:
        return False
    w = canon[c]
    for i in range(k):
        if ((w >> (4 * i)) & 0xF) == tall:
            return False
    lo = c
    while lo > 0 and heights[lo - 1] > k:
        lo -= 1
    hi = c
    while hi < 6 and heights[hi + 1] > k:
        hi += 1
    run = hi - lo + 1
    if disc == run:
        return False
    shift = 4 * k
    for j in range(lo, hi + 1):
        if j != c and ((canon[j] >> shift) & 0xF) == run:
            return False
    return True


@njit(cache=True, inline="always")
def _frontier(kind, child, mr2, key, strata, one_sample, s, frame, leafbuf, weights, tables,
              spec, slot_j, nt_i, nt_f, stats):
    """Leaf value (points) of a resolved, non-terminal child at a depth-1 node.

    With ``one_sample`` the value for the next disc of sample ``s`` only;
    otherwise the mean over all ``strata`` next discs (the board is shared).
    ``frame`` is the board the n-tuple leaf differences from: the node's
    canonical board, or that board risen when the node's moves bring a rise.
    """
    stats[STAT_LEAVES] += 1
    if kind == LEAF_ZERO:
        return 0.0
    if kind == LEAF_NTUPLE:  # no next disc
        return NTUPLE_SCALE * child_value(child, mr2, frame, tables, spec, slot_j, nt_i, nt_f)
    canonicalise(child, leafbuf)
    base = leaf_base(kind, leafbuf, mr2, weights, tables, spec)
    if not has_disc_part(kind):
        return base
    if one_sample:
        return base + leaf_disc(kind, leafbuf, sample_disc(key, strata, s), weights)
    acc = 0.0
    for t in range(strata):
        acc += leaf_disc(kind, leafbuf, sample_disc(key, strata, t), weights)
    return base + acc / strata


@njit(cache=True, _nrt=False)
def node_value(cols, disc, mr, depth, strata, kind, weights, tables, spec, ws, vals, slot_j,
               nt_i, nt_f, scratch, out, stats):
    """Value of a decision node searched ``depth`` own moves deep.

    Returns ``(value, canonical column, mirrored)``; ``vals[depth]`` receives
    the chance value of each canonical column (``-inf`` when illegal).  The
    board must be settled (no latent poppers), as every board of a game is.
    ``ws`` is an int64 workspace of shape ``(3 * depth + 3, 7)``.
    """
    canon = ws[3 * depth]
    child = ws[3 * depth + 1]
    heights = ws[3 * depth + 2]
    leafbuf = ws[0]
    mirrored = canonicalise(cols, canon)
    full = 0
    for c in range(7):
        heights[c] = col_height(canon[c])
        full += heights[c] == 7
    frame = canon
    if depth == 1 and kind == LEAF_NTUPLE and mr == 1:  # every child has risen
        frame = ws[1]
        for c in range(7):
            frame[c] = ((canon[c] << 4) | SOLID) & _WORD
    best = _NEG
    best_c = -1
    for i in range(7):
        c = CENTRE[i]
        vals[depth, c] = _NEG
        hc = heights[c]
        if hc >= 7:
            continue
        if mr > 1 and _quiet(canon, heights, c, disc):
            # a drop that pops nothing and brings no rise: no points, no reveals
            stats[STAT_NODES] += 1
            if hc == 6 and full == 6:
                v = _TERMINAL
            elif depth == 1 and kind == LEAF_ZERO:
                stats[STAT_LEAVES] += 1
                v = 0.0
            else:
                for k in range(7):
                    child[k] = canon[k]
                child[c] |= disc << (4 * hc)
                key = (chance_key(canon, disc, mr, c) if depth > 1 or has_disc_part(kind)
                       else np.uint64(0))
                if depth == 1:
                    v = _frontier(kind, child, mr - 1, key, strata, False, 0, frame, leafbuf,
                                  weights, tables, spec, slot_j, nt_i, nt_f, stats)
                else:
                    acc = 0.0
                    for s in range(strata):
                        sub, _, _ = node_value(child, sample_disc(key, strata, s), mr - 1,
                                               depth - 1, strata, kind, weights, tables, spec,
                                               ws, vals, slot_j, nt_i, nt_f, scratch, out, stats)
                        acc += sub
                    v = acc / strata
        else:
            key = chance_key(canon, disc, mr, c)
            for k in range(7):
                child[k] = canon[k]
            _, mr2 = _play(child, c, disc, mr, key, strata, 0, scratch, out)
            stats[STAT_NODES] += 1
            pts = np.float64(out[OUT_POINTS])
            over = out[OUT_OVER] != 0
            shared = out[OUT_REVEALS] == 0  # one board for every sample
            once = shared and (over or depth == 1)  # and one value for every sample
            acc = 0.0
            for s in range(strata):
                if s > 0:
                    if once:
                        break
                    if not shared:
                        for k in range(7):
                            child[k] = canon[k]
                        _, mr2 = _play(child, c, disc, mr, key, strata, s, scratch, out)
                        stats[STAT_NODES] += 1
                        pts = np.float64(out[OUT_POINTS])
                        over = out[OUT_OVER] != 0
                if over:
                    acc += pts + _TERMINAL
                elif depth == 1:
                    acc += pts + _frontier(kind, child, mr2, key, strata, not shared, s, frame,
                                           leafbuf, weights, tables, spec, slot_j, nt_i, nt_f,
                                           stats)
                else:
                    sub, _, _ = node_value(child, sample_disc(key, strata, s), mr2, depth - 1,
                                           strata, kind, weights, tables, spec, ws, vals,
                                           slot_j, nt_i, nt_f, scratch, out, stats)
                    acc += pts + sub
            v = acc if once else acc / strata
        vals[depth, c] = v
        if v > best:
            best = v
            best_c = c
    return best, best_c, mirrored


@njit(cache=True, _nrt=False)
def search_choice(cols, disc, mr, depth, strata, kind, weights, tables, spec, ws, vals, slot_j,
                  nt_i, nt_f, scratch, out, stats) -> np.int64:
    """The column (of ``cols``, not the canonical board) chosen at the root."""
    _, c, mirrored = node_value(cols, disc, mr, depth, strata, kind, weights, tables, spec, ws,
                                vals, slot_j, nt_i, nt_f, scratch, out, stats)
    stats[STAT_DECISIONS] += 1
    if c >= 0 and mirrored:
        return 6 - c
    return c


_WARM: set[tuple] = set()


def _compile_leaf_calls(leaf) -> None:
    """Compile the leaf entry points from Python before the kernel needs them.

    The kernels are compiled without reference counting (numba's
    ``_nrt=False``: they allocate nothing and only view arrays their caller
    keeps alive), and numba passes that setting on to callees compiled
    during the kernel's own compilation.  The leaves may need the runtime
    (stack-backed arrays), so they are compiled first, normally, here; the
    kernel then links the compiled versions.
    """
    types = tuple(numba.typeof(a) for a in (leaf.weights, leaf.tables, leaf.spec))
    if types in _WARM:
        return
    board = np.zeros(7, dtype=np.int64)
    leaf_base(LEAF_ZERO, board, 5, leaf.weights, leaf.tables, leaf.spec)
    leaf_disc(LEAF_ZERO, board, 1, leaf.weights)
    _WARM.add(types)


class Searcher:
    """A ``dDsS`` searcher bound to one leaf, with its own workspace.

    ``leaf`` is a :class:`engines.search.leaf.Leaf` (kind, weights, tables,
    spec).  Not thread-safe: one searcher per thread or process.
    """

    def __init__(self, leaf, depth: int, strata: int) -> None:
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
        if not 1 <= strata <= MAX_STRATA:
            raise ValueError(f"strata must be 1..{MAX_STRATA}, got {strata}")
        self.leaf = leaf
        self.depth = depth
        self.strata = strata
        self.ws = np.zeros((3 * depth + 3, 7), dtype=np.int64)
        self.vals = np.zeros((depth + 1, 7), dtype=np.float64)
        self.slot_j = slot_index(leaf.spec)
        self.nt_i, self.nt_f = work_arrays()
        self.scratch = np.zeros(2 * SCRATCH_LEN, dtype=np.int64)
        self.out = np.zeros(OUT_LEN, dtype=np.int64)
        self.stats = np.zeros(STAT_LEN, dtype=np.int64)
        _compile_leaf_calls(leaf)

    def _args(self) -> tuple:
        leaf = self.leaf
        return (self.depth, self.strata, leaf.kind, leaf.weights, leaf.tables, leaf.spec,
                self.ws, self.vals, self.slot_j, self.nt_i, self.nt_f, self.scratch,
                self.out, self.stats)

    def choose(self, cols: np.ndarray, disc: int, moves_remaining: int) -> int:
        """The chosen column of a public state (-1 when no column is legal)."""
        board = np.ascontiguousarray(cols, dtype=np.int64)
        return int(search_choice(board, disc, moves_remaining, *self._args()))

    def column_values(self, cols: np.ndarray, disc: int, moves_remaining: int) -> np.ndarray:
        """Chance value of each column of ``cols`` (``-inf`` when illegal)."""
        board = np.ascontiguousarray(cols, dtype=np.int64)
        _, _, mirrored = node_value(board, disc, moves_remaining, *self._args())
        row = self.vals[self.depth].copy()
        return row[::-1].copy() if mirrored else row


