"""The claim's verdict: every row of the decision table in docs/statistics.md."""

from __future__ import annotations

import pytest

from analysis.verdict import (
    INVALIDATED,
    MIXED,
    NOT_SUPPORTED,
    PILOT,
    PUBLIC,
    SUPPORTED,
    claim_verdict,
)

CRITERIA = {"bootstrap_lb": "pass", "t_lb": "pass", "halves": "pass", "lower_quartile": "pass",
            "decisions": "pass", "weights_hash": "pass"}


def screen(failed: tuple[str, ...] = (), n: int = 256, **criteria: str) -> dict:
    """A contrast as the stats stage writes it (only the keys the verdict reads)."""
    crit = dict(CRITERIA) | {k: "fail" for k in failed} | criteria
    return {"n": n, "mean_delta": 170_139.0, "bootstrap_lb": 130_499.0, "t_lb": 130_560.0,
            "failed": [k for k, v in crit.items() if v == "fail"], "criteria": crit,
            "passed": not any(v == "fail" for v in crit.values()), "illegal": 0,
            "unfinished": 0}


GOOD = [-40_000.0, 12_000.0, 95_051.0]
WINDOWS = [-120_000.0, -83_261.0]


def test_all_criteria_pass_is_supported_public_development():
    v = claim_verdict(candidate_margins=GOOD, ablation_margins=WINDOWS, primary=screen(),
                      direct=screen(failed=("bootstrap_lb", "t_lb")))
    assert v.verdict == SUPPORTED and v.tier == PUBLIC
    assert [c.status for c in v.criteria] == ["pass"] * 4
    assert all(c.reason for c in v.criteria)
    assert v.to_dict()["criteria"][0]["key"] == "training_signal"


def test_no_positive_validation_margin_fails_and_screen_stays_closed():
    v = claim_verdict(candidate_margins=[-5.0, -1.0, 0.0], ablation_margins=WINDOWS)
    assert v.verdict == NOT_SUPPORTED and v.tier == PILOT
    assert v.status("training_signal") == "fail"
    assert v.status("primary_screen") == "not-run"
    assert "never opened" in v.criteria[1].reason


def test_gate_flag_without_margins():
    v = claim_verdict(gate_failed=True)
    assert v.verdict == NOT_SUPPORTED and v.status("training_signal") == "fail"
    with pytest.raises(ValueError, match="contradicts"):
        claim_verdict(candidate_margins=GOOD, gate_failed=True)


def test_screen_opened_after_a_failed_gate_is_a_methodological_error():
    v = claim_verdict(candidate_margins=[-1.0], primary=screen())
    assert v.verdict == INVALIDATED
    assert any("gate failed" in e for e in v.methodological_errors)


@pytest.mark.parametrize("failed", ["bootstrap_lb", "t_lb", "halves", "lower_quartile"])
def test_any_failed_screen_criterion_is_not_supported(failed):
    v = claim_verdict(candidate_margins=GOOD, ablation_margins=WINDOWS,
                      primary=screen(failed=(failed,)))
    assert v.verdict == NOT_SUPPORTED and v.tier == PUBLIC
    assert v.status("primary_screen") == "fail" and failed in v.criteria[1].reason


def test_screen_not_opened_after_a_passed_gate_is_not_supported_pilot():
    v = claim_verdict(candidate_margins=GOOD)
    assert v.verdict == NOT_SUPPORTED and v.tier == PILOT
    assert [c.status for c in v.criteria] == ["pass", "not-run", "not-run", "not-run"]


def test_ablation_at_least_as_good_makes_it_mixed():
    v = claim_verdict(candidate_margins=GOOD, ablation_margins=[-1.0, 95_051.0],
                      primary=screen())
    assert v.verdict == MIXED
    assert v.status("mechanism_ablation") == "fail" and "not supported" in v.criteria[2].reason


def test_direct_play_beating_search_while_leaf_fails_refutes_deployment():
    v = claim_verdict(candidate_margins=GOOD, ablation_margins=WINDOWS,
                      primary=screen(failed=("halves",)), direct=screen())
    assert v.status("direct_play") == "fail" and "refuted" in v.criteria[3].reason
    assert v.verdict == NOT_SUPPORTED  # the primary failed too, which decides the verdict


def test_direct_play_passing_alongside_the_leaf_is_a_pass():
    v = claim_verdict(candidate_margins=GOOD, ablation_margins=WINDOWS, primary=screen(),
                      direct=screen())
    assert v.status("direct_play") == "pass" and v.verdict == SUPPORTED


def test_untested_legs_keep_supported_but_are_named():
    v = claim_verdict(candidate_margins=GOOD, primary=screen())
    assert v.verdict == SUPPORTED
    assert v.status("mechanism_ablation") == "not-run" and "not run" in v.reason


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"weights_hash_mismatch": True}, "SHA-256"),
        ({"reused_block": True}, "reused"),
        ({"errors": ["seed bank edited after the screen"]}, "seed bank"),
        ({"primary": screen(decisions="fail")}, "illegal"),
        ({"primary": screen(weights_hash="fail")}, "SHA-256"),
        ({"direct": screen(decisions="fail")}, "direct-play screen"),
    ],
)
def test_methodological_errors_invalidate(kwargs, needle):
    args = {"candidate_margins": GOOD, "ablation_margins": WINDOWS, "primary": screen()} | kwargs
    v = claim_verdict(**args)
    assert v.verdict == INVALIDATED
    assert any(needle in e for e in v.methodological_errors) and needle in " ".join(
        v.methodological_errors)


def test_small_screen_is_pilot_tier_and_contrast_objects_work():
    import numpy as np

    from analysis.contrast import contrast_scores

    base = np.linspace(100_000, 500_000, 32)
    primary = contrast_scores(base + 50_000 + np.tile([1_000.0, -1_000.0], 16), base,
                              n_resamples=500)
    v = claim_verdict(candidate_margins=GOOD, ablation_margins=WINDOWS, primary=primary)
    assert v.verdict == SUPPORTED and v.tier == PILOT


def test_titles_name_the_search_of_the_profile():
    verdict = claim_verdict(candidate_margins=[-5.0], ablation_margins=[-9.0], search="d2s3")
    titles = " ".join(c.title for c in verdict.criteria)
    assert "d2s3" in titles and "d3s7" not in titles
