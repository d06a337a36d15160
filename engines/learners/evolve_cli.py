"""``drop7 nnue-evolve``: the mutation-only GA over a network leaf's weights, scored by games.

    drop7 nnue-evolve --start SHA256:NETWORK --population 32 --games 32 --generations 60 \\
        --depth 3 --strata 7 [--reference-depth 3 --reference-strata 7] --out DIR

Every candidate and the start network play the same ``--games`` games of the seed bank's
training role a generation (a fresh block each), a checkpoint per generation, ``--resume``
goes on from the newest, the bits do not depend on ``--workers``; the last generation's best
are re-selected on fresh games before freezing; a reference fair-leaf search plays each
generation's games too when given (:mod:`engines.learners.evolve`).  Prints the
summary (the frozen network's SHA-256) as one JSON line.  docs/training.md, "The network
leaf's learners".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from contracts.cli_numbers import finite_option, int_option
from contracts.errors import InputError
from engines.filters.kf_weights import TRAINED
from engines.learners.distil_cli import common_arguments, fresh_out, training_role
from engines.learners.evolve import EvolveConfig, NetworkEvolution


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``drop7 nnue-evolve``."""
    parser.add_argument("--start", required=True, metavar="SHA256:PATH|trained:PATH",
                        help="the start network (a distilled or pinned weights directory); "
                             "trained:PATH pins it to the SHA-256 its own manifest records (a "
                             "network the same claim trained)")
    parser.add_argument("--population", type=int_option(2, 1024), required=True)
    parser.add_argument("--generations", type=int_option(1, 10_000), required=True,
                        help="evolve until this many generations are done")
    parser.add_argument("--games", type=int_option(1, 4096), required=True,
                        help="games every candidate plays a generation (the same seeds)")
    parser.add_argument("--sigma", type=finite_option, default=0.05,
                        help="mutation step, a fraction of each tensor's spread (default 0.05)")
    parser.add_argument("--elites", type=int_option(1, 1024), default=4)
    parser.add_argument("--tournament", type=int_option(1, 64), default=3)
    parser.add_argument("--finalists", type=int_option(1, 1024), default=8,
                        help="the last generation's best re-selected on fresh games")
    parser.add_argument("--select-games", type=int_option(1, 4096), default=128)
    parser.add_argument("--depth", type=int_option(1, 6), default=3)
    parser.add_argument("--strata", type=int_option(1, 7), default=7)
    parser.add_argument("--reference-depth", type=int_option(1, 6), default=None,
                        help="a fair-leaf search of this depth plays each generation's games "
                             "too (the same seeds), its mean in the curve (with "
                             "--reference-strata)")
    parser.add_argument("--reference-strata", type=int_option(1, 7), default=None)
    parser.add_argument("--health-games", type=int_option(0, 4096), default=0,
                        help="games of the one-ply health at every generation (default 0)")
    common_arguments(parser)


def _manifest_sha(path: str) -> str:
    """The SHA-256 a network directory's manifest records (``--start trained:PATH``)."""
    from engines.weights_files import WeightsError, read_manifest

    try:
        sha = read_manifest(Path(path)).get("sha256")
    except WeightsError as exc:
        raise InputError(f"--start trained:{path}: {exc}") from None
    if not isinstance(sha, str):
        raise InputError(f"--start trained:{path}: its manifest records no sha256")
    return sha


def run(args: argparse.Namespace) -> int:
    """Evolve, print the summary as one JSON line."""
    sha, sep, path = args.start.partition(":")
    if not sep or not path:
        raise InputError(f"--start {args.start!r}: SHA256:PATH or trained:PATH")
    if sha == TRAINED:
        sha = _manifest_sha(path)
    if not args.sigma > 0:
        raise InputError(f"--sigma must be above 0, got {args.sigma}")
    if args.elites > args.population or args.finalists > args.population:
        raise InputError(f"--elites {args.elites} and --finalists {args.finalists} may not "
                         f"pass --population {args.population}")
    if (args.reference_depth is None) != (args.reference_strata is None):
        raise InputError("--reference-depth and --reference-strata go together")
    reference = (None if args.reference_depth is None
                 else (args.reference_depth, args.reference_strata))
    start, count = training_role(args)
    config = EvolveConfig("ga", "nnue", args.population, args.sigma, args.games, args.depth,
                          args.strata, start, count, args.first_game, args.seed, (), "best",
                          0.25, args.health_games, start_network=path, start_sha256=sha,
                          elites=args.elites, tournament=args.tournament,
                          finalists=args.finalists, select_games=args.select_games,
                          reference=reference)
    try:
        summary = NetworkEvolution(config, fresh_out(args), args.workers).run(args.generations)
    except ValueError as exc:
        raise InputError(str(exc).splitlines()[0]) from None
    print(json.dumps({k: summary[k] for k in ("config_sha256", "generations", "frozen")}))
    return 0
