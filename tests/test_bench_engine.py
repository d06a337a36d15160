"""`drop7 bench engine`, `leaf` and `memory` print one JSON object with their figures."""

from __future__ import annotations

import json

import numpy as np

from cli.main import main
from engines.ntuple.memory_bench import _follow, _link_cycle


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


def test_memory_bench_json(capsys):
    result = _bench(capsys, "memory", "--megabytes", "1,4", "--reads", "20000")
    assert [row["megabytes"] for row in result["footprints"]] == [1, 4]
    assert all(row["ns_per_read"] > 0 for row in result["footprints"])


def test_memory_bench_cycle_visits_every_line():
    lines = 1000
    arr = np.zeros(lines * 8, dtype=np.int64)
    order = np.random.default_rng(3).permutation(lines).astype(np.int64)
    _link_cycle(arr, order)
    seen = {int(_follow(arr, 0, k)) for k in range(lines)}
    assert len(seen) == lines  # one cycle through all lines, never a shorter loop
    assert int(_follow(arr, 0, lines)) == 0


def test_memory_bench_bad_sizes_exit_2(capsys):
    assert main(["bench", "memory", "--megabytes", "4,x"]) == 2
    assert "--megabytes" in capsys.readouterr().err
