"""The third hostile probe's surfaces that the protocol refuses before any job (issue 42):
size overrides on a profile writing the committed ledger, profile names, a profile file of
one's own run to its page."""

from __future__ import annotations

import pytest
from claims_support import REPO

from protocol.plan import load_plan
from protocol.schema import DeclarationError

SHRUNK = {"claims": {"ntuple-line-tuples": {"screen": {"games": 4}}}}


def test_a_size_override_on_a_committed_ledger_profile_is_refused_naming_it() -> None:
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "pilot", **SHRUNK},
                  origins=[("over.yaml", SHRUNK)])
    message = str(err.value)
    assert "\n" not in message and message.startswith(
        "over.yaml: key claims.ntuple-line-tuples.screen.games: 4 overrides "
        "config/profiles/pilot.yaml (unset), which writes the committed ledger"), message
    for tree in ({"shrink": {"screen_games": 8}}, {"statistics": {"bootstrap_resamples": 1000}},
                 {"claims": {"fourth-ply": {"search": {"depth_shift": -1}}}}):
        with pytest.raises(DeclarationError, match="which writes the committed ledger"):
            load_plan(REPO, {"profile": "paper", **tree})


def test_the_same_sizes_on_a_profile_with_a_ledger_of_its_own_plan() -> None:
    plan = load_plan(REPO, {"profile": "smoke", **SHRUNK})
    assert plan.claims["ntuple-line-tuples"].seeds[1] == 4
    # an override that repeats the file's value changes nothing and passes
    same = {"claims": {"ntuple-line-tuples": {"block": 1}}}
    assert load_plan(REPO, {"profile": "pilot", **same}).claims["ntuple-line-tuples"]
