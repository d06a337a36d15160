"""Shared generators of engine test cases: random boards and twin runners."""

from __future__ import annotations

import numpy as np

from engines.drop7 import core, rules
from engines.drop7.board import pack, unpack


def random_grid(rng: np.random.Generator, grey_share: float = 0.35,
                max_height: int = 7) -> list[list[int]]:
    """A bottom-packed 7x7 grid with random heights and codes."""
    grid = [[0] * 7 for _ in range(7)]
    for c in range(7):
        h = int(rng.integers(0, max_height + 1))
        for k in range(h):
            r = rng.random()
            if r < grey_share / 2:
                v = 8
            elif r < grey_share:
                v = 9
            else:
                v = int(rng.integers(1, 8))
            grid[6 - k][c] = v
    return grid


class ListReveals:
    """A reveal source over an explicit list, counting what it hands out."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.used = 0

    def __call__(self) -> int:
        v = int(self.values[self.used])
        self.used += 1
        return v


def twin_move(grid: list[list[int]], moves_remaining: int, column: int, disc: int,
              reveals: np.ndarray) -> tuple[rules.MoveResult, rules.Position, int, dict]:
    """Play one move on both implementations; return readable result and fast outcome."""
    position = rules.Position(grid=[row[:] for row in grid], moves_remaining=moves_remaining)
    source = ListReveals(reveals)
    readable = rules.play(position, column, disc, source)
    cols = pack(np.array(grid, dtype=np.int8))
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    status, mr = core.play_move(cols, column, disc, moves_remaining, core.SRC_LIST,
                                np.uint64(0), reveals, 0, 7, 0, scratch, out)
    fast = {"status": int(status), "moves_remaining": int(mr), "grid": unpack(cols).tolist(),
            "points": int(out[core.OUT_POINTS]), "waves": int(out[core.OUT_WAVES]),
            "popped": int(out[core.OUT_POPPED]), "reveals": int(out[core.OUT_REVEALS]),
            "cleared": bool(out[core.OUT_CLEARED]), "rose": bool(out[core.OUT_ROSE]),
            "game_over": bool(out[core.OUT_OVER])}
    return readable, position, source.used, fast


def assert_twins_agree(grid, moves_remaining, column, disc, reveals) -> rules.MoveResult:
    """Play a move on both twins and assert every observable agrees."""
    readable, position, used, fast = twin_move(grid, moves_remaining, column, disc, reveals)
    context = f"grid={grid} mr={moves_remaining} column={column} disc={disc}"
    assert fast["status"] == core.OK, context
    assert fast["grid"] == position.grid, context
    assert fast["points"] == readable.points, context
    assert fast["waves"] == readable.waves, context
    assert fast["popped"] == readable.popped, context
    assert fast["reveals"] == used == readable.revealed, context
    assert fast["cleared"] == readable.cleared, context
    assert fast["rose"] == readable.rose, context
    assert fast["game_over"] == readable.game_over, context
    expected_mr = position.moves_remaining
    assert fast["moves_remaining"] == expected_mr, context
    return readable
