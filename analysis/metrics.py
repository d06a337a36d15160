"""What a contrast may compare game by game, and how each figure of it is printed.

A metric is one column of the games table (``score``, ``moves``) or the ratio of two
(``clears_per_move``: a game's clears over its moves; ``reveals_per_move``: its revealed
grey discs over its moves), with its unit and the decimals its figures are printed at.  The
decimals are the metric's precision: a score is whole points (a screen's effects are
thousands), a lifetime is moves to two decimals (a few moves may be a lifetime claim's whole
effect, so ``+3.26`` must not print as ``+3``), a per-move rate to four (its effects are
hundredths).  :func:`figure_text` is the one formatter every page, reading reason and
command uses for a figure in a metric's units (docs/statistics.md, "Figures at their
precision").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Metric:
    """One metric: ``column`` (over ``per`` for a rate) of each game, its unit, its decimals."""

    name: str
    unit: str
    column: str
    per: str | None = None
    decimals: int = 0

    @property
    def columns(self) -> tuple[str, ...]:
        """The games table's columns it reads."""
        return (self.column,) if self.per is None else (self.column, self.per)

    def values(self, column: np.ndarray, per: np.ndarray | None = None) -> np.ndarray:
        """Each game's value (float64) from its columns' values; a rate of a game with no
        ``per`` (0 moves) is refused: it has no rate."""
        x = np.asarray(column, dtype=np.float64)
        if self.per is None:
            return x
        d = np.asarray(per, dtype=np.float64)
        if (d <= 0).any():
            raise ValueError(f"{int((d <= 0).sum())} game(s) have {self.per} 0: no "
                             f"{self.name} (a rate needs at least one of {self.per})")
        return x / d


#: what a contrast may compare, by name (``score``, the final score, is the default)
METRICS = {m.name: m for m in (
    Metric("score", "points", "score"),
    Metric("moves", "moves", "moves", decimals=2),
    Metric("clears_per_move", "clears per move", "clears", "moves", decimals=4),
    Metric("reveals_per_move", "reveals per move", "reveals", "moves", decimals=4),
)}
#: the metric of a contrast that declares none
DEFAULT_METRIC = "score"


def unit_of(metric: str) -> str:
    """The unit of ``metric``'s figures."""
    return METRICS[metric].unit


def figure_text(x: Any, metric: str = DEFAULT_METRIC, signed: bool = False,
                at_least: int = 0) -> str:
    """``x`` in ``metric``'s units at its decimals (``at_least``: at least that many, as a mean
    delta of whole points is shown to one), thousands separated, ``+`` with ``signed``; ``-``
    for None or a number that is not finite; a list or tuple joined by `` / ``."""
    if isinstance(x, Sequence) and not isinstance(x, str):
        return " / ".join(figure_text(v, metric, signed, at_least) for v in x)
    if x is None or isinstance(x, bool) or not math.isfinite(x):
        return "-"
    return f"{x:{'+' if signed else ''},.{max(METRICS[metric].decimals, at_least)}f}"
