"""The survival instinct, readable: the disc is placed on a grid and its two runs counted.

The twin of :mod:`engines.filters.survival` (tests hold them equal): it drops
the disc into a copy of the readable grid (:mod:`engines.drop7.rules`) and
refuses the column when the disc's column run exceeds its value and so does
its row run, for values 3 and above.
"""

from __future__ import annotations

import copy

from engines.drop7.board import SIZE
from engines.drop7.rules import column_height, is_numbered, legal_columns, row_run_length


def refused_columns(grid: list[list[int]], disc: int) -> list[int]:
    """The legal columns of ``grid`` (rows top first) where ``disc`` would be entombed."""
    refused = []
    if not is_numbered(disc) or disc < 3:
        return refused
    for col in legal_columns(grid):
        placed = copy.deepcopy(grid)
        row = SIZE - 1 - column_height(grid, col)
        placed[row][col] = disc
        if column_height(placed, col) > disc and row_run_length(placed, row, col) > disc:
            refused.append(col)
    return refused
