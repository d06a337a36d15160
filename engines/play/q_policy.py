"""The one-ply Q as a player and a ranker: greedy over a frozen fitted Q.

``q:w=SHA256:PATH`` (:class:`engines.play.arm_specs.QSpec`) plays the legal column
of highest Q (:func:`engines.filters.oneply_q.q_values`; ties as the search
breaks them, centre first on the mirror-canonical board) and gives every
column's Q, so a ranking panel ranks by its values
(:func:`engines.play.rankers.offers_values`).  It reports no work (its
one-ply samples are not counted as a search's nodes).
"""

from __future__ import annotations

import numpy as np

from engines.drop7 import core
from engines.drop7.board import opening_cols
from engines.filters.oneply_q import q_values, q_work
from engines.filters.oneply_q_weights import read_q
from engines.play.arm_specs import QSpec
from engines.play.players import Policy


class QPolicy(Policy):
    """Greedy over a pinned one-ply Q's values (see the module)."""

    offers_values = True

    def __init__(self, spec: QSpec, verify: bool = True) -> None:
        self.spec = spec
        self.weights = read_q(spec.path, spec.sha256, verify)
        self._work = q_work(spec.strata, spec.reveals)
        self._values = np.empty(7, dtype=np.float64)

    def _q(self, state: np.ndarray, cols: np.ndarray) -> int:
        board = np.ascontiguousarray(cols, dtype=np.int64)
        return int(q_values(board, np.int64(state[core.ST_NEXT_DISC]),
                            np.int64(state[core.ST_MOVES_REMAINING]), self.spec.strata,
                            self.spec.reveals, self.weights, self._values, self._work))

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return self._q(state, cols)

    def column_values(self, state: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Every column's Q (NaN for a full column)."""
        self._q(state, cols)
        return np.where(np.isneginf(self._values), np.nan, self._values)

    def work(self) -> tuple[int | None, int | None]:
        return None, None  # the features' samples are not counted

    def warm_up(self) -> None:
        q_values(opening_cols(), np.int64(1), np.int64(5), self.spec.strata, self.spec.reveals,
                 self.weights, self._values, self._work)
