"""Bad replay files: ``drop7 replay`` refuses each with one line naming the file (and the
line), exit 2, no output and no traceback."""

from __future__ import annotations

import json

import pytest

from cli.main import main

GOOD = {"format": "drop7-replay-v1", "ruleset": "research", "discs": [3, 5], "reveals": [],
        "moves": [3, 2]}
EMPTY_BOARD = ["0000000"] * 7


def _start(**changes) -> str:
    start = {"board": EMPTY_BOARD, "moves_remaining": 5, "level": 1, "score": 0, **changes}
    return json.dumps({**GOOD, "start": start})


CASES = {
    "deep nesting": ("[" * 100_000 + "]" * 100_000, "line 1: nested deeper"),
    "deep nesting on a later line": (json.dumps(GOOD) + "\n" + "{\"a\":" * 50_000 + "1"
                                     + "}" * 50_000, "line 2: nested deeper"),
    "a list": ("[1, 2]", "a record must be a JSON object"),
    "a number": ("7", "a record must be a JSON object"),
    "a string": ('"drop7-replay-v1"', "a record must be a JSON object"),
    "discs not a list": (json.dumps({**GOOD, "discs": "35"}), "'discs' must be a list"),
    "a huge list value": (json.dumps({**GOOD, "moves": [[0] * 10_000]}), "moves[0] = list"),
    "a float disc": (json.dumps({**GOOD, "discs": [3.0, 5]}), "discs[0] = 3.0"),
    "a bool move": (json.dumps({**GOOD, "moves": [True, 2]}), "moves[0] = True"),
    "an integer of 5000 digits": ('{"discs": [' + "9" * 5000 + "]}", "line 1: invalid JSON"),
    "an overflowing float": (json.dumps(GOOD).replace("[3, 5]", "[1e400, 5]"), "discs[0] = inf"),
    "a huge start level": (_start(level=10**30), "start level must be an integer in 1..2**62"),
    "a huge start score": (_start(score=2**63), "start score must be an integer in 0..2**62"),
    "a float start score": (_start(score=1.5), "start score"),
    "a huge format string": (json.dumps({**GOOD, "format": "x" * 100_000}), "format must be"),
    "nothing": ("\n\n", "no records"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_replay_file_is_one_line(tmp_path, capsys, case) -> None:
    text, fragment = CASES[case]
    path = tmp_path / "record.json"
    path.write_text(text)
    code = main(["replay", str(path)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and len(captured.err) < 400, captured.err[:400]
    assert f"{path}: " in captured.err and fragment in captured.err, captured.err


@pytest.mark.parametrize("make, fragment", [
    ("missing", "no such file"), ("directory", "is a directory"), ("latin-1", "not UTF-8"),
])
def test_unreadable_replay_file_is_one_line(tmp_path, capsys, make, fragment) -> None:
    path = tmp_path / "record.json"
    if make == "directory":
        path.mkdir()
    elif make == "latin-1":
        path.write_bytes(json.dumps({**GOOD, "ruleset": "r\u00e9search"},
                                    ensure_ascii=False).encode("latin-1"))
    code = main(["replay", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"{path}: {fragment}" in err, err


def test_a_good_record_still_replays(tmp_path, capsys) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(GOOD, indent=2))  # one multi-line document
    assert main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["final"]["moves_played"] == 2
