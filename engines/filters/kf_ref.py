"""The six-feature Klein-Friedmann policy, readable: the twin of :mod:`engines.filters.kf`.

It reads the readable grid (rows top first, :mod:`engines.drop7.rules`) and
states each feature as the compiled module's docstring does, one function per
idea; tests hold the two equal on many positions.
"""

from __future__ import annotations

import math

from engines.drop7.board import CRACKED, EMPTY, SIZE, SOLID
from engines.drop7.rules import column_height, legal_columns, row_run_length

Grid = list[list[int]]


def _at(grid: Grid, col: int, level: int) -> int:
    """The cell of ``col`` at ``level`` above the floor (level 0: the bottom row)."""
    return grid[SIZE - 1 - level][col]


def grey_weight(v: int) -> int:
    """A solid grey counts 1, a cracked one 2, anything else 0."""
    return {SOLID: 1, CRACKED: 2}.get(v, 0)


def grey_neighbours(grid: Grid, col: int, level: int) -> int:
    """The grey weight of the cell's left, lower, upper and right neighbours on the board."""
    around = [(col - 1, level), (col, level - 1), (col, level + 1), (col + 1, level)]
    return sum(grey_weight(_at(grid, c, r)) for c, r in around
               if 0 <= c < SIZE and 0 <= r < SIZE)


def features(grid: Grid, disc: int, col: int) -> list[int]:
    """The six features of dropping ``disc`` into the legal column ``col``."""
    heights = [column_height(grid, c) for c in range(SIZE)]
    level = heights[col]
    row = SIZE - 1 - level
    run = row_run_length(grid, row, col)  # the disc's cell counted, occupied or not
    first = col
    while first > 0 and grid[row][first - 1] != EMPTY:
        first -= 1
    row_dets = sum(1 + grey_neighbours(grid, c, level) for c in range(first, first + run)
                   if _at(grid, c, level) == run)
    col_dets = grey_neighbours(grid, col, level) + sum(
        1 + grey_neighbours(grid, col, r) for r in range(level) if _at(grid, col, r) == level + 1)
    lowest = level == min(heights)
    tallest = level == max(heights) and heights.count(level) <= 2
    clears = disc in (run, level + 1)
    own = 1 + grey_neighbours(grid, col, level)
    return [int(lowest), row_dets, col_dets, col_dets if tallest else 0,
            own if clears and disc == 1 else 0, own if clears else 0]


def values(grid: Grid, disc: int, weights: tuple[float, ...]) -> list[float]:
    """Each column's weighted sum of its features (summed in feature order); ``-inf`` when
    the column is full."""
    out = [-math.inf] * SIZE
    for col in legal_columns(grid):
        total = 0.0
        for w, f in zip(weights, features(grid, disc, col), strict=True):
            total += w * f
        out[col] = total
    return out


def choice(grid: Grid, disc: int, weights: tuple[float, ...]) -> int:
    """The column of highest value, the rightmost of equals."""
    vals = values(grid, disc, weights)
    return max(legal_columns(grid), key=lambda c: (vals[c], c))
