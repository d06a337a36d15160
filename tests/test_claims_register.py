"""The register's theories as claims: depth-five, the per-claim search shrink of a profile, and
the two claims of the factored chance node."""

from __future__ import annotations

from pathlib import Path

import pytest
from claims_support import REPO, profile_like, shipped

from protocol.plan import load_plan
from protocol.plan_model import PILOT, PUBLIC
from protocol.profile import load_profile
from protocol.schema import DeclarationError


def plan_of(profile: str, **over):
    return load_plan(REPO, {"profile": profile, **over})


def searches(plan, claim: str) -> dict[str, tuple[int | None, int | None, int]]:
    return {a.name: (a.spec.depth, a.spec.strata, a.games)
            for a in plan.claims[claim].arms.values()}


def test_depth_five_at_its_registered_size_is_the_registers_factorial() -> None:
    p = plan_of("paper").claims["depth-five"]
    assert searches(plan_of("paper"), "depth-five") == {
        "fair-d5s7": (5, 7, 64), "fair-d4s7": (4, 7, 64), "fair-d5s5": (5, 5, 64),
        "fair-d4s5": (4, 5, 64)}
    assert p.arms["fair-d5s7"].policy == "search:leaf=linear,d=5,s=7"
    assert p.sequential.looks == (16, 32, 48, 64) and p.sequential.contrast == "primary"
    assert p.contrasts["interaction"].arms == ("fair-d5s7", "fair-d4s7", "fair-d5s5",
                                               "fair-d4s5")
    assert p.shrunk == [] and p.tier == PUBLIC and p.blocks == [50]
    # cluster work at its size: the d5s7 arm alone is most of the claim's estimated CPU
    assert p.arms["fair-d5s7"].seconds_per_game > 20 * p.arms["fair-d4s7"].seconds_per_game


def test_the_pilot_searches_depth_five_one_ply_shallower_and_says_so() -> None:
    """The per-claim ``search`` shrink: the pilot keeps the 2 x 2 of depth and strata."""
    plan = plan_of("pilot")
    p = plan.claims["depth-five"]
    assert searches(plan, "depth-five") == {
        "fair-d5s7": (4, 7, 8), "fair-d4s7": (3, 7, 8), "fair-d5s5": (4, 5, 8),
        "fair-d4s5": (3, 5, 8)}
    assert p.sequential.looks == (4, 8) and p.block == 1050 and p.tier == PILOT
    assert "arm fair-d5s7: search d4s7 instead of d5s7" in p.shrunk
    assert "arm fair-d4s5: search d3s5 instead of d4s5" in p.shrunk
    assert "screen: 8 of the declared 64 games" in p.shrunk
    # another claim of the same profile keeps its searches: the shrink is the claim's alone
    assert searches(plan, "fourth-ply")["tables-d4s7"][:2] == (4, 7)


def test_a_claims_search_replaces_the_caps_key_by_key() -> None:
    plan = plan_of("smoke")
    # smoke caps every search at 3 strata, one ply shallower; depth-five sets both its own way
    assert searches(plan, "depth-five") == {
        "fair-d5s7": (2, 7, 8), "fair-d4s7": (1, 7, 8), "fair-d5s5": (2, 5, 8),
        "fair-d4s5": (1, 5, 8)}
    assert searches(plan, "fourth-ply")["fair-d4s7"] == (3, 3, 8)
    # a key it leaves out is the cap's: here the depth shift
    only_strata = plan_of("smoke", claims={"fourth-ply": {"search": {"strata": 7}}})
    assert searches(only_strata, "fourth-ply")["fair-d4s7"] == (3, 7, 8)


@pytest.mark.parametrize(("search", "named"), [
    ({"depth_shift": 1}, "claims.depth-five.search.depth_shift"),
    ({"strata": 0}, "claims.depth-five.search.strata"),
    ({"depth": 3}, "claims.depth-five.search.depth"),
])
def test_a_claims_search_only_shrinks(search, named) -> None:
    with pytest.raises(DeclarationError, match=named) as err:
        load_profile(REPO, {"profile": "pilot", "claims": {"depth-five": {"search": search}}})
    assert "\n" not in str(err.value)


def test_a_claims_search_never_raises_the_declared_strata(tmp_path) -> None:
    plan = plan_of(profile_like(tmp_path, "pilot", claims={"depth-five": {"search": {
        "strata": 64}}}))
    assert searches(plan, "depth-five")["fair-d5s5"][:2] == (4, 5)


