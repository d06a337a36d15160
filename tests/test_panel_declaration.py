"""A ranking panel declared as data: the claim's ``panel:``, its refusals, its plan and files."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claims_support import REPO, fair_depth_claim, profile_like, write_claim

from analysis.reading_kinds import PANEL, READING_KINDS, kinds_of, reading_kind
from analysis.readings import NOT_RUN, evaluate_all
from contracts.panel_table import OUTCOME_REFERENCE
from protocol import costs
from protocol.arms import decision_seconds
from protocol.checks import estimate_table
from protocol.declaration import claim_schema, load_claims
from protocol.ledger import COMMITTED
from protocol.paths import Paths
from protocol.plan import load_plan
from protocol.records.ids import protocol_document, protocol_sha256
from protocol.schema import DeclarationError

ID = "my-panel"
BLOCK = 77


def panel_claim() -> dict[str, Any]:
    """A panel-only claim: d3 games give the roots, fair d4 is the reference."""
    return {
        "format": "drop7-claim-v1", "id": ID,
        "title": "A third ply orders the moves like the fourth",
        "claim": "The fair d3 search picks d4's best column at least 60% of the time.",
        "arms": {"fair-d4s7": {"play": "search", "depth": 4, "strata": 7, "leaf": "linear"},
                 "fair-d3s7": {"play": "search", "depth": 3, "strata": 7, "leaf": "linear"},
                 "fair-d2s7": {"play": "search", "depth": 2, "strata": 7, "leaf": "linear"},
                 "fair-d1s7": {"play": "search", "depth": 1, "strata": 7, "leaf": "linear"},
                 "one-ply": {"play": "direct", "strata": 7, "leaf": "linear"},
                 "outsider": {"play": "external", "command": ["prog"]}},
        "panel": {"block": BLOCK,
                  "roots": {"policy": "fair-d3s7", "games": 32, "every": 4, "roots": 1024},
                  "reference": "fair-d4s7",
                  "rankers": ["fair-d1s7", "fair-d2s7", "fair-d3s7"]},
        "readings": {
            "d3-top1": {"kind": "figure-at-least", "ranker": "fair-d3s7", "figure": "top1",
                        "threshold": 0.6, "over": "halves"},
            "d3-regret": {"kind": "figure-at-most", "ranker": "fair-d3s7",
                          "figure": "regret_frac", "threshold": 0.13},
            "d2-over-d1": {"kind": "ranker-beats", "ranker": "fair-d2s7", "other": "fair-d1s7",
                           "figure": "top1"}},
        "verdict": {"rules": [{"when": {"d3-top1": ["fail", "not-run"]},
                               "then": "not-supported-as-tested"}],
                    "otherwise": "supported-as-tested"},
    }


def outcome_reference(doc: dict[str, Any]) -> None:
    doc["panel"]["reference"] = {"outcome": {"policy": "one-ply", "continuations": 8,
                                             "horizon": 40, "target": "lifetime",
                                             "seed": 20261203}}


def beside_a_screen(doc: dict[str, Any]) -> None:
    """The panel beside a screen of d3 against d2 (the roots: d3's screen games)."""
    del doc["panel"]["block"]
    doc["screen"] = {"games": 64, "block": BLOCK}
    doc["contrasts"] = {"depth": {"difference": ["fair-d3s7", "fair-d2s7"]}}
    doc["readings"]["depth"] = {"kind": "three-way", "contrast": "depth"}
    del doc["arms"]["outsider"]


def folder(tmp_path: Path, edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A claims folder of one's own holding the panel claim (edited)."""
    doc = panel_claim()
    if edit is not None:
        edit(doc)
    directory = tmp_path / "mine"
    directory.mkdir(exist_ok=True)
    write_claim(directory, doc)
    return directory


def plan_of(tmp_path: Path, edit=None, profile: str = "pilot", **over: Any):
    return load_plan(REPO, {"profile": profile, "claims_dir": str(folder(tmp_path, edit)),
                            **over})


def one_line(err: pytest.ExceptionInfo, start: str) -> str:
    message = str(err.value)
    assert "\n" not in message, message
    assert message.startswith(start), message
    return message


# ---- the plan


def test_a_panel_only_claim_plays_only_its_roots_arm_and_plans_every_ranker(tmp_path) -> None:
    plan = plan_of(tmp_path)
    p = plan.claims[ID]
    panel = p.panel
    assert list(p.arms) == ["fair-d3s7"] and p.arms["fair-d3s7"].games == 32
    assert p.contrasts == {} and p.sequential is None
    assert p.block == BLOCK + plan.profile["block_offset"] and p.seeds[1] == 32
    assert (panel.roots_arm, panel.games, panel.seeds, panel.every) == (
        "fair-d3s7", 32, p.seeds, 4)
    # the decisions 0, 4, 8, ... of 120-move games, capped at the declared 1,024
    assert panel.limit == 1024 and panel.roots == min(1024, 32 * math.ceil(120 / 4))
    assert panel.names() == ["fair-d4s7", "fair-d1s7", "fair-d2s7", "fair-d3s7"]
    assert list(panel.arms) == panel.names() and panel.outcome is None
    assert (panel.work, panel.recall) == ("nodes", (2, 3))
    minutes = plan.profile["job_minutes"]
    for name, arm in panel.arms.items():
        assert arm.name == name and arm.games == panel.roots
        assert arm.seconds_per_game == decision_seconds(arm.spec)  # per root
        assert arm.shards == costs.shards_for(panel.roots, arm.seconds_per_game, minutes)
    # the d3 ranker is searched as the roots arm plays: one spec, one shrink line
    assert panel.arms["fair-d3s7"].policy == p.arms["fair-d3s7"].policy
    assert p.estimate()["panel"] == pytest.approx(sum(
        a.games * a.seconds_per_game for a in panel.arms.values())) == panel.seconds()
    assert p.estimate()["panel"] > 0
    described = p.describe()
    assert described["panel"] == json.loads(json.dumps(panel.describe()))
    assert described["panel"]["arms"]["fair-d4s7"] == {
        "policy": "search:leaf=linear,d=4,s=7", "roots": panel.roots,
        "shards": panel.arms["fair-d4s7"].shards, "artefact": None}
    assert described["contrasts"] == {} and list(described["arms"]) == ["fair-d3s7"]
    row = next(line for line in estimate_table(plan).splitlines() if line.strip().startswith(ID))
    assert "panel" in estimate_table(plan).splitlines()[1]
    assert float(row.split()[4]) == pytest.approx(p.estimate()["panel"] / 3600, abs=0.006)


def test_a_pilot_like_profile_shrinks_the_panel_and_says_so(tmp_path) -> None:
    plan = plan_of(tmp_path, outcome_reference, profile=profile_like(
        tmp_path / "p", "pilot", shrink={"screen_games": 16},
        claims={ID: {"panel": {"roots": 200, "continuations": 4},
                     "search": {"depth_shift": -1}}}))
    p = plan.claims[ID]
    panel = p.panel
    assert panel.games == 16 and p.arms["fair-d3s7"].games == 16 and p.seeds[1] == 16
    assert panel.limit == 200 and panel.roots == 200
    assert panel.reference == OUTCOME_REFERENCE
    assert panel.names() == [OUTCOME_REFERENCE, "fair-d1s7", "fair-d2s7", "fair-d3s7"]
    assert panel.outcome == {"policy": "one-ply", "continuations": 4, "horizon": 40,
                             "target": "lifetime", "seed": 20261203}
    ref = panel.arms[OUTCOME_REFERENCE]
    assert ref.name == OUTCOME_REFERENCE and ref.policy == "direct:leaf=linear"
    assert ref.seconds_per_game == pytest.approx(6 * 4 * 40 * decision_seconds(ref.spec))
    # every search, rankers included, one ply shallower (d1 stays d1)
    assert [panel.arms[n].spec.depth for n in ("fair-d1s7", "fair-d2s7", "fair-d3s7")] == [
        1, 1, 2]
    assert p.shrunk == [
        "arm fair-d3s7: search d2s7 instead of d3s7",
        "panel: roots from 16 of the declared 32 games",
        "panel: at most 200 roots (declared: 1024)",
        "panel: the outcome reference plays 4 of the declared 8 continuations per column",
        "arm fair-d2s7: search d1s7 instead of d2s7",
        "panel: fair-d1s7 and fair-d2s7 play one policy in this profile "
        "(search:leaf=linear,d=1,s=7): reading one against the other compares it with itself"]
    assert p.tier == "pilot"


def test_a_panel_beside_a_screen_takes_its_roots_from_the_screens_games(tmp_path) -> None:
    def edit(doc):
        beside_a_screen(doc)
        doc["arms"]["fair-d3s7"]["games"] = 48  # the roots arm on a prefix

    plan = plan_of(tmp_path, edit, profile=profile_like(
        tmp_path / "p", "pilot", shrink={"screen_games": 40, "prefix_games": 24}))
    p = plan.claims[ID]
    assert set(p.arms) == {"fair-d4s7", "fair-d3s7", "fair-d2s7", "fair-d1s7", "one-ply"}
    assert p.seeds[1] == 40 and p.arms["fair-d3s7"].games == 24
    # the roots arm's first 24 screen games (its prefix, shrunk) give the roots
    assert p.panel.games == 24 and p.panel.seeds == (p.seeds[0], 24)
    assert "panel: roots from 24 of the declared 32 games" in p.shrunk
    for name in p.panel.rankers:  # a ranker that plays the screen is searched as it plays
        assert p.panel.arms[name].spec == p.arms[name].spec
    assert p.contrasts["depth"].games == 24


def test_panel_files_are_under_the_claims_screen_block(tmp_path) -> None:
    p = plan_of(tmp_path).claims[ID]
    paths = Paths("pilot")
    base = f"results/pilot/claims/{ID}/{p.label}/panel"
    assert paths.path("panel_roots", claim=ID, block=p.label) == f"{base}/roots.json"
    assert paths.path("panel_shard", claim=ID, block=p.label, ranker="fair-d1s7", k=2,
                      K=3) == f"{base}/shards/fair-d1s7/shard-2-of-3.csv"
    assert paths.path("panel_table", claim=ID, block=p.label) == f"{base}/panel.csv"
    assert paths.path("panel_readings", claim=ID, block=p.label) == f"{base}/readings.json"


def test_the_shipped_claims_plan_as_before(tmp_path) -> None:
    """No shipped claim has a panel: its description (what the protocol hash reads) has no
    panel key, and every pilot block the committed ledger kept a protocol hash for still
    hashes to it."""
    plan = load_plan(REPO, {"profile": "pilot"})
    ledger = json.loads((REPO / COMMITTED).read_text())
    kept = [(e["claim"], e["protocol_sha256"]) for entries in ledger["blocks"].values()
            for e in entries if e.get("profile") == "pilot" and "protocol_sha256" in e
            and e["claim"] in plan.claims]
    assert kept
    for claim, sha in kept:
        assert protocol_sha256(plan.claims[claim].describe()) == sha, claim
    for p in plan.claims.values():
        if p.claim.panel is None:
            assert p.panel is None and "panel" not in p.describe()
            assert p.estimate()["panel"] == 0


# ---- the readings


def test_the_panel_kinds_are_registered_once_and_read_from_the_panel_file(tmp_path) -> None:
    enum = claim_schema()["properties"]["readings"]["additionalProperties"]["properties"][
        "kind"]["enum"]
    assert set(kinds_of(PANEL)) <= set(enum) and set(kinds_of(PANEL)) <= set(READING_KINDS)
    assert reading_kind("ranker-beats").keys == ("ranker", "other", "figure", "judge")
    claim = load_claims(folder(tmp_path))[ID]
    assert claim.readings["d3-regret"]["on"] == "bound"  # the default, filled in
    assert "judge" not in claim.readings["d3-regret"]  # optional: absent, not filled in
    assert claim.screen == {"games": 32, "block": BLOCK} and list(claim.screen_arms) == [
        "fair-d3s7"]
    assert claim.contrasts == {}
    readings = claim.readings
    absent = evaluate_all(readings, {}, {}, {})
    assert [r.outcome for r in absent] == [NOT_RUN] * 3
    assert "panel was not read" in absent[0].reason
    got = {"name": "d3-top1", "kind": "figure-at-least", "title": "t", "outcome": "pass",
           "reason": "fair-d3s7 top1: both halves 0.7, 0.65 >= 0.6", "numbers": {"on": "halves"}}
    read = evaluate_all(readings, {}, {}, {}, panel={"readings": {"d3-top1": got}})
    assert read[0].to_dict() == got
    assert read[1].outcome == NOT_RUN and "no d3-regret" in read[1].reason
    with pytest.raises(ValueError, match="is a 'figure-at-most' reading"):
        evaluate_all(readings, {}, {}, {}, panel={"readings": {
            "d3-top1": {**got, "kind": "figure-at-most"}}})


def test_a_reading_declares_over_which_every_yaml_reader_reads_alike(tmp_path) -> None:
    """``over: halves`` is a key to YAML 1.1 and 1.2 alike; the plan keeps the name ``on``
    its protocol hashes were computed with."""
    directory = folder(tmp_path)
    text = (directory / f"{ID}.yaml").read_text()
    assert "over: halves" in text and "on:" not in text
    assert load_claims(directory)[ID].readings["d3-top1"]["on"] == "halves"


def test_a_non_inferiority_reading_and_the_register_s_figures_load(tmp_path) -> None:
    """``ranker-non-inferior`` with its margin (``over`` filled in as ``bound``), and
    ``recorded.rankers`` with a pooled figure and two halves."""
    def edit(doc: dict[str, Any]) -> None:
        doc["readings"]["d2-no-worse"] = {"kind": "ranker-non-inferior", "ranker": "fair-d2s7",
                                          "other": "fair-d3s7", "figure": "regret_frac",
                                          "margin": 0.02}
        doc["recorded"] = {"source": "s", "rankers": {
            "fair-d2s7": {"top1": 0.568, "pairwise": [0.8, 0.78]}}}
    claim = load_claims(folder(tmp_path, edit))[ID]
    assert claim.readings["d2-no-worse"]["on"] == "bound"
    assert claim.readings["d2-no-worse"]["margin"] == 0.02
    assert claim.doc["recorded"]["rankers"]["fair-d2s7"]["top1"] == 0.568


def test_the_old_key_on_is_refused_naming_the_new_one(tmp_path) -> None:
    """YAML 1.1 reads a bare ``on`` as true: the key is refused, one line naming ``over``."""
    directory = folder(tmp_path)
    path = directory / f"{ID}.yaml"
    path.write_text(path.read_text().replace("over: halves", "on: halves"))
    with pytest.raises(DeclarationError) as err:
        load_claims(directory)
    line = str(err.value)
    assert "key readings.d3-top1.on: renamed 'over'" in line and "\n" not in line


# ---- refusals: one line naming the file and the key


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        *head, last = path.split(".")
        d = doc
        for k in head:
            d = d[k]
        if value is _DELETE:
            del d[last]
        else:
            d[last] = value

    return edit


_DELETE = object()


def _both(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for e in edits:
            e(doc)

    return edit


def _reading(**reading: Any) -> Callable[[dict[str, Any]], None]:
    return _set("readings.x", reading)


def _no_panel(doc: dict[str, Any]) -> None:
    """A screen claim of its own: no panel, no panel readings."""
    beside_a_screen(doc)
    del doc["panel"]
    doc["readings"] = {"depth": doc["readings"]["depth"]}
    doc["verdict"]["rules"] = [{"when": {"depth": "refuted"}, "then": "mixed"}]


REFUSALS = {
    "unknown ranker": (_set("panel.rankers", ["fair-d1s7", "nope"]), "panel.rankers[1]",
                       "no arm 'nope'"),
    "unknown roots policy": (_set("panel.roots.policy", "nope"), "panel.roots.policy",
                             "no arm 'nope'"),
    "unknown reference": (_set("panel.reference", "nope"), "panel.reference", "no arm"),
    "reference among rankers": (_set("panel.rankers", ["fair-d1s7", "fair-d4s7"]),
                                "panel.rankers[1]", "is the reference"),
    "duplicate ranker": (_set("panel.rankers", ["fair-d1s7", "fair-d2s7", "fair-d1s7"]),
                         "panel.rankers[2]", "listed twice"),
    "no rankers": (_set("panel.rankers", []), "panel.rankers", "should be non-empty"),
    "recall out of range": (_set("panel.recall", [2, 7]), "panel.recall[1]",
                            "maximum of 6"),
    "recall zero": (_set("panel.recall", [0]), "panel.recall[0]", "minimum of 1"),
    "recall twice": (_set("panel.recall", [3, 3]), "panel.recall", "lists a k twice"),
    "unknown figure": (_reading(kind="figure-at-least", ranker="fair-d3s7", figure="top2",
                                threshold=0.5), "readings.x.figure", "no figure 'top2'"),
    "undeclared recall": (_reading(kind="figure-at-least", ranker="fair-d3s7",
                                   figure="recall@5", threshold=0.5), "readings.x.figure",
                          "recall@k for the k of panel.recall (2, 3)"),
    "threshold not finite": (_reading(kind="figure-at-most", ranker="fair-d3s7",
                                      figure="regret", threshold=math.inf),
                             "readings.x.threshold", "not a finite number"),
    "threshold not a number": (_reading(kind="figure-at-most", ranker="fair-d3s7",
                                        figure="regret", threshold="low"),
                               "readings.x.threshold", "not of type 'number'"),
    "threshold missing": (_reading(kind="figure-at-most", ranker="fair-d3s7", figure="tau"),
                          "readings.x.threshold", "missing: a figure-at-most reading needs "
                          "ranker, figure, threshold"),
    "unknown on": (_reading(kind="figure-at-least", ranker="fair-d3s7", figure="tau",
                            threshold=0.5, over="median"), "readings.x.over",
                   "unknown 'median' (one of estimate, bound, halves)"),
    "on of ranker-beats": (_reading(kind="ranker-beats", ranker="fair-d3s7",
                                    other="fair-d1s7", figure="tau", over="bound"),
                           "readings.x.over", "a ranker-beats reading takes"),
    "ranker not in the panel": (_reading(kind="figure-at-least", ranker="one-ply",
                                         figure="tau", threshold=0.5), "readings.x.ranker",
                                "no ranker 'one-ply'"),
    "ranker beats itself": (_reading(kind="ranker-beats", ranker="fair-d3s7",
                                     other="fair-d3s7", figure="top1"), "readings.x.other",
                            "against itself"),
    "non-inferiority margin missing": (_reading(kind="ranker-non-inferior", ranker="fair-d2s7",
                                                other="fair-d3s7", figure="top1"),
                                       "readings.x.margin", "missing: a ranker-non-inferior "
                                       "reading needs ranker, other, figure, margin"),
    "non-inferiority margin not above 0": (_reading(
        kind="ranker-non-inferior", ranker="fair-d2s7", other="fair-d3s7", figure="top1",
        margin=-0.02), "readings.x.margin", "-0.02 is not above 0"),
    "non-inferiority margin not finite": (_reading(
        kind="ranker-non-inferior", ranker="fair-d2s7", other="fair-d3s7", figure="top1",
        margin=math.nan), "readings.x.margin", "not a finite number"),
    "non-inferiority against an unknown ranker": (_reading(
        kind="ranker-non-inferior", ranker="fair-d2s7", other="one-ply", figure="top1",
        margin=0.02), "readings.x.other", "no ranker 'one-ply'"),
    "non-inferiority on an unknown figure": (_reading(
        kind="ranker-non-inferior", ranker="fair-d2s7", other="fair-d3s7", figure="top2",
        margin=0.02), "readings.x.figure", "no figure 'top2'"),
    "non-inferiority over the median": (_reading(
        kind="ranker-non-inferior", ranker="fair-d2s7", other="fair-d3s7", figure="top1",
        margin=0.02, over="median"), "readings.x.over", "unknown 'median'"),
    "non-inferior to itself": (_reading(kind="ranker-non-inferior", ranker="fair-d3s7",
                                        other="fair-d3s7", figure="top1", margin=0.02),
                               "readings.x.other", "against itself"),
    "recorded ranker not declared": (_set("recorded", {"source": "s", "rankers": {
        "fair-d5s7": {"top1": 0.5}}}), "recorded.rankers.fair-d5s7",
        "not a ranker of the panel (fair-d1s7, fair-d2s7, fair-d3s7)"),
    "recorded figure unknown": (_set("recorded", {"source": "s", "rankers": {
        "fair-d2s7": {"top2": 0.5}}}), "recorded.rankers.fair-d2s7.top2",
        "not a figure of the panel"),
    "recorded figure not a number": (_set("recorded", {"source": "s", "rankers": {
        "fair-d2s7": {"top1": "high"}}}), "recorded.rankers.fair-d2s7.top1", "high"),
    "recorded halves not two": (_set("recorded", {"source": "s", "rankers": {
        "fair-d2s7": {"top1": [0.5, 0.6, 0.7]}}}), "recorded.rankers.fair-d2s7.top1",
        "a figure or its two halves"),
    "recorded rankers without a panel": (_both(_no_panel, _set("recorded", {
        "source": "s", "rankers": {"fair-d2s7": {"top1": 0.5}}})), "recorded.rankers",
        "declares no panel"),
    "panel reading without a panel": (_both(_no_panel, _reading(
        kind="figure-at-least", ranker="fair-d3s7", figure="top1", threshold=0.5)),
        "readings.x.kind", "declares no panel"),
    "block beside a screen": (_both(beside_a_screen, _set("panel.block", 3)), "panel.block",
                              "beside a screen"),
    "no block without a screen": (_set("panel.block", _DELETE), "panel.block",
                                  "missing: a panel without a screen"),
    "roots games above the screen's": (_both(beside_a_screen, _set("panel.roots.games", 65)),
                                       "panel.roots.games", "more than the screen's 64"),
    "roots games above the roots arm's prefix": (
        _both(beside_a_screen, _set("arms.fair-d3s7.games", 16)), "panel.roots.games",
        "more than arm fair-d3s7's 16 games"),
    "unknown outcome target": (_both(outcome_reference,
                                     _set("panel.reference.outcome.target", "score")),
                               "panel.reference.outcome.target",
                               "unknown target 'score' (targets: points, lifetime, ended)"),
    "no continuations": (_both(outcome_reference,
                               _set("panel.reference.outcome.continuations", 0)),
                         "panel.reference.outcome.continuations", "outside 1..4,096"),
    "horizon too long": (_both(outcome_reference, _set("panel.reference.outcome.horizon",
                                                       1001)),
                         "panel.reference.outcome.horizon", "outside 1..1,000"),
    "outcome policy external": (_both(outcome_reference, _set(
        "panel.reference.outcome.policy", "outsider")), "panel.reference.outcome.policy",
        "must be one of ours"),
    "outcome policy unknown": (_both(outcome_reference, _set(
        "panel.reference.outcome.policy", "nope")), "panel.reference.outcome.policy",
        "no arm 'nope'"),
    "reference gives no values": (_both(_set("arms.rnd", {"play": "random"}),
                                        _set("panel.reference", "rnd")), "panel.reference",
                                  "a search or direct arm"),
    "an arm named outcome-reference": (_set(f"arms.{OUTCOME_REFERENCE}", {"play": "random"}),
                                       f"arms.{OUTCOME_REFERENCE}", "give the arm another"),
    "neither screen nor panel": (_set("panel", _DELETE), "screen",
                                 "missing: a claim declares a screen:, a panel: or both"),
    "contrasts without a screen": (_set("contrasts", {"d": {"difference": [
        "fair-d3s7", "fair-d2s7"]}}), "contrasts", "no contrasts"),
    "a screen without contrasts": (_both(_no_panel, _set("contrasts", _DELETE)),
                                   "contrasts", "missing: a claim with a screen compares"),
    "a prefix without a screen": (_set("arms.fair-d2s7.games", 8), "arms.fair-d2s7.games",
                                  "no prefix"),
    "a sequential screen": (_both(beside_a_screen, _set("screen.looks", [32, 64]),
                                  _set("readings.s", {"kind": "screen", "contrast": "depth"})),
                            "panel", "sequential screen"),
    "unknown panel key": (_set("panel.games", 4), "panel.games", "unknown key"),
    "unknown roots key": (_set("panel.roots.seed", 4), "panel.roots.seed", "unknown key"),
    "work unknown": (_set("panel.work", "seconds"), "panel.work", "is not one of"),
    "conventions unknown": (_set("panel.conventions", "mine"), "panel.conventions",
                            "is not one of"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_bad_panel_declaration_is_refused_in_one_line_naming_file_and_key(tmp_path,
                                                                          case) -> None:
    edit, key, words = REFUSALS[case]
    directory = folder(tmp_path, edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(directory)
    message = one_line(err, f"{directory / (ID + '.yaml')}: ")
    assert f"key {key}:" in message or f"key {key} =" in message or (
        f"unknown key {key}" in message), message
    assert words in message, message


PROFILE_REFUSALS = {
    "more games": ({"panel": {"games": 33}}, None, "panel.games",
                   "more than the declared 32"),
    "more roots": ({"panel": {"roots": 2000}}, None, "panel.roots",
                   "more than the declared 1,024"),
    "continuations of an arm reference": ({"panel": {"continuations": 2}}, None,
                                          "panel.continuations", "not an outcome"),
    "more continuations": ({"panel": {"continuations": 9}}, outcome_reference,
                           "panel.continuations", "more than the declared 8"),
    "a screen of a panel-only claim": ({"screen": {"games": 8}}, None, "screen",
                                       "declares no screen"),
    "a prefix of a panel-only claim": ({"arms": {"fair-d2s7": {"games": 8}}}, None,
                                       "arms.fair-d2s7.games", "no prefix"),
}


@pytest.mark.parametrize("case", sorted(PROFILE_REFUSALS))
def test_a_profile_only_shrinks_a_panel(tmp_path, case) -> None:
    over, edit, key, words = PROFILE_REFUSALS[case]
    with pytest.raises(DeclarationError) as err:
        plan_of(tmp_path, edit, claims={ID: over})
    message = one_line(err, "")
    assert f"key claims.{ID}.{key}: " in message and words in message, message


def test_a_profile_panel_for_a_claim_without_one_is_refused(tmp_path) -> None:
    doc = fair_depth_claim(block=BLOCK)
    directory = tmp_path / "mine"
    directory.mkdir()
    write_claim(directory, doc)
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "pilot", "claims_dir": str(directory),
                         "claims": {doc["id"]: {"panel": {"games": 4}}}})
    assert f"key claims.{doc['id']}.panel: claim {doc['id']} declares no panel" in one_line(
        err, "")


def test_a_dry_run_refuses_a_bad_panel_claim_before_any_job(tmp_path) -> None:
    from workflow_support import snakemake

    directory = folder(tmp_path, _set("panel.rankers", ["fair-d1s7", "fair-d4s7"]))
    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "-n", "--config", "profile=smoke", f"claims_dir={directory}",
                       timeout=300)
    assert result.returncode != 0, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr[-3000:]
    assert errors[0] == (f"error: {directory / (ID + '.yaml')}: key panel.rankers[1]: "
                         "'fair-d4s7' is the reference: it is read against itself in every "
                         "panel already")
    assert not (work / "results").exists()


def test_the_panel_schema_is_closed_and_a_reading_takes_every_panel_key() -> None:
    """The panel object is closed; every key a panel kind takes is a reading's property, and
    screen and contrasts are required by the declaration's check, not the schema."""
    schema = claim_schema()
    panel = schema["properties"]["panel"]
    assert panel["additionalProperties"] is False
    assert panel["properties"]["roots"]["additionalProperties"] is False
    reading = schema["properties"]["readings"]["additionalProperties"]["properties"]
    assert {p for k in kinds_of(PANEL) for p in reading_kind(k).keys} <= set(reading)
    assert not {"screen", "contrasts"} & set(schema["required"])


def test_a_ranker_reading_frozen_tables_waits_for_them_and_inherits_their_shrinks(
        tmp_path) -> None:
    """A ranker that reads another claim's frozen tables (not a screen arm of a panel-only
    claim): its artefact is the claim's (hashed where the block opens), that claim runs
    first, and what the profile shrank of its training lowers this claim's tier."""
    def edit(doc):
        doc["arms"]["tables-d1"] = {"play": "search", "depth": 1, "strata": 7,
                                    "leaf": {"claim": "ntuple-line-tuples",
                                             "weights": "ntuple-A"}}
        doc["panel"]["rankers"].append("tables-d1")

    plan = plan_of(tmp_path, edit)
    p = plan.claims[ID]
    assert list(p.arms) == ["fair-d3s7"]
    assert p.panel.arms["tables-d1"].artefact.key == "ntuple-line-tuples/ntuple-A"
    assert set(p.artefacts) == {"ntuple-line-tuples/ntuple-A"}
    assert "ntuple-line-tuples" in plan.closure([ID])
    assert plan.order().index("ntuple-line-tuples") < plan.order().index(ID)
    assert any(s.startswith("artefact ntuple-line-tuples/ntuple-A (read by tables-d1): "
                            "trained 2e7 moves") for s in p.shrunk), p.shrunk
    assert p.describe()["panel"]["arms"]["tables-d1"]["artefact"] == (
        "ntuple-line-tuples/ntuple-A")


def test_a_screen_may_share_the_block_of_a_panel_only_claim(tmp_path) -> None:
    """The shared-block checks read the panel's block and games as a screen's."""
    directory = folder(tmp_path)
    sharer = fair_depth_claim()
    sharer["screen"] = {"games": 16, "block": {"claim": ID}}
    write_claim(directory, sharer)
    plan = load_plan(REPO, {"profile": "pilot", "claims_dir": str(directory)})
    mine, theirs = plan.claims[ID], plan.claims[sharer["id"]]
    assert theirs.block == mine.block and theirs.shares_block_of == ID
    sharer["screen"]["games"] = 33  # more than the panel's 32 games
    write_claim(directory, sharer)
    with pytest.raises(DeclarationError) as err:
        load_claims(directory)
    one_line(err, f"{directory / (sharer['id'] + '.yaml')}: key screen.games: 33 games is "
             f"more than the 32 of claim {ID}")


def test_a_panel_block_the_ledger_would_refuse_is_refused_before_any_job(tmp_path,
                                                                         monkeypatch) -> None:
    """A panel-only claim's block is held out as a screen's: a pilot panel mapped into the
    blocks reserved for throwaway ledgers is refused, naming its declared panel block."""
    import shutil

    from protocol.checks import before_any_job

    plan = plan_of(tmp_path, _set("panel.block", 3010))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    shutil.copy(REPO / COMMITTED, tmp_path / COMMITTED)
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan)
    one_line(err, f"config/profiles/pilot.yaml: key block_offset: claim {ID} (declared block "
             "3010, block_offset 1000): screen block 4010 is reserved for throwaway ledgers")


def test_the_protocol_hash_reads_the_panel_as_planned_not_its_shards(tmp_path) -> None:
    """Fewer roots is another experiment (another hash); another job size is not."""
    base = protocol_sha256(plan_of(tmp_path).claims[ID].describe())
    fewer = plan_of(tmp_path, profile=profile_like(
        tmp_path / "p", "pilot", claims={ID: {"panel": {"roots": 100}}})).claims[ID]
    assert protocol_sha256(fewer.describe()) != base
    sliced = plan_of(tmp_path, job_minutes=0.01).claims[ID]
    assert sliced.panel.arms["fair-d4s7"].shards > plan_of(tmp_path).claims[ID].panel.arms[
        "fair-d4s7"].shards
    assert protocol_sha256(sliced.describe()) == base


#: the register's record id of the theory whose ordering gates shallow-ordering asks
REGISTER_THEORY = "TH-20260823-nnue-class-holds-d4-ordering-c7b397a5"


def test_the_conventions_default_to_the_registers_for_a_register_theory_and_join_the_hash(
        tmp_path) -> None:
    """Absent, a claim naming a register theory reads register, any other harness; the hash
    gains the conventions only where they are not harness, so a claim declared before the key
    (shallow-ordering, pinned) hashes as it did."""
    def theory(name):
        return _set("theory", name)

    plain = plan_of(tmp_path).claims[ID]
    assert plain.panel.conventions == "harness"
    assert plain.panel_declaration()["conventions"] == "harness"
    assert "conventions" not in protocol_document(
        plain.describe())["panel"]
    register = plan_of(tmp_path, theory(REGISTER_THEORY)).claims[ID]
    assert register.panel.conventions == "register"
    assert register.panel_declaration()["conventions"] == "register"
    assert protocol_sha256(register.describe()) != protocol_sha256(plain.describe())
    # a theory of our own (not the register's id pattern) reads ours
    ours = plan_of(tmp_path, theory("TH-20261201-my-own-ordering")).claims[ID]
    assert ours.panel.conventions == "harness"
    assert protocol_sha256(ours.describe()) == protocol_sha256(plain.describe())
    # declared, the key wins over the theory and joins the hash through the declaration
    declared = plan_of(tmp_path, _both(theory(REGISTER_THEORY),
                                       _set("panel.conventions", "harness"))).claims[ID]
    assert declared.panel.conventions == "harness"
    assert protocol_sha256(declared.describe()) != protocol_sha256(plain.describe())
    shipped = load_plan(REPO, {"profile": "pilot"}).claims["shallow-ordering"]
    assert shipped.panel.conventions == "harness"  # its block was opened under our rules
