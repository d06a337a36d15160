"""The referee protocol: external programs play arms; faults counted; a bad start is one line."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from contracts.games_table import read_rows
from engines.drop7 import core
from engines.drop7.board import opening_cols
from engines.drop7.cli import main
from engines.drop7.game_loop import play_out
from engines.play import referee_messages as msg
from engines.play.games import play_game
from engines.play.policy import (
    DEFAULT_GRACE_MS,
    ExternalSpec,
    Policy,
    PolicyError,
    canonical_policy,
    external_policy,
    load_policy,
    parse_policy,
)
from engines.play.runner import Arm, run_shard
from engines.play.serve import serve

PLAYER = Path(__file__).with_name("referee_player.py")
PLAIN = f"{sys.executable} {PLAYER}"
FAIR = "search:leaf=linear,d=3,s=7"
SERVED = f"external:{sys.executable} -m engines.drop7 serve --policy {FAIR}"


@pytest.mark.parametrize("text", [
    "external:python3 player.py",
    "external[movetime=50]:a b",
    "external[movetime=50,grace=0,option.a=x,option.b=2]:drop7 serve --policy search:leaf=zero",
])
def test_external_policy_strings_round_trip(text: str) -> None:
    assert canonical_policy(text) == text
    assert parse_policy(text).external.command == tuple(text.split(":", 1)[1].split())


def test_external_spelling_and_fields() -> None:
    text = "external[option.b=2,grace=10000,option.a=x,movetime=5]:a   b"
    assert canonical_policy(text) == "external[movetime=5,option.a=x,option.b=2]:a b"
    assert parse_policy(text).external == ExternalSpec(("a", "b"), 5, DEFAULT_GRACE_MS,
                                                       (("a", "x"), ("b", "2")))
    assert external_policy(["a", "b"], {"b": 2, "a": "x"}, 5) == canonical_policy(text)
    assert parse_policy("external[movetime=5,grace=20]:a").external.limit_s == 0.025


@pytest.mark.parametrize(("text", "message"), [
    ("external", "expected external[PARAMS]:COMMAND"),
    ("external:", "expected external[PARAMS]:COMMAND"),
    ("external[movetime=5:a", "lack the closing ']'"),
    ("external[depth=3]:a", "unknown parameter 'depth'"),
    ("external[movetime=0]:a", "movetime must be an integer 1..3600000"),
    ("external[grace=1,grace=2]:a", "'grace' given twice"),
    ("external[option.x=a,b]:a", "parameter 'b' is not KEY=VALUE"),
    ("external[option.x=a'b]:a", "option 'x': value"),
    ("external:a 'b c'", "command word \"'b\""),
])
def test_bad_external_policies_are_one_line(text: str, message: str) -> None:
    with pytest.raises(PolicyError) as err:
        parse_policy(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_position_line_round_trips() -> None:
    cols = opening_cols()
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    core.new_game(np.uint64(3), state, cols)
    state[core.ST_SCORE], state[core.ST_LEVEL] = 1234, 2
    line = msg.position_line(state, cols)
    assert line.startswith("position board 0000000/0000000/") and line.endswith(
        f"disc {state[core.ST_NEXT_DISC]} remaining 5 level 2 score 1234")
    pos = msg.parse_position(line)
    assert (pos.cols == cols).all()
    for field in (core.ST_NEXT_DISC, core.ST_MOVES_REMAINING, core.ST_LEVEL, core.ST_SCORE):
        assert pos.state()[field] == state[field]
    with pytest.raises(msg.MessageError, match="floating disc"):
        msg.parse_position(line.replace("0000000/8888888", "1000000/0888888"))


class _Recorder(Policy):
    """Any player, its columns recorded."""

    def __init__(self, inner: Policy) -> None:
        self.spec, self.inner, self.columns = inner.spec, inner, []

    def new_game(self, seed: int) -> None:
        self.inner.new_game(seed)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        self.columns.append(self.inner.choose(state, cols))
        return self.columns[-1]


def test_served_fair_d3s7_plays_the_same_games_as_the_internal_arm() -> None:
    internal, external = _Recorder(load_policy(FAIR)), _Recorder(load_policy(SERVED))
    try:
        for seed in range(1, 5):
            a, b = play_game(internal, seed), play_game(external, seed)
            a.pop("wall_s"), b.pop("wall_s")
            assert a == b and a["unfinished"] == a["illegal"] == 0
        assert internal.columns == external.columns and len(set(internal.columns)) > 2
    finally:
        external.inner.close()


def test_an_external_arm_is_paired_in_shards_like_any_arm() -> None:
    arms = [Arm("plain", f"external:{PLAIN}"), Arm("lowest", "lowest-column")]
    one = run_shard(arms, 40, 4, progress_s=-1)
    two = [r for k in (1, 2) for r in run_shard(arms, 40, 4, k, 2, progress_s=-1)]
    key = lambda r: (r["arm"], r["game"])  # noqa: E731
    strip = lambda rows: sorted(({k: v for k, v in r.items() if k != "wall_s"}  # noqa: E731
                                 for r in rows), key=key)
    assert strip(one) == strip(two)
    assert [r["seed"] for r in one] == [40, 41, 42, 43] * 2


def test_a_plain_python_player_plays_through_drop7_play(tmp_path) -> None:
    out = tmp_path / "games.csv"
    assert main(["play", "--policy", f"external:{PLAIN}", "--seeds", "1:3", "--arm", "plain",
                 "--out", str(out), "--progress-s", "-1"]) == 0
    rows = read_rows(out)
    assert [r["seed"] for r in rows] == ["1", "2", "3"]
    assert all(r["policy"] == f"external:{PLAIN}" for r in rows)
    for r in rows:
        assert int(r["moves"]) == int(r["decisions"]) > 0
        assert r["illegal"] == r["unfinished"] == "0"


def _columns(policy_text: str, seed: int = 1) -> list[int]:
    policy = load_policy(policy_text)
    seen: list[int] = []

    def choose(state: np.ndarray, cols: np.ndarray) -> int:
        seen.append(policy.choose(state, cols))
        return seen[-1]

    try:
        policy.new_game(seed)
        play_out(seed, choose)
    finally:
        policy.close()
    return seen


def test_declared_options_reach_the_program() -> None:
    assert _columns(f"external:{PLAIN}")[0] == 0
    assert _columns(f"external[option.side=right]:{PLAIN}")[0] == 6


@pytest.mark.parametrize(("flags", "all_illegal"), [
    ("--answer banana", True), ("--column 7", True), ("--column -1", True),
    ("--column 3", False)])  # column 3 only once it is full
def test_wrong_answers_are_illegal_decisions(flags: str, all_illegal: bool) -> None:
    log: list[str] = []
    row = play_game(_logged(f"external:{PLAIN} {flags}", log), 2)
    assert row["decisions"] == row["moves"] > 0 and row["unfinished"] == 0
    assert (row["illegal"] == row["decisions"]) if all_illegal else (
        0 < row["illegal"] < row["decisions"])
    assert len(log) == row["illegal"] and "an illegal decision" in log[0]


def _logged(text: str, log: list[str]) -> Policy:
    policy = load_policy(text)
    policy.log = log.append
    return policy


def test_a_time_out_is_unfinished_the_program_is_stopped_and_restarted(tmp_path) -> None:
    log: list[str] = []
    policy = load_policy(f"external[movetime=1,grace=300]:{PLAIN} --sleep-once {tmp_path / 's'}")
    t0 = time.perf_counter()
    row = play_game(policy, 1, log=log.append)
    policy.close()
    assert time.perf_counter() - t0 < 30  # not the 60 s the program sleeps
    assert row["unfinished"] == 1 and row["illegal"] == 0
    assert row["decisions"] == row["moves"] > 2
    assert len(log) == 1 and "no answer within 301 ms (time-out)" in log[0]


def test_a_crash_is_unfinished_and_the_program_restarts(tmp_path) -> None:
    log: list[str] = []
    row = play_game(load_policy(f"external:{PLAIN} --crash-once {tmp_path / 'c'}"), 1,
                    log=log.append)
    assert row["unfinished"] == 1 and row["decisions"] == row["moves"] > 2
    assert "the program exited (exit status 5)" in log[0]


def test_a_program_that_cannot_restart_leaves_every_later_decision_unfinished(tmp_path) -> None:
    log: list[str] = []
    flags = f"--crash-once {tmp_path / 'c'} --start-once {tmp_path / 's'}"
    row = play_game(load_policy(f"external:{PLAIN} {flags}"), 1, log=log.append)
    assert row["decisions"] == row["moves"] > 2
    assert row["unfinished"] == row["decisions"] - 1  # its first decision only was given
    assert len(log) == row["unfinished"] and "exited (exit status 5)" in log[0]
    assert "could not be restarted: the program exited (exit status 4)" in log[1]
    assert all("could not be restarted in this game" in line for line in log[2:])


@pytest.mark.parametrize(("policy", "message"), [
    (f"external:{PLAIN} --no-start", "the program cannot start: the program exited (exit "
     "status 3)"),
    ("external:./no-such-program", "the program cannot start: ./no-such-program: No such file"),
    (f"external[option.depth=3]:{PLAIN}", "does not accept option 'depth' (it accepts: side)"),
])
def test_a_program_that_cannot_start_stops_the_job_with_one_line(tmp_path, capsys, policy,
                                                                 message) -> None:
    out = tmp_path / "games.csv"
    assert main(["play", "--policy", policy, "--seeds", "1:2", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("drop7 play: error: external") and message in err[0]
    assert not out.exists()


def test_serve_answers_the_protocol() -> None:
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = opening_cols()
    core.new_game(np.uint64(9), state, cols)
    lines = [msg.hello_line(), msg.NEWGAME, msg.position_line(state, cols), msg.go_line(50),
             msg.QUIT]
    out = io.StringIO()
    assert serve(load_policy("lowest-column"), io.StringIO("\n".join(lines) + "\n"), out) == 0
    assert out.getvalue() == "name lowest-column\nready\nmove 3\n"


@pytest.mark.parametrize(("lines", "answer"), [
    (["drop7 2"], "error this program speaks protocol version 1 only\n"),
    (["hello"], ""),
    (["drop7 1", "go"], "name centre-first\nready\nerror 'go' before any 'position'\n"),
    (["drop7 1", "setoption side left"],
     "name centre-first\nready\nerror no option 'side' (this program offers none)\n"),
    (["drop7 1", "position board 1/2 disc 1 remaining 5 level 1 score 0"],
     "name centre-first\nready\nerror position board: board must be a list of 7 row strings\n"),
])
def test_serve_refuses_what_it_cannot_read(capsys, lines, answer) -> None:
    out = io.StringIO()
    assert serve(load_policy("centre-first"), io.StringIO("\n".join(lines) + "\n"), out) == 2
    assert out.getvalue() == answer
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("drop7 serve: error: ")
