"""A claim's sequential screen: the declaration, the plan's looks, each look, the reading."""

from __future__ import annotations

import numpy as np
import pytest
from claims_support import REPO, claims_copy, profile_like, shipped

from analysis.contrast import contrast_scores
from analysis.readers import read_screen, screen_failures
from analysis.sequential.design import CONTINUE, STOP_EFFICACY
from analysis.sequential.screen import (
    design_of,
    look_record,
    scale_looks,
    screen_section,
)
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError

FOURTH = "config/claims/fourth-ply.yaml"


def plan_of(profile: str, claims_dir=None, **over):
    overrides = {"profile": profile, **over}
    if claims_dir is not None:
        overrides["claims_dir"] = str(claims_dir)
    return load_plan(REPO, overrides)


@pytest.mark.parametrize(("screen", "key", "says"), [
    ({"looks": [128, 256, 600]}, "screen.looks", "look 600 is after the block's last game (512)"),
    ({"looks": [256, 128, 512]}, "screen.looks", "not strictly increasing (256 then 128)"),
    ({"looks": [128, 256]}, "screen.looks", "the last look (256) is not the block's last game"),
    ({"looks": [2, 512]}, "screen.looks", "the first look (2) has fewer than 4 games"),
    ({"looks": [128, 512], "spending": [0.02, 0.06]}, "screen.spending",
     "cumulative alpha 0.06 at look 2 is above alpha 0.05"),
    ({"looks": [128, 512], "spending": [0.01, 0.04]}, "screen.spending",
     "cumulative alpha at the last look (0.04) is not alpha (0.05)"),
    ({"looks": [128, 512], "futility": {"sd_plan": 1e5}}, "screen.futility.delta_min", ""),
    ({"spending": "pocock"}, "screen.spending", "given without screen.looks"),
    ({"futility": {"delta_min": 1e4, "sd_plan": 1e5}}, "screen.futility", "without screen.looks"),
    ({"looks": [128, 512], "spending": "fleming"}, "screen.spending", ""),
    # a negative alpha was "not one of ['obrien-fleming', 'pocock']"
    ({"looks": [128, 512], "spending": [-0.01, 0.05]}, "screen.spending[0]",
     "-0.01 is less than the minimum of 0"),
])
def test_a_design_that_cannot_keep_its_error_rate_is_one_line_naming_the_key(
        tmp_path, screen, key, says) -> None:
    def edit(d):
        d["screen"] = {"games": 512, "block": 10, **screen}

    claims = claims_copy(tmp_path / "c", edit, claim="fourth-ply")
    with pytest.raises(DeclarationError) as err:
        load_claims(claims, "config/claims")
    line = str(err.value)
    assert line.startswith(f"{FOURTH}: ") and key in line and says in line and "\n" not in line


def test_a_sequential_screen_stops_on_one_screen_reading_and_plays_no_prefix(tmp_path) -> None:
    def two(d):
        d["readings"]["again"] = {"kind": "screen", "contrast": "persistence"}

    with pytest.raises(DeclarationError, match=r"fourth-ply.yaml: key screen.looks: a sequential "
                                               r"screen stops on .* this claim has 2"):
        load_claims(claims_copy(tmp_path / "a", two, claim="fourth-ply"))
    with pytest.raises(DeclarationError, match="fourth-ply.yaml: key arms.fair-d4s7.games: a "
                                               "sequential screen plays every arm"):
        load_claims(claims_copy(tmp_path / "b", lambda d: d["arms"]["fair-d4s7"].update(
            games=256), claim="fourth-ply"))


def test_without_looks_a_screen_is_the_fixed_one() -> None:
    plan = plan_of("pilot")
    assert plan.claims["ntuple-line-tuples"].sequential is None
    assert plan.claims["ntuple-line-tuples"].describe()["sequential"] is None
    with pytest.raises(DeclarationError, match="pilot.yaml: key claims.ntuple-line-tuples.screen"
                                               ".looks: claim ntuple-line-tuples declares no "
                                               "looks"):
        plan_of("pilot", claims={"ntuple-line-tuples": {"screen": {"looks": [128, 256]}}})


