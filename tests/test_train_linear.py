"""linear-trained: weights in points match the trainer's values; training is reproducible."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engines.drop7 import baselines, core
from engines.drop7.game_loop import play_out
from engines.leaves.kinds import N_TERMS
from engines.leaves.linear import linear_value
from engines.leaves.linear_weights import load_linear
from engines.train import kernel as kern
from engines.train.linear_td import SCALES, LinearLearner, _value, play_linear_greedy
from engines.train.trainer import SeedRange

SEEDS = SeedRange(0x1000000000000000, 1 << 30)


def _learner(moves: int, chunks: int = 1) -> tuple[LinearLearner, np.ndarray]:
    learner = LinearLearner()
    carry = np.zeros(kern.C_LEN, dtype=np.int64)
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    fstats = np.zeros(kern.F_LEN)
    for _ in range(chunks):
        learner.play(SEEDS, carry, state, cols, moves // chunks, fstats)
    return learner, carry


def test_training_moves_weights_and_is_chunk_invariant() -> None:
    a, ca = _learner(2000)
    b, cb = _learner(2000, chunks=4)
    assert np.array_equal(ca, cb) and a.theta.tobytes() == b.theta.tobytes()
    assert np.all(np.isfinite(a.theta)) and np.count_nonzero(a.theta) > 10
    assert np.all(a.a_acc >= np.abs(a.e_acc))


def test_saved_weights_are_points_per_raw_term() -> None:
    """sum(w * term) with the saved weights = 17000 x the trainer's V, on real states."""
    learner, _ = _learner(1500)
    weights = learner.weights()
    assert np.allclose(weights, 17000.0 * learner.theta / SCALES)
    wr = learner.theta / SCALES
    t = np.zeros(N_TERMS)
    seed = np.uint64(0x4000000000000000)
    checked = []

    def check(st, cols) -> int:
        mr, disc = st[core.ST_MOVES_REMAINING], st[core.ST_NEXT_DISC]
        v = _value(wr, cols, mr, disc, t)
        assert linear_value(cols, mr, disc, weights) == pytest.approx(17000.0 * v, rel=1e-9,
                                                                     abs=1e-6)
        checked.append(1)
        return baselines.baseline_choice(1, seed, st, cols)

    play_out(seed, check)
    assert len(checked) > 5


def test_cli_trains_saves_and_resumes_linear(tmp_path: Path) -> None:
    def train(out: Path, moves: int, *extra: str) -> int:
        return main(["train", "--layout", "linear", "--moves", str(moves), "--every", "600",
                     "--seeds", "0x1000000000000000:100000", "--out", str(out),
                     "--log-every", "1000", *extra])

    assert train(tmp_path / "once", 1200) == 0
    assert train(tmp_path / "twice", 600) == 0
    assert train(tmp_path / "twice", 1200, "--resume") == 0
    w1, m1 = load_linear(tmp_path / "once" / "step-1200")
    w2, m2 = load_linear(tmp_path / "twice" / "step-1200")
    assert w1.tobytes() == w2.tobytes() and m1["sha256"] == m2["sha256"]
    assert m1["kind"] == "linear" and m1["config"]["scales"] == [float(s) for s in SCALES]
    assert json.loads((tmp_path / "once" / "step-1200" / "manifest.json").read_text())[
        "moves_trained"] == 1200
    results = np.zeros((3, core.ST_LEN), dtype=np.int64)
    play_linear_greedy(w1, np.arange(3, dtype=np.uint64) + np.uint64(7), results)
    assert np.all(results[:, core.ST_MOVES_PLAYED] > 0)
