"""What the committed bundles and pages say of a block's replays is what the committed ledger
counts: a replay appended to the ledger rebuilds what quotes it (``drop7 records rebuild``)."""

from __future__ import annotations

import json
import re

import pytest
from claims_support import REPO

from protocol.ledger import COMMITTED, entries_now, read_ledger
from protocol.ledger_readings import replays

LEASES = sorted(REPO.glob("reports/*/records/*/seed-lease-*.json"))


def _entry(claim: str, profile: str, block: str) -> dict:
    mine = [e for e in read_ledger(REPO / COMMITTED)["blocks"].get(block, [])
            if e["claim"] == claim and e["profile"] == profile]
    assert len(mine) == 1, (claim, profile, block)
    return mine[0]


@pytest.mark.parametrize("lease", LEASES, ids=lambda p: f"{p.parts[-4]}/{p.parts[-2]}")
def test_each_bundle_and_page_count_the_ledger_s_replays(lease) -> None:
    profile, claim = lease.parts[-4], lease.parts[-2]
    record = json.loads(lease.read_text())
    blocks = read_ledger(REPO / COMMITTED)["blocks"]
    found = [b for b, es in blocks.items() for e in es if e["claim"] == claim
             and e["profile"] == profile and e["seeds"][0] == int(record["rangeStartHex"], 16)]
    assert len(found) == 1, (profile, claim)  # the lease's block, found by its first seed
    n = len(replays(_entry(claim, profile, found[0])))
    said = re.findall(r"played again (\d+) time", json.dumps(record))
    assert [int(x) for x in said] == ([n] if n else []), f"{profile}/{claim}"
    page = REPO / "reports" / profile / f"{claim}.html"
    if page.exists():
        shown = re.findall(r"replay (\d+)'s table SHA-256", page.read_text())
        assert [int(x) for x in shown] == list(range(1, n + 1)), f"{profile}/{claim}"


def test_the_records_and_page_jobs_read_the_entry_as_the_ledger_holds_it_now(tmp_path) -> None:
    """A block closed with three replays, a fourth appended since: the jobs count four."""
    ledger = tmp_path / "ledger.json"
    doc = read_ledger(REPO / COMMITTED)
    ledger.write_text(json.dumps(doc))
    entry = _entry("ntuple-line-tuples", "pilot", "1")
    then = {**entry, "replays": replays(entry)[:3]}
    closed = {"games": 256, "entries": {"1": then}}
    now = entries_now(closed, ledger, "ntuple-line-tuples")
    assert len(replays(now["entries"]["1"])) == len(replays(entry)) == 4
    assert now["games"] == 256
    # another profile's entry of the same block is not this one's
    other = {"entries": {"1": {**then, "profile": "paper"}}}
    assert entries_now(other, ledger, "ntuple-line-tuples") == other