def test_fourth_ply_declares_looks_and_profiles_scale_them(tmp_path) -> None:
    assert shipped("fourth-ply")["screen"]["looks"] == [128, 256, 384, 512]
    paper = plan_of("paper").claims["fourth-ply"]
    assert paper.sequential.looks == (128, 256, 384, 512) and paper.sequential.contrast == "primary"
    assert paper.shrunk == []
    pilot = plan_of("pilot").claims["fourth-ply"]
    assert pilot.sequential.looks == (8, 16, 24, 32)
    assert "screen looks: 8, 16, 24, 32 (declared: 128, 256, 384, 512)" in pilot.shrunk
    smoke = plan_of("smoke").claims["fourth-ply"]
    assert smoke.sequential.looks == (4, 6, 8)  # 2 games is below the least a look reads
    given = plan_of(profile_like(tmp_path, "pilot",
                                 claims={"fourth-ply": {"screen": {"looks": [16, 32]}}}))
    assert given.claims["fourth-ply"].sequential.looks == (16, 32)
    with pytest.raises(DeclarationError, match="pilot.yaml: key claims.fourth-ply.screen.looks: "
                                               "looks: look 40 is after"):
        plan_of("pilot", claims={"fourth-ply": {"screen": {"looks": [16, 40]}}})
    with pytest.raises(DeclarationError, match="pilot.yaml: key claims.fourth-ply.arms.fair-d4s7"
                                               ".games: a sequential screen plays every arm"):
        plan_of("pilot", claims={"fourth-ply": {"arms": {"fair-d4s7": {"games": 16}}}})


def test_each_look_plays_the_seeds_from_the_previous_look_to_its_own() -> None:
    p = plan_of("paper").claims["fourth-ply"]
    start = p.seeds[0]
    labels = [p.look_label(k) for k in (1, 2, 3, 4)]
    assert labels[1] == "screen-10/look-2" and [p.look_of(x) for x in labels] == [1, 2, 3, 4]
    assert p.look_of(p.label) is None and p.look_of("screen-11/look-1") is None
    assert [p.block_seeds(x) for x in labels] == [(start + 128 * k, 128) for k in range(4)]
    for x in labels:
        arms = p.block_arms(x)
        assert list(arms) == list(p.arms) and {a.games for a in arms.values()} == {128}
        assert arms["fair-d4s7"].policy == p.arms["fair-d4s7"].policy
    with pytest.raises(KeyError):
        p.block_arms(p.look_label(5))
    spec = p.sequential.spec()
    assert design_of(spec["screen"], spec["looks"][-1], spec["looks"]) == p.sequential.design
    # built once: the declaration's check made it, the plan hands the same object on
    assert p.sequential.design is p.claim.design


def test_scaled_looks_keep_their_fractions() -> None:
    assert scale_looks([128, 256, 384, 512], 512, 64) == (16, 32, 48, 64)
    assert scale_looks([100, 200, 300], 300, 30) == (10, 20, 30)
    assert scale_looks([128, 256, 384, 512], 512, 8) == (4, 6, 8)
    assert scale_looks([10, 11, 12], 12, 4) == (4,)


def _contrast(d: np.ndarray) -> dict:
    base = np.full(d.size, 100_000.0)
    return contrast_scores(base + d, base, candidate="a", baseline="b",
                           n_resamples=2_000).to_dict()


def _walk(d: np.ndarray, design) -> list[dict]:
    looks = []
    for k, n in enumerate(design.looks, start=1):
        looks.append(look_record(d[:n], k, design, 1_000))
        if looks[-1]["decision"] != CONTINUE:
            break
    return looks


