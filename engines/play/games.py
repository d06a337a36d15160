"""Whole games for any policy, one row per game.

The driver owns the seed and the random streams (:func:`engines.drop7.core.advance`);
the policy only sees the public state.  Each decision is one call into the
policy (for search, one compiled kernel call), timed and checked:

* ``decisions``: columns asked of the policy;
* ``illegal``: the policy returned a column that is not legal; the driver
  records it and plays centre-first instead, so the game continues;
* ``unfinished``: the policy raised an error (centre-first is played instead)
  or took longer than the optional per-decision budget.  A budget overrun is
  only counted: the policy's column is still played, so results never depend
  on the machine's speed or load.

An external program (:mod:`engines.play.external_policy`) maps its faults onto these
counts: a malformed answer is illegal, a time-out or a crash unfinished.

Baseline policies choose through :func:`engines.drop7.baselines.baseline_choice`;
their decisions equal their moves and they are never illegal or late.  Every
game is replayed from its seed and the columns played
(:mod:`engines.drop7.trajectory`) for its covered-disc reveals, chain depths
and trajectory checksum.  A game that fails outside the
policy keeps the state it reached, counts one unfinished decision and the
error is logged: one bad game never loses the others.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from engines.drop7 import baselines, core
from engines.drop7.board import CENTRE_ORDER
from engines.drop7.game_loop import Chooser, play_out
from engines.drop7.trajectory import replay_seeded, summary
from engines.play.arm_specs import BaselineSpec
from engines.play.players import BaselinePolicy, Policy

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def play_policy(policy: Policy, seed: int, choose: Chooser | None = None,
                state: np.ndarray | None = None) -> np.ndarray:
    """One game of ``policy`` on ``seed``: the policy is told of the new game, then asked each
    move, through ``choose`` when given (a wrapper that records, times or checks the
    policy's answers); returns the final state (:func:`engines.drop7.game_loop.play_out`)."""
    policy.new_game(seed)
    return play_out(seed, policy.choose if choose is None else choose, state)


def centre_first(cols: np.ndarray) -> int:
    """The fallback column: the most central legal one (-1 if none)."""
    for c in CENTRE_ORDER:
        if core.is_legal(cols, c):
            return c
    return -1


def _row(seed: int, state: np.ndarray, columns: list[int], decisions: int, illegal: int,
         unfinished: int, wall: float, work: tuple[int | None, int | None] = (0, 0),
         filtered: tuple[int | None, int | None] = (None, None)) -> dict:
    """The row's fields; the game is replayed from its seed and columns for the per-move
    figures and the trajectory checksum, which must end on the score the game reached."""
    moves = columns[:int(state[core.ST_MOVES_PLAYED])]
    outs, replayed, _ = replay_seeded(seed, moves)
    if int(replayed[core.ST_SCORE]) != int(state[core.ST_SCORE]):
        raise RuntimeError(f"seed {seed}: replaying the game's moves gives score "
                           f"{int(replayed[core.ST_SCORE])}, the game scored "
                           f"{int(state[core.ST_SCORE])}")
    figures = summary(seed, moves, outs)
    return {"score": int(state[core.ST_SCORE]), "moves": int(state[core.ST_MOVES_PLAYED]),
            "levels": int(state[core.ST_LEVEL]), "clears": int(state[core.ST_CLEARS]),
            "censored": int(state[core.ST_CENSORED]), "popped": int(state[core.ST_POPPED]),
            "reveals": figures["reveals"], "chain_max": figures["chain_max"],
            "chain_mean": figures["chain_mean"], "decisions": decisions,
            "nodes": "" if work[0] is None else work[0],
            "leaves": "" if work[1] is None else work[1],
            "filter_applied": "" if filtered[0] is None else filtered[0],
            "filter_changed": "" if filtered[1] is None else filtered[1], "illegal": illegal,
            "unfinished": unfinished, "wall_s": round(wall, 4),
            "trajectory": figures["trajectory"]}


class _CentreFirst(Policy):
    """The fallback as a Python player: what the driver runs around any decision."""

    spec = BaselineSpec("centre-first")

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return centre_first(cols)


def warm_up_driver() -> None:
    """Compile (or load from numba's cache) what the driver runs around a player's decisions
    and after a game (the game loop, the legality checks, the replay), by playing one game,
    so that no game's ``wall_s`` counts it."""
    play_game(_CentreFirst(), 1, log=lambda _message: None)


def _baseline_game(policy: BaselinePolicy, seed: int) -> dict:
    t0 = time.perf_counter()
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    columns: list[int] = []

    def choose(state: np.ndarray, cols: np.ndarray) -> int:
        columns.append(int(baselines.baseline_choice(policy.policy_id, seed, state, cols)))
        return columns[-1]

    play_out(seed, choose, state)
    moves = int(state[core.ST_MOVES_PLAYED])
    return _row(seed, state, columns, moves, 0, 0, time.perf_counter() - t0)


def play_game(policy: Policy, seed: int, budget_s: float | None = None,
              log: Log = _stderr) -> dict:
    """Play one whole game of ``policy`` on ``seed``; the games-table fields after ``game``."""
    if isinstance(policy, BaselinePolicy):
        return _baseline_game(policy, seed)
    t0 = time.perf_counter()
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    count = {"decisions": 0, "illegal": 0, "unfinished": 0}
    columns: list[int] = []

    def checked(state: np.ndarray, cols: np.ndarray) -> int:
        columns.append(_decide(state, cols))
        return columns[-1]

    def _decide(state: np.ndarray, cols: np.ndarray) -> int:
        count["decisions"] += 1
        t = time.perf_counter()
        try:
            column = policy.choose(state, cols)
        except Exception as exc:  # recorded, the game goes on
            count["unfinished"] += 1
            log(f"seed {seed} move {int(state[core.ST_MOVES_PLAYED])}: "
                f"{policy.name} failed ({type(exc).__name__}: {exc}); centre-first played")
            return centre_first(cols)
        if budget_s is not None and time.perf_counter() - t > budget_s:
            count["unfinished"] += 1
        if not (0 <= column <= 6 and core.is_legal(cols, column)):
            count["illegal"] += 1
            column = centre_first(cols)
        return column

    before, filter_before = policy.work(), policy.filter_work()
    try:
        play_policy(policy, seed, checked, state)
    except Exception as exc:  # one bad game never loses the others
        count["unfinished"] += 1
        log(f"seed {seed}: game stopped early ({type(exc).__name__}: {exc})")
    work, filtered = (tuple(None if a is None or b is None else a - b
                            for a, b in zip(after, before, strict=True))
                      for after, before in ((policy.work(), before),
                                            (policy.filter_work(), filter_before)))
    return _row(seed, state, columns, count["decisions"], count["illegal"], count["unfinished"],
                time.perf_counter() - t0, work, filtered)
