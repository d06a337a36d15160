"""Held-out blocks that cannot leak: the blocks reserved for throwaway ledgers, the ledger's
consistency, and a declaration the opening would refuse, each refused before any job in one
line (issue 33, items 1, 2 and 4)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from claims_support import REPO, claims_copy
from workflow_support import snakemake

from engines.seedbank import load_bank
from protocol.checks import before_any_job
from protocol.held_out import THROWAWAY_BLOCKS, reserved_text
from protocol.ledger import LedgerError
from protocol.ledger_readings import replays
from protocol.plan import load_plan
from protocol.schema import DeclarationError

COMMITTED = "data/screen-ledger.json"
SCREEN = load_bank().roles["screen"]


def block_start(block: int) -> int:
    return SCREEN["start"] + block * SCREEN["block_size"]


def plan_of(profile: str, claims_dir=None, **over):
    overrides = {"profile": profile, **over}
    if claims_dir is not None:
        overrides["claims_dir"] = str(claims_dir)
    return load_plan(REPO, overrides)


def one_line(err: pytest.ExceptionInfo, start: str, *says: str) -> str:
    message = str(err.value)
    assert "\n" not in message and message.startswith(start), message
    for s in says:
        assert s in message, message
    return message


@pytest.fixture
def committed(tmp_path, monkeypatch):
    """A working directory with a copy of the committed ledger; yields its content."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    shutil.copy(REPO / COMMITTED, tmp_path / COMMITTED)
    return json.loads((REPO / COMMITTED).read_text())


def test_the_reserved_range_is_the_smoke_profiles_and_written_once() -> None:
    assert reserved_text() == "4000-4095"
    assert (THROWAWAY_BLOCKS.start, THROWAWAY_BLOCKS.stop) == (4000, 4096)
    smoke = plan_of("smoke")
    assert all(b in THROWAWAY_BLOCKS for p in smoke.claims.values() for b in p.blocks)
    text = (REPO / "docs" / "claims.md").read_text()
    assert "4000-4095" in text and "protocol/held_out.py" in text


@pytest.mark.parametrize(("over", "key", "block"), [
    # the probe: smoke with block_offset=0 played the first seeds of block 20, paper's
    ({"block_offset": 0}, "block_offset", 50),  # depth-five's block, the first claim's
    # claims.<id>.block in a --configfile mapped smoke onto block 0, opened and complete
    ({"claims": {"linear-trained-leaf": {"block": 0}}}, "claims.linear-trained-leaf.block", 0),
    ({"ledger": "results/mine.json", "block_offset": 100}, "block_offset", 150),
])
def test_a_throwaway_ledger_reads_only_the_reserved_blocks(tmp_path, monkeypatch, over, key,
                                                           block) -> None:
    monkeypatch.chdir(tmp_path)
    plan = plan_of("smoke", **over)
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan)
    one_line(err, "config/profiles/smoke.yaml", f"key {key}", f"screen block {block} is "
             "outside the blocks 4000-4095 reserved for throwaway ledgers")
    before_any_job(plan_of("smoke"))


def test_a_committed_ledger_never_reads_a_reserved_block(tmp_path, committed) -> None:
    def at_3020(d):
        d["screen"]["block"] = 3020  # pilot adds 1000: block 4020

    claims = claims_copy(tmp_path / "c", at_3020, claim="linear-trained-leaf")
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan_of("pilot", claims))
    one_line(err, "config/profiles/pilot.yaml", "key block_offset",
             "claim linear-trained-leaf (declared block 3020, block_offset 1000)",
             "screen block 4020 is reserved for throwaway ledgers")
    before_any_job(plan_of("pilot"))


def _entry(doc, block):
    return doc["blocks"][block][0]


def _dup(doc):
    doc["blocks"]["1"].append({**copy.deepcopy(_entry(doc, "1")), "reused": True})


def _far(doc):
    doc["blocks"]["99999"] = [copy.deepcopy(_entry(doc, "1"))]


def _reserved(doc):
    doc["blocks"]["4005"] = [{**copy.deepcopy(_entry(doc, "1")),
                              "seeds": [block_start(4005), 256]}]


def _seeds(doc):
    _entry(doc, "1")["seeds"] = [block_start(2), 256]