def test_a_decisive_screen_stops_at_its_first_look_and_passes() -> None:
    design = design_of({"looks": [64, 128, 192, 256]}, 256)
    d = np.random.default_rng(1).normal(25_000, 40_000, 256).round()
    looks = _walk(d, design)
    assert len(looks) == 1 and looks[0]["decision"] == STOP_EFFICACY
    assert looks[0]["seeds"] == [1_000, 64] and looks[0]["statistic"] > looks[0][
        "efficacy_bound"]
    c = _contrast(d[:64])
    c["sequential"] = screen_section(d[:64], c, design, looks, n_sims=4_000)
    seq = c["sequential"]
    assert seq["failed"] == [] and seq["level"] < 0.05 / 4
    assert read_screen(c)[0] == "pass" and "look 1 of 4" in read_screen(c)[1]
    est = seq["estimate"]
    assert est["lower"] < est["median_unbiased"] <= est["naive_mean"] < est["upper"]
    null, half, full = seq["operating"]
    assert null["shift"] == 0 and half["shift"] == pytest.approx(full["shift"] / 2)
    assert abs(null["rejection_rate"] - 0.05) < 3 * null["mc_se"]  # within MC error of 5%
    assert full["expected_games"] < full["fixed_games"]


def test_a_screen_that_never_crosses_fails_on_efficacy_even_when_the_fixed_bounds_pass() -> None:
    design = design_of({"looks": [16, 32]}, 32)
    rng = np.random.default_rng(3)
    for _ in range(200):  # a modest effect: fixed t LB > 0 but not the final sequential bound
        d = rng.normal(15_000, 40_000, 32).round()
        looks = _walk(d, design)
        c = _contrast(d[:looks[-1]["n"]])
        if looks[-1]["decision"] != STOP_EFFICACY and c["criteria"]["t_lb"] == "pass":
            break
    else:
        pytest.fail("no such sample")
    c["sequential"] = screen_section(d[:looks[-1]["n"]], c, design, looks)
    assert "efficacy" in screen_failures(c) and read_screen(c)[0] == "fail"
    assert c["sequential"]["operating"] == []


def test_a_look_with_a_zero_sd_records_no_statistic() -> None:
    design = design_of({"looks": [8, 16]}, 16)
    rec = look_record(np.full(8, 5.0), 1, design, 0)
    assert rec["statistic"] is None and rec["decision"] == STOP_EFFICACY


def test_a_spending_list_is_scaled_with_the_looks_a_profile_keeps(tmp_path) -> None:
    """A claim spending its alpha as a list could never run under smoke (smoke drops the looks
    under 4 games, and the list no longer had one alpha per look)."""
    def listed(d):
        d["screen"]["spending"] = [0.001, 0.01, 0.03, 0.05]

    claims = claims_copy(tmp_path / "c", listed, claim="fourth-ply")
    smoke = plan_of("smoke", claims).claims["fourth-ply"]
    assert smoke.sequential.looks == (4, 6, 8)  # the first look (2 games) is dropped
    assert smoke.sequential.spec()["screen"]["spending"] == [0.01, 0.03, 0.05]
    assert smoke.sequential.design.looks == (4, 6, 8)
    assert smoke.sequential.design is not smoke.claim.design  # the scaled one, built once
    assert "screen spending: 0.01, 0.03, 0.05 at those looks (declared: 0.001, 0.01, 0.03, " \
        "0.05)" in smoke.shrunk
    pilot = plan_of("pilot", claims).claims["fourth-ply"]
    assert pilot.sequential.spec()["screen"]["spending"] == [0.001, 0.01, 0.03, 0.05]
    given = plan_of("smoke", claims, claims={"fourth-ply": {"screen": {
        "games": 16, "looks": [4, 8, 12, 16]}}})
    assert given.claims["fourth-ply"].sequential.spec()["screen"]["spending"] == [
        0.001, 0.01, 0.03, 0.05]
    with pytest.raises(DeclarationError, match="smoke.yaml: key claims.fourth-ply.screen.looks:"
                                               " claim fourth-ply spends its alpha as a list of"
                                               " 4 cumulative alphas"):
        plan_of("smoke", claims, claims={"fourth-ply": {"screen": {"looks": [4, 8]}}})
