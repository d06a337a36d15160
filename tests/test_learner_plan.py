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
    assert set(records) == {f"{CLAIM}/{n}" for n in p.kf_trained}
    assert {r["record"] for r in records.values()} == {t.record for t in p.kf_trained.values()}
    monkeypatch.chdir(tmp_path)
    for n, t in p.kf_trained.items():
        write_json(tmp_path / t.record, {"sha256": "a" * 64 if n == "relearned" else "b" * 64})
    ledger = tmp_path / "ledger.json"

    def opening():
        return open_blocks(ledger, p.blocks, Opener(CLAIM, _frozen_hashes(p), None),
                           profile="smoke", seeds=list(p.seeds), now=None)

    opening()
    assert opening()["reused"] is False  # the same weights: a rerun
    write_json(tmp_path / p.kf_trained["relearned"].record, {"sha256": "c" * 64})
    with pytest.raises(LedgerError, match=f"refusing to read it for claim {CLAIM}"):
        opening()
