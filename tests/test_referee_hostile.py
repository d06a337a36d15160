"""Hostile programs: a full input pipe is a time-out, a game's time-outs are capped, a player's
children die with it and with the harness, raw bytes reach no log."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines.play import referee_start
from engines.play.external_policy import GAME_TIMEOUTS
from engines.play.games import play_game
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_policy
from engines.play.referee_program import QUIT_LIMIT_S, ProgramError

HOSTILE = Path(__file__).with_name("hostile_player.py")
PLAYER = f"{sys.executable} {HOSTILE}"
REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail (not hang) when the block takes longer than ``seconds``."""
    def expire(_signum: int, _frame: object) -> None:
        raise AssertionError(f"still running after {seconds} s (a hang)")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie no one has reaped yet does not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def gone(pids: list[int], seconds: float = 5.0) -> bool:
    """Whether every pid has stopped within ``seconds``; kills the survivors (no test leaves a
    process behind)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.05)
    survivors = [p for p in pids if alive(p)]
    for p in survivors:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    return not survivors


def pids_of(path: Path, seconds: float = 10.0) -> list[int]:
    end = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < end, f"{path} was not written"
        time.sleep(0.05)
    return [int(w) for w in path.read_text().split()]


@pytest.mark.parametrize(("params", "message"), [
    ("option.side=right", "input pipe stayed full .*: not started within 1 s"),  # setoption
    ("grace=200", r"input pipe stayed full .* within 200 ms \(movetime \+ grace\)"),  # newgame
])
def test_a_full_input_pipe_is_a_time_out_of_the_check(monkeypatch, params, message) -> None:
    monkeypatch.setattr(referee_start, "START_LIMIT_S", 1.0)
    ext = parse_policy(f"external[{params}]:{PLAYER} --fill-after-ready")
    with within(10), pytest.raises(ProgramError, match=message):
        referee_start.check_program(ext)


def test_a_full_input_pipe_at_newgame_is_unfinished_and_the_game_is_capped() -> None:
    log: list[str] = []
    policy = load_policy(f"external[movetime=1,grace=200]:{PLAYER} --fill-after-ready")
    with within(20):
        row = play_game(policy, 3, log=log.append)
        policy.close()
    assert row["unfinished"] == row["decisions"] == row["moves"] > GAME_TIMEOUTS
    timeouts = [line for line in log if "input pipe stayed full" in line]
    assert len(timeouts) == GAME_TIMEOUTS
    assert all("timed out 3 times in this game" in line for line in log[len(timeouts):])


def test_a_full_input_pipe_at_quit_does_not_hang_the_close() -> None:
    policy = load_policy(f"external:{PLAYER} --fill-after-ready")
    pid = policy.program.proc.pid
    with within(2 * QUIT_LIMIT_S + 3):
        policy.close()
    assert gone([pid], 1)


def test_a_silent_program_costs_at_most_the_game_cap() -> None:
    log: list[str] = []
    policy = load_policy(f"external[movetime=1,grace=100]:{PLAYER} --silent")
    t0 = time.monotonic()
    with within(20):
        row = play_game(policy, 4, log=log.append)
        policy.close()
    assert row["unfinished"] == row["decisions"] == row["moves"]
    assert sum("(time-out)" in line for line in log) == GAME_TIMEOUTS
    assert time.monotonic() - t0 < 10
    with within(20):  # the next game tries again
        row = play_game(policy, 5, log=log.append)
        policy.close()
    assert sum("(time-out)" in line for line in log) == 2 * GAME_TIMEOUTS


def test_a_players_child_is_killed_after_quit(tmp_path) -> None:
    policy = load_policy(f"external:{PLAYER} --child {tmp_path / 'pids'}")
    pids = pids_of(tmp_path / "pids")
    policy.close()
    assert gone(pids, 3)


HARNESS = """
import sys, time
from engines.play.policy import load_policy
policy = load_policy(sys.argv[1])
print("started", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_harness_takes_its_player_and_the_players_child(tmp_path, how) -> None:
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    harness = subprocess.Popen([sys.executable, str(script),
                                f"external:{PLAYER} --child {tmp_path / 'pids'}"],
                               env=env, stdout=subprocess.PIPE, cwd=tmp_path)
    try:
        assert harness.stdout.readline() == b"started\n"
        pids = pids_of(tmp_path / "pids")
        assert all(alive(p) for p in pids)
        harness.send_signal(how)
        harness.wait(10)
        assert gone(pids)
    finally:
        harness.kill()
        harness.wait()
        harness.stdout.close()


def test_raw_bytes_from_a_program_are_escaped_in_the_logs() -> None:
    log: list[str] = []
    policy = load_policy(f"external:{PLAYER} --name bad%1b[2Jname%ff "
                         "--answer %1b]0;owned%07%fe")
    policy.log = log.append
    with within(60):
        row = play_game(policy, 2, log=log.append)
        policy.close()
    assert row["illegal"] == row["decisions"] > 0
    assert log and all(line.isascii() and line.isprintable() for line in log)
    assert "bad\\x1b[2Jname\\xff answered" in log[0]  # the name, as the program wrote it
    assert "x1b]0;owned" in log[0] and "x07" in log[0] and "xfe" in log[0]
