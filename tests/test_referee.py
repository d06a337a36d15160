"""The referee protocol: external programs play arms; faults counted; a bad start is one line."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from contracts.games_table import read_rows
from engines.drop7 import core
from engines.drop7.board import opening_cols
from engines.drop7.game_loop import play_out
from engines.play import referee_messages as msg
from engines.play.arm_specs import DEFAULT_GRACE_MS, ExternalSpec, PolicyError
from engines.play.games import play_game
from engines.play.players import Policy
from engines.play.policy import load_policy
from engines.play.policy_grammar import canonical_policy, external_spec, parse_arm, parse_policy
from engines.play.runner import run_shard
from engines.play.serve import serve

PLAYER = Path(__file__).with_name("referee_player.py")
PLAIN = f"{sys.executable} {PLAYER}"
FAIR = "search:leaf=linear,d=3,s=7"
SERVED = f"external:{sys.executable} -m cli serve --policy {FAIR}"


@pytest.mark.parametrize("text", [
    "external:python3 player.py",
    "external[movetime=50]:a b",
    "external[movetime=50,grace=0,option.a=x,option.b=2]:drop7 serve --policy search:leaf=zero",
])
def test_external_policy_strings_round_trip(text: str) -> None:
    assert canonical_policy(text) == text
    assert parse_policy(text).command == tuple(text.split(":", 1)[1].split())


def test_external_spelling_and_fields() -> None:
    text = "external[option.b=2,grace=10000,option.a=x,movetime=5]:a   b"
    assert canonical_policy(text) == "external[movetime=5,option.a=x,option.b=2]:a b"
    assert parse_policy(text) == ExternalSpec(("a", "b"), 5, DEFAULT_GRACE_MS,
                                                       (("a", "x"), ("b", "2")))
    assert external_spec(["a", "b"], {"b": 2, "a": "x"}, 5).format() == canonical_policy(text)
    assert parse_policy("external[movetime=5,grace=20]:a").limit_s == 0.025


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
    arms = [parse_arm(f"plain=external:{PLAIN}"), parse_arm("lowest=lowest-column")]
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
    lines = [msg.hello_line(), msg.NEWGAME, msg.position_line(state, cols), msg.go_line(7, 50),
             msg.QUIT]
    out = io.StringIO()
    assert serve(load_policy("lowest-column"), io.StringIO("\n".join(lines) + "\n"), out) == 0
    assert out.getvalue() == "name lowest-column\nready\nmove 3 id 7\n"


@pytest.mark.parametrize(("lines", "answer"), [
    (["drop7 1"], "error this program speaks protocol version 2 only\n"),
    (["hello"], ""),
    (["drop7 2", "go id 1"], "name centre-first\nready\nerror 'go' before any 'position'\n"),
    (["drop7 2", "newgame", "position board 0000000/0000000/0000000/0000000/0000000/0000000/"
      "8888888 disc 1 remaining 5 level 1 score 0", "go"],
     "name centre-first\nready\nerror expected 'go id N' or 'go id N movetime MS', got 'go'\n"),
    (["drop7 2", "setoption side left"],
     "name centre-first\nready\nerror no option 'side' (this program offers none)\n"),
    (["drop7 2", "position board 1/2 disc 1 remaining 5 level 1 score 0"],
     "name centre-first\nready\nerror position board: board must be a list of 7 row strings\n"),
])
def test_serve_refuses_what_it_cannot_read(capsys, lines, answer) -> None:
    out = io.StringIO()
    assert serve(load_policy("centre-first"), io.StringIO("\n".join(lines) + "\n"), out) == 2
    assert out.getvalue() == answer
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("drop7 serve: error: ")


def _leftmost(cols: np.ndarray) -> int:
    return next(c for c in range(7) if core.is_legal(cols, c))


def test_a_surplus_move_is_a_fault_and_does_not_shift_later_answers() -> None:
    """The player writes its answer to its 3rd go twice: the copy is read while the 4th go is
    pending, refused as a surplus line (that decision illegal, logged with the seed), and
    every other answer is the program's own answer to its own position."""
    log: list[str] = []
    policy = _logged(f"external:{PLAIN} --extra-move-at 3", log)
    answers: list[tuple[int, int]] = []

    class Check(Policy):
        spec = policy.spec

        def new_game(self, seed: int) -> None:
            policy.new_game(seed)

        def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
            answers.append((policy.choose(state, cols), _leftmost(cols)))
            return answers[-1][0]

    try:
        row = play_game(Check(), 2)
    finally:
        policy.close()
    assert row["illegal"] == 1 and row["unfinished"] == 0 and len(answers) > 6
    assert answers[3][0] == -1
    assert all(got == want for i, (got, want) in enumerate(answers) if i != 3)
    assert log[0].startswith("seed 2 move 3: plain-python player wrote 'move 0 id 3' while "
                             "go 4 was pending: a surplus line")
    assert policy.surplus == 1 and len(log) == 2 and "1 surplus lines in 1 games" in log[1]


def test_a_surplus_line_after_the_last_decision_is_logged_at_the_end() -> None:
    decisions = len(_columns(f"external:{PLAIN}", 2))
    log: list[str] = []
    policy = _logged(f"external:{PLAIN} --extra-move-at {decisions}", log)
    row = play_game(policy, 2)
    assert row["illegal"] == 0 and not log
    policy.close()
    assert policy.surplus == 1 and f" id {decisions}' after its last decision" in log[0]
    assert log[1].endswith("0 late answers (within the grace, played) and 1 surplus lines in 1 "
                           "games")


