"""The screen's operating characteristic and its figure."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from test_stats_support import score_like_pairs

from analysis.contrast import contrast_scores
from analysis.oc_plot import oc_figure_png, save_oc_figure
from analysis.power import (
    CURVES,
    cornish_fisher_lower,
    operating_characteristic,
    simulate_screens,
)

C, B = score_like_pairs(64, seed=21)


def test_cornish_fisher_matches_the_full_bootstrap_on_a_small_case():
    # 40 simulated screens of 32 skewed pairs, each with a real 20,000-resample bootstrap.
    # The real bootstrap's own Monte Carlo sd is ~0.015 se, so CF within 0.06 se of it
    # per screen (and 0.01 se on average) is as good as rerunning with another seed.
    c, b = score_like_pairs(32, seed=4)
    se = np.std(c - b, ddof=1) / math.sqrt(32)
    approx = simulate_screens(c, b, 32, 40)
    exact = simulate_screens(c, b, 32, 40, inner_resamples=20_000)
    diff = (approx.boot_lb - exact.boot_lb) / se
    assert np.abs(diff).max() < 0.06
    assert abs(diff.mean()) < 0.01
    # the other statistics do not depend on the method
    assert np.array_equal(approx.t_lb, exact.t_lb) and np.array_equal(approx.q25_gap,
                                                                       exact.q25_gap)
    # and a plain normal quantile (no skewness term) would be visibly worse
    m = exact.mean
    sd0 = (exact.mean - exact.t_lb) / stats.t.ppf(0.95, 31) * math.sqrt(31 / 32)
    normal = m + stats.norm.ppf(0.05) * sd0
    assert np.abs((normal - exact.boot_lb) / se).max() > np.abs(diff).max()


def test_cornish_fisher_of_a_symmetric_two_point_sample():
    # +-1 in equal numbers: zero skewness, excess kurtosis -2.  Quantile = z/sqrt(n) * (1 + ...)
    x = np.tile([1.0, -1.0], 50)[None, :]
    z = stats.norm.ppf(0.05)
    expect = (z + (z**3 - 3 * z) * (-2 / 100) / 24) / 10
    assert cornish_fisher_lower(x)[0] == pytest.approx(expect, rel=1e-12)


def test_oc_matches_the_full_bootstrap_computation():
    fast = operating_characteristic(C, B, n=24, n_sims=600, sigmas=[0, 1, 2, 3])
    full = operating_characteristic(C, B, n=24, n_sims=600, sigmas=[0, 1, 2, 3],
                                    inner_resamples=20_000)
    for key in CURVES:
        assert np.abs(fast.pass_probability[key] - full.pass_probability[key]).max() <= 0.02


def test_curves_are_monotone_bounded_and_the_screen_is_the_strictest():
    oc = operating_characteristic(C, B, n_sims=4_000)
    for probs in oc.pass_probability.values():
        assert np.all(np.diff(probs) >= 0) and probs.min() >= 0 and probs.max() <= 1
    for key in CURVES[1:]:
        assert np.all(oc.pass_probability["screen"] <= oc.pass_probability[key])
    assert oc.sigma[0] == pytest.approx(-1.0) and oc.sigma[-1] == pytest.approx(5.0)
    assert oc.at_observed["screen"] == pytest.approx(oc.at(oc.observed_delta)["screen"],
                                                     abs=0.05)


def test_size_of_the_t_criterion_and_the_split_half_claim():
    # Normal-like deltas: at true delta 0 the t LB passes ~5% of the time; at +2.5 sigma
    # the split-half check fails 1 - (1 - Phi(-2.5/sqrt 2))^2 = 7.56%.  20,000 screens:
    # binomial sd 0.16% / 0.19%; tolerance 0.8% leaves room for resampling a finite sample.
    rng = np.random.default_rng(8)
    base = rng.uniform(100_000, 600_000, 256)
    cand = base + rng.standard_normal(256) * 300_000
    oc = operating_characteristic(cand, base, sigmas=[0.0, 2.5], n_sims=20_000)
    assert oc.pass_probability["t_lb"][0] == pytest.approx(0.05, abs=0.008)
    theory = 1 - (1 - stats.norm.cdf(-2.5 / math.sqrt(2))) ** 2
    assert 1 - oc.pass_probability["halves"][1] == pytest.approx(theory, abs=0.008)


def test_seeded_and_independent_of_the_grid():
    a = operating_characteristic(C, B, n_sims=3_000, true_deltas=[0.0, 50_000.0])
    b = operating_characteristic(C, B, n_sims=3_000, true_deltas=[50_000.0])
    assert a.pass_probability["screen"][1] == b.pass_probability["screen"][0]
    c = operating_characteristic(C, B, n_sims=3_000, seed=5, true_deltas=[50_000.0])
    assert c.pass_probability["t_lb"][0] != b.pass_probability["t_lb"][0]


def test_larger_screens_have_more_power():
    grid = [40_000.0]
    small = operating_characteristic(C, B, n=32, n_sims=4_000, true_deltas=grid)
    large = operating_characteristic(C, B, n=256, n_sims=4_000, true_deltas=grid)
    assert large.pass_probability["t_lb"][0] > small.pass_probability["t_lb"][0] + 0.2


def test_at_the_observed_delta_the_simulated_screen_agrees_with_the_contrast():
    # the observed contrast passes; a screen drawn from its own pairs mostly does too
    c, b = score_like_pairs(256, seed=2, candidate_log_shift=0.45, log_sd=0.5)
    r = contrast_scores(c, b, n_resamples=2_000)
    oc = operating_characteristic(c, b, n_sims=2_000)
    assert r.passed and oc.at_observed["screen"] > 0.5


def test_bad_arguments():
    with pytest.raises(ValueError):
        operating_characteristic(C[:3], B[:3])
    with pytest.raises(ValueError):
        operating_characteristic(C, B, true_deltas=[0.0], sigmas=[0.0])
    with pytest.raises(ValueError):
        operating_characteristic(C, B, n=2)


def test_dict_round_trip_and_zero_sd():
    import json

    oc = operating_characteristic(C, B, n_sims=500)
    back = type(oc).from_dict(json.loads(json.dumps(oc.to_dict(), allow_nan=False)))
    assert back.to_dict() == oc.to_dict()
    flat = operating_characteristic(B + 1_000, B, n_sims=200, true_deltas=[0.0, 2_000.0])
    assert flat.to_dict()["sigma"] == [None, None]
    assert flat.pass_probability["t_lb"].tolist() == [0.0, 1.0]


def test_figure_renders(tmp_path):
    oc = operating_characteristic(C, B, n_sims=1_000)
    png = oc_figure_png(oc)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    path = save_oc_figure(oc, tmp_path / "figs" / "oc.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["oc.png"]
