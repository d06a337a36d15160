"""``drop7 bench search``: dDsS decisions on the shipped positions, one core.

The positions are the fixed set of :mod:`engines.search.positions` (early,
middle and late positions of games of the fair d3s7 policy on probe seeds),
all of them unless ``--positions N`` asks for N of them evenly spaced.  The
kernel is warmed up first (compilation / cache load), then each decision is
timed alone.  Printed (one JSON object): ``decisions_per_s``,
``nodes_per_s`` (moves applied: chance samples played), ``leaves_per_s``
(leaf evaluations), ``median_decision_s``,
``p90_decision_s``, ``mean_nodes``, ``mean_leaves`` and
``median_decision_cpu_s`` (this thread's CPU time: less sensitive to other load),
``mean_node_hits`` and ``mean_leaf_hits`` (values taken from the node table
and the leaf cache; ``leaf_evals_per_s`` counts the leaves computed).
``--no-reuse`` times the plain search (the same values, bit for bit);
``--reveals M`` the factored chance node (``M`` reveal samples per disc
stratum; ``reveals`` in the JSON is null without it).

``--leaf nnue`` without a path is the seeded network of the class's sizes
(:data:`engines.leaves.nnue_weights.BENCH_SEED`): a network's search cost
does not depend on its weights (no pruning), only its choices do.
``--prune 'prune=PRIOR,k=K[,from=P][,root=pruned]'`` (the policy grammar's
pruning, :mod:`engines.search.prune_kinds`) times the pruned search beside the
full-width one on the same positions (:func:`bench_pruned`): each
configuration's figures above plus its prior's work (``mean_pruned_nodes``,
``mean_prior_evals``, ``mean_prior_nodes``, ``mean_prior_leaves``) and
``mean_work`` (moves applied plus leaf values used, the prior's included), then
``ratios`` pruned / full (``work``, ``work_without_prior``, ``nodes``,
``seconds``, ``cpu_seconds``) and ``agreement``, the share of positions where
the pruned search chooses the full-width column.

``--leaf ntuple`` without a path allocates full-size layout A tables (fresh:
every entry at its initial value, every page touched), so the figure includes
real memory traffic; ``ntuple:PATH`` memory-maps trained tables.  Nothing in
the search depends on the tables' values but the values themselves (no
pruning): it visits the same nodes and reads the same entries whatever the
tables hold, so fresh tables time what trained ones do.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from contracts.cli_numbers import int_option
from contracts.machine_facts import machine_facts
from engines.leaves.kinds import LEAF_GRAMMAR
from engines.search.leaf import LEAF_NTUPLE, Leaf, load_leaf, nnue_leaf
from engines.search.limits import MAX_DEPTH, MAX_REVEALS, MAX_STRATA
from engines.search.positions import POSITIONS_FILE, load_positions
from engines.search.prune_kinds import PruneSpec, parse_prune_text
from engines.search.searcher import Searcher
from engines.search.stats import (
    STAT_LEAF_HITS,
    STAT_LEAVES,
    STAT_NODE_HITS,
    STAT_NODES,
    STAT_PRIOR_EVALS,
    STAT_PRIOR_LEAVES,
    STAT_PRIOR_NODES,
    STAT_PRUNED,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench search``."""
    parser.add_argument("--leaf", default="linear",
                        help=f"{LEAF_GRAMMAR}; or ntuple alone: fresh tables of --layout; "
                        "or nnue alone: a seeded network")
    parser.add_argument("--depth", type=int_option(0), default=3)
    parser.add_argument("--strata", type=int_option(1), default=7)
    parser.add_argument("--reveals", type=int_option(0), default=None,
                        help=f"reveal samples per disc stratum, 1..{MAX_REVEALS} (default: "
                        "the plain chance node)")
    parser.add_argument("--positions", type=int_option(1), default=None,
                        help="time N of the positions, evenly spaced (default: all)")
    parser.add_argument("--positions-file", default=str(POSITIONS_FILE),
                        help="a drop7-positions-v1 file (default: the shipped set)")
    parser.add_argument("--layout", default="A", help="layout of fresh n-tuple tables")
    parser.add_argument("--prune", default=None, metavar="PRUNE",
                        help="time a pruned search beside full width: "
                        "'prune=PRIOR,k=K[,from=P][,root=pruned]' (docs/search.md)")
    parser.add_argument("--no-reuse", action="store_true",
                        help="the plain search: no node table, no leaf cache")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def fresh_ntuple_leaf(layout_name: str = "A") -> Leaf:
    """An n-tuple leaf on :func:`~engines.ntuple.storage.fresh_tables` of a layout."""
    from engines.ntuple.storage import fresh_tables

    tables, layout = fresh_tables(layout_name)
    return Leaf(LEAF_NTUPLE, f"ntuple:fresh-{layout_name}", tables=tables, spec=layout.spec)


def bench_leaf(text: str, layout: str = "A") -> Leaf:
    """The leaf named on the command line: a policy string's leaf, or ``ntuple`` (fresh)."""
    if text == "ntuple":
        return fresh_ntuple_leaf(layout)
    if text == "nnue":
        from engines.leaves.nnue_class import HIDDEN, MID
        from engines.leaves.nnue_weights import BENCH_SEED, random_network

        return nnue_leaf(f"nnue:random-{BENCH_SEED}", random_network(BENCH_SEED), HIDDEN, MID)
    return load_leaf(text)


