"""The network leaf ``nnue``, written to read like its definition (docs/leaf.md, The network
leaf ``nnue``): plain numpy on a 7 x 7 grid (row 0 on top, as the replay format writes boards).

The numba leaf (:mod:`engines.leaves.nnue`) must agree with it bit for bit, so every float32
sum here runs in the order the definition states: the first layer's rows are added one
feature at a time in :func:`active_features` order (each hidden unit's sum is then the same
sequence of float32 additions), and each dense unit sums its inputs in ascending order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engines.leaves.nnue_class import (
    CELL_BASE,
    HPAIR_BASE,
    MOVES_BASE,
    NEXT_BASE,
    SIZE,
    VALUE_SCALE,
    VALUES,
    VPAIR_BASE,
    Sizes,
)

Grid = Sequence[Sequence[int]]


def active_features(grid: Grid, moves_remaining: int, next_disc: int) -> list[int]:
    """The 135 active features, in the order the first layer adds them: each cell's code
    (row-major), the moves remaining, each horizontal pair (left, right; row-major), each
    vertical pair (upper, lower; row-major), and last the next disc (a chance node's samples
    share the sum before it)."""
    out = [CELL_BASE + (r * SIZE + c) * VALUES + grid[r][c]
           for r in range(SIZE) for c in range(SIZE)]
    out.append(MOVES_BASE + moves_remaining - 1)
    for r in range(SIZE):
        for c in range(SIZE - 1):
            pair = r * (SIZE - 1) + c
            out.append(HPAIR_BASE + pair * 100 + grid[r][c] * VALUES + grid[r][c + 1])
    for r in range(SIZE - 1):
        for c in range(SIZE):
            pair = r * SIZE + c
            out.append(VPAIR_BASE + pair * 100 + grid[r][c] * VALUES + grid[r + 1][c])
    out.append(NEXT_BASE + next_disc - 1)
    return out


def relu(x: np.ndarray) -> np.ndarray:
    """``max(x, 0)`` (a zero is +0.0)."""
    return np.where(x > 0, x, np.float32(0.0)).astype(np.float32)


def network_output(params: np.ndarray, sizes: Sizes, features: Sequence[int]) -> np.float32:
    """The network's output (units of one rise) for the active ``features``, float32."""
    p = np.asarray(params, dtype=np.float32)
    h, m = sizes.hidden, sizes.mid
    ft = p[:sizes.ft_bias].reshape(-1, h)
    acc = p[sizes.ft_bias:sizes.w1].copy()
    for f in features:
        acc += ft[f]
    hidden = relu(acc)
    w1 = p[sizes.w1:sizes.b1].reshape(h, m)
    mid = p[sizes.b1:sizes.w2].copy()
    for k in range(h):
        mid += w1[k] * hidden[k]
    mid = relu(mid)
    out = p[sizes.b2]
    w2 = p[sizes.w2:sizes.b2]
    for k in range(m):
        out = np.float32(out + w2[k] * mid[k])
    return np.float32(out)


def nnue_value(params: np.ndarray, sizes: Sizes, grid: Grid, moves_remaining: int,
               next_disc: int) -> float:
    """The leaf value (points) of a public state: the output times 17,000, in float64."""
    out = network_output(params, sizes, active_features(grid, moves_remaining, next_disc))
    return float(out) * VALUE_SCALE