def _seeds_inside(doc):
    _entry(doc, "1")["seeds"] = [block_start(1) + 5, 200]


def _reused(doc):
    _entry(doc, "1")["reused"] = True


def _opened_with_table(doc):
    _entry(doc, "1")["status"] = "opened"


def _completed_early(doc):
    _entry(doc, "1")["completed_utc"] = "2020-01-01T00:00:00Z"


def _look_after_a_stop(doc):
    _entry(doc, "1012")["looks"][1]["decision"] = "stop-efficacy"


def _looks_shrink(doc):
    _entry(doc, "1012")["looks"][2]["seeds"][1] = 8


def _looks_renumbered(doc):
    _entry(doc, "1012")["looks"][0]["look"] = 2


def _unread_without_stop(doc):
    _entry(doc, "1012")["unread"] = [block_start(1012) + 16, 16]


def _final_stop_early(doc):
    e = _entry(doc, "1012")
    e["looks"] = e["looks"][:2]
    e["looks"][1]["decision"] = "stop"


@pytest.mark.parametrize(("edit", "block", "says"), [
    (_dup, "1", "entry 2 (claim ntuple-line-tuples): the same opener"),
    (_far, "99999", "block 99999 is outside the screen role's blocks 0..4095"),
    (_reserved, "4005", "screen block 4005 is reserved for throwaway ledgers"),
    (_seeds, "1", "are not the block's"),
    (_seeds_inside, "1", "are not the block's"),
    (_reused, "1", "reused: true contradicts its place"),
    (_opened_with_table, "1", "status opened with games"),
    (_completed_early, "1", "is before opened_utc"),
    (_look_after_a_stop, "1012", "looks[1]: decision stop-efficacy but look 3 was made"),
    (_looks_shrink, "1012", "looks[2]: seeds"),
    (_looks_renumbered, "1012", "looks[0]: look 2 where look 1 belongs"),
    (_unread_without_stop, "1012", "without a look that stopped early"),
    (_final_stop_early, "1012", "decision stop (the last look) after 16"),
])
def test_a_hand_edited_ledger_that_does_not_hold_together_is_refused(committed, edit, block,
                                                                     says) -> None:
    before_any_job(plan_of("pilot"))  # the committed ledger holds together
    doc = copy.deepcopy(committed)
    edit(doc)
    with open(COMMITTED, "w") as fh:
        json.dump(doc, fh)
    with pytest.raises(LedgerError) as err:
        before_any_job(plan_of("pilot"))
    one_line(err, f"{COMMITTED}: block {block} entry ", says)


def test_a_table_hash_that_no_recorded_table_has_is_refused(committed) -> None:
    closed = "results/pilot/claims/ntuple-line-tuples/screen-1/closed.json"
    Path(closed).parent.mkdir(parents=True)
    Path(closed).write_text(json.dumps({"table_sha256": "f" * 64}))
    with pytest.raises(LedgerError) as err:
        before_any_job(plan_of("pilot"))
    one_line(err, f"{COMMITTED}: block 1 entry 1 (claim ntuple-line-tuples): table_sha256 "
             "4f2460ee771d matches no games table recorded for it", closed)
    latest = replays(_entry(committed, "1"))[-1]["table_sha256"]
    Path(closed).write_text(json.dumps({"table_sha256": latest}))
    before_any_job(plan_of("pilot"))  # the latest table of a rerun is its last replay's


def test_the_committed_records_leases_are_tables_recorded(committed) -> None:
    shutil.copytree(REPO / "reports" / "pilot" / "records", "reports/pilot/records")
    before_any_job(plan_of("pilot"))
    doc = copy.deepcopy(committed)
    _entry(doc, "1012")["table_sha256"] = "e" * 64
    with open(COMMITTED, "w") as fh:
        json.dump(doc, fh)
    with pytest.raises(LedgerError) as err:
        before_any_job(plan_of("pilot"))
    one_line(err, f"{COMMITTED}: block 1012 entry 1 (claim fourth-ply): table_sha256 eeeeeeeeeeee "
             "matches no games table recorded for it (reports/pilot/records/fourth-ply/"
             "seed-lease-")


