"""``drop7 serve`` refuses impossible positions in one line and a clear ``error`` answer."""

from __future__ import annotations

import io

import pytest

from cli.main import main
from engines.play import referee_messages as msg
from engines.play.policy import load_policy
from engines.play.serve import serve

OPENING = "0000000/0000000/0000000/0000000/0000000/0000000/8888888"
#: every column full, no disc that would pop (a finished game's board)
FULL = "/".join(["8888888"] * 7)
#: a 1 alone in its column and row: it pops
POPPING = "0000000/0000000/0000000/0000000/0000000/0001000/8888888"


def _position(board: str = OPENING, disc: object = 4, remaining: object = 5, level: object = 1,
              score: object = 0) -> str:
    return (f"position board {board} disc {disc} remaining {remaining} level {level} "
            f"score {score}")


def _serve(capsys, position: str) -> tuple[int, str, list[str]]:
    lines = [msg.hello_line(), msg.NEWGAME, position, msg.go_line(1, None), msg.QUIT]
    out = io.StringIO()
    rc = serve(load_policy("lowest-column"), io.StringIO("\n".join(lines) + "\n"), out)
    return rc, out.getvalue(), capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(("position", "message"), [
    (_position(score=2**63), "position score must be an integer in 0..4611686018427387903"),
    (_position(level=2**64), "position level must be an integer in 1.."),
    (_position(score="9" * 5000), "position score must be an integer in 0.."),
    (_position(disc=0), "position disc must be an integer in 1..7, got '0'"),
    (_position(disc=8), "position disc must be an integer in 1..7, got '8'"),
    (_position(disc=9), "position disc must be an integer in 1..7, got '9'"),
    (_position(remaining=0), "position remaining must be an integer in 1..5, got '0'"),
    (_position(remaining=99), "position remaining must be an integer in 1..5, got '99'"),
    (_position(level=0), "position level must be an integer in 1.."),
    (_position(board=POPPING), "position board: a disc on it would pop"),
    (_position(board=FULL), "'go' on a position with no legal column"),
])
def test_an_impossible_position_is_one_line_and_an_error_answer(capsys, position,
                                                                message) -> None:
    rc, out, err = _serve(capsys, position)
    assert rc == 2
    assert out.startswith("name lowest-column\nready\nerror ") and message in out
    assert "move" not in out and out.count("\n") == 3
    assert len(err) == 1 and err[0].startswith("drop7 serve: error: ") and message in err[0]


def test_a_possible_position_is_played(capsys) -> None:
    rc, out, err = _serve(capsys, _position(score=2**62 - 1, level=2**62 - 1, remaining=1))
    assert (rc, out, err) == (0, "name lowest-column\nready\nmove 3 id 1\n", [])


def test_the_command_answers_an_overflowing_position(capsys, monkeypatch) -> None:
    """The whole command: no OverflowError, exit status 2, one line."""
    lines = [msg.hello_line(), msg.NEWGAME, _position(score=2**63), msg.go_line(1, None),
             msg.QUIT]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["serve", "--policy", "centre-first"]) == 2
    cap = capsys.readouterr()
    assert cap.out.splitlines()[-1].startswith("error position score")
    assert len(cap.err.splitlines()) == 1
