"""``drop7 register-replay --policy POLICY --games FILE --out FILE [--sha256 HEX] [--limit N]``.

Replays the register's published games of one arm game for game: for each published 32-bit
seed (in the file's order, the first ``--limit`` of them), the policy plays the register's
game of that seed on the register's streams (:mod:`engines.drop7.register_game`) with the
register's chance sampling, and the row puts our score and moves beside the published ones
(:mod:`contracts.register_games`).  Deterministic: the same file and policy give the same
rows.  The policy must be the one the file names, so a file is never compared with another
player's games.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from contracts.atomic import atomic_write
from contracts.cli_numbers import int_option
from contracts.hashing import file_sha256, hash_mismatch
from contracts.json_file import json_text
from contracts.register_games import (
    REPLAY_FORMAT,
    RegisterGamesError,
    read_published,
    replay_row,
    replay_summary,
)
from engines.drop7 import core
from engines.drop7.game_loop import play_out
from engines.play.arm_specs import PolicyError, SearchSpec
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_policy


def replay_games(policy: str, games: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per published game of ``games``: ``policy`` (a search or direct policy with
    the register's sampling) playing the register's game of its seed."""
    spec = parse_policy(policy)
    if not isinstance(spec, SearchSpec) or spec.sampling is None:
        raise PolicyError(f"{policy}: the register's games replay only a search or direct "
                          "policy with the register's sampling (sampling=register)")
    player = load_policy(spec)
    rows = []
    for g in games:
        seed = int(g["seed"], 16)
        player.new_game(seed)
        state = play_out(seed, player.choose, register=True)
        rows.append(replay_row(g, int(state[core.ST_SCORE]), int(state[core.ST_MOVES_PLAYED])))
    return rows


def replay_file(policy: str, games_file: str, sha256: str | None = None,
                limit: int | None = None) -> dict[str, Any]:
    """The replay document of ``games_file`` (checked against ``sha256`` when given) by
    ``policy``, the first ``limit`` games (None: all).  The document names the file by its
    SHA-256, which names it wherever it lies."""
    path = Path(games_file)
    have = file_sha256(path)
    if sha256 is not None and have != sha256:
        raise RegisterGamesError(f"{games_file}: key sha256: its " + hash_mismatch(have, sha256))
    doc = read_published(path)
    canonical = parse_policy(policy).format()
    if doc["policy"] != canonical:
        raise RegisterGamesError(f"{games_file}: key policy: its games are of {doc['policy']}, "
                                 f"not of {canonical}")
    games = doc["games"][:limit]
    rows = replay_games(canonical, games)
    return {"format": REPLAY_FORMAT, "policy": canonical, "sha256": have,
            "source": doc["source"], "summary": replay_summary(rows, len(doc["games"])),
            "rows": rows}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 register-replay``."""
    parser.add_argument("--policy", required=True,
                        help="the arm's declared policy with sampling=register")
    parser.add_argument("--games", required=True,
                        help="the register's published games (drop7-register-games-v1)")
    parser.add_argument("--out", required=True, help="the replay (JSON, written atomically)")
    parser.add_argument("--sha256", default=None, help="refuse a games file of another SHA-256")
    parser.add_argument("--limit", type=int_option(lo=1), default=None,
                        help="replay only the first N published games")


def run(args: argparse.Namespace) -> int:
    """Replay the games and write the rows and the summary (bad input: one line, exit 2,
    from the dispatcher)."""
    doc = replay_file(args.policy, args.games, args.sha256, args.limit)
    atomic_write(args.out, json_text(doc))
    s = doc["summary"]
    print(f"{s['equal']} of {s['games']} replayed games equal (of {s['published']} published)",
          file=sys.stderr)
    return 0
