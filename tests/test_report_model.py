"""What crosses from the protocol to the claim page as types: the plan's description and
the verdict round-trip through their JSON, and each arm's summary is computed once and shown
once, with the numbers the committed pilot pages show."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from test_report_render import run_of

from analysis.contrast import Contrast
from analysis.readings import Reading
from analysis.report.model import ClaimDescription, Verdict, arm_summaries
from analysis.report.page import FIGURES, _num, render_claim
from protocol.plan import load_plan
from protocol.verdict import decide

ROOT = Path(__file__).resolve().parent.parent
#: the committed pilot pages whose screens were opened, with their per-game rows
SCREENED = ("fourth-ply", "ntuple-line-tuples", "ntuple-line-tuples-lanes")


@pytest.fixture(scope="module")
def pilot():
    return load_plan(ROOT, {"profile": "pilot"})


def test_the_description_is_typed_and_its_json_is_describe(pilot) -> None:
    for claim in pilot.claims.values():
        desc = claim.description()
        assert desc.to_json() == claim.describe()
        again = ClaimDescription.from_json(json.loads(json.dumps(claim.describe(), default=str)))
        assert again.to_json() == json.loads(json.dumps(desc.to_json(), default=str))
        assert again.arms[next(iter(claim.arms))].policy == next(iter(claim.arms.values())).policy


def test_the_verdict_the_protocol_decides_reads_back_as_a_type() -> None:
    readings = [Reading("primary", "screen", "Primary", "pass", "delta +3", {"n": 8}),
                Reading("health", "training-health", "Health", "fail", "fell", {})]
    rules = {"rules": [{"when": {"primary": "pass", "health": "pass"}, "then": "mixed"}],
             "otherwise": "not-supported-as-tested"}
    doc = decide(rules, readings, [], "pilot", ["shrunk"])
    verdict = Verdict.from_json(json.loads(json.dumps(doc)))
    assert verdict.to_json() == doc and verdict.readings == readings
    assert verdict.verdict == "not-supported-as-tested" and verdict.rule is None
    assert list(doc) == ["tier", "tier_lowered_by", "readings", "outcomes",
                         "methodological_errors", "verdict", "reason", "rule"]


def test_each_arm_s_summary_is_shown_once_on_the_page() -> None:
    run = run_of("ntuple-line-tuples")
    html = render_claim(run, dict.fromkeys(FIGURES, b"png"))
    assert run.arms and run.arms is run.arms  # computed once per run
    for a in run.arms:
        for value in (a.mean, a.median, a.q25, a.q75):
            assert html.count(f">{_num(value)}<") + html.count(f">{_num(value)} /") == 1, (
                a.arm, value)


def test_an_interaction_keeps_its_differences_means() -> None:
    run = run_of("fourth-ply")
    html = render_claim(run, dict.fromkeys(FIGURES, b"png"))
    c = run.contrasts["interaction"]
    assert f"{_num(c.mean_candidate)} / {_num(c.mean_baseline)}" in html
    assert set(run.pair_means) == {"interaction"}


def _rows(claim: str) -> pd.DataFrame:
    lines = (ROOT / f"reports/pilot/records/{claim}/games.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    return pd.DataFrame({
        "arm": [r["cohortId"].rsplit("/", 1)[1] for r in rows],
        "score": [r["score"] for r in rows], "moves": [r["moves"] for r in rows],
        "censored": [r["censored"] for r in rows],
        "illegal": [r["illegalDecisions"] for r in rows],
        "unfinished": [r["incompleteDecisions"] for r in rows]})


_ARM_ROW = re.compile(r'<tr><td class="l">([^<]+)</td><td class="l mono">[^<]*</td>'
                      r"<td>(\d+)[^<]*</td>((?:<td>[^<]*</td>){8})")


@pytest.mark.parametrize("claim", SCREENED)
def test_the_committed_pilot_pages_show_the_arm_summaries_of_their_games(pilot, claim) -> None:
    """The arms table of each committed pilot page is what :func:`arm_summaries` gives from
    the committed per-game rows (seconds in games aside: the rows are of a replay)."""
    page = (ROOT / f"reports/pilot/{claim}.html").read_text()
    arms_table = page.split("<h2>Arms</h2>", 1)[1].split("</table>", 1)[0]
    shown = {m[1]: [m[2], *re.findall(r"<td>([^<]*)</td>", m[3])]
             for m in _ARM_ROW.finditer(arms_table)}
    summaries = arm_summaries(pilot.claims[claim].description(), _rows(claim))
    assert shown and set(shown) == {a.arm for a in summaries}
    for a in summaries:
        mine = [str(a.games), _num(a.mean), _num(a.median), _num(a.q25), _num(a.q75),
                _num(a.moves, digits=1), _num(a.censored), _num(a.illegal), _num(a.unfinished)]
        assert shown[a.arm] == mine, a.arm


def test_a_contrast_s_json_reads_back_as_the_contrast_and_writes_the_same() -> None:
    """The contrast job's JSON (with its operating characteristic) is what the page reads as
    a :class:`~analysis.contrast.Contrast`; written again it is the same JSON."""
    run = run_of("fourth-ply")
    for c in run.contrasts.values():
        doc = json.loads(json.dumps(c.to_dict()))
        assert Contrast.from_dict(doc).to_dict() == doc
    assert run.contrasts["primary"].oc is not None and "oc" not in run.contrasts[
        "interaction"].to_dict()


def test_a_sequential_contrast_reads_back_with_its_looks_typed() -> None:
    """The contrast a sequential screen stops on: its section's looks and stop are
    :class:`~analysis.sequential.screen.Look`; the JSON written again is the same."""
    from analysis.contrast import contrast_paired
    from analysis.games_table import pair_arms
    from analysis.sequential.screen import Look, look_record, screen_section

    run = run_of("fourth-ply")
    p = load_plan(ROOT, {"profile": "pilot"}).claims["fourth-ply"]
    design, (a, b) = p.sequential.design, p.contrasts["primary"].arms
    pair = pair_arms(run.games, a, b)
    d = pair.candidate_scores - pair.baseline_scores
    looks = [look_record(d[:n], k, design, p.seeds[0]) for k, n in enumerate(design.looks[:2], 1)]
    n = looks[-1]["n"]
    doc = contrast_paired(pair_arms(run.games[run.games.seed < p.seeds[0] + n], a, b),
                          n_resamples=200).to_dict()
    doc["sequential"] = screen_section(d[:n], doc, design, looks, n_sims=0, n_resamples=200)
    doc = json.loads(json.dumps(doc))
    c = Contrast.from_dict(doc)
    assert isinstance(c.sequential.stop, Look) and c.sequential.stop.n == n
    assert [x.look for x in c.sequential.looks] == [1, 2]
    assert c.to_dict() == doc
