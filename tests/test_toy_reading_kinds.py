"""A new reading kind is one registry entry: a toy contrast kind and a toy panel kind
(tests/toy_reading_kinds.py, one file) run from a claim through verdict, page and records."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import toy_reading_kinds
from claims_support import REPO, own_claim, write_claim
from panel_support import DECLARED, make_rows, panel_plan
from test_panel_declaration import folder, one_line
from test_panel_report import DECLARATION, R, synthetic_roots
from test_report_render import contrasts_of, provenance, run_of, synthetic_games

from analysis.panel_report import check_declaration, read_panel
from analysis.reading_kinds import CONTRAST, kinds_of, panel_readings
from analysis.readings import Reading, evaluate_all
from analysis.report.model import ClaimDescription, Verdict
from analysis.report.page import ClaimRun, render_claim
from analysis.report.panel_model import PanelSection
from protocol.declaration import claim_schema, load_claims
from protocol.plan import load_plan
from protocol.records.bundle import gate_checks
from protocol.records.ids import RecordError
from protocol.records.metrics import panel_metrics
from protocol.records.rebuild import _check_readings
from protocol.schema import DeclarationError
from protocol.verdict import decide


@pytest.fixture
def toys():
    toy_reading_kinds.register()
    yield
    toy_reading_kinds.unregister()


def _mine(tmp_path, reading):
    doc = own_claim()
    doc["readings"]["toy"] = reading
    doc["verdict"]["rules"].insert(0, {"when": {"toy": "fail"},
                                       "then": "not-supported-as-tested"})
    directory = tmp_path / "mine"
    directory.mkdir(exist_ok=True)
    write_claim(directory, doc)
    return directory


def test_the_toy_kinds_are_declared_by_their_entry_alone(toys, tmp_path) -> None:
    enum = claim_schema()["properties"]["readings"]["additionalProperties"]["properties"][
        "kind"]["enum"]
    assert {"mean-above", "ranker-matches"} <= set(enum)
    with pytest.raises(DeclarationError) as err:
        load_claims(_mine(tmp_path, {"kind": "mean-above", "contrast": "ply"}))
    one_line(err, f"{tmp_path / 'mine' / 'my-first-claim.yaml'}: key readings.toy.threshold: "
             "missing: a mean-above reading needs contrast, threshold")
    with pytest.raises(DeclarationError, match=r"key readings\.toy\.margin: a mean-above "
                       "reading takes contrast, threshold"):
        load_claims(_mine(tmp_path, {"kind": "mean-above", "contrast": "ply", "threshold": 1,
                                     "margin": -1}))


def test_a_toy_contrast_kind_runs_through_verdict_page_and_records(toys, tmp_path) -> None:
    mine = _mine(tmp_path, {"kind": "mean-above", "contrast": "ply", "threshold": -1e9})
    p = load_plan(REPO, {"profile": "pilot", "claims_dir": str(mine)}).claims["my-first-claim"]
    games = synthetic_games(p)
    contrasts = contrasts_of(p, games)
    readings = evaluate_all(p.readings, contrasts, {})
    toy = next(r for r in readings if r.name == "toy")
    assert toy.outcome == "pass" and toy.reason.startswith("toy: mean delta")
    verdict = decide(p.claim.doc["verdict"], readings, [], p.tier)
    assert verdict["outcomes"]["toy"] == "pass"
    gate = {"claim": p.id, "passed": True, "enforced": False, "opens_screen": True,
            "gates": [], "reason": "no gates"}
    run = ClaimRun(plan=ClaimDescription.from_json(p.describe()),
                   profile={"profile": "pilot", "note": ""}, gate=gate,
                   verdict=Verdict.from_json(verdict), provenance=provenance(), games=games,
                   closed={"games": len(games), "table_sha256": "9" * 64, "entries": {}})
    html = render_claim(run)
    assert "toy (mean-above)" in html and "toy: mean delta" in html
    check = next(c for c in gate_checks(verdict) if c["criterion"].startswith("toy: "))
    assert check["passed"] is True and check["observed"].startswith("pass: toy: mean delta")
    # drop7 records rebuild checks every contrast kind again, the toy among them
    assert "mean-above" in kinds_of(CONTRAST)
    tampered = copy.deepcopy(verdict)
    next(r for r in tampered["readings"] if r["name"] == "toy")["outcome"] = "fail"
    with pytest.raises(RecordError, match="reading toy: the games give pass"):
        _check_readings(p, contrasts, tampered)


def test_a_toy_panel_kind_refuses_a_ranker_against_itself_at_load_time(toys, tmp_path) -> None:
    def itself(doc):
        doc["readings"]["toy"] = {"kind": "ranker-matches", "ranker": "fair-d2s7",
                                  "other": "fair-d2s7", "figure": "top1"}
    with pytest.raises(DeclarationError) as err:
        load_claims(folder(tmp_path, itself))
    one_line(err, f"{tmp_path / 'mine' / 'my-panel.yaml'}: key readings.toy.other: "
             "'fair-d2s7' against itself")
    bad = copy.deepcopy(DECLARATION)
    bad["readings"]["toy"] = {"kind": "ranker-matches", "ranker": "noisy", "other": "noisy",
                              "figure": "top1"}
    with pytest.raises(ValueError,
                       match=r"readings\.toy\.other: a ranker cannot be read against itself"):
        check_declaration(bad)


def test_a_toy_panel_kind_runs_through_the_panel_verdict_page_and_records(toys,
                                                                         tmp_path) -> None:
    def matches(doc):
        doc["readings"]["toy"] = {"kind": "ranker-matches", "ranker": "fair-d3s7",
                                  "other": "fair-d2s7", "figure": "top1"}
    claim = load_claims(folder(tmp_path, matches))["my-panel"]
    assert "toy" in panel_readings(claim.readings)
    toy = {"kind": "ranker-matches", "ranker": "noisy", "other": "random", "figure": "top1",
           "title": "noisy and random pick alike"}
    declaration = {**DECLARATION, "readings": {**DECLARED, "toy": toy}}
    rows = make_rows(games=10, roots=6)
    doc = read_panel(rows, synthetic_roots(rows), declaration, R)
    assert doc["readings"]["toy"]["reason"].startswith("toy: noisy - random top1 from")
    assert set(doc["differences"]) == {"noisy-over-random", "toy"}  # it reads a paired one
    readings = evaluate_all({"toy": toy}, {}, {}, {}, doc)
    assert readings[0].reason == doc["readings"]["toy"]["reason"]
    rules = {"rules": [{"when": {"toy": "pass"}, "then": "supported-as-tested"}],
             "otherwise": "not-supported-as-tested"}
    verdict = decide(rules, readings, [], "pilot")
    run = run_of("fourth-ply")
    doc["roots"]["seeds"] = [run.plan.seeds[0], doc["roots"]["games"]]
    run.plan = replace(run.plan, panel=panel_plan(doc),
                       readings={**run.plan.readings, **DECLARED, "toy": toy})
    run.verdict = Verdict.from_json(decide(rules, [*run.verdict.readings, *(
        Reading(**r) for r in doc["readings"].values())], [], "pilot"))
    run.panel = PanelSection.from_json(doc)
    html = render_claim(run)
    assert "noisy and random pick alike" in html and "toy: noisy - random top1" in html
    metrics = panel_metrics(doc, run.plan.blocks[0])
    assert metrics["readings"]["toy"]["kind"] == "ranker-matches"
    assert "toy" in metrics["differences"]
    assert gate_checks(verdict)[0]["passed"] is (verdict["outcomes"]["toy"] == "pass")
