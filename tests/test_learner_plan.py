"""Learners that are not TC-TD in a claim's plan: the frozen hash of every trained weights an
arm reads is one of the ledger opener's hashes, so a block is never read again with other
weights."""

from __future__ import annotations

import pytest
from claims_support import REPO

from contracts.json_file import write_json
from protocol.checks import _frozen_hashes
from protocol.ledger import LedgerError, Opener, open_blocks
from protocol.plan import load_plan

CLAIM = "kf-linear-q-transfer"


def test_trained_kf_weights_are_opener_hashes(tmp_path, monkeypatch) -> None:
    """Both kf-q weights the claim's arms read are opener keys; a block opened for them is
    refused to the same claim once either weights file's frozen hash differs."""
    plan = load_plan(REPO, {"profile": "smoke"})
    p = plan.claims[CLAIM]
    records = p.opener_records
    assert set(records) == {f"{CLAIM}/{n}" for n in p.direct_trained}
    assert {r["record"] for r in records.values()} == {t.record for t in p.direct_trained.values()}
    monkeypatch.chdir(tmp_path)
    for n, t in p.direct_trained.items():
        write_json(tmp_path / t.record, {"sha256": "a" * 64 if n == "relearned" else "b" * 64})
    ledger = tmp_path / "ledger.json"

    def opening():
        return open_blocks(ledger, p.blocks, Opener(CLAIM, _frozen_hashes(p), None),
                           profile="smoke", seeds=list(p.seeds), now=None)

    opening()
    assert opening()["reused"] is False  # the same weights: a rerun
    write_json(tmp_path / p.direct_trained["relearned"].record, {"sha256": "c" * 64})
    with pytest.raises(LedgerError, match=f"refusing to read it for claim {CLAIM}"):
        opening()


Q_CLAIM = "oneply-linear-q-prune-prior"


def test_the_ridge_fit_is_planned_shrunk_priced_and_its_job_named() -> None:
    """Under smoke the claim's ridge-q weights are one job (drop7 fit-q on the games and the
    searches the profile shrank, each shrink listed), priced in the train column by the
    learner's cost, and the q arm that names them plays the fit's directory."""
    from protocol.checks import estimate_table

    plan = load_plan(REPO, {"profile": "smoke"})
    p = plan.claims[Q_CLAIM]
    fit = p.direct_trained["qfit"]
    assert fit.command().split()[:2] == ["drop7", "fit-q"]
    words = fit.command().split()
    assert words[words.index("--games") + 1] == "1"
    assert words[words.index("--reference") + 1] == "search:leaf=linear,d=3,s=3"
    assert "qfit: trained on 1 games (declared: 32)" in p.shrunk
    assert any(s.startswith("qfit: its reference search:leaf=linear,d=3,s=3") for s in p.shrunk)
    assert p.estimate()["train"] == fit.seconds > 0
    pilot_plan = load_plan(REPO, {"profile": "pilot"})
    pilot = pilot_plan.claims[Q_CLAIM]
    assert pilot.direct_trained["qfit"].size == 2  # a few CPU minutes (config/profiles/pilot.yaml)
    row = next(line for line in estimate_table(pilot_plan).splitlines() if Q_CLAIM in line)
    assert row.split()[1] == f"{pilot.estimate()['train'] / 3600:.2f}" != "0.00"
    assert p.panel.arms["q-fitted"].spec.format() == f"q:w=trained:{fit.weights_file}"
    assert p.panel.arms["q-fitted"].direct == (fit.weights_file, fit.record)
    assert p.opener_records == {f"{Q_CLAIM}/qfit": {"record": fit.record, "pin": None}}


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda d: d["arms"]["q-fitted"].update(weights="qfitt"), "arms.q-fitted.weights",
     "'qfitt' is not weights this claim trains for a q arm (qfit)"),
    (lambda d: d["weights"]["qfit"]["train"].update(reference="random"),
     "weights.qfit.train.reference", "is not a search"),
    (lambda d: d["weights"]["qfit"]["train"].update(every=0), "weights.qfit.train", ""),
    (lambda d: d["weights"]["qfit"]["train"].update(first_game=10**12 - 8),
     "weights.qfit.train.first_game", "reach the training health's unseen games"),
])
def test_ridge_q_misuse_is_one_line_naming_the_file_and_key(tmp_path, edit, key, message
                                                              ) -> None:
    from claims_support import claims_copy

    from protocol.declaration import load_claims
    from protocol.schema import DeclarationError

    with pytest.raises(DeclarationError) as err:
        load_claims(claims_copy(tmp_path / "c", edit, claim=Q_CLAIM))
    text = str(err.value)
    assert "\n" not in text and f"{Q_CLAIM}.yaml: key {key}" in text and message in text


def test_a_profile_shrinking_learned_weights_names_them(tmp_path) -> None:
    """A profile may shrink the weights of a learner an arm plays by name (the override was
    refused as an unknown weight before); a misspelt name is one line naming the key."""
    from protocol.schema import DeclarationError

    plan = load_plan(REPO, {"profile": "smoke"})
    assert plan.claims[Q_CLAIM].direct_trained["qfit"].size == 1
    with pytest.raises(DeclarationError, match=rf"key claims\.{Q_CLAIM}\.weights\.qfitt: "
                                               r"claim .* declares no such weight \(qfit\)"):
        load_plan(REPO, {"profile": "smoke",
                         "claims": {Q_CLAIM: {"weights": {"qfitt": {"games": 1}}}}})
