"""The workflow's config: profiles validate, and a misspelt key or bad value is a clear error."""

from __future__ import annotations

import pytest
from workflow_support import REPO, plan, snakemake

ConfigError, Plan, load_config = plan.ConfigError, plan.Plan, plan.load_config
checkpoint_steps = plan.checkpoint_steps


def test_every_profile_validates_and_pilot_is_the_default() -> None:
    for name in ("smoke", "pilot", "paper"):
        cfg = load_config(REPO, {"profile": name})
        assert cfg["profile"] == name
    assert load_config(REPO, {})["profile"] == "pilot"


def test_paper_is_the_registered_budget() -> None:
    cfg = load_config(REPO, {"profile": "paper"})
    a = cfg["training"]["layouts"]["A"]
    assert cfg["registered_budget"] is True
    assert a["moves"] >= 10**9 and a["every"] == 2 * 10**8
    assert cfg["validation"]["games"] == 64 and cfg["screen"]["games"] == 256
    assert (cfg["search"]["depth"], cfg["search"]["strata"]) == (3, 7)


def test_shrunk_profiles_say_so() -> None:
    for name in ("smoke", "pilot"):
        cfg = load_config(REPO, {"profile": name})
        assert cfg["registered_budget"] is False and "shrunk" in cfg["budget_note"]


@pytest.mark.parametrize(("override", "named"), [
    ({"scren": {"block": 3}}, "scren"),
    ({"screen": {"shardz": 3}}, "screen.shardz"),
    ({"training": {"layouts": {"F": {"moves": 10, "every": 10}}}}, "training.layouts.F"),
    ({"training": {"layouts": {"A": {"moves": 10, "evry": 10}}}}, "training.layouts.A.evry"),
])
def test_unknown_key_is_named(override: dict, named: str) -> None:
    with pytest.raises(ConfigError, match=f"unknown key {named}"):
        load_config(REPO, {"profile": "pilot", **override})


@pytest.mark.parametrize(("override", "named"), [
    ({"screen": {"games": 300}}, "screen.games"),
    ({"screen": {"block": -1}}, "screen.block"),
    ({"search": {"depth": "3"}}, "search.depth"),
    ({"training": {"candidate": "Z"}}, "training.candidate"),
    ({"validation": {"shards": 0}}, "validation.shards"),
])
def test_bad_value_is_named(override: dict, named: str) -> None:
    with pytest.raises(ConfigError, match=f"key {named} = "):
        load_config(REPO, {"profile": "pilot", **override})


def test_meaning_checks() -> None:
    with pytest.raises(ConfigError, match="training.candidate"):
        load_config(REPO, {"training": {"candidate": "B"}})
    with pytest.raises(ConfigError, match="training.layouts.E.every"):
        load_config(REPO, {"training": {"layouts": {"E": {"moves": 10, "every": 20}}}})
    with pytest.raises(ConfigError, match="key profile = 'nope'"):
        load_config(REPO, {"profile": "nope"})


def test_plan_names_arms_once() -> None:
    p = Plan(load_config(REPO, {"profile": "pilot"}))
    assert p.fair_arm == "linear-d3s7"
    arms = p.validation_arms()
    assert list(arms).count("linear-d3s7") == 1  # the fair validation arm is played once
    assert "ntuple-A-step5000000-d3s7" in arms and "ntuple-E-step20000000-d3s7" in arms
    assert arms["ntuple-A-step5000000-d3s7"]["policy"] == (
        "search:leaf=ntuple:results/pilot/train/ntuple-A/step-5000000,d=3,s=7")
    screen = p.screen_arms()
    assert set(screen) == {"ntuple-A-d3s7", "ntuple-A-direct", "linear-d3s7"}
    assert screen["ntuple-A-direct"]["policy"] == "direct:leaf=ntuple:results/pilot/frozen/ntuple-A"
    assert p.contrasts() == {"primary": ("ntuple-A-d3s7", "linear-d3s7"),
                                "direct": ("ntuple-A-direct", "linear-d3s7")}
    assert p.page == "reports/pilot/screen-1.html"
    assert p.seeds("screen")[1] == 256 and p.seeds("validation")[1] == 64
    assert p.train_mem_mb("ntuple-A") > 5_800  # tables with their two accumulators


def test_snakemake_fills_the_schema_defaults() -> None:
    from snakemake.utils import validate

    schema = str(REPO / "workflow" / "schemas" / "config.schema.yaml")
    kept = {}
    for name in ("smoke", "pilot", "paper"):
        cfg = load_config(REPO, {"profile": name})
        validate(cfg, schema)
        kept[name] = cfg["training"]["keep_resume"]
    # the final resume state is kept (a longer budget goes on from it) but for smoke
    assert kept == {"smoke": False, "pilot": True, "paper": True}


def test_checkpoint_steps() -> None:
    assert checkpoint_steps(20, 5) == [5, 10, 15, 20]
    assert checkpoint_steps(12, 5) == [5, 10, 12]
    assert checkpoint_steps(5, 5) == [5]


def test_snakemake_reports_a_misspelt_key_by_name(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("screen:\n  shardz: 4\n")
    result = snakemake(tmp_path, "-n", "--configfile", str(bad), "--config", "profile=smoke")
    assert result.returncode != 0
    assert "unknown key screen.shardz" in result.stderr + result.stdout


def test_snakemake_reports_a_bad_value_by_name(tmp_path) -> None:
    result = snakemake(tmp_path, "-n", "--config", "profile=smoke", "ledger=")
    assert result.returncode != 0
    assert "key ledger = None" in result.stderr + result.stdout