def test_depth_five_records_the_registers_figures_and_its_partial_arm() -> None:
    """The register's head record of the factorial (the d5s7 arm stopped at 32 games), not
    the 16-game record it superseded."""
    rec = shipped("depth-five")["recorded"]
    assert rec["contrasts"]["primary"] == {"mean_delta": 23367, "bootstrap_lb": -83046,
                                           "wins_ties_losses": [17, 0, 15]}
    assert rec["contrasts"]["five-strata"]["mean_delta"] == -8624
    # the head record writes the d4s7 and d5s5 means only in its prose: noted, not quoted
    assert set(rec["arms"]) == {"fair-d5s7"}
    assert any("398,498 and 288,704" in n for n in rec["notes"])
    assert "RS-20260821T181917Z-9a34ba02" in rec["source"]  # the superseded one, named
    assert any("stopped at 32 of its 64 games" in n for n in rec["notes"])
    # no recorded interaction: the register published none
    assert "interaction" not in rec["contrasts"]


@pytest.mark.parametrize("name", ["factored-chance", "reveal-quadrature"])
def test_the_reveals_claims_ship_on_blocks_of_their_own(name) -> None:
    """They declare ``reveals`` on their search arms and read a block no other claim reads."""
    doc = shipped(name)
    assert doc["id"] == name
    assert any("reveals" in arm for arm in doc["arms"].values())
    blocks = {shipped(c)["screen"]["block"] for c in ("depth-five", "fourth-ply",
                                                      "linear-trained-leaf")}
    assert doc["screen"]["block"] not in blocks


def test_the_pilot_plans_the_reveals_claims_with_their_shrinks() -> None:
    """factored-chance one ply shallower with its reveals kept; reveal-quadrature at its size on
    fewer games; the tags carry the reveal samples."""
    plan = plan_of("pilot")
    assert searches(plan, "factored-chance") == {"fair-d4-n7m2": (3, 7, 64),
                                                 "fair-d4-n7m1": (3, 7, 64)}
    assert searches(plan, "reveal-quadrature") == {
        "fair-d3-n7m6": (3, 7, 10), "fair-d4s5": (4, 5, 10), "fair-d4s7": (4, 7, 4)}
    fc = plan.claims["factored-chance"].arms
    assert (fc["fair-d4-n7m2"].reveals, fc["fair-d4-n7m1"].reveals) == (2, 1)
    assert plan.claims["reveal-quadrature"].arms["fair-d3-n7m6"].reveals == 6
    rq = plan.claims["reveal-quadrature"]
    assert rq.contrasts["primary"].games == 10 and rq.contrasts["against-d4s7"].games == 4
    assert [plan.claims[c].block for c in ("depth-five", "factored-chance",
                                           "reveal-quadrature")] == [1050, 1051, 1052]


def test_the_pilot_plans_the_reveal_construction_leaf_one_ply_shallower() -> None:
    """Both arms d3s7 on all 256 games of block 61 (+ the pilot's offset); the term's arm plays
    the pinned 19-number vector with its declared term, in its policy string and its pin."""
    import numpy as np

    from engines.leaves.linear import FAIR_WEIGHTS
    from engines.pinned_leaf import check_pinned, read_vector

    plan = plan_of("pilot")
    claim = plan.claims["reveal-construction-leaf"]
    assert searches(plan, "reveal-construction-leaf") == {"reveal-d4s7": (3, 7, 256),
                                                          "fair-d4s7": (3, 7, 256)}
    assert claim.block == 1061
    arm = claim.arms["reveal-d4s7"]
    assert arm.spec.leaf.terms == ("aligned_double_hit",)
    assert arm.spec.format().startswith("search:leaf=linear-file[aligned_double_hit]:bb5ebb67")
    assert arm.pinned.describe()["terms"] == ["aligned_double_hit"]
    assert claim.arms["fair-d4s7"].spec.format() == "search:leaf=linear,d=3,s=7"
    pin = arm.pinned
    assert check_pinned(pin.path, pin.sha256, pin.terms).entries >= 18
    vector = read_vector(REPO / pin.path, pin.terms)
    assert np.array_equal(vector[:18], FAIR_WEIGHTS) and list(vector[18:]) == [0.0, 900.0]


def test_the_theory_page_lists_the_registers_28_theories() -> None:
    text = (REPO / "docs" / "from-theory-to-claim.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `TH-")]
    assert len(rows) == 28 and len(set(rows)) == 28
    assert "depth-gradient-beyond-fair-d4" in text and "config/claims/depth-five.yaml" in text
    linked = Path(REPO / "README.md").read_text() + (REPO / "docs" / "architecture.md").read_text()
    assert "from-theory-to-claim.md" in linked


