"""``drop7 bench engine``: random legal play on one core."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from contracts.cli_numbers import SEED_SPACE, int_option, seed_option
from contracts.machine_facts import machine_facts
from engines.drop7 import baselines, core


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench engine``."""
    parser.add_argument("--games", type=int_option(1), default=200_000,
                        help="games of random play")
    parser.add_argument("--seed-start", type=seed_option(), default=1)
    parser.add_argument("--repeats", type=int_option(1), default=5,
                        help="timed runs (the median is reported)")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def engine_throughput(games: int, seed_start: int = 1, repeats: int = 5) -> dict:
    """Random legal play of ``games`` whole games, ``repeats`` timed runs, one core.

    ``moves_per_s`` and ``ns_per_move`` are the median run's; ``moves_per_s_runs``
    lists every run (the host moves them by 10-20%).
    """
    seeds = np.arange(seed_start, seed_start + games, dtype=np.uint64)
    results = np.zeros((games, core.ST_LEN), dtype=np.int64)
    baselines.play_baseline_games(seeds[:8], baselines.POLICY_RANDOM, results[:8])  # warm up
    times = []
    moves = 0
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        moves = int(baselines.play_baseline_games(seeds, baselines.POLICY_RANDOM, results))
        times.append(time.perf_counter() - t0)
    median = float(np.median(times))
    return {
        "benchmark": "engine",
        "policy": "random",
        "games": games,
        "moves": moves,
        "seconds": round(median, 4),
        "moves_per_s": round(moves / median),
        "ns_per_move": round(1e9 * median / moves, 2),
        "moves_per_s_runs": [round(moves / t) for t in times],
        "mean_score": float(results[:, core.ST_SCORE].mean()),
        **machine_facts(),
    }


def run(args: argparse.Namespace) -> int:
    """``drop7 bench engine``."""
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    if args.seed_start + args.games > SEED_SPACE:
        raise ValueError("--seed-start + --games must not pass 2**64 (seeds are 64-bit)")
    print(json.dumps(engine_throughput(args.games, args.seed_start, args.repeats)))
    return 0
