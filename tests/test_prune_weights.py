"""A pruning prior's weights in a claim: a pinned Q, the Q the claim fits, a KF vector; the
declaration's refusals in one line, the policy string each arm gets, the fit waited for."""

from __future__ import annotations

import json

import numpy as np
import pytest
from claims_support import REPO, claims_copy
from test_panel_declaration import one_line

from engines.filters.oneply_q_weights import save_q
from engines.play.policy_grammar import parse_policy
from engines.search.prune import prior_weights
from protocol.checks import before_any_job
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError

CLAIM = "oneply-linear-q-prune-prior"
Q_DIR = "config/pinned/oneply-q-register-centred"
Q_SHA = json.loads((REPO / Q_DIR / "manifest.json").read_text())["sha256"]
PINNED = {"file": Q_DIR, "sha256": Q_SHA}


def _pruned(weights, prior: str = "q") -> dict:
    return {"play": "search", "depth": 4, "strata": 7, "leaf": "linear",
            "prune": {"prior": prior, "k": 3, "weights": weights}}


def _claims(tmp_path, **arms):
    """The shipped claims, the Q panel's with ``arms`` added as rankers."""
    def edit(doc):
        doc["arms"].update(arms)
        doc["panel"]["rankers"] = [*doc["panel"]["rankers"],
                                   *(a for a in arms if a not in doc["panel"]["rankers"])]
    return claims_copy(tmp_path / "claims", edit, claim=CLAIM)


def _plan(tmp_path, profile: str = "smoke", **arms):
    return load_plan(REPO, {"profile": profile, "claims_dir": str(_claims(tmp_path, **arms))})


def test_a_pinned_q_prior_reaches_the_policy_string_and_is_hashed_before_any_job(
        tmp_path) -> None:
    plan = _plan(tmp_path, pinned=_pruned(PINNED))
    arm = plan.claims[CLAIM].panel.arms["pinned"]
    # smoke searches d4s7 as d3s3
    assert arm.policy == f"search:leaf=linear,d=3,s=3,prune=q:{Q_SHA}:{Q_DIR},k=3"
    assert arm.direct is None  # nothing to wait for
    spec = parse_policy(arm.policy).prune
    assert prior_weights(spec).shape == (32,)
    before_any_job(plan)  # the right hash passes


def test_a_q_prior_of_the_claims_fit_waits_for_it_and_opens_with_its_hash(tmp_path) -> None:
    plan = _plan(tmp_path, fitted=_pruned("qfit"))
    p = plan.claims[CLAIM]
    arm, fit = p.panel.arms["fitted"], p.direct_trained["qfit"]
    assert arm.policy == ("search:leaf=linear,d=3,s=3,prune=q:trained:"
                          f"{fit.weights_file},k=3")
    assert arm.direct == (fit.weights_file, fit.record)  # the panel job reads the fit
    assert f"{CLAIM}/qfit" in p.opener_records
    # the trained directory is read against its own manifest, no pin
    save_q(tmp_path / "w", np.arange(32, dtype=np.float64), {"lambda": 1})
    spec = parse_policy(f"search:leaf=linear,d=4,s=7,prune=q:trained:{tmp_path / 'w'},k=3").prune
    assert prior_weights(spec)[5] == 5.0


def test_without_a_pruned_arm_the_fit_reaches_the_opener_only_through_the_q_arm(
        tmp_path) -> None:
    plan = _plan(tmp_path, pinned=_pruned(PINNED))
    p = plan.claims[CLAIM]
    readers = [a.name for a in p.all_arms() if a.direct is not None]
    assert readers == ["q-fitted"]


def test_a_kf_prior_still_takes_a_named_vector(tmp_path) -> None:
    plan = _plan(tmp_path, kf=_pruned("cem", prior="kf"))
    assert plan.claims[CLAIM].panel.arms["kf"].policy == (
        "search:leaf=linear,d=3,s=3,prune=kf:cem,k=3")


@pytest.mark.parametrize(("arm", "key", "message"), [
    (_pruned("qfitt"), "arms.bad.prune.weights",
     "'qfitt' is not weights this claim trains for a q prior (qfit)"),
    (_pruned("cem"), "arms.bad.prune.weights",
     "'cem' is not weights this claim trains for a q prior"),
    (_pruned("qfit", prior="kf"), "arms.bad.prune.weights",
     "'qfit' is trained by learner ridge-q, whose weights a q arm plays: a kf prior reads"),
    (_pruned("best", prior="kf"), "arms.bad.prune.weights",
     "'best' is neither a named vector (transplanted, cem) nor weights this claim trains"),
    ({**_pruned(None), "prune": {"prior": "oneply", "k": 3, "weights": "qfit"}},
     "arms.bad.prune.weights", "takes no weights"),
    ({**_pruned(None), "prune": {"prior": "q", "k": 3}}, "arms.bad.prune.weights",
     "needs weights"),
])
def test_a_misdeclared_prior_weights_is_one_line_naming_the_file_and_key(
        tmp_path, arm, key, message) -> None:
    claims = _claims(tmp_path, bad=arm)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    assert message in one_line(err, f"{claims / (CLAIM + '.yaml')}: key {key}")


@pytest.mark.parametrize(("pin", "part", "message"), [
    ({"file": Q_DIR, "sha256": "0" * 64}, "sha256", "SHA-256"),
    ({"file": "config/pinned/no-such-q", "sha256": Q_SHA}, "file", "no-such-q"),
])
def test_a_wrong_pinned_prior_is_refused_before_any_job(tmp_path, pin, part, message) -> None:
    plan = _plan(tmp_path, pinned=_pruned(pin))
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan)
    text = str(err.value)
    assert "\n" not in text and message in text
    assert text.startswith(f"{tmp_path / 'claims' / (CLAIM + '.yaml')}: key "
                           f"arms.pinned.prune.weights.{part}: ")


def test_a_kf_prior_of_the_claims_kf_q_weights_reads_their_training_directory(tmp_path) -> None:
    def edit(doc):
        doc["arms"]["kf-pruned"] = _pruned("relearned", prior="kf")

    claims = claims_copy(tmp_path / "claims", edit, claim="kf-linear-q-transfer")
    p = load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)}).claims[
        "kf-linear-q-transfer"]
    fit, arm = p.direct_trained["relearned"], p.arms["kf-pruned"]
    assert arm.policy == f"search:leaf=linear,d=3,s=3,prune=kf:trained:{fit.dir},k=3"
    assert arm.direct == (fit.weights_file, fit.record)
    assert "kf-linear-q-transfer/relearned" in p.opener_records
