"""Numbers a declaration or profile takes are finite and within what the trainer accepts,
and a declaration that is not UTF-8 is refused naming its file: at the plan, before any job."""

from __future__ import annotations

import math

import pytest
from claims_support import REPO, claims_copy

from engines.train.kernel import ALPHA_MAX, check_alpha
from engines.train.linear_td import LinearLearner
from protocol.plan import load_plan
from protocol.schema import DeclarationError, non_finite

CLAIM = "linear-trained-leaf"


def _with_alpha(tmp_path, alpha):
    def edit(doc):
        doc["weights"]["linear-trained"]["train"]["alpha"] = alpha
    return claims_copy(tmp_path / "claims", edit, claim=CLAIM)


@pytest.mark.parametrize("alpha", [math.nan, math.inf, 5, 1.0000001, 0, -0.5])
def test_an_alpha_the_trainer_refuses_is_refused_at_the_plan(tmp_path, alpha) -> None:
    claims = _with_alpha(tmp_path, alpha)
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    line = str(err.value)
    assert "\n" not in line and f"{CLAIM}.yaml" in line
    assert "key weights.linear-trained.train.alpha" in line
    with pytest.raises(ValueError):  # and the trainer refuses it too
        LinearLearner(alpha)


def test_every_alpha_the_trainer_accepts_plans(tmp_path) -> None:
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(_with_alpha(tmp_path, 1.0))})
    assert plan.claims[CLAIM].trained["linear-trained"].alpha == 1.0
    assert check_alpha(1.0) == 1.0


def test_the_schema_bounds_alpha_as_the_trainer_does() -> None:
    from engines.learners import get_learner

    alpha = get_learner("ntuple").keys["alpha"]
    assert get_learner("linear").keys["alpha"] == alpha
    assert (alpha["exclusiveMinimum"], alpha["maximum"]) == (0, ALPHA_MAX)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_profile_number_from_the_command_line_must_be_finite(value) -> None:
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "smoke", "job_minutes": value})
    line = str(err.value)
    assert line.startswith("config/profiles/smoke.yaml (with the command line's overrides): "
                           "key job_minutes = ") and "not a finite number" in line


@pytest.mark.parametrize(("value", "shown"), [(math.nan, "nan"), (10**400, "1000000000")],
                         ids=["nan", "huge-int"])
def test_a_profile_number_on_the_command_line_is_blamed_on_the_command_line(value,
                                                                           shown) -> None:
    from protocol.profile import command_line_origins

    over = {"profile": "smoke", "job_minutes": value}
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, over, command_line_origins([], over))
    line = str(err.value)
    assert line.startswith(f"--config: key job_minutes = {shown}") and "\n" not in line
    assert line.endswith(": not a finite number") and len(line) < 120


def test_an_integer_too_large_for_a_float_in_a_claim_is_one_line(tmp_path) -> None:
    claims = claims_copy(tmp_path / "claims", lambda d: d["readings"]["d3-top1"].update(
        threshold=10**400), claim="shallow-ordering")
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    line = str(err.value)
    assert "shallow-ordering.yaml: key readings.d3-top1.threshold = 100000" in line
    assert line.endswith("not a finite number") and "\n" not in line


def test_non_finite_finds_the_first_nan_by_its_key_path() -> None:
    assert non_finite({"a": [1.0, {"b": math.nan}], "c": 2}) == (("a", 1, "b"), pytest.approx(
        math.nan, nan_ok=True))
    assert non_finite({"a": [1, 2.5, "nan"], "b": True}) is None
    assert non_finite({"a": [1, 2**1023], "b": {"c": -(2**1024)}}) == (("b", "c"), -(2**1024))


def test_a_claim_that_is_not_utf8_is_refused_naming_the_file(tmp_path) -> None:
    claims = claims_copy(tmp_path / "claims")
    bad = claims / f"{CLAIM}.yaml"
    bad.write_bytes(bad.read_bytes().replace(b"Trained linear", b"Trained \xe9linear", 1))
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    byte = bad.read_bytes().index(b"\xe9")
    assert str(err.value) == f"{bad}: not UTF-8 text (byte {byte})"
