"""A ranker's faults: an illegal choice, a time-out or bad values are counted in the panel table,
take the centre-first choice and no values, never stop the panel, and invalidate the verdict (as a
game's illegal and unfinished decisions), shown on the page and in the records."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from panel_support import readings_doc
from test_report_panel import panel_run
from test_report_render import plan as claim_plan

from analysis.panel_faults import fault_errors
from analysis.panel_report import read_panel
from analysis.readings import evaluate_all
from analysis.report.model import Verdict
from analysis.report.page import render_claim
from analysis.report.panel_model import PanelSection
from cli.main import main
from contracts.panel_roots import read_roots
from contracts.panel_table import FAULT, PanelTableError, read_rows, write_rows
from engines.play.games import centre_first
from engines.play.panel_cli import load_roots
from protocol.records.metrics import panel_metrics
from protocol.verdict import INVALIDATED, decide, methodological_errors

TESTS = Path(__file__).parent
PLAIN = f"{sys.executable} {TESTS / 'referee_player.py'}"
HOSTILE = f"{sys.executable} {TESTS / 'hostile_player.py'}"
ROOTS_POLICY = "search:leaf=linear,d=1,s=3"
REFERENCE = "d2=search:leaf=linear,d=2,s=3"


def drop7(*argv: object) -> int:
    return main(["panel", *map(str, argv)])


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """Roots of two short games of a cheap search, and the reference's rows at them."""
    d = tmp_path_factory.mktemp("panel-faults")
    assert drop7("roots", "--policy", ROOTS_POLICY, "--seeds", "5:2", "--every", 9,
                 "--out", d / "roots.json") == 0
    assert drop7("rank", "--ranker", REFERENCE, "--roots", d / "roots.json",
                 "--out", d / "d2.csv") == 0
    return d


def _ranked(work: Path, name: str, policy: str) -> list[dict[str, str]]:
    out = work / f"{name}.csv"
    assert drop7("rank", "--ranker", f"{name}={policy}", "--roots", work / "roots.json",
                 "--out", out) == 0
    return read_rows(out)


def test_an_illegal_choice_is_counted_centre_first_and_the_panel_merges(work, capsys) -> None:
    rows = _ranked(work, "nine", f"external:{PLAIN} --column 9")
    roots = load_roots(str(work / "roots.json"))
    assert [r[FAULT] for r in rows] == ["illegal"] * len(roots)
    assert [int(r["choice"]) for r in rows] == [centre_first(r.cols) for r in roots]
    assert all(not r[f"v{c}"] for r in rows for c in range(7))
    assert "nine: illegal" in capsys.readouterr().err
    assert drop7("merge", "--rankers", "d2,nine", "--roots", work / "roots.json", "--out",
                 work / "nine-panel.csv", work / "d2.csv", work / "nine.csv") == 0
    header = (work / "nine-panel.csv").read_text().splitlines()[0]
    assert header.endswith(",v6,fault")


def test_a_time_out_is_unfinished_and_the_panel_goes_on(work) -> None:
    rows = _ranked(work, "mute", f"external[movetime=1,grace=100]:{HOSTILE} --silent")
    assert rows and all(r[FAULT] == "unfinished" for r in rows)


def test_a_ranker_whose_every_values_answer_is_a_fault_invalidates_the_verdict(work) -> None:
    bad = _ranked(work, "bad", f"external:{PLAIN} --values yes --values-answer banana")
    good = _ranked(work, "good", f"external:{PLAIN} --values yes")
    assert all(r[FAULT] == "illegal" for r in bad) and not any(r.get(FAULT) for r in good)
    assert drop7("merge", "--rankers", "d2,good,bad", "--roots", work / "roots.json", "--out",
                 work / "bad-panel.csv", work / "d2.csv", work / "good.csv",
                 work / "bad.csv") == 0
    readings = {"bad-tau": {"kind": "figure-at-least", "ranker": "bad", "figure": "tau",
                            "threshold": -1.0, "on": "estimate"}}
    declaration = {"reference": "d2", "rankers": ["good", "bad"], "readings": readings}
    doc = read_panel(read_rows(work / "bad-panel.csv"), read_roots(work / "roots.json"),
                     declaration, 200)
    n = len(bad)
    assert doc["faults"] == {"bad": {"illegal": n, "unfinished": 0}}
    # treated as illegal decisions are: a methodological error, the verdict invalidated
    errors = methodological_errors(integrity=fault_errors(doc), gate=None, screened=False,
                                   reused=False)
    assert errors == [f"panel ranker bad: {n} illegal and 0 unfinished answers (faults: the "
                      "centre-first choice was taken, no values)"]
    rule = {"rules": [{"when": {"bad-tau": ["pass", "not-run"]},
                       "then": "supported-as-tested"}], "otherwise": "mixed"}
    verdict = decide(rule, evaluate_all(readings, {}, {}, panel=doc), errors, "pilot")
    assert verdict["verdict"] == INVALIDATED
    # the page and the records show them
    section = PanelSection.from_json(doc)
    assert section.fault_lines() == [f"bad: {n} illegal and 0 unfinished answers"]
    assert section.missing("bad", "tau") == "faults" and "bad" not in section.without_values
    assert panel_metrics(doc, 0)["rankerFaults"] == {"bad": {"illegal": n, "unfinished": 0}}