def bench_search(leaf: Leaf, depth: int, strata: int, positions: list[tuple],
                 reuse: bool = True, reveals: int | None = None,
                 prune: PruneSpec | None = None, choices: list[int] | None = None) -> dict:
    """Time one decision per position (after a warm-up); a JSON-ready dict (``choices``, when
    given, receives each position's chosen column)."""
    searcher = Searcher(leaf, depth, strata, reuse, reveals, prune=prune)
    for cols, disc, mr in positions[:2]:  # warm up: cache load and first touches
        searcher.choose(cols, disc, mr)
    searcher.stats[:] = 0
    times, cpu = [], []
    for cols, disc, mr in positions:
        c0 = time.thread_time()
        t0 = time.perf_counter()
        choice = searcher.choose(cols, disc, mr)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        if choices is not None:
            choices.append(choice)
    total = float(sum(times))
    n = len(times)
    nodes = int(searcher.stats[STAT_NODES])
    leaves = int(searcher.stats[STAT_LEAVES])
    leaf_hits = int(searcher.stats[STAT_LEAF_HITS])
    prior = {key: round(int(searcher.stats[stat]) / n, 1) for key, stat in (
        ("mean_pruned_nodes", STAT_PRUNED), ("mean_prior_evals", STAT_PRIOR_EVALS),
        ("mean_prior_nodes", STAT_PRIOR_NODES), ("mean_prior_leaves", STAT_PRIOR_LEAVES))}
    work = nodes + leaves + int(searcher.stats[STAT_PRIOR_NODES]
                                + searcher.stats[STAT_PRIOR_LEAVES])
    return {
        "benchmark": "search", "leaf": leaf.name, "depth": depth, "strata": strata,
        "reveals": reveals, "reuse": reuse, "decisions": n, "seconds": round(total, 4),
        "decisions_per_s": round(n / total, 2),
        "nodes_per_s": round(nodes / total),
        "leaves_per_s": round(leaves / total),
        "leaf_evals_per_s": round((leaves - leaf_hits) / total),
        "median_decision_s": round(float(np.median(times)), 6),
        "p90_decision_s": round(float(np.quantile(times, 0.9)), 6),
        "median_decision_cpu_s": round(float(np.median(cpu)), 6),
        "mean_nodes": round(nodes / n, 1),
        "mean_leaves": round(leaves / n, 1),
        "mean_node_hits": round(int(searcher.stats[STAT_NODE_HITS]) / n, 1),
        "mean_leaf_hits": round(leaf_hits / n, 1),
        "prune": None if prune is None else prune.format(),
        **prior,
        "mean_work": round(work / n, 1),
        "cpu_seconds": round(float(sum(cpu)), 4),
    }


def bench_pruned(leaf: Leaf, depth: int, strata: int, positions: list[tuple],
                 prune: PruneSpec, reuse: bool = True, reveals: int | None = None) -> dict:
    """The full-width and the pruned search on the same positions: each one's figures
    (:func:`bench_search`), the ratios pruned / full and the share of positions where they
    choose the same column."""
    full_choices: list[int] = []
    pruned_choices: list[int] = []
    full = bench_search(leaf, depth, strata, positions, reuse, reveals, None, full_choices)
    pruned = bench_search(leaf, depth, strata, positions, reuse, reveals, prune,
                          pruned_choices)
    own_work = pruned["mean_work"] - pruned["mean_prior_nodes"] - pruned["mean_prior_leaves"]

    def ratio(a: float, b: float) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "benchmark": "search-pruned", "full": full, "pruned": pruned,
        "ratios": {"work": ratio(pruned["mean_work"], full["mean_work"]),
                   "work_without_prior": ratio(own_work, full["mean_work"]),
                   "nodes": ratio(pruned["mean_nodes"], full["mean_nodes"]),
                   "seconds": ratio(pruned["seconds"], full["seconds"]),
                   "cpu_seconds": ratio(pruned["cpu_seconds"], full["cpu_seconds"])},
        "agreement": round(sum(a == b for a, b in zip(full_choices, pruned_choices,
                                                       strict=True)) / len(positions), 4),
    }


def run(args: argparse.Namespace) -> int:
    """``drop7 bench search``."""
    if args.positions is not None and args.positions < 1:
        raise ValueError("--positions must be at least 1")
    if not 1 <= args.depth <= MAX_DEPTH or not 1 <= args.strata <= MAX_STRATA:
        raise ValueError(f"--depth must be 1..{MAX_DEPTH} and --strata 1..{MAX_STRATA}")
    if args.reveals is not None and not 1 <= args.reveals <= MAX_REVEALS:
        raise ValueError(f"--reveals must be 1..{MAX_REVEALS}")
    leaf = bench_leaf(args.leaf, args.layout)
    positions = load_positions(args.positions_file)
    if args.positions is not None and len(positions) > args.positions:
        pick = np.linspace(0, len(positions) - 1, args.positions).round().astype(int)
        positions = [positions[i] for i in pick]
    if args.prune is not None:
        prune = parse_prune_text(args.prune, args.depth)
        result = bench_pruned(leaf, args.depth, args.strata, positions, prune,
                              not args.no_reuse, args.reveals)
    else:
        result = bench_search(leaf, args.depth, args.strata, positions, not args.no_reuse,
                              args.reveals)
    result.update(machine_facts())
    print(json.dumps(result))
    return 0
