"""The trajectory checksum: its definition, the games table's column and `drop7 replay`.

Screen games are played by the runner; each is played again here with a
recording player (the columns chosen and the score seen at every decision),
then handed to ``drop7 replay`` as a seeded record (seed and moves only):
the checksum it prints, the one computed from the definition and the games
table's must agree.
"""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest

from cli.main import main
from contracts.cli_numbers import seed_hex
from contracts.trajectory import trajectory_checksum, trajectory_text
from engines.drop7 import core
from engines.drop7.game_loop import play_out
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_arm
from engines.play.runner import run_shard
from engines.seedbank import load_bank


def test_definition_is_the_documented_text():
    text = "drop7-trajectory-v1\nseed 0x3000000000000000\n3 7\n2 14\n"
    assert trajectory_text(0x3000000000000000, [3, 2], [7, 14]) == text
    assert trajectory_checksum(0x3000000000000000, [3, 2], [7, 14]) == \
        hashlib.sha256(text.encode()).hexdigest()
    assert trajectory_checksum(0x3000000000000000, [3, 2], [7, 15]) != \
        trajectory_checksum(0x3000000000000000, [3, 2], [7, 14])
    assert seed_hex(1) == "0x0000000000000001"
    with pytest.raises(ValueError):
        trajectory_text(1, [3], [])


def _replay(monkeypatch, capsys, records: list[dict]) -> tuple[int, str, str]:
    """``drop7 replay -`` on JSON lines of ``records``: exit code, stdout, stderr."""
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(json.dumps(r) + "\n" for r in records)))
    code = main(["replay", "-"])
    out = capsys.readouterr()
    return code, out.out, out.err


def _recorded(policy: str, seed: int) -> tuple[list[int], list[int]]:
    """Columns and the score after each move, read from the live game's state."""
    player = load_policy(policy)
    player.new_game(seed)
    moves: list[int] = []
    seen: list[int] = []

    def choose(state: np.ndarray, cols: np.ndarray) -> int:
        if moves:
            seen.append(int(state[core.ST_SCORE]))
        moves.append(int(player.choose(state, cols)))
        return moves[-1]

    state = play_out(seed, choose)
    player.close()
    return moves, seen + [int(state[core.ST_SCORE])]


@pytest.mark.parametrize("policy", ["random", "lowest-column", "search:leaf=linear,d=1,s=1"])
def test_screen_games_replayed_from_seed_and_moves_match(policy, monkeypatch, capsys):
    start = int(load_bank().screen_block(0, 2)[0])
    rows = run_shard([parse_arm(f"a={policy}")], start, 2, progress_s=-1)
    records = []
    for row in rows:
        seed = int(row["seed"])
        moves, scores = _recorded(policy, seed)
        assert len(moves) == row["moves"] and scores[-1] == row["score"]
        assert row["trajectory"] == trajectory_checksum(seed, moves, scores)
        records.append({"format": "drop7-replay-v1", "seed": seed_hex(seed), "moves": moves})
    code, out, _ = _replay(monkeypatch, capsys, records)
    assert code == 0
    printed = [json.loads(line) for line in out.splitlines()]
    assert [p["trajectory"] for p in printed] == [r["trajectory"] for r in rows]
    assert [p["final"]["score"] for p in printed] == [r["score"] for r in rows]


def test_a_changed_move_changes_the_checksum(monkeypatch, capsys):
    seed = 0x3000000000000000
    moves, _ = _recorded("centre-first", seed)
    rows = run_shard([parse_arm("a=centre-first")], seed, 1, progress_s=-1)
    same = _replay(monkeypatch, capsys, [{"format": "drop7-replay-v1", "seed": seed,
                                          "moves": moves}])
    assert json.loads(same[1])["trajectory"] == rows[0]["trajectory"]
    first = moves[:1] + [(moves[1] + 1) % 7]  # two moves into an empty board: both legal
    code, out, _ = _replay(monkeypatch, capsys, [{"format": "drop7-replay-v1", "seed": seed,
                                                  "moves": first}])
    assert code == 0
    assert json.loads(out)["trajectory"] != trajectory_checksum(
        seed, moves[:2], [m["score"] for m in json.loads(same[1])["moves"][:2]])


def test_seeded_record_refuses_a_move_after_the_end(monkeypatch, capsys):
    seed = 0x3000000000000001
    moves, _ = _recorded("centre-first", seed)
    code, _, err = _replay(monkeypatch, capsys, [{"format": "drop7-replay-v1",
                                                  "seed": hex(seed), "moves": moves + [3]}])
    assert code == 2
    assert f"move {len(moves)}: the game is already over" in err and err.count("\n") == 1
