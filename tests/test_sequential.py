"""Group-sequential screens: design validation, boundaries, t conversion and the decision."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analysis.sequential.design import (
    CONTINUE,
    SPENDING,
    STOP,
    STOP_EFFICACY,
    STOP_FUTILITY,
    SequentialDesign,
    decide,
    equally_spaced,
    spending,
    t_to_z,
    z_to_t,
)
from analysis.sequential.recursion import stage_probabilities

# --- the design and what it refuses ------------------------------------------------------------

BAD_DESIGNS = [
    ({"looks": (64, 64, 256)}, "looks: not strictly increasing"),
    ({"looks": (128, 64, 256)}, "looks: not strictly increasing"),
    ({"looks": (0, 128, 256)}, "looks: 0 is not a positive integer"),
    ({"looks": (64.5, 128, 256)}, "looks: 64.5 is not a positive integer"),
    ({"looks": (True, 128, 256)}, "looks: True is not a positive integer"),
    ({"looks": ()}, "looks: () is not a non-empty list"),
    ({"looks": "64"}, "looks: '64' is not a non-empty list"),
    ({"looks": (2, 128, 256)}, "looks: the first look (2) has fewer than 4 games"),
    ({"looks": (128, 300)}, "looks: look 300 is after the block's last game (256)"),
    ({"looks": (64, 128)}, "looks: the last look (128) is not the block's last game (256)"),
    ({"games": 2.5}, "games: 2.5 is not an integer"),
    ({"alpha": 0.0}, "alpha: 0.0 is not in (0, 0.5)"),
    ({"alpha": 0.5}, "alpha: 0.5 is not in (0, 0.5)"),
    ({"alpha": float("nan")}, "alpha: nan is not in (0, 0.5)"),
    ({"spending": "haybittle"}, "spending: unknown 'haybittle'"),
    ({"spending": (0.01, 0.06, 0.05)}, "spending: cumulative alpha 0.06 at look 2 is above"),
    ({"spending": (0.02, 0.01, 0.05)}, "spending: cumulative alpha decreases at look 2"),
    ({"spending": (0.01, 0.02, 0.04)}, "spending: cumulative alpha at the last look (0.04)"),
    ({"spending": (0.01, 0.05)}, "spending: (0.01, 0.05) is neither a name"),
    ({"delta_min": 0.0, "sd_plan": 10.0}, "delta_min: 0.0 is not a number > 0"),
    ({"delta_min": -1.0, "sd_plan": 10.0}, "delta_min: -1.0 is not a number > 0"),
    ({"delta_min": 1.0}, "sd_plan: None is not a number > 0"),
    ({"delta_min": 1.0, "sd_plan": 0.0}, "sd_plan: 0.0 is not a number > 0"),
    ({"sd_plan": 10.0}, "sd_plan: given without delta_min"),
    ({"futility_spending": "pocock"}, "futility_spending: given without delta_min"),
    ({"delta_min": 1.0, "sd_plan": 10.0, "futility_spending": "x"},
     "futility_spending: unknown 'x'"),
    ({"delta_min": 1.0, "sd_plan": 10.0, "spending": (0.01, 0.02, 0.05)},
     "futility_spending: needed when the alpha spending is custom"),
]


@pytest.mark.parametrize(("change", "message"), BAD_DESIGNS)
def test_a_bad_design_is_refused_with_one_line_naming_the_key(change, message):
    kwargs = {"looks": (64, 128, 256), "games": 256} | change
    with pytest.raises(ValueError) as err:
        SequentialDesign(**kwargs)
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text


def test_a_valid_design_is_normalised():
    d = SequentialDesign(looks=[np.int64(64), 128, 256], games=256, alpha=0.05)
    assert d.looks == (64, 128, 256) and isinstance(d.looks[0], int)
    assert equally_spaced(512, 4).looks == (128, 256, 384, 512)
    custom = SequentialDesign(looks=(64, 128, 256), games=256, spending=(0.0, 0.01, 0.05))
    assert math.isinf(custom.boundaries.efficacy[0])  # nothing spent at look 1: no stop


def test_spending_functions_are_the_lan_demets_forms():
    t = np.array([0.25, 0.5, 1.0])
    # O'Brien-Fleming-like, one-sided: 2 (1 - Phi(z_{1-alpha/2} / sqrt t)); gsDesign sfLDOF
    of = 2 * (1 - stats.norm.cdf(stats.norm.ppf(1 - 0.025 / 2) / np.sqrt(t)))
    assert np.allclose(spending("obrien-fleming", 0.025, t), of, rtol=1e-9, atol=0)
    assert np.allclose(spending("pocock", 0.025, t), 0.025 * np.log(1 + (math.e - 1) * t))
    for name in SPENDING:
        s = spending(name, 0.05, np.linspace(0, 1, 101))
        assert s[0] == 0 and abs(s[-1] - 0.05) < 1e-15 and np.all(np.diff(s) > 0)


# --- boundaries --------------------------------------------------------------------------------

def test_obrien_fleming_bounds_match_published_values():
    # K = 4 equally spaced, one-sided 0.025: 4.332634, 2.963129, 2.35902, 2.014057 in the
    # GroupSeq package's tests (rpahl/GroupSeq, tests/testthat/test-GroupSeq.R); gsDesign's
    # sfLDOF documentation gives the spending function.  GroupSeq's own grid is coarser: the
    # independent multivariate-normal check below puts ours within 1e-9 of the spent alpha.
    d = equally_spaced(400, 4, alpha=0.025)
    ref = [4.332634, 2.963129, 2.35902, 2.014057]
    assert np.allclose(d.boundaries.efficacy, ref, atol=5e-5, rtol=0)


def test_pocock_bounds_match_rpact():
    # rpact's tests (test-f_design_group_sequential.R, design x6a): asP, alpha 0.13,
    # information rates 0.35, 0.7, 1 -> critical values 1.5446617, 1.4828682, 1.4620058.
    d = SequentialDesign(looks=(35, 70, 100), games=100, alpha=0.13, spending="pocock")
    assert np.allclose(d.boundaries.efficacy, [1.5446617, 1.4828682, 1.4620058], atol=2e-7)
    assert np.allclose(d.alpha_spent, [0.061214062, 0.10266465, 0.13], atol=1e-8)


@pytest.mark.parametrize("name", SPENDING)
def test_the_bounds_spend_exactly_the_alpha_of_the_spending_function(name):
    # independent check: the joint normal law of (Z_1..Z_k), corr sqrt(n_i / n_j)
    d = SequentialDesign(looks=(40, 100, 170, 256), games=256, alpha=0.05, spending=name)
    c = np.array(d.boundaries.efficacy)
    t = d.fractions
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    for k in range(1, 5):
        cross = 1 - stats.multivariate_normal.cdf(c[:k], mean=np.zeros(k), cov=cov[:k, :k],
                                                  abseps=1e-10, releps=1e-10,
                                                  maxpts=2_000_000)
        assert abs(cross - d.alpha_spent[k - 1]) < 1e-6
    up, _ = stage_probabilities(d.looks, c, [-np.inf] * 4, 0.0)
    assert np.allclose(np.cumsum(up), d.alpha_spent, atol=1e-9, rtol=0)


def test_futility_bounds_are_non_binding_and_meet_the_efficacy_bound_at_the_end():
    plain = equally_spaced(256, 4, spending="pocock")
    d = equally_spaced(256, 4, spending="pocock", delta_min=3.0, sd_plan=20.0)
    b = d.boundaries
    assert b.efficacy == plain.boundaries.efficacy  # non-binding: alpha ignores futility
    theta = 3.0 / 20.0
    up, down = stage_probabilities(d.looks, b.efficacy, b.futility, theta)
    # the spent beta at each look is the same family's spending of the total beta
    spent = spending("pocock", b.beta, d.fractions)
    assert np.allclose(np.cumsum(down)[:3], spent[:3], atol=1e-8)
    # total beta = the design's own type II error at delta_min (the bounds meet at the end)
    # (to the grid's accuracy: the Simpson grid's node count moves with the bounds)
    assert abs((1 - up.sum()) - b.beta) < 1e-6
    assert abs(b.power_at_delta_min - up.sum()) < 1e-6
    assert all(a < c for a, c in zip(b.futility[:3], b.efficacy[:3], strict=True))
    assert math.isinf(b.futility[-1])


# --- z and t -----------------------------------------------------------------------------------

def test_t_bounds_have_the_tail_probability_of_the_z_bounds():
    z = np.array([-3.0, -0.5, 0.0, 1.7, 4.3, 8.0])
    for df in (7, 63, 511):
        t = z_to_t(z, df)
        assert np.allclose(stats.t.sf(t, df), stats.norm.sf(z), rtol=1e-9, atol=1e-300)
        assert np.allclose(t_to_z(t, df), z, atol=1e-8)
        assert np.all(np.abs(t) >= np.abs(z))  # heavier tails: farther out
    assert np.isinf(z_to_t(np.inf, 10)) and np.isneginf(z_to_t(-np.inf, 10))


def test_t_bounds_hold_alpha_at_small_n_where_z_bounds_would_not():
    # normal deltas, looks at 6, 12, 18, 24 games: the t bounds spend alpha; using the
    # z bounds on the t statistic rejects visibly more often
    d = equally_spaced(24, 4, spending="pocock")
    rng = np.random.default_rng(2026)
    x = rng.standard_normal((40_000, 24))
    looks = np.array(d.looks)
    s1, s2 = np.cumsum(x, 1)[:, looks - 1], np.cumsum(x * x, 1)[:, looks - 1]
    m = s1 / looks
    t = m / np.sqrt((s2 - looks * m * m) / (looks - 1) / looks)
    eff_t, _ = d.boundaries.t_bounds()
    rate_t = np.mean((t > eff_t).any(axis=1))
    rate_z = np.mean((t > np.array(d.boundaries.efficacy)).any(axis=1))
    se = math.sqrt(0.05 * 0.95 / 40_000)
    assert abs(rate_t - 0.05) < 3 * se
    assert rate_z > 0.05 + 6 * se


# --- the decision ------------------------------------------------------------------------------

def _deltas(n: int, t: float, seed: int = 1) -> np.ndarray:
    """n deltas whose paired t statistic is exactly ``t``."""
    z = np.random.default_rng(seed).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return 10.0 * (z + t / math.sqrt(n))


def test_decide_reads_the_t_statistic_against_the_bounds():
    d = equally_spaced(256, 4, delta_min=3.0, sd_plan=20.0)
    eff_t, fut_t = d.boundaries.t_bounds()
    got = decide(_deltas(64, eff_t[0] + 0.1), 1, d)
    assert got.decision == STOP_EFFICACY and got.n == 64 and got.look == 1
    assert abs(got.statistic - (eff_t[0] + 0.1)) < 1e-9
    assert got.efficacy_bound == pytest.approx(eff_t[0])
    assert got.futility_bound == pytest.approx(fut_t[0])
    assert decide(_deltas(64, eff_t[0] - 0.1), 1, d).decision == CONTINUE
    assert decide(_deltas(128, fut_t[1] - 0.1), 2, d).decision == STOP_FUTILITY
    assert decide(_deltas(128, fut_t[1] + 0.1), 2, d).decision == CONTINUE
    last = decide(_deltas(256, eff_t[3] - 0.01), 4, d)
    assert last.decision == STOP and last.futility_bound is None
    assert decide(_deltas(256, eff_t[3] + 0.01), 4, d).decision == STOP_EFFICACY
    # no futility bound: a very negative t continues
    plain = equally_spaced(256, 4)
    assert decide(_deltas(64, -5.0), 1, plain).decision == CONTINUE
    # a zero sd: the sign of the mean decides
    assert decide(np.full(64, 3.0), 1, plain).decision == STOP_EFFICACY


@pytest.mark.parametrize(("args", "message"), [
    ((np.zeros(64), 0), "look: 0 is not a look of the design (1..4)"),
    ((np.zeros(64), 5), "look: 5 is not a look of the design (1..4)"),
    ((np.zeros(63), 1), "deltas: 63 games at look 1, the design looks at 64"),
    ((np.zeros((8, 8)), 1), "deltas: must be 1-D"),
    ((np.array([1.0, np.nan] * 32), 1), "deltas: must be finite numbers"),
])
def test_decide_refuses_bad_input(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        decide(*args, equally_spaced(256, 4))
