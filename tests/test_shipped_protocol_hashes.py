"""Every shipped claim's protocol hash is the one its committed records carry.

The hash covers what decides a claim (:func:`protocol.records.ids.protocol_document`); a
restructuring of the code that plans a claim must leave it, for every claim and profile with a
committed bundle, exactly as committed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claims_support import REPO

from protocol.plan import load_plan
from protocol.records.ids import protocol_sha256

BUNDLES = sorted(Path(REPO, "reports").glob("*/records/*/experiment-*.json"))


def test_every_shipped_claim_has_a_committed_bundle() -> None:
    claims = {p.stem for p in Path(REPO, "config/claims").glob("*.yaml")}
    assert claims <= {p.parent.name for p in BUNDLES}


@pytest.mark.parametrize("profile", sorted({p.parts[-4] for p in BUNDLES}))
def test_the_declarations_give_the_committed_protocol_hashes(profile) -> None:
    plans = load_plan(REPO, {"profile": profile}).claims
    for path in (p for p in BUNDLES if p.parts[-4] == profile):
        committed = json.loads(path.read_text(encoding="utf-8"))["protocolSha256"]
        claim = path.parent.name
        assert protocol_sha256(plans[claim].describe()) == committed, f"{profile}/{claim}"
