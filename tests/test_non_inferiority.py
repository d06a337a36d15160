"""The non-inferiority reading: pass when the bootstrap lower bound is above a declared margin
below 0; its declaration checked (margin required, finite, below 0, on this kind only)."""

from __future__ import annotations

import numpy as np
import pytest
from claims_support import own_claim, write_claim

from analysis.contrast import contrast_scores
from analysis.readers import margin_problem
from analysis.reading_kinds import READING_KINDS, reading_kind
from analysis.readings import NOT_RUN, evaluate
from protocol.declaration import load_claims
from protocol.schema import DeclarationError


def contrast(shift: float, metric: str = "score") -> dict:
    rng = np.random.default_rng(3)
    base = rng.normal(300_000, 100_000, 64)
    c = contrast_scores(base + shift + rng.normal(0, 30_000, 64), base, candidate="cheap",
                        baseline="dear", n_resamples=2000)
    c.metric = metric
    return c.to_dict()


def spec(margin: float) -> dict:
    return {"kind": "non-inferior", "contrast": "c", "margin": margin}


def test_the_kind_is_registered_in_the_one_place() -> None:
    kind = reading_kind("non-inferior")
    assert kind.outcomes == ("pass", "fail") and kind.keys == ("contrast", "margin")
    assert kind.source == "contrast" and kind.reader is not None


def test_it_passes_strictly_above_the_margin_and_fails_at_it() -> None:
    c = contrast(-10_000)  # a cheaper player that loses a little
    lb = c["bootstrap_lb"]
    assert lb < 0
    above = evaluate("ni", spec(lb - 1), {"c": c}, {})
    at = evaluate("ni", spec(lb), {"c": c}, {})
    assert above.outcome == "pass" and at.outcome == "fail"
    assert above.numbers["margin"] == lb - 1 and above.numbers["bootstrap_lb"] == lb
    assert f"margin {lb - 1:+,.0f} points: non-inferior" in above.reason
    assert "<= margin" in at.reason and "not shown non-inferior" in at.reason
    # a loss beyond the margin fails; lower-above-zero would fail both, so the margin matters
    assert evaluate("ni", spec(-40_000), {"c": c}, {}).outcome == "pass"
    assert evaluate("ni", spec(-1_000), {"c": c}, {}).outcome == "fail"
    assert evaluate("lb", {"kind": "lower-above-zero", "contrast": "c"}, {"c": c},
                    {}).outcome == "fail"


def test_its_reason_carries_the_contrasts_unit_and_a_missing_contrast_is_not_run() -> None:
    r = evaluate("ni", spec(-5), {"c": contrast(-1, metric="moves")}, {})
    assert "margin -5.00 moves" in r.reason and "(moves: n 64" in r.reason
    missing = evaluate("ni", spec(-5), {}, {})
    assert missing.outcome == NOT_RUN and "no contrast c" in missing.reason


@pytest.mark.parametrize("margin", [0, 0.0, 40_000, float("nan"), float("inf"), float("-inf")])
def test_a_margin_not_finite_or_not_below_zero_is_a_problem(margin) -> None:
    assert margin_problem(margin)


def _claim(tmp_path, **reading) -> str:
    doc = own_claim()
    doc["readings"]["ni"] = {"kind": "non-inferior", "contrast": "ply", **reading}
    write_claim(tmp_path, doc)
    with pytest.raises(DeclarationError) as err:
        load_claims(tmp_path)
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'my-first-claim.yaml'}: key ")
    assert "\n" not in message
    return message


def test_a_good_declaration_loads_and_a_rule_may_name_its_outcomes(tmp_path) -> None:
    doc = own_claim()
    doc["readings"]["ni"] = {"kind": "non-inferior", "contrast": "ply", "margin": -40_000}
    doc["verdict"]["rules"].append({"when": {"ni": ["fail", "not-run"]},
                                    "then": "not-supported-as-tested"})
    write_claim(tmp_path, doc)
    claim = load_claims(tmp_path)["my-first-claim"]
    assert claim.readings["ni"]["margin"] == -40_000


@pytest.mark.parametrize(("reading", "said"), [
    ({}, "key readings.ni.margin: missing: a non-inferior reading needs contrast, margin"),
    ({"margin": 0}, "key readings.ni.margin: 0 is not below 0"),
    ({"margin": 40_000}, "key readings.ni.margin: 40,000 is not below 0"),
    ({"margin": float("nan")}, "key readings.ni.margin = nan: not a finite number"),
    ({"margin": float("-inf")}, "key readings.ni.margin = -inf: not a finite number"),
    ({"margin": "-40000"}, "readings.ni.margin"),
    ({"margin": True}, "readings.ni.margin"),
])
def test_a_bad_margin_is_one_line(tmp_path, reading, said) -> None:
    assert said in _claim(tmp_path, **reading)


def test_a_margin_on_another_kind_and_an_outcome_it_cannot_give_are_refused(tmp_path) -> None:
    doc = own_claim()
    doc["readings"]["ply-screen"]["margin"] = -10
    write_claim(tmp_path, doc)
    with pytest.raises(DeclarationError, match="key readings.ply-screen.margin: a screen "
                                               "reading takes contrast$"):
        load_claims(tmp_path)
    doc = own_claim()
    doc["readings"]["ni"] = {"kind": "non-inferior", "contrast": "ply", "margin": -1}
    doc["verdict"]["rules"].append({"when": {"ni": "refuted"}, "then": "mixed"})
    write_claim(tmp_path, doc)
    with pytest.raises(DeclarationError, match=r"key verdict.rules\[1\].when.ni: 'refuted' is "
                                               "not an outcome of a non-inferior reading"):
        load_claims(tmp_path)


def test_the_schema_lists_exactly_the_kinds_of_the_readings() -> None:
    from protocol.declaration import claim_schema

    kinds = claim_schema()["properties"]["readings"]["additionalProperties"][
        "properties"]["kind"]["enum"]
    assert sorted(kinds) == sorted(READING_KINDS)
