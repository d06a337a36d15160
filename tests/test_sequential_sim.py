"""Operating characteristics of sequential screens by resampling paired deltas."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from test_stats_support import score_like_pairs

from analysis.sequential.design import SPENDING, equally_spaced
from analysis.sequential.sim import simulate


def _exchangeable_lognormal(n: int, seed: int) -> np.ndarray:
    """Deltas of exchangeable correlated lognormal score pairs: heavy tails, no skew."""
    rng = np.random.default_rng(seed)
    common = rng.standard_normal(n)
    a = np.exp(12.0 + 0.8 * (0.5 * common + math.sqrt(0.75) * rng.standard_normal(n)))
    b = np.exp(12.0 + 0.8 * (0.5 * common + math.sqrt(0.75) * rng.standard_normal(n)))
    return np.round(a) - np.round(b)


@pytest.mark.parametrize("name", SPENDING)
def test_type_one_error_is_alpha_on_score_like_deltas(name):
    deltas = _exchangeable_lognormal(4096, seed=8)
    design = equally_spaced(512, 4, spending=name)
    start = time.perf_counter()
    r = simulate(deltas, design, 0.0, 20_000, seed=11)
    assert time.perf_counter() - start < 5.0  # vectorised: 20,000 screens of 512 games
    assert abs(r.rejection_rate - 0.05) < 3 * r.mc_se
    assert abs(r.fixed_rejection_rate - 0.05) < 3 * r.fixed_mc_se
    assert sum(r.stop_fraction) == pytest.approx(1.0)


@pytest.mark.parametrize("name", SPENDING)
def test_strongly_skewed_deltas_keep_the_t_bounds_conservative(name):
    # right-skewed pairs (skewness ~1.9): the one-sided t is conservative, sequential or not
    c, b = score_like_pairs(4096, seed=5)
    r = simulate(c - b, equally_spaced(512, 4, spending=name), 0.0, 20_000, seed=11)
    assert 0.025 < r.rejection_rate < 0.05 + 3 * r.mc_se


def test_looks_save_games_under_a_large_shift_and_futility_under_none():
    deltas = _exchangeable_lognormal(4096, seed=8)
    sd = float(deltas.std())
    design = equally_spaced(512, 4)
    big = simulate(deltas, design, 0.2 * sd, 4_000, seed=3)
    assert big.rejection_rate > 0.95 and big.fixed_rejection_rate > 0.95
    assert big.expected_games < 0.8 * big.fixed_games
    fut = equally_spaced(512, 4, delta_min=0.1 * sd, sd_plan=sd)
    null = simulate(deltas, fut, 0.0, 4_000, seed=3)
    assert null.futility_rate > 0.5 and null.expected_games < 0.6 * null.fixed_games
    assert null.rejection_rate <= 0.05 + 3 * null.mc_se
    ignored = simulate(deltas, fut, 0.0, 4_000, seed=3, futility_followed=False)
    assert ignored.futility_rate == 0 and ignored.rejection_rate >= null.rejection_rate


def test_simulation_is_reproducible_and_chunk_independent():
    deltas = _exchangeable_lognormal(512, seed=2)
    design = equally_spaced(256, 2, spending="pocock")
    a = simulate(deltas, design, 100.0, 3_000, seed=9)
    assert a == simulate(deltas, design, 100.0, 3_000, seed=9)
    assert a != simulate(deltas, design, 100.0, 3_000, seed=10)
    assert a.to_dict()["stop_fraction"] == list(a.stop_fraction)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"deltas": np.ones(3)}, "deltas: 3 values, need at least 4"),
    ({"deltas": np.array([1.0, np.inf, 2.0, 3.0])}, "deltas: must be finite"),
    ({"shift": float("nan")}, "shift: nan is not a finite number"),
    ({"n_sims": 0}, "n_sims: 0 is not a positive integer"),
    ({"n_sims": 10.5}, "n_sims: 10.5 is not a positive integer"),
])
def test_simulate_refuses_bad_input(kwargs, message):
    args = {"deltas": np.arange(16.0), "design": equally_spaced(32, 2)} | kwargs
    with pytest.raises(ValueError, match="^" + message):
        simulate(**args)
