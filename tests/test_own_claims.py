"""One's own claims in one line: ``--config claims_dir=DIR`` (or one file) beside the shipped
claims, under any profile; a profile file of one's own; tiers that say what a profile proves."""

from __future__ import annotations

import pytest
import yaml
from claims_support import REPO, own_claim, shipped, write_claim

from protocol.plan import load_plan
from protocol.plan_model import PILOT, PUBLIC
from protocol.schema import DeclarationError


def plan_of(profile: str, **over):
    return load_plan(REPO, {"profile": profile, **over})


@pytest.mark.parametrize("profile", ["smoke", "pilot", "paper"])
def test_a_folder_holding_only_ones_claim_plans_under_every_profile(tmp_path, profile) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    write_claim(folder, own_claim())
    plan = plan_of(profile, claims_dir=str(folder))
    assert plan.run == ["my-first-claim"] and plan.own == ["my-first-claim"]
    mine = plan.claims["my-first-claim"]
    assert "ntuple-line-tuples" in plan.claims  # the shipped claims are still there to read
    assert mine.claim.path == folder / "my-first-claim.yaml"
    assert mine.block == 60 + plan.profile["block_offset"]


def test_a_single_declaration_file_is_a_claims_dir_too(tmp_path) -> None:
    path = write_claim(tmp_path, own_claim())
    assert plan_of("pilot", claims_dir=str(path)).run == ["my-first-claim"]


def test_ones_claim_may_read_a_shipped_claims_frozen_tables(tmp_path) -> None:
    doc = own_claim()
    doc["arms"]["tables-d1s3"] = {"play": "search", "depth": 1, "strata": 3,
                                  "leaf": {"claim": "ntuple-line-tuples", "weights": "ntuple-A"}}
    doc["contrasts"]["ply"]["difference"] = ["tables-d1s3", "fair-d1s3"]
    write_claim(tmp_path, doc)
    plan = plan_of("pilot", claims_dir=str(tmp_path))
    # its dependency runs first; the shipped claim keeps the pilot's own settings
    assert plan.run == ["ntuple-line-tuples", "my-first-claim"]
    assert plan.claims["ntuple-line-tuples"].trained["ntuple-A"].moves == 20_000_000


def test_the_profiles_caps_shrink_ones_claim_and_its_named_settings_the_shipped_ones(
        tmp_path) -> None:
    doc = own_claim()
    doc["screen"]["games"] = 4096
    write_claim(tmp_path, doc)
    mine = plan_of("pilot", claims_dir=str(tmp_path)).claims["my-first-claim"]
    assert mine.seeds[1] == 256 and mine.tier == PILOT
    assert any("256" in s for s in mine.shrunk)


def test_a_claim_of_a_shipped_id_replaces_it_and_runs_only_if_the_profile_runs_it(
        tmp_path) -> None:
    doc = shipped("linear-trained-leaf")
    doc["title"] = "edited"
    write_claim(tmp_path, doc)
    write_claim(tmp_path, own_claim())
    plan = plan_of("pilot", claims_dir=str(tmp_path))
    assert plan.claims["linear-trained-leaf"].claim.doc["title"] == "edited"
    assert plan.replaces == ["linear-trained-leaf"]
    assert plan.run == ["my-first-claim"]  # pilot's run names only the registered claim


def test_a_misspelt_name_in_a_profile_is_still_refused(tmp_path) -> None:
    write_claim(tmp_path, own_claim())
    with pytest.raises(DeclarationError, match="config/profiles/pilot.yaml: key claims: no "
                                               "claim 'my-frist-claim'"):
        plan_of("pilot", claims_dir=str(tmp_path),
                claims={"my-frist-claim": {"screen": {"games": 4}}})


def test_a_missing_claims_dir_is_one_line(tmp_path) -> None:
    with pytest.raises(DeclarationError, match="no such directory of claim declarations"):
        plan_of("pilot", claims_dir=str(tmp_path / "nowhere"))


