"""One update of the Klein-Friedmann Q-learner, readable: the twin of :mod:`engines.learners.kf_q`.

It reads the readable grid (rows top first, :mod:`engines.drop7.rules`) and the
features of :mod:`engines.filters.kf_ref`, and states the update as the compiled
module's docstring does; tests hold one update of each equal, bit for bit.
"""

from __future__ import annotations

from engines.drop7.board import SIZE
from engines.drop7.rules import column_height, legal_columns
from engines.filters import kf_ref

Grid = list[list[int]]
#: feature 3, "tallest column": present by its condition, whatever its value
TALLEST = 3
#: features present whatever their value (row and column detonations)
ALWAYS = (1, 2)


def presence(grid: Grid, disc: int, col: int) -> list[bool]:
    """Which of the six features of dropping ``disc`` into the legal ``col`` are present."""
    heights = [column_height(grid, c) for c in range(SIZE)]
    tallest = heights[col] == max(heights) and heights.count(heights[col]) <= 2
    values = kf_ref.features(grid, disc, col)
    return [k in ALWAYS or (tallest if k == TALLEST else values[k] != 0) for k in range(6)]


def q_value(weights: list[float], grid: Grid, disc: int, col: int) -> float:
    """``Q``: the weighted sum of the present features in feature order; 0 for a full column
    (none of its features counts: nothing lands there)."""
    if col not in legal_columns(grid):
        return 0.0
    total = 0.0
    for w, f, here in zip(weights, kf_ref.features(grid, disc, col), presence(grid, disc, col),
                          strict=True):
        if here:
            total += w * f
    return total


def step_size(schedule: str, moves: int, games: int) -> float:
    """``eta`` after move ``moves`` (from 1) of game ``games`` (from 1)."""
    return {"upstream": lambda: 1.0 / moves, "per-game": lambda: 1.0 / max(games, 1),
            "harmonic": lambda: 1.0 / (1.0 + moves / 50_000.0),
            "constant": lambda: 1e-3}[schedule]()


def update(weights: list[float], grid: Grid, disc: int, col: int, reward: float,
           next_grid: Grid | None, next_disc: int, eta: float, lam: float = 0.1,
           gamma: float = 1.0) -> tuple[list[float], float]:
    """The weights after one update for playing ``col`` (``next_grid`` None: the game ended),
    and ``Q - target``."""
    best = 0.0
    if next_grid is not None:
        best = max([-1.0, *(q_value(weights, next_grid, next_disc, c) for c in range(SIZE))])
    error = q_value(weights, grid, disc, col) - (reward + gamma * best)
    phi = kf_ref.features(grid, disc, col)
    return [w - eta * (error * f + lam * w) if here else w
            for w, f, here in zip(weights, phi, presence(grid, disc, col), strict=True)], error
