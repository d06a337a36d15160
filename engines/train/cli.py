"""``drop7 train``: train n-tuple tables (layouts A-E) or ``linear-trained`` weights.

    drop7 train --layout A --moves 20000000 --every 5000000 --out results/train/ntuple-A
    drop7 train --layout linear --moves 2000000 --seeds 0x1000000000000000:1000000 --out DIR
    drop7 train ... --resume            # go on from DIR/latest (or start if DIR holds none)
    drop7 train ... --moves 10000000 --start 5000000
                                        # one segment: from DIR/resume-5000000 to 1e7 moves
    drop7 train --layout A ... --lanes 16 --threads 2
                                        # 16 games side by side on 2 threads
    drop7 train --layout A ... --treestrap d3s7 --init DIR --init-sha256 HEX
                                        # TreeStrap: the d3s7 search plays, its nodes are targets

Seeds: the seed bank's ``training`` role from game ``--first-game`` (default
0), or an explicit ``--seeds START:COUNT`` range; either is read in order,
wrapping.  Every number is checked before any work (int64 counters, 64-bit
seeds, a first game inside the role).  ``--lanes L`` trains L games side by
side (:mod:`engines.train.lanes`; the tables depend on L, never on
``--threads``); budgets are then whole rounds (multiples of L).  See
docs/training.md for the output layout and every flag.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import numba

from contracts.cli_numbers import INT64_MAX, finite_option, int_option, parse_seed_block
from contracts.errors import InputError
from contracts.json_file import recorded_sha256
from contracts.train_directory import (
    LATEST,
    has_output,
    latest_problem,
    newest_state,
    resume_dir,
)
from engines.leaves.kinds import SHA256_HEX
from engines.ntuple.layouts import FILL_RULES, FILL_SEP, LAYOUTS, get_layout
from engines.train.trainer import MAX_LANES, NtupleLearner, SeedRange, Trainer

#: most checkpoints one run may write (each is a whole table)
MAX_CHECKPOINTS = 100_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``drop7 train``."""
    parser.add_argument("--layout", required=True,
                        help=f"n-tuple layout ({', '.join(LAYOUTS)}, or one with a fill rule: "
                        f"{', '.join('A' + FILL_SEP + r for r in FILL_RULES)}, ...) or "
                        "'linear' (linear-trained)")
    parser.add_argument("--moves", type=int_option(1), required=True,
                        help="train until this many moves")
    parser.add_argument("--every", "--checkpoint-every", dest="every", type=int_option(1),
                        default=None,
                        help="checkpoint every this many moves (default: only at the end)")
    parser.add_argument("--out", required=True, help="output directory (step-*/, latest)")
    seeds = parser.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", help="explicit seed range START:COUNT (ints, 0x.. allowed)")
    seeds.add_argument("--first-game", type=int_option(0), default=None,
                       help="first game of the seed bank's training role (default 0)")
    parser.add_argument("--bank", default=None, help="seed bank file (default data/seeds.yaml)")
    parser.add_argument("--alpha", type=finite_option, default=None,
                        help="step size (n-tuple default 1.0; linear default 0.001)")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--resume", action="store_true",
                        help="go on from OUT/latest (start fresh if OUT holds no output; "
                             "without a valid latest, from OUT's newest resume state or zero, "
                             "checking every checkpoint written again against the one there)")
    resume.add_argument("--start", type=int_option(0), default=None, metavar="MOVES",
                        help="train one segment: from OUT/resume-MOVES (0: from nothing) to "
                             "--moves, leaving OUT's other states and latest alone")
    parser.add_argument("--lanes", type=int, default=1,
                        help="training games side by side (default 1: the sequential trainer; "
                             "n-tuple layouts only); the tables depend on it")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for the lanes (default 1); the tables do not depend on it")
    parser.add_argument("--init", default=None, metavar="PATH",
                        help="warm start: continue from these weights (a weights directory of "
                             "the layout, or for linear a pinned vector file), the "
                             "accumulators fresh; needs --init-sha256")
    pin = parser.add_mutually_exclusive_group()
    pin.add_argument("--init-sha256", default=None, metavar="HEX",
                     help="the SHA-256 the --init weights must have (a directory: its "
                          "array stream's, as its manifest records)")
    pin.add_argument("--init-record", default=None, metavar="FILE.json",
                     help="instead of --init-sha256: a JSON file whose sha256 key holds it "
                          "(the freeze record of a frozen artefact, written after this command "
                          "was planned)")
    parser.add_argument("--discard-start", action="store_true",
                        help="with --start: delete the state the segment started from once "
                             "its own is written (a later segment resumes from this one's)")
    parser.add_argument("--treestrap", default=None, metavar="dDsS",
                        help="train the tables by TreeStrap with this fair search as the actor "
                             "(e.g. d3s7; engines.train.treestrap) instead of one-ply TC-TD")
    parser.add_argument("--targets", default=None, choices=("tree", "root"),
                        help="with --treestrap: train every decision node of the search tree "
                             "(tree, the default) or the root alone (root)")
    parser.add_argument("--log-every", type=finite_option, default=10.0,
                        help="seconds between progress lines on stderr (default 10)")


def parse_seeds(args: argparse.Namespace) -> SeedRange:
    """The training seed range the flags name."""
    if args.seeds is not None:
        return SeedRange(*parse_seed_block(args.seeds, "--seeds"))
    from engines.seedbank import DEFAULT_BANK, load_bank

    bank = load_bank(args.bank or DEFAULT_BANK)
    role = bank.roles["training"]
    first = args.first_game or 0
    if first >= int(role["count"]):
        raise InputError(f"--first-game {first} is past the training role's "
                         f"{int(role['count'])} games (0..{int(role['count']) - 1})")
    return SeedRange(int(role["start"]), int(role["count"]), first, "training")


