"""Board constants and conversions between the packed and the readable form.

The fast engine packs a board as seven column words (``int64``, 28 bits used) (one per
column, left to right).  Nibble ``k`` (bits ``4k..4k+3``) of a column word is
the cell at height ``k`` above the floor, i.e. at row ``6 - k``: the least
significant nibble is the bottom row.  Columns are always bottom-packed, so a
column's height is the number of its non-zero nibbles.

The readable form is a list of seven row strings, top row first, each of
seven characters ``0``..``9`` (the replay format's ``board``).
"""

from __future__ import annotations

import math

import numpy as np

SIZE = 7
EMPTY, SOLID, CRACKED = 0, 8, 9
MOVES_PER_LEVEL = 5
LEVEL_BONUS = 17_000
CLEAR_BONUS = 70_000
MAX_MOVES = 2_000
TERMINAL_UTILITY = -1_000_000
CENTRE_ORDER = (3, 2, 4, 1, 5, 0, 6)

#: ``WAVE_SCORE[d]`` is the per-popper score of a wave at chain depth ``d``:
#: ``isqrt(49 d^5) = floor(7 d^2.5)``.  A move has at most 98 waves.
WAVE_SCORE = np.array([math.isqrt(49 * d**5) for d in range(130)], dtype=np.int64)

OPENING_ROWS = ("0000000",) * 6 + ("8888888",)


class BoardError(ValueError):
    """A board that breaks the representation's rules (codes, gravity)."""


def parse_rows(rows: object) -> np.ndarray:
    """Parse seven row strings (top first) into a 7x7 ``int8`` grid.

    Raises :class:`BoardError` for a wrong shape, a bad code, or a floating
    disc (an empty cell under an occupied one).
    """
    if not isinstance(rows, (list, tuple)) or len(rows) != SIZE:
        raise BoardError("board must be a list of 7 row strings")
    grid = np.zeros((SIZE, SIZE), dtype=np.int8)
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != SIZE or not row.isdigit() or not row.isascii():
            raise BoardError(f"board row {r} must be 7 characters 0-9, got {row!r}")
        grid[r] = [int(ch) for ch in row]
    for c in range(SIZE):
        for r in range(SIZE - 1):
            if grid[r, c] != EMPTY and grid[r + 1, c] == EMPTY:
                raise BoardError(f"floating disc at row {r}, column {c}")
    return grid


def grid_to_rows(grid: np.ndarray) -> list[str]:
    """Seven row strings, top first, from a 7x7 grid."""
    return ["".join(str(int(v)) for v in grid[r]) for r in range(SIZE)]


def pack(grid: np.ndarray) -> np.ndarray:
    """Pack a bottom-packed 7x7 grid (row 0 on top) into seven column words."""
    cols = np.zeros(SIZE, dtype=np.int64)
    for c in range(SIZE):
        word = 0
        for k in range(SIZE):
            word |= int(grid[SIZE - 1 - k, c]) << (4 * k)
        cols[c] = word
    return cols


def unpack(cols: np.ndarray) -> np.ndarray:
    """Unpack seven column words into a 7x7 ``int8`` grid (row 0 on top)."""
    grid = np.zeros((SIZE, SIZE), dtype=np.int8)
    for c in range(SIZE):
        word = int(cols[c])
        for k in range(SIZE):
            grid[SIZE - 1 - k, c] = (word >> (4 * k)) & 0xF
    return grid


def rows_to_cols(rows: object) -> np.ndarray:
    """Validate seven row strings and pack them."""
    return pack(parse_rows(rows))


def cols_to_rows(cols: np.ndarray) -> list[str]:
    """Seven row strings, top first, from packed column words."""
    return grid_to_rows(unpack(cols))


def opening_cols() -> np.ndarray:
    """The opening board: a row of seven solid greys on the floor."""
    return np.full(SIZE, SOLID, dtype=np.int64)
