"""``drop7 play`` and ``drop7 run-arms``: outputs, merges and exit status 2 on bad input."""

from __future__ import annotations

import pytest

from cli.main import main
from contracts.games_table import read_rows


def _strip(rows: list[dict]) -> list[tuple]:
    return [tuple(v for k, v in r.items() if k != "wall_s") for r in rows]


def test_play_writes_one_row_per_seed(tmp_path, capsys) -> None:
    out = tmp_path / "games.csv"
    assert main(["play", "--policy", "centre-first", "--seeds", "5:3", "--out", str(out)]) == 0
    rows = read_rows(out)
    assert [r["seed"] for r in rows] == ["5", "6", "7"]
    assert {r["arm"] for r in rows} == {"centre-first"}
    assert "mean score" in capsys.readouterr().err


def test_play_canonicalises_the_policy_as_arm(tmp_path) -> None:
    out = tmp_path / "g.csv"
    assert main(["play", "--policy", "direct:s=7,leaf=zero", "--seeds", "1:1", "--out",
                 str(out)]) == 0
    assert read_rows(out)[0]["arm"] == "direct:leaf=zero"


def test_run_arms_shards_and_merge(tmp_path) -> None:
    arms = ["--arm", "r=random", "--arm", "z=direct:leaf=zero"]
    whole = tmp_path / "whole.csv"
    assert main(["run-arms", *arms, "--seeds", "3:4", "--out", str(whole)]) == 0
    shards = []
    for k in (1, 2):
        path = tmp_path / f"s{k}.csv"
        assert main(["run-arms", *arms, "--seeds", "3:4", "--shard", f"{k}/2", "--out",
                     str(path), "--progress-s", "0"]) == 0
        shards.append(str(path))
    merged = tmp_path / "merged.csv"
    assert main(["run-arms", "--merge", *shards, "--seeds", "3:4", "--out", str(merged)]) == 0
    assert _strip(read_rows(merged)) == _strip(read_rows(whole))


@pytest.mark.parametrize("argv", [
    ["play", "--policy", "greedy", "--seeds", "1:2", "--out", "{out}"],
    ["play", "--policy", "search:leaf=linear,d=9", "--seeds", "1:2", "--out", "{out}"],
    ["play", "--policy", "random", "--seeds", "1:0", "--out", "{out}"],
    ["play", "--policy", "random", "--seeds", "1:2", "--shard", "3/2", "--out", "{out}"],
    ["play", "--policy", "random", "--seeds", "1:2", "--budget-s", "0", "--out", "{out}"],
    ["play", "--policy", "direct:leaf=ntuple:/no/such/dir", "--seeds", "1:2", "--out",
     "{out}"],
    ["run-arms", "--seeds", "1:2", "--out", "{out}"],
    ["run-arms", "--arm", "a=random", "--out", "{out}"],
    ["run-arms", "--arm", "a=random", "--arm", "a=centre-first", "--seeds", "1:2", "--out",
     "{out}"],
    ["run-arms", "--arm", "bad name=random", "--seeds", "1:2", "--out", "{out}"],
    ["run-arms", "--merge", "{missing}", "--out", "{out}"],
    ["run-arms", "--merge", "{missing}", "--arm", "a=random", "--out", "{out}"],
])
def test_bad_input_exits_2_with_one_line_and_no_output(tmp_path, capsys, argv) -> None:
    out = tmp_path / "out.csv"
    argv = [a.format(out=out, missing=tmp_path / "missing.csv") for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error" in err[0]
    assert not out.exists()
