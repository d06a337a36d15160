"""Diagnostics of trained weights: one-ply play against random play, and value calibration.

    drop7 evaluate DIR [--games 1000] [--first-game 1000000000000] [--no-verify] [--out FILE]

plays ``--games`` whole games greedily one ply (the training policy, frozen)
with the weights in ``DIR`` (n-tuple tables or linear-trained), one ply with
the weights training began from (``start``: the untrained weights of the same
learner, :func:`play_untrained`, or a warm start's weights, which the
checkpoint's manifest names, :func:`play_start`), and random legal play, all on the same
seeds, and prints one JSON object: the arms' mean scores with a 95%
interval, the paired mean difference to random, and for n-tuple
tables the Pearson correlation between ``U(s)`` and the realised remaining
return from ``s`` (in rises) over every state the games visited (censored
games, if any, are left out of the correlation).

Seeds: the seed bank's training role from game ``--first-game`` (default
10^12, far beyond any training run, so the games are unseen).  This is a
diagnostic for the training itself, not the screen protocol.

``--out FILE`` writes the JSON object to ``FILE`` (atomically) with the
per-game ``seeds`` and ``scores`` of the three arms added: the workflow's
training-health stage (:mod:`analysis.health`) reads one such file per
checkpoint and compares consecutive checkpoints game by game.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from contracts.cli_numbers import int_option
from contracts.errors import InputError
from contracts.json_file import write_json
from engines.drop7 import baselines, core
from engines.drop7.board import MAX_MOVES
from engines.leaves.kinds import N_TERMS
from engines.leaves.linear_weights import load_linear
from engines.ntuple.layouts import INITIAL_VALUE, get_layout
from engines.ntuple.storage import load_ntuple
from engines.train import greedy as kern
from engines.weights_files import read_manifest

UNSEEN_GAME = 10**12


def _summary(scores: np.ndarray) -> dict:
    n = len(scores)
    sd = float(scores.std(ddof=1)) if n > 1 else 0.0
    return {"mean": float(scores.mean()), "ci95": 1.96 * sd / math.sqrt(n) if n else None,
            "median": float(np.median(scores))}


def returns_to_go(rewards: np.ndarray, games: np.ndarray) -> np.ndarray:
    """``G[k]`` = sum of ``rewards[j]`` for ``j >= k`` in the same game (games contiguous)."""
    out = np.empty_like(rewards)
    acc = 0.0
    for k in range(len(rewards) - 1, -1, -1):
        if k == len(rewards) - 1 or games[k + 1] != games[k]:
            acc = 0.0
        acc += rewards[k]
        out[k] = acc
    return out


def play_untrained(kind: str | None, seeds: np.ndarray, results: np.ndarray) -> None:
    """One ply with the weights a learner of ``kind`` starts from, on ``seeds``.

    Linear weights start at zero; every n-tuple entry starts at ``INITIAL_VALUE / N``, so
    ``U(s)`` is ``INITIAL_VALUE`` for every state, which one ply plays exactly as the
    ``null`` layout (no tuples) with that bias.  Either way the choice is the move's points
    plus a constant (a game-ending move last): what a learner that learned nothing plays.
    """
    if kind == "linear":
        from engines.train.linear_td import play_linear_greedy

        play_linear_greedy(np.zeros(N_TERMS), seeds, results)
    else:
        none = np.zeros(0)
        kern.play_greedy(np.zeros(1, dtype=np.float32), INITIAL_VALUE, get_layout("null").spec,
                         seeds, results, none, none, np.zeros(0, dtype=np.int64))


def play_start(manifest: dict, seeds: np.ndarray, results: np.ndarray,
               verify: bool = True) -> None:
    """One ply with the weights the checkpoint of ``manifest`` was trained from: a warm
    start's (its ``init``: path and SHA-256, checked unless ``verify`` is false), else the
    learner's untrained weights (:func:`play_untrained`)."""
    init = manifest.get("init")
    if not init:
        play_untrained(manifest.get("kind"), seeds, results)
        return
    from engines.pinned_leaf import load_pinned

    _, weights, tables, layout = load_pinned(init["path"], init["sha256"], verify)
    if weights is not None:
        from engines.train.linear_td import play_linear_greedy

        play_linear_greedy(np.ascontiguousarray(weights[:N_TERMS]), seeds, results)
    else:
        none = np.zeros(0)
        kern.play_greedy(tables, 0.0, layout.spec, seeds, results, none, none,
                         np.zeros(0, dtype=np.int64))


