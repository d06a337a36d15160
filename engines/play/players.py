"""Players: a typed spec (:mod:`engines.play.arm_specs`) made to move, one decision at a time.

A player sees the public state only: its ``choose(state, cols)`` reads the
board, next disc and moves remaining; the game seed is never passed to it
(the ``random`` baseline gets its own coin, a separate seeded stream, through
``new_game``; the Klein-Friedmann player, :class:`KfPolicy`, draws nothing).
:func:`engines.play.policy.load_policy` builds the player of
a spec; the external program's player is :class:`engines.play.external_policy.ExternalPolicy`.
"""

from __future__ import annotations

import numpy as np

from engines.drop7 import baselines, core
from engines.drop7.board import opening_cols
from engines.filters.kf import kf_values
from engines.filters.kf_weights import kf_weights, read_kf_file, read_kf_trained
from engines.filters.root import refusals
from engines.play.arm_specs import BaselineSpec, KfSpec, PolicySpec, SearchSpec
from engines.search.searcher import Searcher
from engines.search.stats import STAT_LEAVES, STAT_NODES, STAT_PRIOR_LEAVES, STAT_PRIOR_NODES

#: the baselines' kernel ids (the numba kernels keep their integer dispatch)
BASELINES = {
    "random": baselines.POLICY_RANDOM,
    "centre-first": baselines.POLICY_CENTRE_FIRST,
    "lowest-column": baselines.POLICY_LOWEST_COLUMN,
}


class Policy:
    """A player: ``new_game(seed)`` then ``choose(state, cols) -> column`` per move.

    ``state`` is the driver's ``int64[ST_LEN]`` array (public fields only) and
    ``cols`` the board; neither is modified.
    """

    spec: PolicySpec

    @property
    def name(self) -> str:
        """The canonical policy string."""
        return self.spec.format()

    def new_game(self, seed: int) -> None:
        """Start a game (only a baseline's own coin depends on it)."""

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        """The column to play."""
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load or compile the compiled code, so game wall times exclude it."""

    def work(self) -> tuple[int | None, int | None]:
        """``(nodes, leaves)`` counted since the player was made: search nodes (moves applied
        inside the search, chance samples played) and leaf evaluations; None where the
        player does not report them (an external program)."""
        return None, None

    def filter_work(self) -> tuple[int | None, int | None]:
        """``(applied, changed)`` counted since the player was made: decisions at which its
        root filter refused a column (and left one), and those of them at which the search
        without the filter would have played a refused column; None without a root filter."""
        return None, None

    def close(self) -> None:
        """Release what the player holds (an external program is told to quit)."""


class BaselinePolicy(Policy):
    """``random``, ``centre-first`` or ``lowest-column`` (numba baselines)."""

    def __init__(self, spec: BaselineSpec) -> None:
        self.spec = spec
        self.policy_id = BASELINES[spec.name]
        self._coin = np.uint64(0)

    def new_game(self, seed: int) -> None:
        self._coin = np.uint64(seed)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return int(baselines.baseline_choice(self.policy_id, self._coin, state, cols))

    def work(self) -> tuple[int | None, int | None]:
        return 0, 0  # a baseline searches nothing and evaluates no leaf

    def warm_up(self) -> None:
        baselines.play_baseline_games(np.ones(1, dtype=np.uint64), self.policy_id,
                                 np.zeros((1, core.ST_LEN), dtype=np.int64))


class SearchPolicy(Policy):
    """``search`` (``dDsS`` expectimax) or ``direct`` (the same kernel at depth 1), with the
    spec's root filter when it declares one (:mod:`engines.filters.root`): the search then
    ranks only the columns the filter leaves, and the player counts what the filter did."""

    def __init__(self, spec: SearchSpec, searcher: Searcher) -> None:
        self.spec = spec
        self.searcher = searcher
        self.applied = self.changed = 0

    def new_game(self, seed: int) -> None:
        self.searcher.reset()  # a game's node and leaf counts never depend on the one before

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        disc, left = int(state[core.ST_NEXT_DISC]), int(state[core.ST_MOVES_REMAINING])
        if self.spec.filter is None:
            return self.searcher.choose(cols, disc, left)
        refused = refusals(self.spec.filter, cols, disc)
        chosen, free = self.searcher.choose_among(cols, disc, left, refused)
        self.applied += refused != 0
        self.changed += chosen != free
        return chosen

    def filter_work(self) -> tuple[int | None, int | None]:
        if self.spec.filter is None:
            return None, None
        return self.applied, self.changed

    def warm_up(self) -> None:
        self.searcher.choose(opening_cols(), 1, 5)
        self.searcher.stats[:] = 0
        if self.spec.filter is not None:  # its rule's kernel too
            refusals(self.spec.filter, opening_cols(), 3)

    def work(self) -> tuple[int | None, int | None]:
        """Moves applied and leaf values used, a pruned search's prior's included (the
        one-ply prior plays moves and calls the leaf; docs/search.md, "Pruned search")."""
        stats = self.searcher.stats
        return (int(stats[STAT_NODES] + stats[STAT_PRIOR_NODES]),
                int(stats[STAT_LEAVES] + stats[STAT_PRIOR_LEAVES]))


class KfPolicy(Policy):
    """The six-feature Klein-Friedmann policy (:mod:`engines.filters.kf`): one ply, greedy over
    its named weights, the rightmost of equal columns; it gives every column's value, so a
    ranking panel ranks by them (:mod:`engines.play.rankers`)."""

    offers_values = True

    def __init__(self, spec: KfSpec, verify: bool = True) -> None:
        self.spec = spec
        weights = (kf_weights(spec.weights) if spec.weights is not None
                   else read_kf_trained(spec.path, verify) if spec.sha256 is None
                   else read_kf_file(spec.path, spec.sha256, verify))
        self.weights = np.array(weights, dtype=np.float64)
        self._values = np.empty(7, dtype=np.float64)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return int(kf_values(cols, state[core.ST_NEXT_DISC], self.weights, self._values))

    def column_values(self, state: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Every column's value (NaN for a full column)."""
        values = np.empty(7, dtype=np.float64)
        kf_values(cols, state[core.ST_NEXT_DISC], self.weights, values)
        return np.where(np.isneginf(values), np.nan, values)

    def work(self) -> tuple[int | None, int | None]:
        return 0, 0  # no search: no node is visited and no leaf evaluated

    def warm_up(self) -> None:
        kf_values(opening_cols(), np.int64(1), self.weights, self._values)