def parse_search(text: str) -> tuple[int, int]:
    """``(depth, strata)`` of a ``--treestrap`` search ``dDsS``; one line naming the flag."""
    match = re.fullmatch(r"d(\d+)s(\d+)", text)
    if not match:
        raise InputError(f"--treestrap must be dDsS (e.g. d3s7), got {text!r}")
    return int(match[1]), int(match[2])


def make_learner(layout: str, alpha: float | None, lanes: int = 1,
                 treestrap: str | None = None, targets: str | None = None):
    """The learner a ``--layout`` (and ``--treestrap``, ``--targets``) names."""
    if targets is not None and treestrap is None:
        raise InputError("--targets needs --treestrap (it says which nodes TreeStrap trains)")
    if layout == "linear":
        if treestrap is not None:
            raise InputError("--treestrap trains n-tuple tables, not linear-trained weights")
        from engines.train.linear_td import LinearLearner

        return LinearLearner(alpha=0.001 if alpha is None else alpha)
    try:
        lay = get_layout(layout)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    step = 1.0 if alpha is None else alpha
    if treestrap is None:
        return NtupleLearner(lay, step, lanes)
    from engines.train.treestrap import TreestrapLearner

    depth, strata = parse_search(treestrap)
    try:
        return TreestrapLearner(lay, step, lanes, depth, strata, targets or "tree")
    except ValueError as exc:
        raise InputError(f"--treestrap {treestrap}: {exc}") from None


def check_lanes(args: argparse.Namespace) -> None:
    """Refuse lanes and threads the run cannot use; set numba's thread count."""
    if not 1 <= args.lanes <= MAX_LANES:
        raise InputError(f"--lanes must be in 1..{MAX_LANES}, got {args.lanes}")
    if args.lanes > 1 and args.layout == "linear":
        raise InputError("--lanes > 1 trains n-tuple layouts only; linear-trained trains in "
                         "one lane")
    most = numba.config.NUMBA_NUM_THREADS
    if not 1 <= args.threads <= most:
        raise InputError(f"--threads must be in 1..{most} (numba's NUMBA_NUM_THREADS here), "
                         f"got {args.threads}")
    for flag, value in (("--moves", args.moves), ("--every", args.every),
                        ("--start", args.start)):
        if value is not None and value % args.lanes:
            raise InputError(f"{flag} {value} is not a multiple of --lanes {args.lanes} "
                             f"(lanes train in whole rounds)")
    numba.set_num_threads(args.threads)


def run(args: argparse.Namespace) -> int:
    """Train, print the final manifest facts as one JSON line."""
    every = args.moves if args.every is None else args.every
    if -(-args.moves // every) > MAX_CHECKPOINTS:
        raise InputError(f"--every {every} gives {-(-args.moves // every):,} checkpoints of "
                         f"--moves {args.moves}; at most {MAX_CHECKPOINTS:,}")
    if args.layout != "linear":
        try:
            if get_layout(args.layout).n_active == 0:
                raise ValueError(f"layout {args.layout!r} has no tuples to train")
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if args.start is not None and not args.start < args.moves:
        raise InputError(f"--start {args.start} must be in 0..--moves - 1")
    check_lanes(args)
    seeds = parse_seeds(args)
    if seeds.first_game + args.moves > INT64_MAX:
        raise InputError(f"--first-game {seeds.first_game} + --moves {args.moves} passes the "
                         "64-bit game counter")
    out = Path(args.out)
    if has_output(out) and not args.resume and args.start is None:
        raise InputError(f"{out} already holds training output; pass --resume or remove it")
    learner = make_learner(args.layout, args.alpha, args.lanes, args.treestrap, args.targets)
    trainer = Trainer(learner, seeds, out,
                      log_every=args.log_every, threads=args.threads)
    if args.init_record is not None:
        args.init_sha256 = recorded_sha256(args.init_record)
    if args.discard_start and not args.start:
        raise InputError("--discard-start needs --start MOVES > 0 (a segment that resumed a "
                         "state)")
    if (args.init is None) != (args.init_sha256 is None):
        raise InputError("--init and --init-sha256 go together (a warm start names its "
                         "weights and their SHA-256)")
    if args.init is not None:
        if not SHA256_HEX.fullmatch(args.init_sha256):
            raise InputError(f"--init-sha256 must be 64 lower-case hex digits, got "
                             f"{args.init_sha256!r}")
        # a segment that resumes a state needs only the start's config (its hash); any other
        # run loads the values, checking the whole file against the hash (a state it then
        # resumes replaces them)
        trainer.warm_start(args.init, args.init_sha256, load=not args.start)
    if args.start:
        trainer.load_resume(resume_dir(out, args.start))
    elif args.resume and (problem := latest_problem(out)):
        # a run killed between a checkpoint and its state, or segments (which make no
        # latest): go on from what is complete; save_step checks each checkpoint written again
        newest = newest_state(out)
        trainer.log(f"train {args.layout}: {problem}; going on from "
                    f"{newest if newest else 'zero'}, checking every checkpoint written again "
                    "against the one there")
        if newest is not None:
            trainer.load_resume(newest)
    elif args.resume and (out / LATEST).exists():
        trainer.load_resume()
    if trainer.moves:
        trainer.log(f"train {args.layout}: resumed at {trainer.moves:,} moves")
    facts = trainer.run(args.moves, every, segment=args.start is not None)
    if args.discard_start:
        used = resume_dir(out, args.start)
        shutil.rmtree(used, ignore_errors=True)
        trainer.log(f"removed the state it started from, {used}")
    print(json.dumps({k: facts[k] for k in ("kind", "layout", "moves_trained", "games_trained",
                                            "config_hash", "wall_s", "moves_per_s")}))
    return 0
