"""A shrunk sequential design whose simulated type I error exceeds the declared alpha beyond
Monte Carlo error: named by the verdict, which is limited to the pilot tier."""

from __future__ import annotations

import numpy as np
import pytest
from claims_support import REPO
from scipy import stats

from analysis.readings import Reading
from analysis.sequential.screen import exceeded_error, exceeded_errors
from analysis.sequential.sim import rate_lower_bound, simulate
from protocol.plan import load_plan
from protocol.plan_model import PILOT, PUBLIC
from protocol.verdict import SUPPORTED, decide


def depth_five_design():
    """The depth-five claim's design as the pilot shrinks it (looks 4, 8 of 8 games)."""
    design = load_plan(REPO, {"profile": "pilot"}).claims["depth-five"].sequential.design
    assert design.looks == (4, 8)
    return design


def null_row(deltas: np.ndarray, design) -> dict:
    return {"at": "null", **simulate(deltas, design, 0.0, 4_000).to_dict()}


def test_the_lower_bound_is_the_exact_one_sided_binomial_bound() -> None:
    assert rate_lower_bound(0.0, 500) == 0.0
    low = rate_lower_bound(0.1071, 20_000)
    assert low == pytest.approx(stats.beta.ppf(0.05, 2142, 20_000 - 2142 + 1))
    assert 0.1071 - 2 * 0.0022 < low < 0.1071 - 0.0022
    assert rate_lower_bound(0.06, 500) < rate_lower_bound(0.06, 20_000) < 0.06
    with pytest.raises(ValueError, match="n_sims"):
        rate_lower_bound(0.1, 0)


def test_a_shrunk_design_on_deltas_with_a_low_outlier_exceeds_alpha() -> None:
    design = depth_five_design()
    rng = np.random.default_rng(5)
    deltas = np.r_[np.full(7, 1_000.0), -7_000.0] + rng.normal(0, 100, 8)
    row = null_row(deltas, design)
    said = exceeded_error("primary", design.alpha, [row])
    assert said is not None and said.startswith("contrast primary: ")
    assert f"{row['rejection_rate']:.4f}" in said and "alpha 0.05" in said


def test_a_shrunk_design_on_right_skewed_deltas_keeps_alpha() -> None:
    design = depth_five_design()
    deltas = np.random.default_rng(5).gamma(0.5, 1e5, 8)
    row = null_row(deltas, design)
    assert row["rejection_rate"] < design.alpha
    assert exceeded_error("primary", design.alpha, [row]) is None


def test_a_rate_above_alpha_within_monte_carlo_error_is_not_an_excess() -> None:
    row = {"at": "null", "rejection_rate": 0.056, "n_sims": 500, "fixed_rejection_rate": 0.05}
    assert exceeded_error("primary", 0.05, [row]) is None
    assert exceeded_error("primary", 0.05, [{**row, "n_sims": 20_000}]) is not None
    assert exceeded_error("primary", 0.05, []) is None  # nothing simulated, nothing said


def test_the_verdict_names_the_excess_and_is_limited_to_the_pilot_tier() -> None:
    row = {"at": "null", "rejection_rate": 0.1071, "n_sims": 20_000,
           "fixed_rejection_rate": 0.1102}
    contrasts = {"primary": {"sequential": {"design": {"alpha": 0.05}, "operating": [row]}},
                 "fixed": {"criteria": {}}}
    said = exceeded_errors(contrasts)
    assert len(said) == 1 and "0.1071" in said[0] and "0.1102" in said[0]
    rule = {"rules": [{"when": {"screen": "pass"}, "then": SUPPORTED}],
            "otherwise": "mixed"}
    readings = [Reading("screen", "screen", "t", "pass", "r")]
    v = decide(rule, readings, [], PUBLIC, [], said)
    assert v["verdict"] == SUPPORTED and v["tier"] == PILOT and v["tier_lowered_by"] == said
    assert decide(rule, readings, [], PUBLIC, [], [])["tier"] == PUBLIC
