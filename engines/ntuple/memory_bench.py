"""``drop7 bench memory``: the latency of a random read by footprint, one core.

Table work is bound by this machine's memory, not by arithmetic: a training
move misses the caches about a hundred times, in tables of gigabytes.  This
benchmark measures what such a miss costs here.  For each footprint it
allocates a table the way the trainer does (anonymous memory, transparent
huge pages asked for, every page touched), links one word per 64-byte line
into a single random cycle and follows it: each read depends on the one
before, so ``ns_per_read`` is the full latency of a random read (caches,
TLB and page walks included), with no overlap.  Compare the footprints with
the trainer's (layout A: 1.92 GB of values, 5.76 GB with the accumulators).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from contracts.cli_numbers import int_option
from contracts.machine_facts import machine_facts
from engines.weights_files import alloc_zeroed

_LINE_WORDS = 8  # int64 words per 64-byte line


@njit(cache=True)
def _link_cycle(arr, order) -> None:
    """Line ``order[k]`` points at line ``order[k + 1]`` (one cycle through every line)."""
    n = order.shape[0]
    for k in range(n):
        arr[order[k] * _LINE_WORDS] = order[(k + 1) % n] * _LINE_WORDS


@njit(cache=True)
def _follow(arr, start, steps) -> np.int64:
    """Follow the cycle ``steps`` reads from ``start``; returns where it stopped."""
    p = start
    for _ in range(steps):
        p = arr[p]
    return p


def read_latency(megabytes: int, reads: int, seed: int = 1) -> dict:
    """Nanoseconds per dependent random read in a ``megabytes`` MB table."""
    words = (megabytes << 20) // 8
    lines = words // _LINE_WORDS
    arr = alloc_zeroed((words,), np.int64)
    order = np.random.default_rng(seed).permutation(lines).astype(np.int64)
    _link_cycle(arr, order)  # writes every line, so every page is touched before the clock
    del order
    _follow(arr, 0, min(reads, lines))  # warm up: caches and TLB as in steady state
    t0 = time.perf_counter()
    _follow(arr, 0, reads)
    seconds = time.perf_counter() - t0
    return {"megabytes": megabytes, "reads": reads, "ns_per_read": round(1e9 * seconds / reads, 1)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench memory``."""
    parser.add_argument("--megabytes", default="4,64,1024,2048,4096",
                        help="comma-separated table footprints in MB (default 4,64,1024,2048,4096)")
    parser.add_argument("--reads", type=int_option(1), default=2_000_000,
                        help="timed reads per footprint")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def run(args: argparse.Namespace) -> int:
    """``drop7 bench memory``."""
    try:
        sizes = [int(x) for x in args.megabytes.split(",") if x.strip()]
    except ValueError:
        msg = f"--megabytes must be comma-separated integers: {args.megabytes!r}"
        raise ValueError(msg) from None
    if not sizes or min(sizes) < 1 or args.reads < 1:
        raise ValueError("--megabytes must list positive sizes and --reads must be positive")
    rows = [read_latency(mb, args.reads) for mb in sizes]
    print(json.dumps({"benchmark": "memory", "footprints": rows, **machine_facts()}))
    return 0
