"""``drop7 weight-search``: CMA-ES or the cross-entropy method over a declared weight vector.

    drop7 weight-search --kind cmaes --target leaf-weights --population 16 --sigma 0.25 \\
        --games 32 --depth 4 --strata 5 --generations 40 --out DIR
    drop7 weight-search ... --generations 50 --out DIR --resume   # go on from DIR's newest
    drop7 weight-search ... --start trained:RUN/frozen --out DIR    # from another run's vector

Every candidate and the start vector (the control) play the same ``--games``
games of the seed bank's training role each generation, from game
``--first-game`` on, a fresh block each generation
(:mod:`engines.learners.weight_search`); ``--workers`` plays them in that
many processes with the same bits.  Prints the search's summary (its curve
and frozen vector's SHA-256) as one JSON line.  docs/training.md, "Weight
search".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from contracts.cli_numbers import finite_option, int_option
from contracts.errors import InputError
from engines.filters.kf_weights import TRAINED
from engines.learners.vectors import (
    STARTS,
    TARGETS,
    named_start,
    read_start,
    read_trained_start,
)
from engines.learners.weight_search import FITNESS, FREEZE, KINDS, SearchConfig, WeightSearch

#: the most candidates a generation, generations (``gen-NNNN``) and games a search may ask for
MAX_POPULATION, MAX_GENERATIONS, MAX_GAMES = 1024, 9_999, 4096


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``drop7 weight-search``."""
    parser.add_argument("--kind", required=True, choices=KINDS, help="the optimizer")
    parser.add_argument("--target", required=True, choices=list(TARGETS),
                        help="the searched vector")
    parser.add_argument("--population", type=int_option(4, MAX_POPULATION), required=True,
                        help="candidates a generation")
    parser.add_argument("--generations", type=int_option(1, MAX_GENERATIONS), required=True,
                        help="search until this many generations are done")
    parser.add_argument("--sigma", type=finite_option, required=True,
                        help="CMA-ES's step, or CEM's initial spread, in scaled coordinates "
                             "(each weight over its shipped magnitude)")
    parser.add_argument("--elite", type=finite_option, default=0.25,
                        help="CEM's elite fraction (default 0.25)")
    parser.add_argument("--games", type=int_option(1, MAX_GAMES), required=True,
                        help="games every candidate plays a generation (the same seeds)")
    parser.add_argument("--depth", type=int_option(1, 6), default=1,
                        help="the search depth a leaf candidate plays in (default 1)")
    parser.add_argument("--strata", type=int_option(1, 7), default=7,
                        help="the search's chance strata (default 7)")
    parser.add_argument("--start", default=STARTS[0],
                        metavar="|".join((*STARTS, "SHA256:PATH", "trained:DIR")),
                        help="the start vector: the target's shipped weights, zeros, a pinned "
                             "file, or trained:DIR, weights the same claim trained (DIR holds "
                             "their frozen record, whose SHA-256 they are checked against)")
    parser.add_argument("--fitness", choices=FITNESS, default=FITNESS[0],
                        help="what scores a candidate: its games' mean final score or mean "
                             f"length in moves (default {FITNESS[0]})")
    parser.add_argument("--freeze", choices=FREEZE, default="mean",
                        help="the frozen vector: the distribution's mean or the best candidate "
                             "of the last generation (default mean)")
    parser.add_argument("--first-game", type=int_option(0), default=0,
                        help="first game of the seed bank's training role (default 0)")
    parser.add_argument("--seed", type=int_option(0, 2**32 - 1), default=0,
                        help="the optimizer's seed (default 0)")
    parser.add_argument("--health-games", type=int_option(0, MAX_GAMES), default=32,
                        help="games of the one-ply health at every generation: the frozen "
                             "vector, the start and random play (default 32; 0 turns it off)")
    parser.add_argument("--workers", type=int_option(1, 256), default=1,
                        help="processes playing the games (the bits do not depend on it)")
    parser.add_argument("--bank", default=None, help="seed bank file (default data/seeds.yaml)")
    parser.add_argument("--out", required=True, help="the search's directory")
    parser.add_argument("--resume", action="store_true",
                        help="go on from OUT's newest whole generation")


def _start(args: argparse.Namespace) -> tuple[np.ndarray, str]:
    """The start vector, and the SHA-256 of the weights this claim trained it from (``""``:
    a named or pinned start)."""
    target = TARGETS[args.target]
    if args.start in STARTS:
        return named_start(target, args.start), ""
    sha, sep, path = args.start.partition(":")
    if not sep or not path:
        raise InputError(f"--start {args.start!r}: {', '.join(STARTS)}, SHA256:PATH or "
                         "trained:DIR")
    try:
        if sha == TRAINED:
            return read_trained_start(target, path)
        return read_start(target, path, sha), ""
    except ValueError as exc:
        raise InputError(f"--start: {str(exc).splitlines()[0]}") from None


def config_of(args: argparse.Namespace) -> SearchConfig:
    """The search's config the flags name, every value checked."""
    from engines.seedbank import DEFAULT_BANK, load_bank

    if not args.sigma > 0:
        raise InputError(f"--sigma must be above 0, got {args.sigma}")
    if not 0 < args.elite <= 1:
        raise InputError(f"--elite must be in (0, 1], got {args.elite}")
    role = load_bank(args.bank or DEFAULT_BANK).roles["training"]
    if args.first_game >= int(role["count"]):
        raise InputError(f"--first-game {args.first_game} is past the training role's "
                         f"{int(role['count'])} games")
    start, start_sha256 = _start(args)
    return SearchConfig(args.kind, args.target, args.population, args.sigma, args.games,
                        args.depth, args.strata, int(role["start"]), int(role["count"]),
                        args.first_game, args.seed, tuple(float(v) for v in start),
                        args.freeze, args.elite, args.health_games, args.fitness, start_sha256)


def run(args: argparse.Namespace) -> int:
    """Search, print the summary as one JSON line."""
    config = config_of(args)
    out = Path(args.out)
    if out.exists() and any(out.iterdir()) and not args.resume:
        raise InputError(f"{out} already holds output; pass --resume or remove it")
    try:
        summary = WeightSearch(config, out, args.workers).run(args.generations)
    except ValueError as exc:
        raise InputError(str(exc).splitlines()[0]) from None
    print(json.dumps({k: summary[k] for k in ("config_sha256", "generations", "frozen")}))
    return 0
