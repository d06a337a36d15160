"""The one-ply Q prior's legs (c) and (d) (claim oneply-linear-q-pruned-search): the pruned
rankers as planned, the judge's refusals, the recorded judged figures' refusals and the
register's mapping leg by leg."""

from __future__ import annotations

import pytest
from claims_support import REPO, claims_copy
from test_panel_declaration import one_line

from analysis.reading_result import Reading
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError
from protocol.verdict import decide

CLAIM = "oneply-linear-q-pruned-search"
Q = ("q:5bcea24666f61dc0362a48472e3668eafd514f8e1e86a5668df9a0a652a7fd9c:"
     "config/pinned/oneply-q-register-centred")


def test_the_pruned_rankers_play_the_declared_searches_and_wait_for_the_fit() -> None:
    plan = load_plan(REPO, {"profile": "paper"})
    p = plan.claims[CLAIM]
    arms = p.panel.arms
    assert arms["q-register-pruned-d4s7"].policy == f"search:leaf=linear,d=4,s=7,prune={Q},k=3"
    assert arms["q-register-pruned-d5s7"].policy == f"search:leaf=linear,d=5,s=7,prune={Q},k=2"
    assert arms["oneply-pruned-d4s7"].policy == "search:leaf=linear,d=4,s=7,prune=oneply,k=3"
    assert arms["fair-d5s7"].policy == "search:leaf=linear,d=5,s=7"
    fit = p.kf_trained["qfit"]
    assert arms["q-fitted-pruned-d4s7"].policy == (
        f"search:leaf=linear,d=4,s=7,prune=q:trained:{fit.weights_file},k=3")
    assert arms["q-fitted-pruned-d4s7"].kf_trained == (fit.weights_file, fit.record)
    assert list(p.opener_records) == [f"{CLAIM}/qfit"]
    judged = [r for r in p.panel_declaration()["readings"].values() if "judge" in r]
    assert {r["judge"] for r in judged} == {"fair-d5s7"} and len(judged) == 4


def test_the_pilot_searches_every_leg_one_ply_shallower_and_says_so() -> None:
    p = load_plan(REPO, {"profile": "pilot"}).claims[CLAIM]
    assert p.panel.arms["fair-d5s7"].policy == "search:leaf=linear,d=4,s=7"
    assert p.panel.arms["fair-d4s7"].policy == "search:leaf=linear,d=3,s=7"
    assert "arm fair-d5s7: search d4s7 instead of d5s7" in p.shrunk


def _refused(tmp_path, edit, key: str, message: str) -> None:
    claims = claims_copy(tmp_path / "claims", edit, claim=CLAIM)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    assert message in one_line(err, f"{claims / (CLAIM + '.yaml')}: key {key}")


@pytest.mark.parametrize(("judge", "message"), [
    ("q-register", "arm 'q-register' plays q: a judge values every legal column"),
    ("nobody", "no ranker 'nobody'"),
])
def test_a_judge_that_does_not_value_every_column_is_refused(tmp_path, judge, message) -> None:
    def edit(d):
        d["arms"]["q-register"] = {"play": "q", "weights": d["arms"]["q-register-pruned-d4s7"][
            "prune"]["weights"]}
        d["panel"]["rankers"].append("q-register")
        d["readings"]["d-beats-d4"]["judge"] = judge
    _refused(tmp_path, edit, "readings.d-beats-d4.judge", message)


def test_a_root_pruned_judge_is_refused(tmp_path) -> None:
    _refused(tmp_path, lambda d: d["arms"]["fair-d5s7"].update(
        prune={"prior": "oneply", "k": 3, "root": "pruned"}), "readings.d-beats-d4.judge",
        "arm 'fair-d5s7' plays search with its root pruned")


def test_a_ranker_judged_by_itself_is_refused(tmp_path) -> None:
    _refused(tmp_path, lambda d: d["readings"]["d-beats-d4"].update(
        judge="q-register-pruned-d5s7"), "readings.d-beats-d4.judge", "judged by its own values")


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda j: j.update({"fair-d1s7": {"fair-d4s7": {"top1": 0.5}}}),
     "recorded.judged.fair-d1s7", "no reading is judged by it (judges: fair-d5s7)"),
    (lambda j: j["fair-d5s7"].update({"nobody": {"top1": 0.5}}),
     "recorded.judged.fair-d5s7.nobody", "not a ranker of the panel or its reference"),
    (lambda j: j["fair-d5s7"]["fair-d4s7"].update(speed=3), "recorded.judged.fair-d5s7."
     "fair-d4s7.speed", "not a figure of the panel"),
])
def test_a_misquoted_judged_figure_is_refused(tmp_path, edit, key, message) -> None:
    _refused(tmp_path, lambda d: edit(d["recorded"]["judged"]), key, message)


def _verdict(**outcomes: str) -> str:
    from claims_support import shipped

    doc = shipped(CLAIM)
    readings = [Reading(n, r["kind"], "", outcomes.get(n.replace("-", "_"), "pass"), "")
                for n, r in doc["readings"].items()]
    # a falsification line that passes (d4s7 beats the pruned d5s7) is the bad outcome
    readings = [r if r.name != "d-d4-beats" or "d_d4_beats" in outcomes
                else Reading(r.name, r.kind, "", "fail", "") for r in readings]
    return decide(doc["verdict"], readings, [], "pilot")["verdict"]


@pytest.mark.parametrize(("outcomes", "verdict"), [
    ({}, "supported-as-tested"),
    ({"c_top1_95": "fail"}, "mixed"),                   # agreement between 0.90 and 0.95
    ({"c_top1_95": "fail", "c_top1_90": "fail"}, "not-supported-as-tested"),
    ({"c_work_35": "fail"}, "not-supported-as-tested"),  # no configuration in budget
    ({"c_regret_02": "fail"}, "mixed"),
    ({"c_regret_02": "fail", "c_regret_05": "fail"}, "not-supported-as-tested"),
    ({"d_beats_d4": "fail"}, "mixed"),                  # inside the paired bound
    ({"d_beats_d4": "fail", "d_d4_beats": "pass"}, "not-supported-as-tested"),
    ({"d_work_2x": "fail"}, "not-supported-as-tested"),
    ({"c_work_35": "fail", "d_beats_d4": "fail"}, "not-supported-as-tested"),
])
def test_the_verdict_is_the_registers_mapping_leg_by_leg(outcomes, verdict) -> None:
    assert _verdict(**outcomes) == verdict
