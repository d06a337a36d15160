"""The research ruleset, written to be read: the twin the fast core is tested against.

The board is a 7x7 list of lists, ``grid[row][col]``, row 0 on top.  Nothing
here is optimised; every step follows the rules as ``docs/engine.md`` states them,
in order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from engines.drop7.board import (
    CLEAR_BONUS,
    CRACKED,
    EMPTY,
    LEVEL_BONUS,
    MOVES_PER_LEVEL,
    SIZE,
    SOLID,
)


def wave_score(depth: int) -> int:
    """Per-popper points of a wave at chain depth ``depth``: floor(7 d^2.5)."""
    return math.isqrt(49 * depth**5)


def is_numbered(v: int) -> bool:
    """Cells 1..7 hold numbered discs."""
    return 1 <= v <= 7


def is_grey(v: int) -> bool:
    """Solid (8) or cracked (9) grey."""
    return v in (SOLID, CRACKED)


@dataclass
class MoveResult:
    """What one move did."""

    points: int = 0
    waves: int = 0
    popped: int = 0
    cleared: bool = False
    rose: bool = False
    game_over: bool = False
    revealed: int = 0
    double_hits: int = 0
    rise_waves: int = 0


@dataclass
class Position:
    """Board and counters of a game, everything the rules need."""

    grid: list[list[int]] = field(
        default_factory=lambda: [[EMPTY] * SIZE for _ in range(SIZE - 1)] + [[SOLID] * SIZE]
    )
    moves_remaining: int = MOVES_PER_LEVEL
    level: int = 1
    score: int = 0
    game_over: bool = False


def column_height(grid: list[list[int]], col: int) -> int:
    """Number of occupied cells in a column."""
    return sum(1 for row in range(SIZE) if grid[row][col] != EMPTY)


def legal_columns(grid: list[list[int]]) -> list[int]:
    """Columns whose top cell is empty."""
    return [c for c in range(SIZE) if grid[0][c] == EMPTY]


def row_run_length(grid: list[list[int]], row: int, col: int) -> int:
    """Length of the contiguous run of occupied cells through (row, col) in its row."""
    left = col
    while left > 0 and grid[row][left - 1] != EMPTY:
        left -= 1
    right = col
    while right < SIZE - 1 and grid[row][right + 1] != EMPTY:
        right += 1
    return right - left + 1


def find_poppers(grid: list[list[int]]) -> list[tuple[int, int]]:
    """Every numbered disc whose value equals its row run or its column height."""
    poppers = []
    for row in range(SIZE):
        for col in range(SIZE):
            v = grid[row][col]
            if is_numbered(v) and (v == row_run_length(grid, row, col)
                                   or v == column_height(grid, col)):
                poppers.append((row, col))
    return poppers


def apply_gravity(grid: list[list[int]]) -> None:
    """Let every disc fall to the bottom of its column, keeping order."""
    for col in range(SIZE):
        discs = [grid[row][col] for row in range(SIZE) if grid[row][col] != EMPTY]
        column = [EMPTY] * (SIZE - len(discs)) + discs
        for row in range(SIZE):
            grid[row][col] = column[row]


def resolve_cascade(grid: list[list[int]], depth: int, draw_reveal: Callable[[], int],
                    result: MoveResult) -> int:
    """Run waves from chain depth ``depth``; returns the depth after the last wave."""
    while True:
        poppers = find_poppers(grid)
        if not poppers:
            return depth
        result.points += len(poppers) * wave_score(depth)
        result.waves += 1
        result.popped += len(poppers)
        hits = [[0] * SIZE for _ in range(SIZE)]
        for row, col in poppers:
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                if 0 <= r < SIZE and 0 <= c < SIZE and is_grey(grid[r][c]):
                    hits[r][c] += 1
        for row, col in poppers:
            grid[row][col] = EMPTY
        for row in range(SIZE):  # ascending row-major order, top row first
            for col in range(SIZE):
                v, n = grid[row][col], hits[row][col]
                result.double_hits += v == SOLID and n >= 2
                if (v == CRACKED and n >= 1) or (v == SOLID and n >= 2):
                    grid[row][col] = draw_reveal()
                    result.revealed += 1
                elif v == SOLID and n == 1:
                    grid[row][col] = CRACKED
        apply_gravity(grid)
        depth += 1


def board_is_empty(grid: list[list[int]]) -> bool:
    """True when no cell is occupied."""
    return all(v == EMPTY for row in grid for v in row)


def play(position: Position, column: int, disc: int, draw_reveal: Callable[[], int]) -> MoveResult:
    """Play one move in place: drop, cascade, clear bonus, countdown and rise."""
    grid = position.grid
    if position.game_over:
        raise ValueError("the game is over")
    if not 0 <= column < SIZE or grid[0][column] != EMPTY:
        raise ValueError(f"column {column} is full or out of range")
    result = MoveResult()
    landing = SIZE - 1 - column_height(grid, column)
    grid[landing][column] = disc
    depth = resolve_cascade(grid, 1, draw_reveal, result)
    if board_is_empty(grid):
        result.points += CLEAR_BONUS
        result.cleared = True
    position.moves_remaining -= 1
    if position.moves_remaining == 0:
        if any(grid[0][c] != EMPTY for c in range(SIZE)):
            result.game_over = True
        else:
            del grid[0]
            grid.append([SOLID] * SIZE)
            position.level += 1
            position.moves_remaining = MOVES_PER_LEVEL
            result.points += LEVEL_BONUS
            result.rose = True
            waves_before = result.waves
            resolve_cascade(grid, depth, draw_reveal, result)
            result.rise_waves = result.waves - waves_before
            if board_is_empty(grid):
                result.points += CLEAR_BONUS
                result.cleared = True
    if not result.game_over and not legal_columns(grid):
        result.game_over = True
    position.score += result.points
    position.game_over = result.game_over
    return result