def test_a_throwaway_ledger_with_a_block_outside_the_reserved_range_is_refused(
        tmp_path, monkeypatch, committed) -> None:
    doc = {"format": committed["format"], "blocks": {"20": [_entry(committed, "40")]}}
    doc["blocks"]["20"][0]["seeds"] = [block_start(20), 256]
    (tmp_path / "mine.json").write_text(json.dumps(doc))
    with pytest.raises(LedgerError) as err:
        before_any_job(plan_of("smoke", ledger="mine.json"))
    one_line(err, "mine.json: block 20 entry 1 (claim ntuple-line-tuples-lanes): screen block "
             "20 is outside the blocks 4000-4095")


def _ungated(d):
    d["gates"] = ["training-health-A", "training-health-E"]


def test_a_declaration_its_opening_would_refuse_is_refused_before_any_job(tmp_path,
                                                                         committed) -> None:
    """The lanes claim opened pilot block 1040 with a protocol hash: an edit of what decides
    its verdict was accepted by a dry run and refused only at the opening, after training."""
    claims = claims_copy(tmp_path / "c", _ungated, claim="ntuple-line-tuples-lanes")
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan_of("pilot", claims))
    one_line(err, f"{claims / 'ntuple-line-tuples-lanes.yaml'}: claim ntuple-line-tuples-lanes:"
             " screen block 1040: the declaration's deciding parts changed")
    before_any_job(plan_of("pilot", claims_copy(tmp_path / "d")))


def test_under_reuse_only_an_entry_of_the_frozen_weights_on_disk_refuses(tmp_path,
                                                                        monkeypatch) -> None:
    """Smoke may read its block again for other frozen weights (a new entry); the same weights
    with other deciding parts are refused, as the opening refuses them."""
    monkeypatch.chdir(tmp_path)
    plan = plan_of("smoke")
    p = plan.claims["ntuple-line-tuples-lanes"]
    hashes = {k: "a" * 64 for k in p.artefacts}
    entry = {"claim": p.id, "profile": "smoke", "hashes": hashes, "seeds": list(p.seeds),
             "opened_utc": "2026-12-01T00:00:00Z", "reused": False, "shares": None,
             "status": "opened", "protocol_sha256": "b" * 64}
    ledger = tmp_path / plan.profile["ledger"]
    ledger.parent.mkdir(parents=True)
    ledger.write_text(json.dumps({"format": "drop7-screen-ledger-v3",
                                  "blocks": {str(p.block): [entry]}}))
    before_any_job(plan)  # nothing frozen: a new opening would be another entry
    for art in p.artefacts.values():
        (tmp_path / art.record).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / art.record).write_text(json.dumps({"sha256": "a" * 64}))
    with pytest.raises(DeclarationError, match="deciding parts changed"):
        before_any_job(plan)


@pytest.mark.slow
def test_a_dry_run_fails_for_a_declaration_its_opening_would_refuse(tmp_path) -> None:
    work = tmp_path / "run"
    (work / "data").mkdir(parents=True)
    shutil.copy(REPO / COMMITTED, work / COMMITTED)
    claims = claims_copy(tmp_path / "c", _ungated, claim="ntuple-line-tuples-lanes")
    result = snakemake(work, "-n", "--config", f"claims_dir={claims}", "--",
                       "ntuple_line_tuples_lanes", timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "deciding parts changed" in errors[0], result.stderr[-3000:]
    assert not (work / "results").exists()


def test_frozen_weights_the_ledger_would_refuse_are_refused_before_any_job(committed) -> None:
    """Frozen tables on disk that differ from those the claim opened its block for: the
    opening refuses them (same claim, other weights), so the dry run does too."""
    plan = plan_of("pilot")
    p = plan.claims["ntuple-line-tuples-lanes"]
    entry = _entry(committed, str(p.block))
    for key, art in p.artefacts.items():
        Path(art.record).parent.mkdir(parents=True, exist_ok=True)
        Path(art.record).write_text(json.dumps({"sha256": entry["hashes"][key]}))
    before_any_job(plan)  # the same weights: the block continues
    for art in p.artefacts.values():
        Path(art.record).write_text(json.dumps({"sha256": "c" * 64}))
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan)
    one_line(err, f"{COMMITTED}: screen block 1040 was opened on", "by this claim",
             "refusing to read it for claim ntuple-line-tuples-lanes")
