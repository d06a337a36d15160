"""`drop7 replay`: records replayed by the fast core against the readable rules."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from engine_cases import random_grid

from engines.drop7 import rules
from engines.drop7.board import grid_to_rows
from engines.drop7.replay import replay_lines

FORMAT = {"format": "drop7-replay-v1", "ruleset": "research"}


def make_record(rng: np.random.Generator, with_start: bool) -> tuple[dict, dict]:
    """A random record and the readable twin's expected replay of it."""
    position = rules.Position()
    record = dict(FORMAT)
    if with_start:
        grid = random_grid(rng, grey_share=0.4, max_height=5)
        position = rules.Position(grid=grid, moves_remaining=int(rng.integers(1, 6)),
                                  level=int(rng.integers(1, 9)), score=int(rng.integers(0, 10**6)))
        record["start"] = {"board": grid_to_rows(np.array(grid)),
                           "moves_remaining": position.moves_remaining,
                           "level": position.level, "score": position.score}
    discs, reveals, moves, log = [], [], [], []
    for m in range(int(rng.integers(1, 80))):
        legal = rules.legal_columns(position.grid)
        column, disc = int(rng.choice(legal)), int(rng.integers(1, 8))

        def draw() -> int:
            reveals.append(int(rng.integers(1, 8)))
            return reveals[-1]

        result = rules.play(position, column, disc, draw)
        discs.append(disc)
        moves.append(column)
        log.append({"move": m, "column": column, "points": result.points,
                    "score": position.score, "waves": result.waves, "popped": result.popped,
                    "cleared": result.cleared, "rose": result.rose,
                    "game_over": result.game_over})
        if result.game_over:
            break
    record.update(discs=discs, reveals=reveals + [int(v) for v in rng.integers(1, 8, 3)],
                  moves=moves)
    final = {"score": position.score, "moves_played": len(moves), "level": position.level,
             "moves_remaining": position.moves_remaining, "game_over": position.game_over,
             "censored": False, "board": grid_to_rows(np.array(position.grid))}
    return record, {"moves": log, "final": final}


def test_corpus_matches_readable_rules():
    rng = np.random.default_rng(4242)
    pairs = [make_record(rng, with_start=i % 3 == 0) for i in range(600)]
    lines = [json.dumps(record) + "\n" for record, _ in pairs]
    results = replay_lines(lines)
    assert len(results) == len(pairs)
    for (_, expected), got in zip(pairs, results, strict=True):
        assert got == expected


def run_cli(text: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", "replay", "-"], input=text,
                          capture_output=True, text=True, check=False)


def test_cli_prints_one_object_per_record():
    rng = np.random.default_rng(7)
    pairs = [make_record(rng, with_start=False) for _ in range(5)]
    proc = run_cli("".join(json.dumps(r) + "\n" for r, _ in pairs))
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out == [expected for _, expected in pairs]


def test_spec_example_shape():
    record = {**FORMAT, "discs": [3, 5, 1, 7], "reveals": [4, 2], "moves": [3, 2, 4, 0]}
    (result,) = replay_lines([json.dumps(record)])
    # Move 2 completes the row run 5-3-1: the 3 pops (run of 3), then the 1 alone pops.
    assert [m["points"] for m in result["moves"]] == [0, 0, 7 + 39, 0]
    assert result["final"]["board"][-2:] == ["7050000", "8889988"]
    assert result["final"]["moves_remaining"] == 1


GOOD = {**FORMAT, "discs": [3, 5], "reveals": [], "moves": [3, 2]}
FULL_COLUMN = {**FORMAT, "discs": [4] * 3, "reveals": [],
               "start": {"board": ["0000008"] * 7, "moves_remaining": 5, "level": 1,
                         "score": 0},
               "moves": [0, 1, 6]}
GAME_OVER = {**FORMAT, "discs": [5, 5], "reveals": [],
             "start": {"board": ["0000008"] * 7, "moves_remaining": 1, "level": 3, "score": 5},
             "moves": [0, 1]}
OUT_OF_REVEALS = {**FORMAT, "discs": [2], "reveals": [],
                  "start": {"board": ["0000000"] * 5 + ["0280000", "8888888"],
                            "moves_remaining": 3, "level": 1, "score": 0},
                  "moves": [3]}


@pytest.mark.parametrize("bad, fragment", [
    ("{not json", "invalid JSON"),
    (json.dumps({**GOOD, "format": "drop7-replay-v2"}), "format"),
    (json.dumps({**GOOD, "ruleset": "normal"}), "ruleset"),
    (json.dumps({**GOOD, "discs": [3, 8]}), "discs[1]"),
    (json.dumps({**GOOD, "moves": [3, 7]}), "moves[1]"),
    (json.dumps(FULL_COLUMN), "move 2: column 6 is full"),
    (json.dumps(GAME_OVER), "move 1: the game is already over"),
    (json.dumps(OUT_OF_REVEALS), "move 0: ran out of reveals"),
    (json.dumps({**GOOD, "start": {"board": ["0000000"] * 5 + ["1000000", "0888888"],
                                   "moves_remaining": 5, "level": 1, "score": 0}}),
     "floating"),
    (json.dumps({**GOOD, "start": {"board": ["000000a"] + ["0000000"] * 6,
                                   "moves_remaining": 5, "level": 1, "score": 0}}),
     "row 0"),
])
def test_bad_record_is_refused_with_no_output(bad, fragment):
    proc = run_cli(json.dumps(GOOD) + "\n" + bad + "\n" + json.dumps(GOOD) + "\n")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "line 2" in proc.stderr and fragment in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_single_bad_record_no_output():
    proc = run_cli(json.dumps(GAME_OVER))
    assert proc.returncode == 2 and proc.stdout == "" and "move 1" in proc.stderr


def test_game_over_at_rise_keeps_zero_countdown():
    record = {**FORMAT, "discs": [5], "reveals": [],
              "start": {"board": ["0000008"] * 7, "moves_remaining": 1, "level": 3, "score": 5},
              "moves": [0]}
    (result,) = replay_lines([json.dumps(record)])
    assert result["final"]["game_over"] and result["final"]["moves_remaining"] == 0
    assert result["final"]["level"] == 3 and result["moves"][0]["points"] == 0
