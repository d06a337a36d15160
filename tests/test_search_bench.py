"""``drop7 bench search``: the JSON it prints and its refusals; a cold compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cli.main import main


def test_bench_prints_the_figures(capsys) -> None:
    argv = ["bench", "search", "--leaf", "zero", "--depth", "2", "--strata", "7",
            "--positions", "4", "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("decisions_per_s", "nodes_per_s", "median_decision_s", "leaves_per_s"):
        assert result[key] > 0
    assert (result["leaf"], result["depth"], result["strata"], result["decisions"]) == (
        "zero", 2, 7, 4)
    assert result["reveals"] is None


def test_bench_times_the_factored_node(capsys) -> None:
    base = ["bench", "search", "--leaf", "zero", "--depth", "2", "--positions", "6", "--json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*base, "--reveals", "3"]) == 0
    factored = json.loads(capsys.readouterr().out)
    assert factored["reveals"] == 3
    assert factored["mean_nodes"] > plain["mean_nodes"]


@pytest.mark.parametrize("argv", [
    ["--leaf", "fair"], ["--leaf", "linear:x"], ["--depth", "0"], ["--strata", "99"],
    ["--positions", "0"], ["--leaf", "ntuple:/no/such/dir"], ["--reveals", "0"],
    ["--reveals", "13"], ["--reveals", "x"],
])
def test_bench_refuses_bad_arguments(capsys, argv) -> None:
    assert main(["bench", "search", *argv]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.slow
def test_kernel_compiles_from_a_cold_cache(tmp_path) -> None:
    """The reference-count-free kernel compiles with every leaf from nothing."""
    code = ("import numpy as np\n"
            "from engines.play.policy import load_policy\n"
            "from engines.drop7 import core\n"
            "s = np.zeros(core.ST_LEN, dtype=np.int64); c = np.zeros(7, dtype=np.int64)\n"
            "core.new_game(np.uint64(1), s, c)\n"
            "print([load_policy(p).choose(s, c) for p in ('search:leaf=linear,d=2,s=7',"
            " 'direct:leaf=zero')])\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().startswith("[")
