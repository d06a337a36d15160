"""``drop7 leaf-terms``: good lines, and every kind of bad line refused whole."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from cli.main import main
from engines.drop7.board import OPENING_ROWS, rows_to_cols
from engines.leaves import linear
from engines.leaves.kinds import N_TERMS

MID = ["0000000", "0000000", "0000000", "0001000", "0024300", "1988650", "8898888"]


def state(board=MID, moves_remaining=3, next_disc=4, **extra) -> str:
    return json.dumps({"board": list(board), "moves_remaining": moves_remaining,
                       "next_disc": next_disc, **extra})


def run_cli(tmp_path, lines: list[str], capsys) -> tuple[int, str, str]:
    path = tmp_path / "states.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    code = main(["leaf-terms", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_good_lines(tmp_path, capsys):
    code, out, err = run_cli(tmp_path, [state(), "", state(OPENING_ROWS, 5, 2)], capsys)
    assert code == 0 and err == ""
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 2
    for record, (board, mr, disc) in zip(records, [(MID, 3, 4), (OPENING_ROWS, 5, 2)],
                                         strict=True):
        cols = rows_to_cols(list(board))
        expected = np.zeros(N_TERMS)
        linear.linear_terms(cols, mr, disc, expected)
        assert record["terms"] == expected.tolist()
        assert all(isinstance(x, float) for x in record["terms"])
        assert record["value"] == linear.linear_value(cols, mr, disc, linear.FAIR_WEIGHTS)
    assert records[1]["value"] == pytest.approx(-2517.5)


def test_reads_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(state() + "\n"))
    assert main(["leaf-terms", "-"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


BAD = {
    "invalid JSON": '{"board": [',
    "not an object": "[1, 2, 3]",
    "bad board code": state(["000000a"] + MID[1:]),
    "short row": state(["000000"] + MID[1:]),
    "six rows": state(MID[1:]),
    "floating disc": state(["0000000"] * 5 + ["0100000", "8088888"]),
    "moves_remaining 0": state(moves_remaining=0),
    "moves_remaining 6": state(moves_remaining=6),
    "moves_remaining bool": state(moves_remaining=True),
    "moves_remaining string": state(moves_remaining="3"),
    "moves_remaining float": state(moves_remaining=3.0),
    "next_disc 0": state(next_disc=0),
    "next_disc 8": state(next_disc=8),
    "missing board": json.dumps({"moves_remaining": 3, "next_disc": 4}),
    "missing moves_remaining": json.dumps({"board": MID, "next_disc": 4}),
    "missing next_disc": json.dumps({"board": MID, "moves_remaining": 3}),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_line_is_refused_whole(tmp_path, capsys, kind):
    # A good line first and after: nothing at all may be printed.
    code, out, err = run_cli(tmp_path, [state(), "", BAD[kind], state()], capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "line 3" in err


def test_empty_input_and_missing_file(tmp_path, capsys):
    code, out, err = run_cli(tmp_path, [], capsys)
    assert (code, out) == (2, "") and "no states" in err
    assert main(["leaf-terms", str(tmp_path / "absent.jsonl")]) == 2
    assert capsys.readouterr().out == ""