def test_the_treestrap_refit_pins_the_registers_published_weights() -> None:
    """The pinned vector is the register's refit (18 weights in the leaf's term order, then the
    intercept), its hash is the declared one, and the pilot plays it one ply shallower."""
    import hashlib
    import json

    from engines.leaves.linear import TERM_NAMES

    doc = shipped("treestrap-linear-leaf-refit")
    leaf = doc["arms"]["refit-d4s7"]["leaf"]
    data = (REPO / leaf["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == leaf["sha256"]
    weights = json.loads(data)
    assert len(weights) == len(TERM_NAMES) + 1
    assert weights[TERM_NAMES.index("open_columns")] == -4232.479724649859
    assert weights[TERM_NAMES.index("next_disc_vertical_options")] == 58.67259282191178
    assert weights[-1] == 45744.30990941367
    plan = plan_of("pilot")
    assert searches(plan, "treestrap-linear-leaf-refit") == {"refit-d4s7": (3, 7, 256),
                                                             "fair-d4s7": (3, 7, 256)}
    assert plan.claims["treestrap-linear-leaf-refit"].block == 1055


def test_the_reveal_ladder_keeps_its_searches_and_reads_the_per_move_rates() -> None:
    """factored-chance's depth-3 ladder: M=12 against M=6 at its declared searches on 32 pilot
    games, its mechanism read as clears and reveals per move on the same games."""
    plan = plan_of("pilot")
    assert searches(plan, "factored-chance-ladder") == {
        "fair-d3-n7m12": (3, 7, 32), "fair-d3-n7m6": (3, 7, 32), "fair-d3-n7m1": (3, 7, 32)}
    arms = plan.claims["factored-chance-ladder"].arms
    assert (arms["fair-d3-n7m12"].reveals, arms["fair-d3-n7m6"].reveals) == (12, 6)
    metrics = {n: c.metric for n, c in plan.claims["factored-chance-ladder"].contrasts.items()}
    assert metrics == {"primary": "score", "six-over-one": "score",
                       "clears": "clears_per_move", "reveals": "reveals_per_move"}
    assert plan.claims["factored-chance-ladder"].block == 1056


def test_the_kf_claim_plans_both_weight_vectors_and_the_d4s7_leg() -> None:
    """Paper: the two KF arms on all 256 games of block 62, fair d4s7 on the first 32; the pilot
    plays d3s7 in its place on the same 32 (and says so); the optimum's threshold and the
    register's head result are declared as the theory states them."""
    from engines.filters.kf_weights import KF_WEIGHTS

    paper = plan_of("paper")
    claim = paper.claims["kf-six-weight-policy-search"]
    assert claim.block == 62
    assert {n: a.policy for n, a in claim.arms.items()} == {
        "kf-optimum": "kf:w=cem", "kf-transplanted": "kf:w=transplanted",
        "fair-d4s7": "search:leaf=linear,d=4,s=7"}
    assert {n: a.games for n, a in claim.arms.items()} == {
        "kf-optimum": 256, "kf-transplanted": 256, "fair-d4s7": 32}
    pilot = plan_of("pilot").claims["kf-six-weight-policy-search"]
    assert pilot.arms["fair-d4s7"].policy == "search:leaf=linear,d=3,s=7"
    assert pilot.arms["kf-optimum"].games == 256 and pilot.arms["fair-d4s7"].games == 32
    assert any("fair-d4s7" in s and "d4s7" in s for s in pilot.shrunk)
    doc = shipped("kf-six-weight-policy-search")
    assert doc["theory"] == "TH-20260902-kf-six-weight-policy-search-8a6e41a8"
    assert doc["readings"]["optimum-below"]["threshold"] == 205530
    assert doc["recorded"]["result"] == "RS-20260902T084356Z-784ebf14"
    # the head result carries the optimum's arm only: the others' rows are its parent's fields
    assert set(doc["recorded"]["arms"]) == {"kf-optimum"}
    assert any("RS-20260902T084356Z-2488ecc7" in n for n in doc["recorded"]["notes"])
    assert doc["contrasts"]["primary"]["metric"] == "moves"
    # the optimum is the register's unit vector, the transplanted vector is not one
    assert abs(sum(w * w for w in KF_WEIGHTS["cem"][0]) - 1) < 1e-12
    assert KF_WEIGHTS["transplanted"][0][0] == 175.67544967426653