def evaluate(directory: Path, seeds: np.ndarray, verify: bool = True,
             per_game: bool = False) -> dict:
    """One-ply play of the weights in ``directory``, of the untrained weights and random play
    on ``seeds`` (with ``per_game``, every game's seed and the three arms' scores too)."""
    manifest = read_manifest(directory)
    n = len(seeds)
    results = np.zeros((n, core.ST_LEN), dtype=np.int64)
    out: dict = {"weights": str(directory), "kind": manifest.get("kind"),
                 "layout": manifest.get("layout"), "moves_trained": manifest.get("moves_trained"),
                 "games": n}
    if manifest.get("kind") == "linear":
        from engines.train.linear_td import play_linear_greedy

        weights, _ = load_linear(directory, verify)
        play_linear_greedy(weights, seeds, results)
    else:
        values, layout, _ = load_ntuple(directory, verify)
        cap = MAX_MOVES * n
        tu = np.zeros(cap)
        tr = np.zeros(cap)
        tg = np.zeros(cap, dtype=np.int64)
        k = int(kern.play_greedy(values, 0.0, layout.spec, seeds, results, tu, tr, tg))
        tu, tr, tg = tu[:k], tr[:k], tg[:k]
        keep = results[tg, core.ST_CENSORED] == 0
        g = returns_to_go(tr, tg)
        if keep.sum() > 2:
            out["value_return_corr"] = float(np.corrcoef(tu[keep], g[keep])[0, 1])
            out["mean_u"] = float(tu[keep].mean())
            out["mean_return"] = float(g[keep].mean())
            out["states"] = int(keep.sum())
    rand = np.zeros((n, core.ST_LEN), dtype=np.int64)
    baselines.play_baseline_games(seeds, baselines.POLICY_RANDOM, rand)
    start = np.zeros((n, core.ST_LEN), dtype=np.int64)
    play_start(manifest, seeds, start, verify)
    s1 = results[:, core.ST_SCORE].astype(np.float64)
    s0 = rand[:, core.ST_SCORE].astype(np.float64)
    out["one_ply"] = {**_summary(s1),
                      "moves_per_game": float(results[:, core.ST_MOVES_PLAYED].mean()),
                      "censored": int(results[:, core.ST_CENSORED].sum())}
    out["random"] = {**_summary(s0), "moves_per_game": float(rand[:, core.ST_MOVES_PLAYED].mean())}
    out["start"] = _summary(start[:, core.ST_SCORE].astype(np.float64))
    out["paired_difference"] = _summary(s1 - s0)
    out["wins"] = int((s1 > s0).sum())
    if per_game:
        out["seeds"] = [int(x) for x in seeds]
        out["scores"] = {"one_ply": results[:, core.ST_SCORE].tolist(),
                         "random": rand[:, core.ST_SCORE].tolist(),
                         "start": start[:, core.ST_SCORE].tolist()}
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 evaluate``."""
    parser.add_argument("directory")
    parser.add_argument("--games", type=int_option(1), default=1000)
    parser.add_argument("--first-game", type=int_option(0), default=UNSEEN_GAME)
    parser.add_argument("--no-verify", action="store_true", help="skip the SHA-256 check")
    parser.add_argument("--out", help="write the JSON, with every game's scores, to this file")


def run(args: argparse.Namespace) -> int:
    """Play the weights, their start and random play; print (and with ``--out`` write) one
    JSON object.  Seeds outside the training role are refused before any game."""
    from engines.seedbank import load_bank

    bank = load_bank()
    count = int(bank.roles["training"]["count"])
    if args.first_game >= count or args.games > count - args.first_game:
        raise InputError(f"--first-game {args.first_game} and --games {args.games} must "
                         f"stay inside the training role's {count} games")
    seeds = bank.training(args.first_game, args.games)
    try:
        result = evaluate(Path(args.directory), seeds, not args.no_verify, args.out is not None)
    except MemoryError:
        raise InputError(f"out of memory for --games {args.games}") from None
    if args.out:
        write_json(args.out, result, indent=None)
        result = {k: v for k, v in result.items() if k not in ("seeds", "scores")}
    print(json.dumps(result))
    return 0