def test_some_faulted_values_leave_those_roots_out_of_the_value_figures(work) -> None:
    rows = read_rows(work / "d2.csv")
    mine = [{**r, "ranker": "half"} for r in rows]
    for r in mine[::2]:
        r.update({f"v{c}": "" for c in range(7)}, fault="illegal")
    write_rows(rows + mine, work / "half-panel.csv")
    declaration = {"reference": "d2", "rankers": ["half"], "readings": {}}
    doc = read_panel(read_rows(work / "half-panel.csv"), read_roots(work / "roots.json"),
                     declaration, 200)
    assert doc["values"]["half"] is True
    assert doc["figures"]["half"]["tau"]["roots"] == len(mine[1::2])
    assert doc["figures"]["half"]["top1"]["roots"] == len(mine)
    assert doc["faults"] == {"half": {"illegal": len(mine[::2]), "unfinished": 0}}


def test_a_table_without_faults_keeps_its_bytes_and_refuses_bad_faults(work) -> None:
    rows = read_rows(work / "d2.csv")
    assert FAULT not in (work / "d2.csv").read_text().splitlines()[0]
    write_rows([{**r, FAULT: ""} for r in rows], work / "again.csv")
    assert (work / "again.csv").read_bytes() == (work / "d2.csv").read_bytes()
    for change, message in (({FAULT: "late"}, "is not one of illegal, unfinished"),
                            ({FAULT: "illegal"}, r"a row with a fault \(illegal\) has no values")):
        write_rows([{**rows[0], **change}, *rows[1:]], work / "bad-fault.csv")
        with pytest.raises(PanelTableError, match=message):
            read_rows(work / "bad-fault.csv")


def test_the_page_shows_a_rankers_faults_and_the_invalid_verdict() -> None:
    doc = json.loads(json.dumps(readings_doc()))
    doc["roots"]["seeds"] = [claim_plan("fourth-ply").seeds[0], doc["roots"]["games"]]
    doc["faults"] = {"noisy": {"illegal": 2, "unfinished": 1}}
    run = panel_run(doc)
    errors = fault_errors(doc)
    run.verdict = Verdict.from_json(decide({"rules": [], "otherwise": "mixed"},
                                           run.verdict.readings, errors, "pilot"))
    html = render_claim(run)
    section = html.split("<h2>Ranking panel</h2>")[1]
    assert "<b>Faults:</b> noisy: 2 illegal and 1 unfinished answers." in section
    assert errors[0] in html and INVALIDATED in html


def test_a_root_where_the_reference_faulted_is_left_out_of_every_figure(work) -> None:
    rows = read_rows(work / "d2.csv")
    ref = [dict(r) for r in rows]
    ref[0].update({f"v{c}": "" for c in range(7)}, fault="unfinished")
    mine = [{**r, "ranker": "same"} for r in rows]
    write_rows(ref + mine, work / "ref-fault.csv")
    declaration = {"reference": "d2", "rankers": ["same"], "readings": {}}
    doc = read_panel(read_rows(work / "ref-fault.csv"), read_roots(work / "roots.json"),
                     declaration, 200)
    assert doc["faults"] == {"d2": {"illegal": 0, "unfinished": 1}}
    assert doc["figures"]["same"]["top1"]["roots"] == len(rows) - 1
    assert doc["figures"]["same"]["tau"]["estimate"] == 1
    assert all((s["game"], s["root"]) != (int(rows[0]["game"]), int(rows[0]["root"]))
               for s in doc["shown"])
    assert fault_errors(doc)[0].startswith("panel ranker d2: 0 illegal and 1 unfinished")
