"""``drop7 nnue-distil``: distil a teacher search's column values into the network leaf.

    drop7 nnue-distil --teacher 'search:leaf=linear,d=5,s=7' --games 64 --epochs 8 --out DIR

The roots come from games of the seed bank's training role only (from game ``--first-game``
on); a checkpoint per epoch, ``--resume`` goes on from the newest, the labels are the same
bits with any ``--workers`` (:mod:`engines.learners.distil`).  Prints the summary (the
network's SHA-256, the held-out top-1) as one JSON line.  docs/training.md, "The network
leaf's learners".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from contracts.cli_numbers import finite_option, int_option
from contracts.errors import InputError
from engines.learners.distil import TARGETS, DistilConfig, Distillation
from engines.leaves.nnue_class import HIDDEN, MAX_HIDDEN, MAX_MID, MID


def common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--first-game", type=int_option(0), default=0,
                        help="first game of the seed bank's training role (default 0)")
    parser.add_argument("--seed", type=int_option(0, 2**32 - 1), default=0,
                        help="the learner's seed (default 0)")
    parser.add_argument("--workers", type=int_option(1, 256), default=1,
                        help="processes playing the games (the bits do not depend on it)")
    parser.add_argument("--bank", default=None, help="seed bank file (default data/seeds.yaml)")
    parser.add_argument("--out", required=True, help="the learner's directory")
    parser.add_argument("--resume", action="store_true",
                        help="go on from OUT's newest checkpoint")


def training_role(args: argparse.Namespace) -> tuple[int, int]:
    from engines.seedbank import DEFAULT_BANK, load_bank

    role = load_bank(args.bank or DEFAULT_BANK).roles["training"]
    if args.first_game >= int(role["count"]):
        raise InputError(f"--first-game {args.first_game} is past the training role's "
                         f"{int(role['count'])} games")
    return int(role["start"]), int(role["count"])


def fresh_out(args: argparse.Namespace) -> Path:
    out = Path(args.out)
    if out.exists() and any(out.iterdir()) and not args.resume:
        raise InputError(f"{out} already holds output; pass --resume or remove it")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``drop7 nnue-distil``."""
    parser.add_argument("--teacher", required=True,
                        help="the search whose column values label the roots (a policy)")
    parser.add_argument("--player", default=None,
                        help="the policy whose games give the roots (default the teacher)")
    parser.add_argument("--games", type=int_option(2, 100_000), required=True,
                        help="games labelled")
    parser.add_argument("--every", type=int_option(1, 10_000), default=1,
                        help="a root every this many decisions (default 1)")
    parser.add_argument("--holdout", type=int_option(2, 1000), default=5,
                        help="game k is held out when k %% holdout == holdout - 1 (default 5)")
    parser.add_argument("--target", choices=TARGETS, default="columns",
                        help="fit every column's successors (default) or the root's value")
    parser.add_argument("--hidden", type=int_option(1, MAX_HIDDEN), default=HIDDEN)
    parser.add_argument("--mid", type=int_option(1, MAX_MID), default=MID)
    parser.add_argument("--epochs", type=int_option(1, 10_000), required=True,
                        help="fit until this many epochs are done")
    parser.add_argument("--batch", type=int_option(1, 1_000_000), default=64)
    parser.add_argument("--rate", type=finite_option, default=3e-4, help="Adam's step")
    parser.add_argument("--probe-depth", type=int_option(1, 6), default=1,
                        help="depth of the search the held-out top-1 plays the network in")
    parser.add_argument("--probe-strata", type=int_option(1, 7), default=7)
    parser.add_argument("--probe-every", type=int_option(0, 10_000), default=0,
                        help="probe the held-out top-1 every this many epochs too (default 0: "
                             "the frozen network's alone); a diagnostic, not the network's config")
    common_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Distil, print the summary as one JSON line."""
    if not args.rate > 0:
        raise InputError(f"--rate must be above 0, got {args.rate}")
    start, count = training_role(args)
    config = DistilConfig(args.teacher, args.player or args.teacher, args.games, args.every,
                          start, count, args.first_game, args.holdout, args.hidden, args.mid,
                          args.batch, args.rate, args.seed, args.probe_depth,
                          args.probe_strata, args.target)
    try:
        summary = Distillation(config, fresh_out(args), args.workers,
                               probe_every=args.probe_every).run(args.epochs)
    except ValueError as exc:
        raise InputError(str(exc).splitlines()[0]) from None
    print(json.dumps({k: summary[k] for k in ("config_sha256", "epochs", "network", "top1")}))
    return 0
