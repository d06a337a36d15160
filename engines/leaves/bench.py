"""``drop7 bench leaf``: nanoseconds per frozen fair-leaf evaluation, one core.

The boards are every position of baseline-policy games (random, centre-first
and lowest-column in turn) on ``--games`` seeds; the batch is evaluated
``--repeats`` times after a warm-up and the best pass is reported.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from engines.drop7 import core
from engines.drop7.engine_bench import machine_facts
from engines.leaves.linear import FAIR_WEIGHTS, linear_values_many


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench leaf``."""
    parser.add_argument("--games", type=int, default=400, help="games the boards come from")
    parser.add_argument("--repeats", type=int, default=10, help="best of N timed passes")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def game_positions(games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boards, moves remaining and next discs of every position of baseline games."""
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    boards, mrs, discs = [], [], []
    for g in range(games):
        seed = np.uint64(g + 1)
        core.new_game(seed, state, cols)
        while not core.finished(state):
            boards.append(cols.copy())
            mrs.append(state[core.ST_MOVES_REMAINING])
            discs.append(state[core.ST_NEXT_DISC])
            column = core.baseline_choice(g % 3, seed, state, cols)
            core.advance(seed, column, state, cols, scratch, out)
    return np.array(boards), np.array(mrs, dtype=np.int64), np.array(discs, dtype=np.int64)


def run(args: argparse.Namespace) -> int:
    """Time the leaf and print one JSON object."""
    if args.games < 1 or args.repeats < 1:
        raise ValueError("--games and --repeats must be at least 1")
    boards, mrs, discs = game_positions(args.games)
    values = np.zeros(len(boards))
    linear_values_many(boards, mrs, discs, FAIR_WEIGHTS, values)  # warm up
    best = float("inf")
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        linear_values_many(boards, mrs, discs, FAIR_WEIGHTS, values)
        best = min(best, time.perf_counter() - t0)
    print(json.dumps({"benchmark": "leaf", "leaf": "linear", "boards": len(boards),
                      "ns_per_eval": round(1e9 * best / len(boards), 1),
                      "evals_per_s": round(len(boards) / best), **machine_facts()}))
    return 0
