"""``reveals: M`` on a claim's arms: the schema, the checks, the policy, the tag and the cost."""

from __future__ import annotations

import pytest
from claims_support import REPO, claims_copy, fair_depth_claim

from engines.leaves.kinds import LeafSpec
from engines.play.arm_specs import SearchSpec
from engines.search.limits import MAX_REVEALS
from protocol.arms import decision_seconds
from protocol.declaration import load_claims
from protocol.parts.base import dtag
from protocol.plan import load_plan
from protocol.schema import DeclarationError, load_schema

LINEAR = LeafSpec("linear")

CLAIM = "fair-depth-prefix"


def factored_claim() -> dict:
    """fair d3s7 with six reveal samples per disc stratum against plain fair d3s7."""
    doc = fair_depth_claim()
    doc["arms"] = {"fair-d3s7r6": {"play": "search", "depth": 3, "strata": 7, "reveals": 6,
                                   "leaf": "linear"},
                   "fair-d2s7": {"play": "search", "depth": 2, "strata": 7, "leaf": "linear",
                                 "games": 16},
                   "direct-r2": {"play": "direct", "leaf": "linear", "reveals": 2}}
    doc["contrasts"] = {"depth": {"difference": ["fair-d3s7r6", "fair-d2s7"]}}
    return doc


def plan_of(profile: str, doc: dict, tmp_path):
    claims = claims_copy(tmp_path / "c", extra={CLAIM: doc})
    return load_plan(REPO, {"profile": profile, "claims_dir": str(claims)}).claims[CLAIM]


def test_a_reveals_arm_plays_the_factored_policy(tmp_path) -> None:
    p = plan_of("pilot", factored_claim(), tmp_path)
    arm = p.arms["fair-d3s7r6"]
    assert arm.policy == "search:leaf=linear,d=3,s=7,r=6" and arm.reveals == 6
    assert p.arms["direct-r2"].policy == "direct:leaf=linear,r=2"
    assert p.arms["fair-d2s7"].policy == "search:leaf=linear,d=2,s=7"  # no r when undeclared
    assert p.arms["fair-d2s7"].reveals is None
    assert not any("fair-d3s7r6" in s for s in p.shrunk)


def test_smoke_caps_the_reveals_and_says_so(tmp_path) -> None:
    p = plan_of("smoke", factored_claim(), tmp_path)
    assert p.arms["fair-d3s7r6"].policy == "search:leaf=linear,d=2,s=3,r=2"
    assert "arm fair-d3s7r6: search d2s3r2 instead of d3s7r6" in p.shrunk
    assert "arm direct-r2: search s3r2 instead of s7r2" in p.shrunk


def test_the_arm_tag() -> None:
    assert dtag(3, 7) == "d3s7" and dtag(3, 7, 6) == "d3s7r6" and dtag(4, 7, 1) == "d4s7r1"


def test_an_arms_cost_grows_with_its_reveals(tmp_path) -> None:
    doc = factored_claim()
    seconds = []
    for m in (None, 1, 2, 6):
        arm = doc["arms"]["fair-d3s7r6"]
        arm.pop("reveals", None)
        if m is not None:
            arm["reveals"] = m
        seconds.append(plan_of("pilot", doc, tmp_path / str(m)).arms["fair-d3s7r6"]
                       .seconds_per_game)
    assert seconds[0] == seconds[1] < seconds[2] < seconds[3]
    for depth in (3, 4):
        plain = decision_seconds(search(depth))
        assert decision_seconds(search(depth, 1)) == plain
        assert plain < decision_seconds(search(depth, 2)) < decision_seconds(search(depth, 6))
    assert decision_seconds(SearchSpec("direct", LINEAR, 1, 7, 6)) > decision_seconds(
        SearchSpec("direct", LINEAR, 1, 7))


def search(depth: int, reveals: int | None = None) -> SearchSpec:
    """A d{depth}s7 search over the fair leaf, factored with ``reveals`` when given."""
    return SearchSpec("search", LINEAR, depth, 7, reveals)


@pytest.mark.parametrize(("arm", "reveals", "message"), [
    ("fair-d3s7r6", 0, "key arms.fair-d3s7r6.reveals"),
    ("fair-d3s7r6", MAX_REVEALS + 1, "key arms.fair-d3s7r6.reveals"),
    ("fair-d3s7r6", "6", "key arms.fair-d3s7r6.reveals"),
])
def test_a_bad_reveals_is_one_line(tmp_path, arm: str, reveals, message: str) -> None:
    doc = factored_claim()
    doc["arms"][arm]["reveals"] = reveals
    claims = claims_copy(tmp_path / "c", extra={CLAIM: doc})
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    assert str(err.value).startswith(str(claims / f"{CLAIM}.yaml") + ": ")
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("play", ["random", "centre-first"])
def test_a_baseline_takes_no_reveals(tmp_path, play: str) -> None:
    doc = factored_claim()
    doc["arms"]["base"] = {"play": play, "reveals": 2}
    claims = claims_copy(tmp_path / "c", extra={CLAIM: doc})
    with pytest.raises(DeclarationError, match=f"key arms.base.reveals: the {play} baseline "
                       "takes no reveals"):
        load_claims(claims)


def test_the_schema_allows_the_engines_reveals() -> None:
    arm = load_schema("claim")["properties"]["arms"]["additionalProperties"]["properties"]
    assert (arm["reveals"]["minimum"], arm["reveals"]["maximum"]) == (1, MAX_REVEALS)