def test_an_illegal_answer_names_the_seed_and_the_move() -> None:
    log: list[str] = []
    row = play_game(_logged(f"external:{PLAIN} --answer banana", log), 3)
    assert len(log) == row["illegal"] > 2
    assert [line.split(":")[0] for line in log[:2]] == ["seed 3 move 0", "seed 3 move 1"]
    assert "answered 'banana' to go 1, not 'move C id 1': an illegal decision" in log[0]


def test_a_program_that_closes_its_output_is_reported_as_such(tmp_path) -> None:
    log: list[str] = []
    row = play_game(load_policy(f"external:{PLAIN} --close-output-once {tmp_path / 'c'}"), 1,
                    log=log.append)
    assert row["unfinished"] == 1 and row["decisions"] == row["moves"] > 2
    assert "the program closed its output (it had not exited)" in log[0]
    assert "the program exited" not in log[0]


def test_a_late_answer_within_the_grace_is_played_logged_and_counted() -> None:
    log: list[str] = []
    policy = _logged(f"external[movetime=1,grace=5000]:{PLAIN} --delay-ms 5", log)
    row = play_game(policy, 1)
    assert row["illegal"] == row["unfinished"] == 0 and policy.late == row["decisions"] > 2
    assert len(log) == 1 and log[0].startswith("seed 1 move 0: plain-python player answered in ")
    assert "beyond its movetime of 1 ms (within the grace): a late answer, played" in log[0]
    policy.close()
    assert log[1].endswith(f"{row['decisions']} late answers (within the grace, played) and 0 "
                           "surplus lines in 1 games")


@pytest.mark.parametrize(("line", "answer"), [
    ("move 3 id 7", (3, 7)),
    ("move 3 id 7\r", (3, 7)),  # CRLF
    ("move 3 id 7 ", (3, 7)),  # a trailing space
    ("  move  03 id 007", (3, 7)),  # leading zeros, runs of spaces
    ("move 9 id 7", (9, 7)),  # an answer, off the board: the harness says illegal
    ("move +3 id 7", None),
    ("move -1 id 7", None),
    ("move 3", None),  # version 1's answer
    ("move 3 id", None),
    ("move 3 id 7 x", None),
    ("move \uff13 id 7", None),
    ("Move 3 id 7", None),
])
def test_what_an_answer_may_look_like(line: str, answer: tuple[int, int] | None) -> None:
    assert msg.parse_move(line) == answer


def test_go_lines_carry_the_decision_number() -> None:
    assert msg.go_line(5, None) == "go id 5" and msg.go_line(5, 200) == "go id 5 movetime 200"
    assert msg.parse_go("go id 5 movetime 200") == msg.Go(5, 200)
    assert msg.parse_go(msg.go_line(12, None)) == msg.Go(12, None)
    for bad in ("go", "go movetime 200", "go id x", "go id 5 movetime"):
        with pytest.raises(msg.MessageError):
            msg.parse_go(bad)


_COMPILES = """
import sys
from numba.core import event
from engines.play import runner
from engines.play.policy_grammar import parse_arm
compiles, game_row = [], runner._game_row
def counted(*args, **kwargs):
    with event.install_recorder("numba:compiler_lock") as rec:
        row = game_row(*args, **kwargs)
    compiles.append(len(rec.buffer))
    return row
runner._game_row = counted
runner.run_shard([parse_arm(f"a={sys.argv[1]}")], 1, 2, workers=int(sys.argv[2]), progress_s=-1)
print(compiles)
"""


def test_no_game_wall_time_counts_the_harness_start_up() -> None:
    """A fresh process compiles (or loads from numba's cache) the driver before the first game,
    not inside it: no game of an external arm takes the compiler's lock."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _COMPILES, f"external:{PLAIN}", "1"],
                         capture_output=True, text=True, timeout=600, check=True).stdout
    assert out.strip() == "[0, 0]"


def test_the_referee_bench_times_every_decision(capsys) -> None:
    import json

    assert main(["bench", "referee", "--policy", f"external:{PLAIN}", "--games", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["benchmark"] == "referee" and out["games"] == 2 and out["decisions"] > 10
    assert 0 < out["us_median"] <= out["us_p90"] and len(out["load_1min"]) == 2
    assert main(["bench", "referee", "--policy", "random"]) == 2
    assert "times an external policy" in capsys.readouterr().err


def test_the_documented_centre_first_and_lowest_column_are_the_code() -> None:
    """docs/referee.md defines both baselines by one order; rebuilt from the page's words, they
    choose what the engine's baselines and the driver's fallback choose on real positions."""
    import re

    from engines.drop7 import baselines
    from engines.drop7.nibbles import col_height
    from engines.play.games import centre_first

    page = (Path(__file__).parents[1] / "docs" / "referee.md").read_text()
    order = [int(c) for c in re.search(r"\*\*(\d(?:,\s+\d){6})\*\*", page).group(1).split(",")]

    def documented(cols: np.ndarray, lowest: bool) -> int:
        legal = [c for c in order if core.is_legal(cols, c)]
        return min(legal, key=lambda c: int(col_height(cols[c]))) if lowest else legal[0]

    checked = 0
    for seed in range(1, 41):
        def choose(state: np.ndarray, cols: np.ndarray, seed=seed) -> int:
            nonlocal checked
            for lowest, policy in ((False, baselines.POLICY_CENTRE_FIRST),
                                   (True, baselines.POLICY_LOWEST_COLUMN)):
                assert documented(cols, lowest) == baselines.baseline_choice(policy, 0, state,
                                                                             cols)
            assert documented(cols, False) == centre_first(cols)
            checked += 1
            return int(baselines.baseline_choice(seed % 3, seed, state, cols))

        play_out(seed, choose)
    assert checked > 500 and documented(opening_cols(), True) == 3
