"""The sparse network leaf's class, stated once: its feature space, layer sizes, the order of
its parameters in one flat float32 array, and its unit (docs/leaf.md, The network leaf ``nnue``).

The class is the register's leaf-affordable network (keshavsaharia/drop7-bench,
``approaches/lifetime-objective/learned-leaf/leaf_features.py`` for the features and
``approaches/lifetime-objective/nnue-evolution/src/nnue.rs`` for the scalar head): 8,902
binary features of the public state, 135 active on every board, a first layer that sums the
active features' rows (no product), ReLU, a dense middle layer, ReLU, one output, times
17,000 points.  The numba leaf (:mod:`engines.leaves.nnue`), its readable twin
(:mod:`engines.leaves.nnue_ref`) and the weights files (:mod:`engines.leaves.nnue_weights`)
read these numbers from here.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE = 7
CELLS = SIZE * SIZE
#: cell codes 0..9: empty, numbered 1..7, solid 8, cracked 9
VALUES = 10
#: first feature of each group: a cell's code, the next disc (1..7), the moves remaining
#: (1..5), a horizontal pair of neighbours, a vertical pair (100 codes a pair)
CELL_BASE, NEXT_BASE, MOVES_BASE, HPAIR_BASE, VPAIR_BASE = 0, 490, 497, 502, 4702
FEATURES = 8902
#: horizontal and vertical neighbour pairs on a 7 x 7 board
PAIRS = SIZE * (SIZE - 1)
#: features active on every board: one per cell, the next disc, the moves remaining, every
#: pair (135)
ACTIVE = CELLS + 1 + 1 + 2 * PAIRS
#: the register's layer sizes (~572k parameters)
HIDDEN, MID = 64, 32
#: the widest layers the kernel holds on its stack (the register swept widths up to 512 and
#: middle layers up to 64: ``TH-20260822-nnue-leaf-capacity-saturation``)
MAX_HIDDEN, MAX_MID = 512, 64
#: the output's unit: one row rise's bonus (``LEVEL_BONUS``), in points
VALUE_SCALE = 17_000.0
#: float32 partial sums of a file's network must stay below this (far under float32's 3.4e38)
SUM_LIMIT = 1e37


@dataclass(frozen=True)
class Sizes:
    """A network's layer sizes and where each tensor starts in its flat parameter array:
    ``ft`` [FEATURES][hidden] (row ``f`` is feature ``f``'s), ``ft_bias`` [hidden], ``w1``
    [hidden][mid] (row ``k`` holds hidden unit ``k``'s weights into each middle unit: input
    major, so the kernel adds one row per live hidden unit), ``b1`` [mid], ``w2`` [mid],
    ``b2`` [1]."""

    hidden: int
    mid: int

    @property
    def ft_bias(self) -> int:
        return FEATURES * self.hidden

    @property
    def w1(self) -> int:
        return self.ft_bias + self.hidden

    @property
    def b1(self) -> int:
        return self.w1 + self.mid * self.hidden

    @property
    def w2(self) -> int:
        return self.b1 + self.mid

    @property
    def b2(self) -> int:
        return self.w2 + self.mid

    @property
    def parameters(self) -> int:
        """Length of the flat array."""
        return self.b2 + 1


def check_sizes(hidden: object, mid: object) -> Sizes:
    """Layer sizes a network may have (ValueError naming the bound otherwise)."""
    for name, value, top in (("hidden", hidden, MAX_HIDDEN), ("mid", mid, MAX_MID)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise ValueError(f"{name} must be an integer 1..{top}, got {value!r}")
    return Sizes(int(hidden), int(mid))  # type: ignore[arg-type]
