"""The network leaf ``nnue`` in numba: the active features of a board, the accumulator, the
layers (docs/leaf.md, The network leaf ``nnue``; the readable twin is
:mod:`engines.leaves.nnue_ref`, which this must equal bit for bit).

The board is the search's seven column words (:mod:`engines.drop7.board`).  Parameters are
one flat read-only float32 array in :class:`engines.leaves.nnue_class.Sizes` order and the
sizes an int64 ``spec = [hidden, mid]``.  Nothing is allocated: the accumulator and the
hidden layer live on the kernel's stack (at most ``MAX_HIDDEN`` and ``MAX_MID`` floats).

The next disc's row is added last, so a chance node whose samples share a board sums the
other 134 rows once (:func:`nnue_board_accumulator`) and finishes each sample's disc from
there (:func:`nnue_head`): the leaf's incremental step within a node.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from engines.drop7.chance import next_disc
from engines.leaves.nnue_class import (
    CELL_BASE,
    FEATURES,
    HPAIR_BASE,
    MAX_HIDDEN,
    MAX_MID,
    MOVES_BASE,
    NEXT_BASE,
    VALUE_SCALE,
    VALUES,
    VPAIR_BASE,
)

_SCALE = np.float64(VALUE_SCALE)
_ZERO = np.float32(0.0)


@intrinsic
def _stack_f32(typingctx, size):
    """Pointer to ``size`` (a literal) uninitialised float32s on the caller's stack."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(types.float32), size=n)

    return types.CPointer(types.float32)(size), codegen


@njit(cache=True, inline="always")
def _cell(cols, r, c) -> np.int64:
    """Code of the cell at row ``r`` (0 on top) and column ``c``."""
    return (cols[c] >> (4 * (6 - r))) & 15


@njit(cache=True, inline="always")
def _add_row(acc, params, feature, hidden) -> None:
    """``acc += ft[feature]`` (float32, unit by unit; a slice of the row, whose indices the
    compiler knows are in range, so the loop is vectorised)."""
    row = params[feature * hidden:(feature + 1) * hidden]
    for u in range(hidden):
        acc[u] += row[u]


@njit(cache=True)
def nnue_board_accumulator(cols, moves_remaining, params, spec, acc) -> None:
    """The first layer's sum without the next disc's row, into ``acc[:hidden]``: the bias,
    then the rows of each cell's code, the moves remaining, the horizontal and the vertical
    pairs (the order of :func:`engines.leaves.nnue_ref.active_features`)."""
    hidden = spec[0]
    bias = FEATURES * hidden
    for u in range(hidden):
        acc[u] = params[bias + u]
    for r in range(7):
        for c in range(7):
            _add_row(acc, params, CELL_BASE + (r * 7 + c) * VALUES + _cell(cols, r, c), hidden)
    _add_row(acc, params, MOVES_BASE + moves_remaining - 1, hidden)
    for r in range(7):
        for c in range(6):
            code = _cell(cols, r, c) * VALUES + _cell(cols, r, c + 1)
            _add_row(acc, params, HPAIR_BASE + (r * 6 + c) * 100 + code, hidden)
    for r in range(6):
        for c in range(7):
            code = _cell(cols, r, c) * VALUES + _cell(cols, r + 1, c)
            _add_row(acc, params, VPAIR_BASE + (r * 7 + c) * 100 + code, hidden)


@njit(cache=True)
def nnue_head(acc, disc, params, spec) -> np.float64:
    """The leaf value (points) from a board's accumulator and the next disc: add the disc's
    row, ReLU, the middle layer, ReLU, the output, times 17,000.

    The middle layer adds one ``w1`` row per hidden unit in ascending order, so each middle
    unit's sum is the twin's sequence of float32 additions, done for all units at once
    (vectorised).  A hidden unit the ReLU zeroed is skipped: adding its ``w * 0`` could change
    only the sign of a zero sum, which the next ReLU makes ``+0`` either way."""
    hidden, mid = spec[0], spec[1]
    sums = numba.carray(_stack_f32(MAX_MID), (MAX_MID,))
    w1 = FEATURES * hidden + hidden
    b1 = w1 + hidden * mid
    w2 = b1 + mid
    for m in range(mid):
        sums[m] = params[b1 + m]
    row = params[(NEXT_BASE + disc - 1) * hidden:(NEXT_BASE + disc) * hidden]
    for k in range(hidden):
        x = acc[k] + row[k]
        if x > _ZERO:
            weights = params[w1 + k * mid:w1 + (k + 1) * mid]
            for m in range(mid):
                sums[m] += weights[m] * x
    out = params[w2 + mid]
    for m in range(mid):
        s = sums[m]
        if not s > _ZERO:
            s = _ZERO
        out += params[w2 + m] * s
    return np.float64(out) * _SCALE


@njit(cache=True)
def nnue_value(cols, moves_remaining, disc, params, spec) -> np.float64:
    """The leaf value (points) of one public state."""
    acc = numba.carray(_stack_f32(MAX_HIDDEN), (MAX_HIDDEN,))
    nnue_board_accumulator(cols, moves_remaining, params, spec, acc)
    return nnue_head(acc, disc, params, spec)


@njit(cache=True)
def nnue_samples(cols, moves_remaining, src, key, strata, one_sample, s, params, spec
                 ) -> np.float64:
    """The leaf at a chance sample's board: with ``one_sample`` the value for sample ``s``'s
    next disc, else the mean over the ``strata`` samples' discs (the board's accumulator
    summed once, each disc finished from it)."""
    acc = numba.carray(_stack_f32(MAX_HIDDEN), (MAX_HIDDEN,))
    nnue_board_accumulator(cols, moves_remaining, params, spec, acc)
    if one_sample:
        return nnue_head(acc, next_disc(src, key, strata, s), params, spec)
    total = 0.0
    for t in range(strata):
        total += nnue_head(acc, next_disc(src, key, strata, t), params, spec)
    return total / strata


@njit(cache=True)
def nnue_values_many(boards, mrs, discs, params, spec, out) -> None:
    """``out[n]`` = the leaf value of state ``n`` (the bench's batch)."""
    for n in range(boards.shape[0]):
        out[n] = nnue_value(boards[n], mrs[n], discs[n], params, spec)
