"""The claim page's ranking panel section, from a readings file computed on a synthetic panel:
the summary line per ranker, the roots as boards, "no values", a figure per reading; a
panel-only claim (no contrasts) renders; a claim without a panel renders as before."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace

import numpy as np
import pytest
from panel_support import DECLARED, panel_plan, readings_doc
from test_report_render import PNG, images, run_of, synthetic_games
from test_report_render import plan as claim_plan

from analysis.readings import Reading
from analysis.report.model import ArmPlan, Verdict
from analysis.report.page import (
    FIGURES,
    PANEL_AGREEMENT,
    PANEL_FIGURE,
    build_figures,
    render_claim,
    run_summary,
)
from analysis.report.panel_model import PanelReadingsError, PanelSection
from contracts.cli_numbers import seed_hex
from protocol.ledger import FORMAT
from protocol.verdict import decide

RULES = {"rules": [{"when": {"noisy-top1": "pass", "noisy-regret": "pass"},
                    "then": "supported-as-tested"}],
         "otherwise": "not-supported-as-tested"}


@pytest.fixture(scope="module")
def doc() -> dict:
    """The fixture's readings file as read back, its roots from the block's first games."""
    out = json.loads(json.dumps(readings_doc()))
    out["roots"]["seeds"] = [claim_plan("fourth-ply").seeds[0], out["roots"]["games"]]
    return out


def panel_run(doc: dict, *, contrasts: bool = True):
    """A claim run with the fixture's panel: beside a screen (the fourth-ply claim's), or
    panel-only (no contrasts; the roots arm alone played the block)."""
    run = run_of("fourth-ply")
    section = PanelSection.from_json(doc)
    plan = replace(run.plan, panel=panel_plan(doc), readings={**run.plan.readings, **DECLARED})
    readings = [Reading(**r) for r in doc["readings"].values()]
    if contrasts:
        readings = [*run.verdict.readings, *readings]
    else:
        arm = ArmPlan(policy=doc["roots"]["policy"], games=8, shards=1, artefact=None)
        declaration = {k: v for k, v in plan.declaration.items() if k != "contrasts"}
        plan = replace(plan, contrasts={}, arms={"fair-d3s7": arm}, seeds=[plan.seeds[0], 8],
                       readings=dict(DECLARED), sequential=None, declaration=declaration)
        games = synthetic_games(plan)
        run.games, run.contrasts = games, {}
        run.closed = {**run.closed, "games": len(games)}
    verdict = Verdict.from_json(decide(RULES, readings, [], "pilot"))
    run.plan, run.verdict, run.panel = plan, verdict, section
    return run


def test_the_panel_section_shows_summary_boards_no_values_and_a_figure_per_reading(doc) -> None:
    run = panel_run(doc)
    html = render_claim(run)
    section = html.split("<h2>Ranking panel</h2>")[1].split("<h2>Contrasts</h2>")[0]
    # the one-line summary per ranker, at the top of the section
    noisy = doc["figures"]["noisy"]["top1"]
    line = (f"noisy against ref: top-1 {noisy['estimate']:.2f} ({noisy['lower']:.2f} to "
            f"{noisy['upper']:.2f}), pairwise")
    assert line in section and section.index(line) < section.index("<b>Roots.</b>")
    assert "choice-only against ref: top-1" in section
    assert "pairwise no values, tau no values, regret fraction" in section
    # how roots were drawn
    assert ("every 4th decision (from the first) of\n8 games played by <span class=\"mono\">"
            "search:leaf=linear,d=3,s=7</span> (arm fair-d3s7) on seeds") in section
    assert f"{seed_hex(doc['roots']['seeds'][0])}:8</span>" in section
    assert "the first 1,024 at most" in section
    assert f"<b>{doc['roots']['count']} roots</b> ({doc['roots']['count']} planned)" in section
    # a ranker without values: what it allows, and its value figures' cells
    assert ("<b>No values:</b> choice-only gives its choice alone" in section
            and "That allows top-1 and regret only" in section)
    row = re.search(r"<tr><td class=\"l\">choice-only.*?</tr>", section, re.S)[0]
    assert row.count(">no values<") == 4  # recall@2, recall@3, pairwise, tau
    assert row.count(">not reported<") == 2  # it reports no work
    # the table: estimate, 90% interval, halves of every figure
    tau = doc["figures"]["noisy"]["tau"]
    assert (f"<b>{tau['estimate']:.3f}</b><br>{tau['lower']:.3f} to {tau['upper']:.3f}<br>"
            f"<span class=\"anchor\">halves {tau['halves'][0]:.3f} / "
            f"{tau['halves'][1]:.3f}</span>") in section
    # the reference against itself: the last row
    itself = re.search(r'<tr class="anchor"><td class="l">ref<br>\(the reference, against '
                       r'itself\)</td>(.*?)</tr>', section, re.S)[1]
    assert itself.count("<td>") == len(doc["reference_figures"])
    assert "<b>1.000</b><br>1.000 to 1.000" in itself and "<b>0.000</b>" in itself
    # three roots as boards, from different games, with the reference's values and choices
    boards = re.findall(r'<table class="board">.*?</table>', section, re.S)
    assert len(boards) == 3 == len({s["game"] for s in doc["shown"]})
    first = doc["shown"][0]
    assert boards[0].count('<td class="cell') == 49
    assert f"next disc {first['next']}" in boards[0]
    best = int(np.nanargmax([np.nan if v is None else v for v in first["reference"]]))
    cells = re.search(r'<tr class="values">(.*?)</tr>', boards[0])[1]
    assert re.findall(r"<td[^>]*>", cells)[best] == '<td class="best">'
    chosen = re.search(r'<tr class="choices">(.*?)</tr>', boards[0])[1]
    column = first["choices"]["noisy"]
    assert "noisy" in re.findall(r"<td>(.*?)</td>", chosen)[column]
    # a figure per panel reading, the agreement figure, every one embedded
    for name in DECLARED:
        found = re.search(rf'<figure id="fig-{PANEL_FIGURE.format(name)}">.*?base64,([^"]+)"',
                          section, re.S)
        assert found, name
    assert f'id="fig-{PANEL_AGREEMENT}"' in section
    assert len(images(html)) == len(FIGURES) + len(DECLARED) + 1
    assert all(i.startswith(PNG) for i in images(html))
    assert "(threshold 0.3)" in section and "Reading noisy-over-random: top1" in section
    # panel readings appear in the page's readings table through the verdict
    assert re.search(r'<td class="l">noisy-top1 \(figure-at-least\)</td>', html)
    assert run.verdict.verdict == "supported-as-tested"


def test_the_register_s_figures_of_a_ranker_stand_in_italics_beside_ours(doc) -> None:
    """``recorded.rankers``: a row in italics under each ranker the register reports, a
    pooled figure as it is, two halves as halves; a ranker it does not report has none."""
    run = panel_run(doc)
    rid = "RS-20260823T194142Z-946e3cd1"
    run.plan = replace(run.plan, recorded={
        "result": rid, "source": "the register's probe",
        "rankers": {"noisy": {"top1": 0.568, "pairwise": [0.8014, 0.7792]}}})
    section = render_claim(run).split("<h2>Ranking panel</h2>")[1].split("<h2>Contrasts")[0]
    rows = re.findall(r'<tr class="anchor"><td class="l">recorded: ([^<]+)</td>(.*?)</tr>',
                      section, re.S)
    assert [name for name, _ in rows] == ["noisy"]
    cells = re.findall(r"<td>(.*?)</td>", rows[0][1], re.S)
    names = PanelSection.from_json(doc).figure_names
    assert len(cells) == len(names)
    assert cells[names.index("top1")] == "0.568"
    assert cells[names.index("pairwise")] == "halves 0.801 / 0.779"
    assert cells[names.index("tau")] == ""
    ours = section.index('<td class="l">noisy<br>')
    assert ours < section.index("recorded: noisy") < section.index('<td class="l">random<br>')
    assert f"the register's figures for these rankers ({rid})" in section
    run.plan = replace(run.plan, recorded={})
    assert "recorded: " not in render_claim(run).split("<h2>Ranking panel</h2>")[1]


@pytest.mark.parametrize("conventions", ["harness", "register"])
def test_the_page_states_its_conventions_and_shows_the_others_beside_deciding_nothing(
        conventions) -> None:
    doc = json.loads(json.dumps(readings_doc(conventions=conventions)))
    doc["roots"]["seeds"] = [claim_plan("fourth-ply").seeds[0], doc["roots"]["games"]]
    section = render_claim(panel_run(doc)).split("<h2>Ranking panel</h2>")[1]
    side = "register" if conventions == "harness" else "harness"
    said = re.search(r"The verdict reads every figure and reading of this section under the "
                     r"<b>(\w+)</b> conventions", section)
    assert said and said[1] == conventions
    assert "pick: the first column of the ranker" in section  # the register's, in words
    assert "exact d4 at five strata" in section  # the register's reference
    beside = section.split(f"Beside, deciding nothing: the {side} conventions")[1]
    beside = beside.split("</table>\n<table>")[0]
    for name, r in doc["side"]["readings"].items():
        assert re.search(rf"<td class=\"l\">{re.escape(name)}</td><td class=\"l "
                         rf"{r['outcome']}\">{r['outcome']}", beside), name
    # a readings file with an unknown convention is refused naming the key
    bad = copy.deepcopy(doc)
    bad["side"]["conventions"] = "mine"
    with pytest.raises(PanelReadingsError, match="r.json: side.conventions: 'mine' is not one"):
        PanelSection.from_json(bad, "r.json")


def test_a_panel_only_claim_renders_with_no_contrasts_and_its_roots_arm_alone(doc) -> None:
    run = panel_run(doc, contrasts=False)
    figures = build_figures(run)
    assert set(figures) == set(FIGURES)
    html = render_claim(run, figures)
    assert "<h2>Ranking panel</h2>" in html and "<h2>Contrasts</h2>" not in html
    arms = html.split("<h2>Arms</h2>")[1].split("</table>")[0]
    assert arms.count("<tr><td class") == 1 and "fair-d3s7" in arms
    assert "this claim declares no contrast" not in html  # placeholders are images
    assert run_summary(run, "x.html")["contrast"] is None
    assert len(images(html)) == len(FIGURES) + len(DECLARED) + 1


def test_an_outcome_reference_is_named_with_its_labeller(doc) -> None:
    run = panel_run(doc)
    outcome = {"policy": "direct-linear", "continuations": 8, "horizon": 40,
               "target": "lifetime", "seed": 20261203}
    run.plan = replace(run.plan, panel={**run.plan.panel, "outcome": outcome})
    html = render_claim(run, dict.fromkeys(FIGURES, PNG))
    assert ("a Monte Carlo outcome labeller (ref): for each legal column, 8 continuations\nof "
            '<span class="mono">direct-linear</span> to a horizon of 40 moves, target '
            "<code>lifetime</code>, seed 20261203.") in html


def test_a_panel_not_read_says_so(doc) -> None:
    run = panel_run(doc)
    run.panel = None
    html = render_claim(run, dict.fromkeys(FIGURES, PNG))
    assert "<h2>Ranking panel</h2>\n<p>The panel was not read" in html


def test_a_claim_without_a_panel_has_no_panel_section() -> None:
    run = run_of("fourth-ply")
    html = render_claim(run, dict.fromkeys(FIGURES, PNG))
    assert "Ranking panel" not in html and "table.board" not in html
    assert run.plan.to_json() == run.plan.to_json() and "panel" not in run.plan.to_json()


def test_the_plan_s_panel_round_trips_and_is_absent_when_none(doc) -> None:
    from analysis.report.model import ClaimDescription
    run = panel_run(doc)
    back = ClaimDescription.from_json(json.loads(json.dumps(run.plan.to_json())))
    assert back == run.plan and back.panel["roots_arm"] == "fair-d3s7"


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(format="drop7-panel-readings-v0"),
     "r.json: format: expected drop7-panel-readings-v1, got 'drop7-panel-readings-v0'"),
    (lambda d: d.pop("shown"), "r.json: shown: missing"),
    (lambda d: d["figures"].pop("random"), "r.json: figures.random: missing"),
    (lambda d: d["figures"]["noisy"]["tau"].pop("lower"), "r.json: figures.noisy.tau: not a "
     "figure"),
    (lambda d: d["shown"][1]["board"].pop(), r"r.json: shown\[1\].board: expected 7 rows"),
    (lambda d: d["agreement"]["matrix"].pop(), "r.json: agreement.matrix: expected 4 x 4"),
    (lambda d: d["roots"].pop("every"), "r.json: roots: 'every'"),
])
def test_a_bad_readings_file_is_one_line_naming_the_key(doc, edit, message) -> None:
    bad = copy.deepcopy(doc)
    edit(bad)
    with pytest.raises(PanelReadingsError, match=message) as info:
        PanelSection.from_json(bad, "r.json")
    assert "\n" not in str(info.value)


class _Files(dict):
    """Snakemake's named lists as the workflow's scripts read them: by key and by attribute."""

    __getattr__ = dict.__getitem__


def _run_script(name: str, job) -> None:
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "workflow" / "scripts" / name
    runpy.run_path(str(script), init_globals={"snakemake": job})


def test_the_report_job_reads_the_panel_input_of_a_panel_only_claim(doc, tmp_path) -> None:
    """workflow/scripts/report.py with the optional ``panel`` input (readings.json) and the
    plan's ``panel``: the page has the panel section, the provenance the roots' seeds."""
    from types import SimpleNamespace

    from claims_support import REPO

    from contracts.games_table import write_rows
    from engines.play.policy_grammar import parse_arm
    from engines.play.runner import run_shard

    run = panel_run(doc, contrasts=False)
    plan = run.plan.to_json()
    start, count = plan["seeds"]
    write_rows(run_shard([parse_arm("fair-d3s7=random")], start, count, progress_s=-1),
               tmp_path / "games.csv")
    # the block's ledger entry, and the ledger as it is when the job runs: one replay since
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "pilot", "hashes": {}, "seeds": [start, count],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "complete", "games": count, "completed_utc": "2026-12-02T02:40:00Z",
             "table_sha256": "9" * 64}
    closed = {**run.closed, "entries": {block: entry}}
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"format": FORMAT, "blocks": {block: [
        {**entry, "replays": [{"table_sha256": "e" * 64, "utc": "2026-12-03T00:00:00Z"}]}]}}))
    files = {"verdict": run.verdict.to_json(), "gates": run.gate, "opened": run.opened,
             "closed": closed, "hashes": {}, "panel": doc}
    inputs = _Files(curves=[], manifests=[], health=[], frozen=[],
                    table=str(tmp_path / "games.csv"), records=str(tmp_path / "records"))
    (tmp_path / "records").mkdir()
    for key, content in files.items():
        inputs[key] = str(tmp_path / f"{key}.json")
        (tmp_path / f"{key}.json").write_text(json.dumps(content))
    outputs = _Files(page=str(tmp_path / "page.html"), summary=str(tmp_path / "summary.json"),
                     provenance=str(tmp_path / "provenance.json"),
                     **{name: str(tmp_path / f"{name}.png") for name in FIGURES})
    job = SimpleNamespace(input=inputs, output=outputs, log=[str(tmp_path / "job.log")],
                          params=SimpleNamespace(plan=plan, manifests={}, health={}, direct={},
                                                 profile={"profile": "pilot"}, repo=str(REPO),
                                                 ledger=str(ledger),
                                                 benchmarks=None, declared_in="p.yaml",
                                                 replaces=None))
    _run_script("report.py", job)
    html = (tmp_path / "page.html").read_text()
    assert "noisy against ref: top-1" in html and html.count('<table class="board">') == 3
    assert "<h2>Contrasts</h2>" not in html
    assert "replay 1's table SHA-256" in html  # appended to the ledger after the block closed
    prov = json.loads((tmp_path / "provenance.json").read_text())
    assert prov["seed_blocks"]["panel roots"] == {"start": start, "count": 8}
    # without the input, the section says the panel was not read
    del inputs["panel"]
    _run_script("report.py", job)
    assert "The panel was not read" in (tmp_path / "page.html").read_text()
