"""Verdict rules: the methodological checks first, then the declared rules in order."""

from __future__ import annotations

import pytest
from claims_support import shipped

from analysis.readings import Reading
from protocol.verdict import (
    INVALIDATED,
    MIXED,
    NOT_SUPPORTED,
    SUPPORTED,
    decide,
    methodological_errors,
)

CLAIM1 = shipped("ntuple-line-tuples")["verdict"]
CLAIM2 = shipped("fourth-ply")["verdict"]


HEALTHY = {"training_health_A": "pass", "training_health_E": "pass"}


def readings(**outcomes):
    return [Reading(name.replace("_", "-"), "k", name, outcome, "why")
            for name, outcome in outcomes.items()]


@pytest.mark.parametrize(("outcomes", "verdict"), [
    ({"training_signal": "pass", "primary": "pass", "ablation": "pass", "direct_play": "pass"},
     SUPPORTED),
    ({"training_signal": "fail", "primary": "not-run", "ablation": "pass",
      "direct_play": "not-run"}, NOT_SUPPORTED),
    ({"training_signal": "pass", "primary": "fail", "ablation": "fail", "direct_play": "fail"},
     NOT_SUPPORTED),
    ({"training_signal": "pass", "primary": "pass", "ablation": "fail", "direct_play": "pass"},
     MIXED),
    ({"training_signal": "pass", "primary": "pass", "ablation": "pass", "direct_play": "fail"},
     MIXED),
])
def test_the_registered_claims_decision_table(outcomes, verdict) -> None:
    assert decide(CLAIM1, readings(**HEALTHY, **outcomes), [], "pilot")["verdict"] == verdict


@pytest.mark.parametrize("weights", ["A", "E"])
def test_an_unsound_training_is_not_a_test_of_the_claim(weights) -> None:
    outcomes = {**HEALTHY, f"training_health_{weights}": "fail", "training_signal": "pass",
                "primary": "not-run", "ablation": "pass", "direct_play": "not-run"}
    out = decide(CLAIM1, readings(**outcomes), [], "pilot")
    assert out["verdict"] == NOT_SUPPORTED and "training was not sound" in out["reason"]


def test_the_fourth_ply_claim_is_supported_with_an_inconclusive_interaction() -> None:
    ok = readings(primary="pass", primary_refuted="not-refuted", persistence="pass",
                  interaction="inconclusive")
    assert decide(CLAIM2, ok, [], "public-development")["verdict"] == SUPPORTED
    smaller = readings(primary="pass", primary_refuted="not-refuted", persistence="pass",
                       interaction="refuted")
    assert decide(CLAIM2, smaller, [], "pilot")["verdict"] == MIXED
    lower = readings(primary="fail", primary_refuted="refuted", persistence="pass",
                     interaction="inconclusive")
    out = decide(CLAIM2, lower, [], "pilot")
    assert out["verdict"] == NOT_SUPPORTED and out["rule"] == 0
    assert out["reason"] == "the fourth ply lowers the tables' mean"


def test_methodological_errors_come_first() -> None:
    good = readings(**HEALTHY, training_signal="pass", primary="pass", ablation="pass",
                    direct_play="pass")
    out = decide(CLAIM1, good, ["contrast primary: 1 illegal and 0 unfinished decisions"],
                 "pilot")
    assert out["verdict"] == INVALIDATED and out["reason"].startswith("contrast primary")
    assert out["tier"] == "pilot" and out["outcomes"]["primary"] == "pass"


def test_methodological_errors_list_every_reason() -> None:
    gate = {"passed": False, "reason": "no signal"}
    errors = methodological_errors(integrity=["x"], gate=gate, screened=True, reused=True,
                                   frozen={"c/w": {"gates_passed": False}})
    assert errors == ["x", "the screen was opened although a gate failed (no signal)",
                      "the screen read c/w, frozen although its claim's gates failed",
                      "the screen block was read before by another opener (a reuse)"]
    assert methodological_errors(integrity=[], gate=gate, screened=False, reused=False,
                                 frozen={}) == []


def test_otherwise_names_the_outcomes() -> None:
    out = decide({"rules": [], "otherwise": MIXED}, readings(a="pass"), [], "pilot")
    assert out["verdict"] == MIXED and "a pass" in out["reason"]
