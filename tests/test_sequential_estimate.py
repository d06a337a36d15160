"""The estimate after a sequential screen stops: median-unbiased, interval, guards."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analysis.sequential.design import CONTINUE, SequentialDesign, decide, equally_spaced
from analysis.sequential.estimate import estimate


def test_one_look_gives_the_fixed_sample_mean_and_t_interval():
    # K = 1: the estimate is the mean, the interval is mean +- z se (the t interval to
    # within 1% of a standard error at n = 256), the p-value the t test's
    d = SequentialDesign(looks=(256,), games=256)
    x = np.random.default_rng(4).normal(3.0, 20.0, 256)
    se = x.std(ddof=1) / 16
    got = estimate(x, d, level=0.95)
    half = stats.t.ppf(0.975, 255) * se
    assert got.look == 1 and got.decision in ("stop", "stop-efficacy")
    assert got.naive_mean == pytest.approx(x.mean())
    assert abs(got.median_unbiased - x.mean()) < 1e-6 * se
    assert abs(got.lower - (x.mean() - 1.959964 * se)) < 1e-5 * se
    assert abs(got.lower - (x.mean() - half)) < 0.01 * se
    assert abs(got.upper - (x.mean() + half)) < 0.01 * se
    assert got.p_value == pytest.approx(stats.t.sf(x.mean() / se, 255), rel=1e-6)
    assert estimate(x, d).level == pytest.approx(0.90)  # default: 1 - 2 alpha


def test_median_unbiased_under_simulation_while_the_naive_mean_is_biased_at_early_stops():
    # 400 sequential screens of normal deltas (mu = 0.15 sd, looks 64..256, O'Brien-Fleming)
    design = equally_spaced(256, 4)
    mu, sd = 3.0, 20.0
    rng = np.random.default_rng(20260907)
    below, covered, early = [], [], []
    for _ in range(400):
        x = rng.normal(mu, sd, 256)
        for k, n in enumerate(design.looks, start=1):
            got = decide(x[:n], k, design)
            if got.decision != CONTINUE:
                break
        e = estimate(x[: got.n], design)
        below.append(e.median_unbiased <= mu)
        covered.append(e.lower <= mu <= e.upper)
        if e.look < 4:
            early.append(e.naive_mean - mu)
    tol = 3 * math.sqrt(0.25 / 400)
    assert abs(np.mean(below) - 0.5) < tol  # the estimate's median is mu
    assert abs(np.mean(covered) - 0.90) < 3 * math.sqrt(0.09 / 400)
    early_bias = np.array(early)
    assert early_bias.size > 100
    assert early_bias.mean() > 3 * early_bias.std(ddof=1) / math.sqrt(early_bias.size)


def test_estimate_refuses_a_path_that_does_not_stop_there():
    design = equally_spaced(256, 4)
    with pytest.raises(ValueError, match=r"^deltas: 100 games is not a look of the design"):
        estimate(np.ones(100), design)
    flat = np.random.default_rng(1).normal(0.0, 1.0, 256)
    with pytest.raises(ValueError, match=r"^deltas: look 1 \(64 games\) continues"):
        estimate(flat[:64], design)
    strong = np.random.default_rng(1).normal(5.0, 1.0, 256)
    with pytest.raises(ValueError, match=r"^deltas: the design stopped at look 1 \(64 games, "
                                          r"stop-efficacy\)"):
        estimate(strong[:128], design)
    with pytest.raises(ValueError, match=r"^deltas: the paired sd is 0 at look 4"):
        estimate(np.zeros(256), design)
    with pytest.raises(ValueError, match=r"^level: 1.5 is not in \(0, 1\)"):
        estimate(flat, design, level=1.5)


def test_a_futility_stop_is_estimated_and_can_be_read_as_ignored():
    design = equally_spaced(256, 4, delta_min=3.0, sd_plan=20.0)
    x = np.random.default_rng(5).normal(-4.0, 20.0, 256)
    assert decide(x[:64], 1, design).decision == "stop-futility"
    e = estimate(x[:64], design)
    assert e.decision == "stop-futility" and e.lower < e.median_unbiased < e.upper
    assert e.p_value > 0.5
    # non-binding: a screen that kept playing past the futility bound
    late = estimate(x, design, futility_followed=False)
    assert late.look == 4 and not late.futility_followed
    with pytest.raises(ValueError, match=r"^deltas: the design stopped at look 1"):
        estimate(x, design)
