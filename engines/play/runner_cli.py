"""``drop7 run-arms``: several arms on one seed block, one shard; or merge shards.

Play::

    drop7 run-arms --arm fair=search:leaf=linear,d=3,s=7 --arm rand=random \\
        --seeds 1:64 --shard 1/4 --out results/games/val/shard-1.csv

Merge (checks every arm has every game once; ``--seeds`` pins the block)::

    drop7 run-arms --merge shard-*.csv --seeds 1:64 --out games.csv
"""

from __future__ import annotations

import argparse

from contracts.cli_numbers import finite_option, int_option
from contracts.errors import InputError
from contracts.games_table import write_rows
from engines.play.policy_grammar import parse_arm
from engines.play.runner import log_summary, merge_shards, parse_seeds, parse_shard, run_shard

#: most worker processes a shard may ask for (a typo must not start a million processes)
MAX_WORKERS = 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 run-arms``."""
    parser.add_argument("--arm", action="append", default=[], metavar="NAME=POLICY",
                        help="an arm: a name and a policy string (repeat for each arm)")
    parser.add_argument("--seeds", metavar="START:COUNT",
                        help="the seed block (required to play; checked when merging)")
    parser.add_argument("--shard", default="1/1", metavar="k/K",
                        help="play shard k of K (1-based; game i goes to shard i mod K + 1)")
    parser.add_argument("--merge", nargs="+", metavar="SHARD.csv",
                        help="merge these shard tables instead of playing")
    parser.add_argument("--out", required=True, help="output CSV (written atomically)")
    add_play_options(parser)


def add_play_options(parser: argparse.ArgumentParser) -> None:
    """Options shared with ``drop7 play``."""
    parser.add_argument("--budget-s", type=finite_option, default=None, metavar="SECONDS",
                        help="per-decision time budget: slower decisions count as "
                             "unfinished (the move is still played)")
    parser.add_argument("--workers", type=int_option(1, MAX_WORKERS), default=1,
                        help="processes playing games of this shard (same results; "
                             f"at most {MAX_WORKERS})")
    parser.add_argument("--progress-s", type=finite_option, default=30.0, metavar="SECONDS",
                        help="seconds between progress lines on stderr (negative: none)")


def check_play_options(args: argparse.Namespace) -> None:
    """Reject bad shared options with one line."""
    if args.budget_s is not None and not args.budget_s > 0:
        raise InputError("--budget-s must be positive")
    if args.workers < 1:
        raise InputError("--workers must be at least 1")


def run(args: argparse.Namespace) -> int:
    """Play one shard, or merge shards."""
    if args.merge:
        if args.arm:
            raise InputError("--merge takes shard files, not --arm")
        seeds = parse_seeds(args.seeds) if args.seeds else None
        rows = merge_shards(args.merge, seeds)
        write_rows(rows, args.out)
        log_summary(rows)
        return 0
    if not args.arm:
        raise InputError("give at least one --arm NAME=POLICY (or --merge)")
    if not args.seeds:
        raise InputError("--seeds START:COUNT is required")
    check_play_options(args)
    arms = [parse_arm(text) for text in args.arm]
    start, count = parse_seeds(args.seeds)
    shard, shards = parse_shard(args.shard)
    rows = run_shard(arms, start, count, shard, shards, args.budget_s, args.workers,
                     progress_s=args.progress_s)
    write_rows(rows, args.out)
    log_summary(rows)
    return 0
