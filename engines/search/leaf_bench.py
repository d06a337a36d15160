"""``drop7 bench leaf``: leaf evaluations per second, one core.

It stands with the search, where every leaf kind meets (the fair leaf of
:mod:`engines.leaves` and the n-tuple tables of :mod:`engines.ntuple`, which
know nothing of each other).

The boards are every position of baseline-policy games (random, centre-first
and lowest-column in turn) on ``--games`` seeds; the batch is evaluated
``--repeats`` times after a warm-up and the median pass is reported.
``--leaf linear`` (the default) is the frozen fair leaf; ``--leaf ntuple``
is ``ntuple_value`` from scratch on fresh full-size layout A tables (every
page touched), the n-tuple leaf without the search's incremental frames.
``--leaf nnue`` is the network leaf (``nnue_value``, the class's sizes, the
seeded network ``BENCH_SEED``) from scratch: all 135 rows and one head per
board (in the search a chance node's samples share the rows).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from contracts.cli_numbers import int_option
from contracts.machine_facts import machine_facts
from engines.drop7 import baselines, core
from engines.drop7.game_loop import play_out
from engines.leaves.linear import FAIR_WEIGHTS, linear_values_many
from engines.ntuple.value import ntuple_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench leaf``."""
    parser.add_argument("--games", type=int_option(1), default=400,
                        help="games the boards come from")
    parser.add_argument("--repeats", type=int_option(1), default=10,
                        help="timed passes (the median is reported)")
    parser.add_argument("--leaf", choices=("linear", "ntuple", "nnue"), default="linear")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def game_positions(games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boards, moves remaining and next discs of every position of baseline games."""
    boards, mrs, discs = [], [], []
    for g in range(games):
        seed = np.uint64(g + 1)

        def record(state, cols, policy=g % 3, seed=seed) -> int:
            boards.append(cols.copy())
            mrs.append(state[core.ST_MOVES_REMAINING])
            discs.append(state[core.ST_NEXT_DISC])
            return baselines.baseline_choice(policy, seed, state, cols)

        play_out(seed, record)
    return np.array(boards), np.array(mrs, dtype=np.int64), np.array(discs, dtype=np.int64)


@njit(cache=True)
def _ntuple_values_many(boards, mrs, tables, spec, out) -> None:
    for n in range(boards.shape[0]):
        out[n] = ntuple_value(boards[n], mrs[n], tables, spec)


def run(args: argparse.Namespace) -> int:
    """Time the leaf and print one JSON object."""
    if args.games < 1 or args.repeats < 1:
        raise ValueError("--games and --repeats must be at least 1")
    boards, mrs, discs = game_positions(args.games)
    values = np.zeros(len(boards))
    if args.leaf == "linear":
        def evaluate() -> None:
            linear_values_many(boards, mrs, discs, FAIR_WEIGHTS, values)
    elif args.leaf == "nnue":
        from engines.leaves.nnue import nnue_values_many
        from engines.leaves.nnue_class import HIDDEN, MID
        from engines.leaves.nnue_weights import BENCH_SEED, random_network

        params = random_network(BENCH_SEED)
        spec = np.array([HIDDEN, MID], dtype=np.int64)

        def evaluate() -> None:
            nnue_values_many(boards, mrs, discs, params, spec, values)
    else:
        from engines.ntuple.storage import fresh_tables

        tables, layout = fresh_tables("A")

        def evaluate() -> None:
            _ntuple_values_many(boards, mrs, tables, layout.spec, values)
    evaluate()  # warm up
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        evaluate()
        times.append(time.perf_counter() - t0)
    median = float(np.median(times))
    print(json.dumps({"benchmark": "leaf", "leaf": args.leaf, "boards": len(boards),
                      "ns_per_eval": round(1e9 * median / len(boards), 1),
                      "evals_per_s": round(len(boards) / median), **machine_facts()}))
    return 0
