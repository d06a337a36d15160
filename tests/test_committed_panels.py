"""Every committed panel's readings recompute from its committed roots and table, and its table
is the one the committed ledger closed its block with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.panel_report import read_panel
from contracts.hashing import file_sha256
from contracts.panel_roots import read_roots
from contracts.panel_table import read_rows
from protocol.plan import load_plan

REPO = Path(__file__).resolve().parents[1]
COMMITTED = sorted((REPO / "reports").glob("*/panels/*"))


def test_a_panel_is_committed() -> None:
    assert COMMITTED, "no committed panel under reports/<profile>/panels/"


@pytest.mark.parametrize("folder", COMMITTED, ids=lambda p: f"{p.parts[-3]}-{p.name}")
def test_the_committed_readings_recompute_from_the_committed_table(folder: Path) -> None:
    profile, claim = folder.parts[-3], folder.name
    plan = load_plan(REPO, {"profile": profile})
    p = plan.claims[claim]
    committed = json.loads((folder / "readings.json").read_text())
    table = folder / "panel.csv"
    again = read_panel(read_rows(table), read_roots(folder / "roots.json"), p.panel_declaration(),
                       plan.profile["statistics"]["bootstrap_resamples"], file_sha256(table))
    assert again == committed
    # the page's summary and the verdict read the same outcomes
    summary = json.loads((REPO / plan.paths.path("summary", claim=claim)).read_text())
    assert summary["claim"] == claim
    # the ledger closed the claim's block with this very table
    ledger = json.loads((REPO / plan.profile["ledger"]).read_text())
    entries = [e for e in ledger["blocks"][str(p.block)] if e["claim"] == claim]
    assert [e["panel_sha256"] for e in entries] == [file_sha256(table)]
