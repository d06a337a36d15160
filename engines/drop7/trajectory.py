"""A seeded game replayed from its moves: every move's results, and the game's summary.

:func:`replay_seeded` plays the columns ``moves`` on game ``seed`` (the
discs and reveals drawn from the seed's streams, docs/rng.md) and returns
each move's ``OUT_*`` results; :func:`summary` turns them into the per-game
figures the games table and the register's per-game rows carry, among them
the trajectory checksum (:mod:`contracts.trajectory`).  The games driver
replays every game it played this way, so a row's checksum is recomputed
from the seed and the moves alone, as ``drop7 replay`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from contracts.errors import InputError
from contracts.trajectory import trajectory_checksum
from engines.drop7 import core
from engines.drop7.game_loop import game_arrays


def replay_seeded(seed: int, moves: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(outs, state, cols)``: ``outs[m]`` the ``OUT_*`` results of move ``m``, ``state`` and
    ``cols`` the final state and board.

    Raises :class:`InputError` naming the move: a column outside 0..6, a full
    column, a move after the game is over or censored.
    """
    state, cols, scratch, _ = game_arrays()
    outs = np.zeros((len(moves), core.OUT_LEN), dtype=np.int64)
    key = np.uint64(seed)
    core.new_game(key, state, cols)
    for m, column in enumerate(moves):
        if core.finished(state):
            raise InputError(f"move {m}: the game is already "
                             f"{'over' if state[core.ST_GAME_OVER] else 'censored'}")
        if not 0 <= int(column) <= 6:
            raise InputError(f"move {m}: column {column} is not 0..6")
        if core.advance(key, int(column), state, cols, scratch, outs[m]) != core.OK:
            raise InputError(f"move {m}: column {column} is full")
    return outs, state, cols


def summary(seed: int, moves: Sequence[int], outs: np.ndarray) -> dict:
    """The per-game figures of a replayed game (games-table column names).

    ``reveals``: covered discs revealed; ``chain_max``: the most pop waves of
    one move; ``chain_mean``: mean waves over the moves that popped a disc
    (0 when none did); ``trajectory``: the checksum.
    """
    waves = outs[:, core.OUT_WAVES]
    chained = waves[waves > 0]
    scores = np.cumsum(outs[:, core.OUT_POINTS]).tolist()
    return {"reveals": int(outs[:, core.OUT_REVEALS].sum()),
            "chain_max": int(waves.max()) if len(waves) else 0,
            "chain_mean": round(float(chained.mean()), 4) if len(chained) else 0.0,
            "trajectory": trajectory_checksum(seed, [int(c) for c in moves], scores)}
