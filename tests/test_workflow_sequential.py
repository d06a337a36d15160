"""A sequential screen through Snakemake: a decisive contrast stops at its first look, plays
nothing more, and the ledger and the report say so."""

from __future__ import annotations

import pytest
import yaml
from claims_support import claims_copy, sequential_claim
from workflow_support import load, ok, plan_of, snakemake

from analysis.sequential.screen import exceeded_error
from contracts.cli_numbers import seed_hex
from protocol.records.check import check_bundle

pytestmark = pytest.mark.workflow


def test_a_decisive_sequential_screen_stops_at_its_first_look(tmp_path) -> None:
    claims = claims_copy(tmp_path / "claims", extra={"sequential-stop": sequential_claim()})
    size = {"claims": {"sequential-stop": {"screen": {"games": 32}}}}  # above smoke's cap of 8
    extra = tmp_path / "size.yaml"
    extra.write_text(yaml.safe_dump(size))
    work = tmp_path / "run"
    work.mkdir()
    args = ("--cores", "2", "--configfile", str(extra), "--config", "profile=smoke",
            f"claims_dir={claims}", "--", "sequential_stop")
    ok(snakemake(work, *args))
    plan = plan_of("smoke", claims_dir=str(claims), **size)
    p, paths = plan.claims["sequential-stop"], plan.paths
    assert p.sequential.looks == (16, 32)
    start = p.seeds[0]
    looks = load(work / paths.path("looks", claim=p.id, block=p.label))
    assert [x["decision"] for x in looks["looks"]] == ["stop-efficacy"]
    assert looks["read"] == [start, 16] and looks["unread"] == [start + 16, 16]
    # the second look's games were never asked for
    assert (work / paths.path("games", claim=p.id, block=p.look_label(1), arm="random")).exists()
    assert not (work / paths.root / "claims" / p.id / p.label / "look-2").exists()
    # the ledger: the look, and the unread rest of the block
    entry = load(work / plan.profile["ledger"])["blocks"][str(p.block)][0]
    assert entry["status"] == "complete" and entry["games"] == 2 * 16
    assert [(x["look"], x["seeds"], x["decision"]) for x in entry["looks"]] == [
        (1, [start, 16], "stop-efficacy")]
    assert entry["unread"] == [start + 16, 16]
    # the contrast and the reading at the stopping look
    c = load(work / paths.path("contrast", claim=p.id, block=p.label, contrast="skill"))
    assert c["n"] == 16 and c["sequential"]["failed"] == []
    verdict = load(work / paths.path("verdict", claim=p.id))
    assert verdict["outcomes"]["skill"] == "pass", verdict
    null = c["sequential"]["operating"][0]
    assert null["shift"] == 0 and null["n_sims"] == plan.profile["statistics"]["oc_sims"]
    assert null["rejection_rate"] <= 0.05 + 3 * null["mc_se"]  # the simulated type I error
    # the verdict job names an excess over alpha exactly when the contrast's rates show one
    seq = c["sequential"]
    said = exceeded_error("skill", seq["design"]["alpha"], seq["operating"])
    named = [s for s in verdict["tier_lowered_by"] if "type I error" in s]
    assert named == ([said] if said else [])
    html = (work / paths.path("page", claim=p.id)).read_text()
    for text in ("<h2>Sequential screen</h2>", "Stopped at look 1 of 2", "were never read",
                 f'the ledger records seeds <span class="mono">{seed_hex(start + 16)}:16'
                 '</span> as never read',
                 "<th>efficacy bound</th><th>futility bound</th>", "median-unbiased",
                 "simulated type I error"):
        assert text in html, text
    # the register's bundle: the read seeds burned, the unread rest a lease never opened
    bundle = work / paths.path("records", claim=p.id)
    assert check_bundle(bundle) == []
    leases = {r["state"]: r for r in map(load, bundle.glob("seed-lease-*.json"))}
    assert set(leases) == {"burned", "cancelled-unopened"}
    assert int(leases["cancelled-unopened"]["rangeStartHex"], 16) == start + 16
    # a rerun plays nothing more
    again = snakemake(work, *args)
    ok(again)
    assert "Nothing to be done" in again.stdout + again.stderr
