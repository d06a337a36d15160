"""Monte Carlo outcome labels: what each legal column of a root leads to under a declared policy.

A ranking panel's reference may be an outcome rather than a search
(docs/panels.md; the register's H40 labels): for each legal column ``c`` of
a root, ``K`` continuations play ``c`` and then the declared continuation
policy until the game ends or ``horizon`` moves have been played (the root
move included), and the column's labels are the means over the ``K``:

``points``
    the points scored from the root on;
``lifetime``
    the moves played (the move that ends the game counts; a game alive at
    the horizon counts ``horizon``): the restricted mean lifetime;
``ended``
    the fraction of continuations that ended the game before the horizon.

**Aligned chance.**  Continuation ``k`` of every column draws its discs and
reveals from the same scenario: a game seed ``s_k``, a pure function of the
labelling seed, the root's public state (board, disc, moves remaining) and
``k`` (:func:`scenario_seeds`), whose disc and reveal streams are read by
move number from the root (move 0 is the root move, its disc the root's).
So siblings differ only by what the column does (common random numbers),
and the game's own seed, which holds the real future, never enters.  The
policy is told ``new_game(s_k)`` before each continuation (its tables are
emptied and a baseline's coin is keyed by it).

**Bit-identical for any shard count.**  A root's labels depend on nothing
but the root, the policy, ``K``, the horizon and the seed, so
:func:`label_roots` over shard ``i`` of ``n`` (roots ``i-1, i-1+n, ...``)
gives each root the very floats one process gives it.

The continuation policy must be one of ours (a search, ``direct`` or a
baseline): a continuation has no fallback, so an illegal column from it is
an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.drop7 import core
from engines.drop7.game_loop import game_arrays
from engines.drop7.rng import (
    DOMAIN_DISC,
    DOMAIN_LABEL,
    DOMAIN_REVEAL,
    GAMMA,
    counter_word,
    fmix64,
    stream_key,
)
from engines.play.players import Policy

#: the longest horizon (moves from the root) a label may take
MAX_HORIZON = 1_000
#: the most continuations per column
MAX_CONTINUATIONS = 4_096
#: the labels a column gets, in :class:`OutcomeLabels`
TARGETS = ("points", "lifetime", "ended")


@dataclass(frozen=True)
class OutcomeLabels:
    """One root's labels: each a (7,) float64 array, NaN for an illegal column; the
    continuation policy's work over the root (None where it reports none)."""

    points: np.ndarray
    lifetime: np.ndarray
    ended: np.ndarray
    nodes: int | None
    leaves: int | None

    def target(self, name: str) -> np.ndarray:
        """The labels of one of :data:`TARGETS`."""
        if name not in TARGETS:
            raise ValueError(f"unknown label target {name!r} (expected {', '.join(TARGETS)})")
        return getattr(self, name)


def scenario_seeds(seed: int, cols: np.ndarray, disc: int, moves_remaining: int,
                   continuations: int) -> np.ndarray:
    """The ``continuations`` scenario seeds of a root (uint64): a hash of the labelling
    seed, the seven column words, the disc and the moves remaining, then counter ``k``."""
    h = np.uint64(stream_key(np.uint64(seed), DOMAIN_LABEL))
    with np.errstate(over="ignore"):  # arithmetic modulo 2**64
        for word in (*(int(w) for w in cols), int(disc) | (int(moves_remaining) << 3)):
            h = np.uint64(fmix64((h ^ np.uint64(word)) + GAMMA))
    return np.array([counter_word(h, k) for k in range(continuations)], dtype=np.uint64)


def _check(continuations: int, horizon: int) -> None:
    if not 1 <= continuations <= MAX_CONTINUATIONS:
        raise ValueError(f"continuations must be 1..{MAX_CONTINUATIONS}, got {continuations}")
    if not 1 <= horizon <= MAX_HORIZON:
        raise ValueError(f"horizon must be 1..{MAX_HORIZON}, got {horizon}")


def label_root(policy: Policy, cols: np.ndarray, disc: int, moves_remaining: int,
               continuations: int, horizon: int, seed: int) -> OutcomeLabels:
    """The labels of every legal column of one root (see the module's docstring)."""
    _check(continuations, horizon)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    seeds = scenario_seeds(seed, cols, disc, moves_remaining, continuations)
    keys = [(np.uint64(stream_key(s, DOMAIN_DISC)), np.uint64(stream_key(s, DOMAIN_REVEAL)))
            for s in seeds]
    points, lifetime, ended = (np.full(7, np.nan) for _ in range(3))
    state, _, scratch, out = game_arrays()
    nodes0, leaves0 = policy.work()
    for c in range(7):
        if not core.is_legal(cols, c):
            continue
        acc = np.zeros(3)
        for s, (disc_key, reveal_key) in zip(seeds, keys, strict=True):
            policy.new_game(int(s))
            state[:] = 0
            state[core.ST_LEVEL] = 1
            state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = disc, moves_remaining
            board = cols.copy()
            column, moves = c, 0
            while True:
                status = (core.advance_keyed(disc_key, reveal_key, column, state, board,
                                             scratch, out)
                          if 0 <= column <= 6 and core.is_legal(board, column) else -1)
                if status != core.OK:
                    raise RuntimeError(f"{policy.name}: column {column} is not legal in a "
                                       "continuation (a continuation has no fallback)")
                moves += 1
                if state[core.ST_GAME_OVER] or moves >= horizon:
                    break
                column = policy.choose(state, board)
            acc += (state[core.ST_SCORE], moves, state[core.ST_GAME_OVER] != 0)
        points[c], lifetime[c], ended[c] = acc / continuations
    nodes1, leaves1 = policy.work()
    nodes = None if nodes0 is None or nodes1 is None else nodes1 - nodes0
    leaves = None if leaves0 is None or leaves1 is None else leaves1 - leaves0
    return OutcomeLabels(points, lifetime, ended, nodes, leaves)


Root = tuple[np.ndarray, int, int]


def shard_roots(count: int, shard: int = 1, shards: int = 1) -> range:
    """The indices of the roots shard ``shard`` of ``shards`` labels (every ``shards``-th)."""
    if not 1 <= shard <= shards:
        raise ValueError(f"shard must be 1..{shards}, got {shard}")
    return range(shard - 1, count, shards)


def label_roots(policy: Policy, roots: list[Root], continuations: int, horizon: int, seed: int,
                shard: int = 1, shards: int = 1) -> list[tuple[int, OutcomeLabels]]:
    """``(root index, labels)`` of the roots ``(cols, disc, moves remaining)`` of one shard."""
    _check(continuations, horizon)
    return [(i, label_root(policy, *roots[i], continuations, horizon, seed))
            for i in shard_roots(len(roots), shard, shards)]