def test_a_profile_file_of_ones_own(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    write_claim(tmp_path / "mine", own_claim())
    (tmp_path / "quick.yaml").write_text(yaml.safe_dump({
        "description": "mine", "ledger": "mine-ledger.json", "ledger_new": True,
        "block_offset": 4000, "shrink": {"screen_games": 4}}))
    plan = plan_of("quick.yaml", claims_dir="mine")
    assert plan.name == "quick" and plan.paths.root == "results/quick"
    assert plan.claims["my-first-claim"].seeds[1] == 4
    with pytest.raises(DeclarationError, match=r"quick.yaml \(with the command line.s "
                                               r"overrides\): key shrink.screen_games"):
        plan_of("quick.yaml", claims_dir="mine", shrink={"screen_games": 2})
    (tmp_path / "pilot.yaml").write_text((tmp_path / "quick.yaml").read_text())
    with pytest.raises(DeclarationError, match="pilot.yaml: key profile: its name 'pilot' is "
                                               "a shipped profile's"):
        plan_of("pilot.yaml")
    with pytest.raises(DeclarationError, match="no such profile file"):
        plan_of("missing.yaml")
    # the stem names folders: nothing that climbs out of results/ or reports/
    for bad in ("...yaml", "-x.yaml", "a b.yaml"):
        (tmp_path / bad).write_text((tmp_path / "quick.yaml").read_text())
        with pytest.raises(DeclarationError, match="the file's stem .* names the profile's"):
            plan_of(bad)
    # a job reads the plan's profile as Snakemake's config holds it (its stem and its file)
    plan = plan_of("quick.yaml", claims_dir="mine")
    again = plan_of(plan.profile["profile"], claims_dir="mine", file=plan.profile["file"])
    assert again.profile == plan.profile


def test_a_profile_with_its_own_ledger_or_a_guard_off_never_reports_public_development(
        tmp_path) -> None:
    write_claim(tmp_path, own_claim())
    pilot = plan_of("pilot", claims_dir=str(tmp_path)).claims["my-first-claim"]
    assert not pilot.shrunk and not pilot.limits and pilot.tier == PUBLIC
    smoke = plan_of("smoke", claims_dir=str(tmp_path)).claims["my-first-claim"]
    assert not smoke.shrunk  # 8 games one ply: nothing for smoke to shrink
    assert smoke.tier == PILOT
    said = " ".join(smoke.lowered_by)
    for why in ("keeps its own ledger", "enforce_gates: false", "allow_reuse: true",
                "ledger_new: true"):
        assert why in said
    assert smoke.describe()["limits"] == smoke.limits


@pytest.mark.workflow
@pytest.mark.parametrize("profile", ["smoke", "pilot"])
def test_ones_own_claim_is_screened_from_a_folder_holding_only_it(tmp_path, profile) -> None:
    """docs/claims.md's first example: an empty folder, one declaration, one command, a page.
    Pilot writes the committed ledger's path (here a scratch copy, empty)."""
    import json

    from workflow_support import load, ok, snakemake

    folder = tmp_path / "mine"
    folder.mkdir()
    write_claim(folder, own_claim())
    work = tmp_path / "run"
    (work / "data").mkdir(parents=True)
    (work / "data" / "screen-ledger.json").write_text(json.dumps(
        {"format": "drop7-screen-ledger-v3", "blocks": {}}))
    result = snakemake(work, "--cores", "2", "--config", f"profile={profile}",
                       f"claims_dir={folder}")
    ok(result)
    plan = plan_of(profile, claims_dir=str(folder))
    verdict = load(work / plan.paths.path("verdict", claim="my-first-claim"))
    page = (work / plan.paths.path("page", claim="my-first-claim")).read_text()
    assert verdict["verdict"] in ("supported-as-tested", "not-supported-as-tested")
    assert (verdict["tier"] == PUBLIC) == (profile == "pilot")
    assert ("cannot give public-development evidence" in page) == (profile == "smoke")
    # only one's own claim ran: no shipped claim's job
    assert sorted(p.name for p in (work / plan.paths.root / "claims").iterdir()) == [
        "my-first-claim"]
    ledger = load(work / plan.profile["ledger"])
    assert list(ledger["blocks"]) == [str(plan.claims["my-first-claim"].block)]
