"""The lanes' learn phase against its readable twin: every lane's TC update in lane order, a
value step divided by the number of lanes of the round that write its entry."""

from __future__ import annotations

import numpy as np
import pytest

from engines.train.lanes import group_by_part, learn_part


def _twin(vals: np.ndarray, acc: np.ndarray, idx: np.ndarray, delta: np.ndarray,
          alpha: float) -> None:
    """One round's updates, lane by lane and entry by entry, in plain Python (float32 tables,
    float64 arithmetic, as the kernel stores and computes)."""
    lanes, n = idx.shape
    writers = {int(i): len({lane for lane in range(lanes) if i in idx[lane]})
               for i in np.unique(idx)}
    for lane in range(lanes):
        d = float(delta[lane])
        for i in map(int, idx[lane]):
            e, a = float(acc[i, 0]), float(acc[i, 1])
            beta = abs(e) / a if a > 0.0 else 1.0
            vals[i] = np.float32(float(vals[i]) + alpha * d / n / writers[i] * beta)
            acc[i, 0] = np.float32(e + d)
            acc[i, 1] = np.float32(a + abs(d))


def _kernel(vals: np.ndarray, acc: np.ndarray, idx: np.ndarray, delta: np.ndarray,
            alpha: float, parts: int) -> None:
    lanes, n = idx.shape
    upd_idx = np.zeros_like(idx)
    upd_off = np.zeros((lanes, parts + 1), dtype=np.int64)
    for lane in range(lanes):
        group_by_part(idx[lane], n, parts, upd_idx[lane], upd_off[lane])
    table = np.full((1 << int(np.ceil(np.log2(lanes * n + 1))), 2), -1, dtype=np.int64)
    seq = np.zeros((lanes * n, 3), dtype=np.int64)
    for part in range(parts):
        learn_part(vals, acc, acc.reshape(-1), upd_idx, upd_off, delta, alpha, n, part, table,
                   seq)
        assert (table[:, 0] == -1).all()  # the count table is empty again


@pytest.mark.parametrize("parts", [1, 2, 5])
def test_the_learn_phase_is_its_readable_twin(parts: int) -> None:
    rng = np.random.default_rng(7)
    entries, lanes, n = 64 * 40, 9, 12
    # a few hot entries every lane shares, some shared by a few, some repeated within a lane
    hot = rng.choice(entries, 3, replace=False)
    idx = rng.integers(0, entries, size=(lanes, n))
    idx[:, :3] = hot
    idx[::3, 5] = idx[0, 4]
    vals = rng.normal(0.0, 1.0, entries).astype(np.float32)
    acc = np.abs(rng.normal(0.0, 1.0, (entries, 2))).astype(np.float32)
    acc[rng.random(entries) < 0.3] = 0.0
    delta = rng.normal(0.0, 2.0, lanes)
    want_v, want_a = vals.copy(), acc.copy()
    _twin(want_v, want_a, idx, delta, 0.7)
    _kernel(vals, acc, idx, delta, 0.7, parts)
    assert np.array_equal(vals, want_v) and np.array_equal(acc, want_a)


def test_lanes_sharing_an_entry_move_it_one_step_not_one_per_lane() -> None:
    """Fresh tables, every lane the same error on the same entries: the entry moves by one
    sequential step, while the accumulators count every lane's update."""
    lanes, n, delta = 8, 4, 2.0
    idx = np.tile(np.array([3, 70, 141, 999], dtype=np.int64), (lanes, 1))
    vals = np.zeros(1024, dtype=np.float32)
    acc = np.zeros((1024, 2), dtype=np.float32)
    _kernel(vals, acc, idx, np.full(lanes, delta), 1.0, 2)
    assert vals[[3, 70, 141, 999]] == pytest.approx(delta / n)
    assert acc[3].tolist() == [lanes * delta, lanes * delta]
