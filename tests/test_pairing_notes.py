"""What a profile's shrink does to arms read against each other, said in the plan's
``shrunk`` list (the page's banner at its top, the verdict's ``tier_lowered_by``)."""

from __future__ import annotations

import sys

from claims_support import REPO, claims_copy, external_claim

from protocol.plan import load_plan

COMMAND = [sys.executable, str(REPO / "tests" / "referee_player.py")]


def notes(plan, marker: str) -> list[str]:
    return [s for s in plan.shrunk if marker in s]


def test_a_shrunk_search_against_an_external_program_is_said(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", extra={"external-player": external_claim(COMMAND)})
    p = load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)}).claims[
        "external-player"]
    assert p.arms["fair-d3s7"].policy.endswith("d=2,s=3")  # the smoke shrink
    said = notes(p, "not the declared one")
    assert said == ["contrast mine: fair-d3s7 searches shallower than declared (d3s7), but "
                    "mine (external) plays as declared (a profile shrinks only our own "
                    "searches): the pair is not the declared one"]
    assert said[0] in p.describe()["shrunk"]


def test_the_smoke_panel_says_which_rankers_became_one_policy() -> None:
    p = load_plan(REPO, {"profile": "smoke"}).claims["shallow-ordering"]
    said = notes(p, "play one policy")
    assert len(said) == 1 and said[0].startswith("panel: fair-d2s7 and fair-d1s7 play one "
                                                 "policy in this profile (search:")
    assert p.panel.arms["fair-d2s7"].policy == p.panel.arms["fair-d1s7"].policy


def test_a_profile_that_keeps_pairs_apart_says_nothing() -> None:
    """No pilot or paper pair plays one policy; the pairs the pilot takes apart from their
    declaration (the KF claims' d4s7 searched one ply shallower against the KF policy, which
    no profile shrinks) are said, and no other."""
    for profile in ("pilot", "paper"):
        for claim, p in load_plan(REPO, {"profile": profile}).claims.items():
            said = notes(p, "not the declared one")
            assert not notes(p, "play one policy"), (profile, claim)
            if profile == "pilot" and claim in ("kf-six-weight-policy-search",
                                                "kf-six-weight-cem-searched"):
                assert len(said) == 1 and said[0].startswith("contrast depth-four: fair-d4s7")
            elif (profile, claim) == ("pilot", "kf-linear-q-transfer"):  # d3s7 against 3 KF arms
                assert len(said) == 3 and all(n.startswith("contrast depth-four-") for n in said)
            else:
                assert not said, (profile, claim)
