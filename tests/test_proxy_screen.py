"""A proxy screen: a profile that plays a claim's arms as other searches than declared (the
pilot's one ply shallower for depth-five and factored-chance) writes records that say so and
assess a proxy theory id, never the register theory."""

from __future__ import annotations

import pytest
from claims_support import REPO

from protocol.plan import load_plan
from protocol.records.bundle import derived_theory
from protocol.records.ids import THEORY_ID, theory_id

DEPTH = "TH-20260821-depth-gradient-beyond-fair-d4-034314fc"


def described(profile: str, claim: str) -> dict:
    return load_plan(REPO, {"profile": profile}).claims[claim].describe()


def test_the_pilot_plays_depth_five_as_a_proxy_and_the_paper_profile_does_not() -> None:
    pilot, paper = described("pilot", "depth-five"), described("paper", "depth-five")
    assert "arm fair-d5s7: search d4s7 instead of d5s7" in pilot["proxy"]
    assert paper["proxy"] == []
    assert described("pilot", "reveal-quadrature")["proxy"] == []  # played as declared


def test_a_proxy_screen_assesses_its_own_theory_id_and_says_which_it_stands_for() -> None:
    pilot, paper = described("pilot", "depth-five"), described("paper", "depth-five")
    assert theory_id(paper, "20260821") == DEPTH
    proxy = theory_id(pilot, "20260821")
    assert proxy != DEPTH and THEORY_ID.match(proxy)
    assert proxy.startswith("TH-20260821-depth-gradient-beyond-fair-d4-proxy-")
    said = derived_theory(pilot, proxy)
    assert len(said) == 1 and said[0].startswith("a proxy screen, not a test of")
    assert DEPTH in said[0] and "does not assess that theory" in said[0]
    assert derived_theory(paper, DEPTH) == []


@pytest.mark.parametrize(("claim", "names"), [
    ("shallow-ordering", "TH-20260823-nnue-class-holds-d4-ordering-c7b397a5"),
    ("linear-trained-leaf", "TH-20260902-treestrap-linear-leaf-refit-4b984292"),
])
def test_a_derived_theory_id_is_marked_derived_and_names_its_register_theory(claim,
                                                                            names) -> None:
    plan = described("paper" if claim == "shallow-ordering" else "pilot", claim)
    own = theory_id(plan, "20261204")
    said = derived_theory(plan, own)
    assert said and f"theory id {own} is derived" in said[0] and names in said[0]


def test_a_declared_register_theory_is_not_marked_derived() -> None:
    plan = described("pilot", "fourth-ply")
    assert plan["theory"] == "TH-20260906-ntuple-leaf-fourth-ply-search-compatible-ace4fe2a"
    assert derived_theory(plan, theory_id(plan, "20261202")) == []
