"""Register games: its game streams, and its published fair d3s7 games replayed game for game.

``data/register/fair-d3s7-nnue-evolution-d3-v2.json`` holds per-game results the register
published (its header names the file and commit); a fair d3s7 search with the register's
sampling, on the register's streams of each game's 32-bit seed, must end every game with the
published score after the published number of moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.drop7 import core, register_rng
from engines.drop7.game_loop import play_out
from engines.play.policy import load_policy

GAMES = (Path(__file__).resolve().parents[1] / "data" / "register"
         / "fair-d3s7-nnue-evolution-d3-v2.json")

#: register game 0xA52E1300 as the register's own rng.rs gives it (its ``headless_disc`` and
#: the per-move Mulberry32 of ``play_headless_move``, built in a scratch directory from
#: keshavsaharia/drop7-bench approaches/fair-expectimax/rust-engine/src/rng.rs at
#: ffff8bb08ddc055c7caf5a7def9c5ecf1180ce15): discs of moves 0..11, reveals 0..5 of moves 0, 5
STREAM_SEED = 0xA52E1300
STREAM_DISCS = [4, 1, 3, 1, 3, 6, 6, 3, 4, 1, 4, 2]
STREAM_REVEALS = {0: [7, 4, 7, 5, 4, 1], 5: [1, 4, 3, 5, 4, 7]}


def test_the_register_game_streams() -> None:
    assert [register_rng.game_disc(STREAM_SEED, m) for m in range(12)] == STREAM_DISCS
    for move, want in STREAM_REVEALS.items():
        seed = register_rng.game_reveal_seed(STREAM_SEED, move)
        assert [register_rng.game_reveal(seed, j) for j in range(6)] == want


def _published() -> dict:
    return json.loads(GAMES.read_text(encoding="utf-8"))


def _replay(policy, seed: int) -> tuple[int, int]:
    searcher = policy.searcher
    searcher.reset()
    state = play_out(seed, lambda st, cols: searcher.choose(
        cols, int(st[core.ST_NEXT_DISC]), int(st[core.ST_MOVES_REMAINING])), register=True)
    return int(state[core.ST_SCORE]), int(state[core.ST_MOVES_PLAYED])


#: a published game whose end turns on exact ties between columns: it ends on its published
#: score only when every sample is summed as the register sums them (docs/search.md)
TIED_GAME = "0xa52e1311"


def test_published_fair_d3s7_games_are_reproduced_game_for_game() -> None:
    """The six shortest published games (40-45 moves each) and the tied one, every one to the
    point and the move."""
    doc = _published()
    assert doc["policy"] == "search:leaf=linear,d=3,s=7,sampling=register"
    policy = load_policy(doc["policy"])
    games = sorted(doc["games"], key=lambda g: g["moves"])[:6]
    games += [g for g in doc["games"] if g["seed"] == TIED_GAME]
    assert len(games) == 7
    for g in games:
        assert _replay(policy, int(g["seed"], 16)) == (g["score"], g["moves"]), g


def test_a_register_seed_has_32_bits() -> None:
    with pytest.raises(ValueError, match="32 bits"):
        play_out(1 << 32, lambda st, cols: 3, register=True)
