"""``drop7 play --policy NAME --seeds START:COUNT --out games.csv``.

Whole games of one policy, one row per game (the games table of
:mod:`contracts.games_table`; the arm is the canonical policy string unless
``--arm`` names it).  ``--shard k/K`` plays part of the block, as
``drop7 run-arms`` does.
"""

from __future__ import annotations

import argparse

from contracts.games_table import write_rows
from engines.leaves.kinds import LEAF_GRAMMAR
from engines.play.arm_specs import Arm
from engines.play.policy_grammar import parse_arm, parse_policy
from engines.play.runner import log_summary, parse_seeds, parse_shard, run_shard
from engines.play.runner_cli import add_play_options, check_play_options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 play``."""
    parser.add_argument("--policy", required=True,
                        help="random, centre-first, lowest-column, search:leaf=LEAF,d=3,s=7, "
                             f"direct:leaf=LEAF (LEAF: {LEAF_GRAMMAR}), "
                             "external[PARAMS]:COMMAND (docs/referee.md) or kf:w=WEIGHTS "
                             "(docs/search.md)")
    parser.add_argument("--seeds", required=True, metavar="START:COUNT",
                        help="play seeds START .. START+COUNT-1")
    parser.add_argument("--out", required=True, help="output CSV (written atomically)")
    parser.add_argument("--arm", default=None, help="arm name (default: the policy string)")
    parser.add_argument("--shard", default="1/1", metavar="k/K", help="play shard k of K")
    add_play_options(parser)


def run(args: argparse.Namespace) -> int:
    """Play the games and write the table."""
    check_play_options(args)
    start, count = parse_seeds(args.seeds)
    shard, shards = parse_shard(args.shard)
    if args.arm is None:
        spec = parse_policy(args.policy)
        arm = Arm(spec.format(), spec)
    else:
        arm = parse_arm(f"{args.arm}={args.policy}")
    rows = run_shard([arm], start, count, shard, shards, args.budget_s, args.workers,
                     progress_s=args.progress_s)
    write_rows(rows, args.out)
    log_summary(rows)
    return 0
