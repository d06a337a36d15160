"""Differential test: the project's `drop7 replay` CLI against a clean-room replayer.

`tests/cleanroom/replay_cleanroom.py` was written from the written rules of the
game alone (restated in `docs/engine.md`).  Here a few thousand random
`drop7-replay-v1` records (about a third from random start positions chosen to
provoke clears, long chains, double hits on solid greys and rises with
cascades) are replayed by the project's CLI in one process and by the
clean-room code, and the outputs must be identical record by record.
A handful of refusals listed by the spec are checked as well.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from cleanroom.replay_cleanroom import (
    COLS,
    EMPTY,
    ROWS,
    Game,
    ReplayError,
    replay_lines,
    replay_record,
)

REPO = Path(__file__).resolve().parents[1]
N_RECORDS = 3000
SEED = 20240607


def run_cli(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cli", "replay", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --------------------------------------------------------------------------
# Random records
# --------------------------------------------------------------------------
def _cell(rng: random.Random, p_grey: float, small: bool) -> int:
    if rng.random() < p_grey:
        return 8 if rng.random() < 0.6 else 9
    if small:
        return rng.choice([1, 1, 2, 2, 3, 4, 5, 6, 7])
    return rng.randint(1, 7)


def random_start(rng: random.Random) -> dict:
    """A valid (bottom-packed) start position of one of a few flavours."""
    kind = rng.choice(["empty", "sparse", "sparse", "dense", "greywall", "tall", "brim"])
    moves_remaining = rng.randint(1, 5)
    heights = []
    grid = [[EMPTY] * COLS for _ in range(ROWS)]
    # "brim": every column 6 or 7 high, at most moves_remaining of them 6, so
    # filling them all before the rise ends the game with no legal column.
    brim_open = set(rng.sample(range(COLS), rng.randint(1, moves_remaining)))
    for c in range(COLS):
        if kind == "brim":
            h = ROWS - 1 if c in brim_open else ROWS
        elif kind == "empty":
            h = 0
        elif kind == "sparse":  # few numbered discs, no greys: clears
            h = rng.choice([0, 0, 0, 1, 1, 2])
        elif kind == "dense":  # chains
            h = rng.randint(0, 6)
        elif kind == "greywall":  # grey rows with discs on top: double hits
            h = rng.randint(2, 6)
        else:  # near the top: game overs, full columns
            h = rng.randint(5, 7)
        heights.append(h)
    if all(h == ROWS for h in heights):
        heights[rng.randrange(COLS)] = ROWS - 1
    for c, h in enumerate(heights):
        for i in range(h):
            r = ROWS - 1 - i
            if kind == "sparse":
                v = _cell(rng, 0.0, small=True)
            elif kind == "greywall":
                v = _cell(rng, 0.85 if i < 2 else 0.2, small=True)
            elif kind == "dense":
                v = _cell(rng, 0.3, small=False)
            elif kind == "brim":
                v = _cell(rng, 0.85, small=False)
            else:
                v = _cell(rng, 0.4, small=False)
            grid[r][c] = v
    return {
        "board": ["".join(str(v) for v in row) for row in grid],
        "kind": kind,
        "moves_remaining": moves_remaining,
        "level": rng.randint(1, 40),
        "score": rng.choice([0, rng.randint(0, 2_000_000)]),
    }


def _height(board: list[list[int]], c: int) -> int:
    return sum(1 for r in range(ROWS) if board[r][c] != EMPTY)


def _seek_clear(game: Game, legal: list[int], disc: int, column: int) -> tuple[int, int]:
    """A (disc, column) whose drop clears the board, if one exists; else the given one."""
    n = sum(1 for row in game.board for v in row if v != EMPTY)
    if n > 4:
        return disc, column
    for d in range(1, 8):
        for c in legal:
            trial = Game(
                list(game.reveals[game.next_reveal :]),
                board=game.board,
                moves_remaining=game.moves_remaining,
            )
            try:
                if trial.play(d, c)["cleared"]:
                    return d, c
            except ReplayError:
                pass
    return disc, column


def random_record(rng: random.Random) -> dict:
    record: dict = {"format": "drop7-replay-v1", "ruleset": "research"}
    start = random_start(rng) if rng.random() < 0.34 else None
    kind = start.pop("kind") if start is not None else "opening"
    if start is not None:
        record["start"] = start
    # Column policy: mostly uniform over legal columns; near-empty starts seek
    # clears, and some records fill the tallest column (full-board game overs).
    policy = "random"
    if kind in ("empty", "sparse") and rng.random() < 0.7:
        policy = "clear"
    elif kind == "brim" or rng.random() < 0.15:
        policy = "fill"
    target = rng.choice([rng.randint(0, 12), rng.randint(0, 60), rng.randint(0, 250)])
    reveals = [rng.randint(1, 7) for _ in range(60 + 4 * target)]
    kwargs = {}
    if start is not None:
        kwargs = {
            "board": [[int(ch) for ch in row] for row in start["board"]],
            "moves_remaining": start["moves_remaining"],
            "level": start["level"],
            "score": start["score"],
        }
    game = Game(reveals, **kwargs)
    discs: list[int] = []
    moves: list[int] = []
    while len(moves) < target and not game.game_over:
        legal = game.legal_columns()
        if not legal:
            break
        disc = rng.randint(1, 7)
        column = rng.choice(legal)
        if policy == "clear":
            disc, column = _seek_clear(game, legal, disc, column)
        elif policy == "fill":
            column = max(legal, key=lambda c: (_height(game.board, c), rng.random()))
        try:
            game.play(disc, column)
        except ReplayError:  # ran out of reveals: keep the prefix
            break
        discs.append(disc)
        moves.append(column)
    used = game.next_reveal
    # Half the records carry exactly the reveals they consume (boundary),
    # the rest carry extra values, which must be ignored.
    record["discs"] = discs
    record["reveals"] = reveals[:used] if rng.random() < 0.5 else reveals
    record["moves"] = moves
    return record


def _first_difference(a: dict, b: dict) -> str:
    for i, (x, y) in enumerate(zip(a["moves"], b["moves"], strict=False)):
        if x != y:
            return f"move {i}: engine {x} vs clean-room {y}"
    if len(a["moves"]) != len(b["moves"]):
        return f"move count {len(a['moves'])} vs {len(b['moves'])}"
    return f"final: engine {a['final']} vs clean-room {b['final']}"


def test_engine_matches_cleanroom(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    records = [random_record(rng) for _ in range(N_RECORDS)]
    lines = [json.dumps(r) for r in records]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(lines) + "\n")

    stats: Counter = Counter()
    expected = replay_lines(lines, stats)

    proc = run_cli(path)
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(got) == len(records)

    mismatches = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if g != e]
    if mismatches:
        i = mismatches[0]
        pytest.fail(
            f"{len(mismatches)} of {len(records)} records differ; first is line {i + 1}:\n"
            f"record: {lines[i]}\n{_first_difference(got[i], expected[i])}"
        )

    # The corpus must actually exercise the rules it is meant to check.
    stats["records"] = len(records)
    stats["records_with_start"] = sum("start" in r for r in records)
    print("\nclean-room corpus:", dict(sorted(stats.items())))
    assert stats["moves"] > 40_000
    assert stats["clears"] >= 100
    assert stats["rises"] >= 1_000
    assert stats["rise_cascades"] >= 200
    assert stats["solid_double_hit"] >= 100
    assert stats["cracked_revealed"] >= 1_000
    assert stats["game_over_at_rise"] >= 100
    assert stats["game_over_full"] >= 20
    assert stats["max_depth"] >= 8


# --------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------
GOOD = {
    "format": "drop7-replay-v1",
    "ruleset": "research",
    "discs": [3, 5, 1, 7],
    "reveals": [4, 2],
    "moves": [3, 2, 4, 0],
}
FULL_COL3 = ["0008000"] * 6 + ["8888888"]
FLOAT = ["0000000", "0000000", "0000000", "0000000", "0000000", "0003000", "8880888"]
NEAR_TOP = ["0000000"] + ["8888888"] * 6


def _rec(**kw: object) -> str:
    r = dict(GOOD)
    r.update(kw)
    return json.dumps(r)


BAD_LINES = {
    "bad_json": '{"format": "drop7-replay-v1", "discs": [1,',
    "other_format": _rec(format="drop7-replay-v0"),
    "other_ruleset": _rec(ruleset="normal"),
    "disc_zero": _rec(discs=[3, 0, 1, 7]),
    "disc_eight": _rec(discs=[3, 5, 8, 7]),
    "column_negative": _rec(moves=[3, -1, 4, 0]),
    "column_seven": _rec(moves=[3, 2, 7, 0]),
    "full_column": _rec(
        start={"board": FULL_COL3, "moves_remaining": 5, "level": 1, "score": 0},
        discs=[5, 5],
        moves=[0, 3],
    ),
    # Row 0 already occupied (a 5 on a column 7 high: no popper) and one move
    # to the rise: move 0 ends the game at the rise, move 1 must be refused.
    "move_after_game_over": _rec(
        start={
            "board": ["5000000"] + ["8888888"] * 6,
            "moves_remaining": 1,
            "level": 3,
            "score": 10,
        },
        discs=[6, 6],
        reveals=[],
        moves=[3, 4],
    ),
    # Drop a 1 on the opening row: it pops and cracks the grey under it; two
    # more 1s on the same cell crack then reveal it -> needs a reveal.
    "out_of_reveals": _rec(discs=[1, 1], reveals=[], moves=[2, 2]),
    "floating_disc": _rec(start={"board": FLOAT, "moves_remaining": 5, "level": 1, "score": 0}),
}


# The move each refusal must name (None: the record is refused as a whole).
BAD_MOVE = {
    "disc_zero": 1,
    "disc_eight": 2,
    "column_negative": 1,
    "column_seven": 2,
    "full_column": 1,
    "move_after_game_over": 1,
    "out_of_reveals": 1,
}


def _cleanroom_refuses(line: str) -> bool:
    try:
        replay_record(json.loads(line))
    except (ReplayError, json.JSONDecodeError):
        return True
    return False


def _cli_in_process(path: Path, monkeypatch: pytest.MonkeyPatch, capfd) -> tuple[int, str, str]:
    """The `drop7` console script's entry point, called in this process."""
    from cli.main import main

    monkeypatch.setattr(sys, "argv", ["drop7", "replay", str(path)])
    try:
        rc = main()
    except SystemExit as exc:
        rc = exc.code
    out, err = capfd.readouterr()
    return (0 if rc is None else rc), out, err


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_refusals(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch, capfd) -> None:
    """A refusal at line 3 of a JSON-lines file, followed by a good line and
    another bad one: exit 2, nothing on stdout, one stderr line naming line 3
    (and the move, for a move-level refusal)."""
    bad = BAD_LINES[name]
    assert _cleanroom_refuses(bad), f"clean-room accepts {name}"
    good = json.dumps(GOOD)
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join([good, good, bad, good, _rec(discs=[3, 9, 1, 7])]) + "\n")
    rc, out, err = _cli_in_process(path, monkeypatch, capfd)
    assert rc == 2, (rc, out, err)
    assert out == ""
    err = err.strip()
    assert err and "\n" not in err, err
    assert "line 3" in err, err
    move = BAD_MOVE.get(name)
    if move is not None:
        assert f"move {move}" in err or f"[{move}]" in err, err


def test_single_bad_record_process(tmp_path: Path) -> None:
    """End to end through `python -m cli`: exit status 2, no output."""
    path = tmp_path / "one.json"
    path.write_text(BAD_LINES["out_of_reveals"] + "\n")
    proc = run_cli(path)
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    err = proc.stderr.strip()
    assert err and "\n" not in err and "line 1" in err and "move 1" in err, err
