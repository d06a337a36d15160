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


@pytest.mark.workflow
def test_a_profile_file_of_ones_own_runs_to_its_page_and_a_rerun_reproduces(tmp_path) -> None:
    """``profile=my/quick.yaml`` passed the dry run and failed in every job (issue 42, item 11);
    playing its block again gives the same games: a reproduction, nothing appended (item 1)."""
    import json
    import shutil

    import yaml
    from claims_support import own_claim, write_claim
    from workflow_support import ok, snakemake

    folder = tmp_path / "mine"
    folder.mkdir()
    write_claim(folder, own_claim(block=77))
    work = tmp_path / "run"
    (work / "my").mkdir(parents=True)
    profile = yaml.safe_load((REPO / "config/profiles/smoke.yaml").read_text(encoding="utf-8"))
    profile["ledger"] = "results/quick-ledger.json"
    (work / "my" / "quick.yaml").write_text(yaml.safe_dump(profile), encoding="utf-8")
    args = ("--cores", "2", "--config", f"profile={work / 'my' / 'quick.yaml'}",
            f"claims_dir={folder}")
    ok(snakemake(work, *args))
    page = work / "reports" / "quick" / "my-first-claim.html"
    assert page.is_file() and "reproduction" not in page.read_text(encoding="utf-8")
    ledger = work / "results" / "quick-ledger.json"
    first = json.loads(ledger.read_text(encoding="utf-8"))
    [entry] = first["blocks"]["4077"]
    assert entry["status"] == "complete" and "deciding_sha256" in entry
    shutil.rmtree(work / "results" / "quick" / "claims" / "my-first-claim")
    ok(snakemake(work, *args))
    assert json.loads(ledger.read_text(encoding="utf-8")) == first  # nothing appended
    text = page.read_text(encoding="utf-8")
    line = text[text.index("Complete:"):][:900]
    assert "a reproduction" in line and "invalidated" not in line, line
    assert "was edited after screen block" not in text
    # the claim's text rewritten after its block was read: the page says so over the verdict
    doc = own_claim(block=77)
    doc["claim"] = "One ply of the fair leaf crushes random play."
    write_claim(folder, doc)
    ok(snakemake(work, *args))
    text = page.read_text(encoding="utf-8")
    assert "crushes" in text and "was edited after screen block 4077 was opened" in text
    assert json.loads(ledger.read_text(encoding="utf-8")) == first


def test_an_external_arm_cannot_give_a_panel_its_roots(tmp_path) -> None:
    """Its block was opened and read, and the roots could never be built (item 4)."""
    from test_panel_declaration import _set, plan_of

    with pytest.raises(DeclarationError) as err:
        plan_of(tmp_path, _set("panel.roots.policy", "outsider"))
    message = str(err.value)
    assert "\n" not in message and "my-panel.yaml: key panel.roots.policy: arm 'outsider' is " \
        "external" in message, message


def test_a_panel_only_claims_oversized_roots_are_named_as_its_panels(tmp_path) -> None:
    from test_panel_declaration import _set, plan_of

    with pytest.raises(DeclarationError, match=r"my-panel.yaml: key panel.roots.games: "
                                               r"10,000,000 games would read"):
        plan_of(tmp_path, _set("panel.roots.games", 10**7), profile="paper")


@pytest.mark.parametrize("first_game", [10**12 - 1_000, 10**12 + 999])
def test_a_training_that_would_read_the_health_games_is_refused(tmp_path, first_game) -> None:
    """Training seeds overlapped the health seeds when first_game sat just below them."""
    from claims_support import claims_copy

    def edit(doc):
        doc["weights"]["ntuple-A"]["train"]["first_game"] = first_game

    claims = claims_copy(tmp_path / "c", edit)
    with pytest.raises(DeclarationError, match=r"ntuple-line-tuples.yaml: key weights.ntuple-A"
                                               r".train.first_game: .* unseen games"):
        load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    # one past the health games plans
    far = claims_copy(tmp_path / "far", lambda d: d["weights"]["ntuple-A"]["train"].update(
        first_game=2 * 10**12))
    assert load_plan(REPO, {"profile": "smoke", "claims_dir": str(far)})


def test_the_page_notes_an_edited_declaration_and_one_in_place_of_a_shipped_one() -> None:
    from protocol.disclosure import declaration_notes, declaration_sha256

    doc = {"id": "c", "title": "T", "claim": "C", "recorded": {"x": 1}}
    opened = {"blocks": {"9": {"entry": {"opened_utc": "2026-12-01T00:00:00Z",
                                         "declaration_sha256": declaration_sha256(doc)}}}}
    assert declaration_notes(doc, opened, "mine/c.yaml", None) == []
    # the register's figures follow the register: no note
    assert declaration_notes({**doc, "recorded": {"x": 2}}, opened, "mine/c.yaml", None) == []
    [edited] = declaration_notes({**doc, "title": "T2"}, opened, "mine/c.yaml", None)
    assert "edited after screen block 9 was opened on 2026-12-01T00:00:00Z" in edited
    [shipped] = declaration_notes(doc, None, "mine/c.yaml", "config/claims/c.yaml")
    assert "in place of the shipped config/claims/c.yaml" in shipped
    # an entry written before the hash was kept says nothing
    del opened["blocks"]["9"]["entry"]["declaration_sha256"]
    assert declaration_notes({**doc, "title": "T2"}, opened, "mine/c.yaml", None) == []
