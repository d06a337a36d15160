"""`drop7 bench engine` and `drop7 bench leaf` print one JSON object with their figures."""

from __future__ import annotations

import json

from engines.drop7.cli import main


def _bench(capsys, *args: str) -> dict:
    assert main(["bench", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_engine_bench_json(capsys):
    result = _bench(capsys, "engine", "--games", "300", "--repeats", "1", "--json")
    assert result["moves_per_s"] > 0 and result["ns_per_move"] > 0
    assert result["moves"] > 300 * 10  # random games last about 27 moves
    assert 40_000 < result["mean_score"] < 120_000


def test_leaf_bench_json(capsys):
    result = _bench(capsys, "leaf", "--games", "20", "--repeats", "1")
    assert result["boards"] > 100 and result["ns_per_eval"] > 0


def test_bad_bench_argument_exits_2(capsys):
    assert main(["bench", "engine", "--games", "0"]) == 2
    assert "--games" in capsys.readouterr().err
