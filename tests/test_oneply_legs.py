"""The one-ply Q prior's legs (c) and (d) (config/claims/oneply-linear-q-pruned-search.yaml,
planned alone with ``claims_dir``): the pruned rankers as planned, the judge's refusals, the
recorded judged figures' refusals and the register's mapping leg by leg."""

from __future__ import annotations

import pytest
import yaml
from claims_support import REPO, write_claim
from test_panel_declaration import one_line

from analysis.reading_result import Reading
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError
from protocol.verdict import decide

CLAIM = "oneply-linear-q-pruned-search"
DECLARED = REPO / "config" / "claims" / f"{CLAIM}.yaml"
#: its smoke sizes (config/profiles/smoke.yaml), given again: the claim planned alone
SMOKE = {"claims": {CLAIM: {"panel": {"games": 4, "roots": 24},
                            "weights": {"qfit": {"games": 1}}}}}


def _doc() -> dict:
    return yaml.safe_load(DECLARED.read_text())
Q = ("q:5bcea24666f61dc0362a48472e3668eafd514f8e1e86a5668df9a0a652a7fd9c:"
     "config/pinned/oneply-q-register-centred")


def test_the_pruned_rankers_play_the_declared_searches_and_wait_for_the_fit() -> None:
    plan = load_plan(REPO, {"profile": "paper", "claims_dir": str(DECLARED)})
    assert CLAIM in plan.claims
    p = plan.claims[CLAIM]
    arms = p.panel.arms
    assert arms["q-register-pruned-d4s7"].policy == f"search:leaf=linear,d=4,s=7,prune={Q},k=3"
    assert arms["q-register-pruned-d5s7"].policy == f"search:leaf=linear,d=5,s=7,prune={Q},k=2"
    assert arms["oneply-pruned-d4s7"].policy == "search:leaf=linear,d=4,s=7,prune=oneply,k=3"
    assert arms["fair-d5s7"].policy == "search:leaf=linear,d=5,s=7"
    fit = p.direct_trained["qfit"]
    assert arms["q-fitted-pruned-d4s7"].policy == (
        f"search:leaf=linear,d=4,s=7,prune=q:trained:{fit.weights_file},k=3")
    assert arms["q-fitted-pruned-d4s7"].direct == (fit.weights_file, fit.record)
    assert list(p.opener_records) == [f"{CLAIM}/qfit"]
    judged = [r for r in p.panel_declaration()["readings"].values() if "judge" in r]
    assert {r["judge"] for r in judged} == {"fair-d5s7"} and len(judged) == 4


def test_the_smoke_sizes_of_its_header_plan_every_ranker_in_seconds() -> None:
    p = load_plan(REPO, {"profile": "smoke", "claims_dir": str(DECLARED), **SMOKE}).claims[CLAIM]
    assert p.panel.roots == 24 and p.direct_trained["qfit"].size == 1
    assert p.panel.arms["fair-d5s7"].policy == "search:leaf=linear,d=4,s=3"


def _refused(tmp_path, edit, key: str, message: str) -> None:
    doc = _doc()
    edit(doc)
    folder = tmp_path / "claims"
    folder.mkdir()
    path = write_claim(folder, doc)
    with pytest.raises(DeclarationError) as err:
        load_claims(folder)
    assert message in one_line(err, f"{path}: key {key}")


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
    doc = _doc()
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


def test_a_panels_pruned_and_judged_figures_are_found_under_their_keys() -> None:
    """The pruned-search panel's figures (top-1 agreement, recall@k, normalised and raw regret,
    work ratio), a ranker's and a judge's, are read under the register's keys for them."""
    from protocol.records.register import _figure_problems

    record = {"metrics": {
        "rankersHeldOut": {"lq": {"top1": 0.30803, "recall3": 0.60389}},
        "pruned": {"q:3,3": {"top1Agreement": 0.78786, "meanNormalisedRegret": 0.037049,
                             "meanRawRegret": 138.763, "workRatioOfMeans": 0.25068}},
        "depth5": {"exact:4:7": {"meanNormalisedRegret": 0.028534, "meanRawRegret": 145.649}}}}
    recorded = {"rankers": {"q": {"top1": 0.308, "recall@3": 0.604},
                            "q-pruned": {"top1": 0.788, "regret_frac": 0.037,
                                         "regret": 138.8, "work_ratio": 0.251}},
                "judged": {"fair-d5s7": {"fair-d4s7": {"regret_frac": 0.0285,
                                                       "regret": 146}}}}
    assert _figure_problems(recorded, record, "RS-x", "c.yaml") == []
    recorded["judged"]["fair-d5s7"]["fair-d4s7"]["regret_frac"] = 0.0286
    recorded["rankers"]["q-pruned"]["work_ratio"] = 0.252
    assert _figure_problems(recorded, record, "RS-x", "c.yaml") == [
        "c.yaml: key recorded.rankers.q-pruned.work_ratio: 0.252 is not a figure of RS-x "
        "(to the digit it is quoted to)",
        "c.yaml: key recorded.judged.fair-d5s7.fair-d4s7.regret_frac: 0.0286 is not a figure "
        "of RS-x (to the digit it is quoted to)"]


def test_every_figure_it_quotes_has_a_meaning_in_the_table() -> None:
    from protocol.records.register import FIGURE_KEYS

    rec = _doc()["recorded"]
    quoted = [*rec["rankers"].values(), *(f for by in rec["judged"].values() for f in by.values())]
    assert {k for figures in quoted for k in figures} <= set(FIGURE_KEYS)
