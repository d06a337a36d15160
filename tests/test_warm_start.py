"""Warm starts (``drop7 train --init``): the start's values bit for bit, fresh accumulators,
resume, segments, lanes and threads as from zero, the health's start, and the refusals."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numba
import numpy as np
import pytest

from cli.main import main
from engines.leaves.linear import FAIR_WEIGHTS
from engines.leaves.linear_weights import load_linear
from engines.ntuple.layouts import get_layout
from engines.ntuple.storage import load_ntuple
from engines.train.evaluate import evaluate
from engines.train.linear_td import LinearLearner
from engines.train.trainer import NtupleLearner
from engines.weights_files import WeightsError

SEEDS = "0x1000000000000000:1000000"
TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2


def _train(out: Path, moves: int, every: int, *extra: str, layout: str = "T1") -> int:
    return main(["train", "--layout", layout, "--moves", str(moves), "--every", str(every),
                 "--seeds", SEEDS, "--out", str(out), "--log-every", "1000", *extra])


def _manifest(directory: Path) -> dict:
    return json.loads((directory / "manifest.json").read_text())


@pytest.fixture(scope="module")
def start(tmp_path_factory) -> tuple[Path, str]:
    """T1 tables trained 3,000 moves on other seeds: the weights a warm start continues."""
    out = tmp_path_factory.mktemp("start") / "run"
    assert main(["train", "--layout", "T1", "--moves", "3000", "--seeds", "0x2000:1000",
                 "--out", str(out), "--log-every", "1000"]) == 0
    step = out / "step-3000"
    return step, _manifest(step)["sha256"]


def _init(start: tuple[Path, str]) -> list[str]:
    return ["--init", str(start[0]), "--init-sha256", start[1]]


def test_a_warm_start_holds_the_start_bit_for_bit_with_fresh_accumulators(start) -> None:
    tables, _, _ = load_ntuple(start[0])
    learner = NtupleLearner(get_layout("T1"))
    learner.warm_start(str(start[0]), start[1])
    assert np.array_equal(learner.values(), tables)  # the promoted leaf is the frozen one
    assert not learner.acc.any() and learner.bias == 0.0
    assert learner.config()["init"] == {"sha256": start[1], "accumulators": "fresh"}


def test_warm_training_goes_on_from_the_start(tmp_path: Path, start) -> None:
    assert _train(tmp_path / "warm", 600, 600, *_init(start)) == 0
    assert _train(tmp_path / "cold", 600, 600) == 0
    warm, cold = _manifest(tmp_path / "warm" / "step-600"), _manifest(tmp_path / "cold" /
                                                                        "step-600")
    assert warm["sha256"] != cold["sha256"] and warm["config_hash"] != cold["config_hash"]
    assert warm["init"] == {"path": str(start[0]), "sha256": start[1]}
    assert "init" not in cold
    values, _, _ = load_ntuple(tmp_path / "warm" / "step-600")
    before, _, _ = load_ntuple(start[0])
    changed = values != before
    assert 0 < changed.sum() < 2000  # 600 moves touch a few entries; the rest is the start's


def test_resume_segments_lanes_and_threads_hold_from_a_warm_start(tmp_path: Path,
                                                                  start) -> None:
    init = _init(start)
    assert _train(tmp_path / "once", 1600, 800, *init) == 0
    assert _train(tmp_path / "twice", 1000, 800, *init) == 0     # stops mid-interval
    assert _train(tmp_path / "twice", 1600, 800, "--resume", *init) == 0
    seg = tmp_path / "seg"
    for s, e in ((0, 800), (800, 1600)):
        assert _train(seg, e, 800, "--start", str(s), *init) == 0
    for step in ("step-800", "step-1600"):
        ref = _manifest(tmp_path / "once" / step)["sha256"]
        assert _manifest(tmp_path / "twice" / step)["sha256"] == ref
        assert _manifest(seg / step)["sha256"] == ref
    lanes = ("--lanes", "4")
    assert _train(tmp_path / "l1", 1600, 800, *lanes, "--threads", "1", *init) == 0
    threads = "2" if TWO_THREADS else "1"
    assert _train(tmp_path / "l2", 1600, 800, *lanes, "--threads", threads, *init) == 0
    assert _train(tmp_path / "lr", 800, 800, *lanes, *init) == 0
    assert _train(tmp_path / "lr", 1600, 800, *lanes, "--resume", *init) == 0
    ref = _manifest(tmp_path / "l1" / "step-1600")["sha256"]
    assert _manifest(tmp_path / "l2" / "step-1600")["sha256"] == ref
    assert _manifest(tmp_path / "lr" / "step-1600")["sha256"] == ref
    assert ref != _manifest(tmp_path / "once" / "step-1600")["sha256"]  # lanes change tables


def _last_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    return err[-1] if err else ""


def test_a_warm_state_does_not_resume_cold_nor_from_another_start(tmp_path: Path, start,
                                                                  capsys) -> None:
    assert _train(tmp_path / "w", 600, 600, *_init(start)) == 0
    capsys.readouterr()
    assert _train(tmp_path / "w", 1200, 600, "--resume") == 2
    assert "trained with another config" in _last_line(capsys)


@pytest.mark.parametrize(("extra", "message"), [
    (["--init-sha256", "a" * 64], "--init and --init-sha256 go together"),
    (["--init", "x"], "--init and --init-sha256 go together"),
    (["--init", "x", "--init-sha256", "XYZ"], "64 lower-case hex digits"),
    (["--init", "nowhere", "--init-sha256", "a" * 64], "nowhere: missing"),
])
def test_bad_warm_starts_exit_2_in_one_line(tmp_path: Path, capsys, extra, message) -> None:
    assert _train(tmp_path / "r", 600, 600, *extra) == 2
    line = _last_line(capsys)
    assert message in line and not (tmp_path / "r" / "step-600").exists()


def test_a_start_that_is_not_its_pin_or_not_the_layout_is_refused(tmp_path: Path, start,
                                                                   capsys) -> None:
    assert _train(tmp_path / "r", 600, 600, "--init", str(start[0]), "--init-sha256",
                  "b" * 64) == 2
    assert "not the pinned" in _last_line(capsys)
    assert _train(tmp_path / "r", 600, 600, *_init(start), layout="T3") == 2
    assert "holds layout T1 tables, this run trains layout T3" in _last_line(capsys)
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").glob("step-*"))


def test_a_linear_warm_start_and_its_refusals(tmp_path: Path, start, capsys) -> None:
    np.save(tmp_path / "fair.npy", FAIR_WEIGHTS)
    digest = hashlib.sha256((tmp_path / "fair.npy").read_bytes()).hexdigest()
    init = ["--init", str(tmp_path / "fair.npy"), "--init-sha256", digest]
    assert _train(tmp_path / "lin", 300, 300, *init, layout="linear") == 0
    weights, manifest = load_linear(tmp_path / "lin" / "step-300")
    assert manifest["config"]["init"]["sha256"] == digest
    learner = LinearLearner()
    learner.warm_start(str(tmp_path / "fair.npy"), digest)
    assert np.allclose(learner.weights(), FAIR_WEIGHTS, rtol=1e-12, atol=0)  # the start
    assert not learner.e_acc.any() and not learner.a_acc.any()
    np.save(tmp_path / "icpt.npy", np.append(FAIR_WEIGHTS, 5.0))
    digest = hashlib.sha256((tmp_path / "icpt.npy").read_bytes()).hexdigest()
    assert _train(tmp_path / "i", 300, 300, "--init", str(tmp_path / "icpt.npy"),
                  "--init-sha256", digest, layout="linear") == 2
    assert "has an intercept" in _last_line(capsys)
    assert _train(tmp_path / "t", 300, 300, "--init", str(tmp_path / "fair.npy"),
                  "--init-sha256", digest) == 2
    assert "holds a linear-file leaf" in _last_line(capsys)
    assert _train(tmp_path / "n", 300, 300, *_init(start), layout="linear") == 2
    assert "holds a ntuple-file leaf, not linear-file" in _last_line(capsys)


def test_the_health_start_of_a_warm_checkpoint_is_the_start(tmp_path: Path, start) -> None:
    assert _train(tmp_path / "w", 600, 600, *_init(start)) == 0
    seeds = np.arange(5, 9, dtype=np.uint64) + np.uint64(0x3000)
    warm = evaluate(tmp_path / "w" / "step-600", seeds, per_game=True)
    ref = evaluate(start[0], seeds, per_game=True)
    assert warm["scores"]["start"] == ref["scores"]["one_ply"]  # start: the init, one ply
    assert ref["scores"]["start"] != ref["scores"]["one_ply"]   # not the untrained tables


def test_the_learner_refuses_tables_of_another_kind(tmp_path: Path) -> None:
    np.save(tmp_path / "w.npy", FAIR_WEIGHTS)
    digest = hashlib.sha256((tmp_path / "w.npy").read_bytes()).hexdigest()
    with pytest.raises(WeightsError, match="not n-tuple tables to train"):
        NtupleLearner(get_layout("T1")).warm_start(str(tmp_path / "w.npy"), digest)


def test_the_segment_job_passes_the_recorded_hash_of_a_warm_start(tmp_path: Path,
                                                                   start) -> None:
    """The segment rule's command (protocol.commands.train) names the frozen record, whose
    SHA-256 the trainer reads: the same tables as ``drop7 train --init ... --init-sha256``."""
    import shlex

    from protocol import commands

    record = tmp_path / "frozen.json"
    record.write_text(json.dumps({"sha256": start[1]}))
    out = tmp_path / "seg"
    recipe = {"layout": "T1", "every": 600, "first_game": 0, "alpha": None,
              "init": {"path": str(start[0]), "record": str(record), "key": "c/w"}}
    command = commands.train("ntuple", recipe, 600, str(out), 0)
    words = shlex.split(command)
    assert words[:2] == ["drop7", "train"] and "--discard-start" not in words
    assert main([*words[1:], "--threads", "1"]) == 0
    assert _manifest(out / "step-600")["init"] == {"path": str(start[0]), "sha256": start[1]}
    # the bank's training role from game 0, as the recipe says: compare with the CLI
    assert main(["train", "--layout", "T1", "--moves", "600", "--every", "600",
                 "--first-game", "0", "--out", str(tmp_path / "cli"), "--start", "0",
                 "--log-every", "1000", *_init(start)]) == 0
    assert _manifest(out / "step-600")["sha256"] == _manifest(tmp_path / "cli" /
                                                              "step-600")["sha256"]
