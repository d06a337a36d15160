"""Outcome rankers: a panel ranker that is an outcome labeller (docs/panels.md, "Outcome rankers").

Declared as ``{NAME: {outcome: {...}}}`` among the rankers, planned and shrunk like an outcome
reference, labelled by the same ``drop7 panel label`` the workflow runs, on the reference's
scenarios (one labelling seed): a ranker that labels as the reference does reads tau 1 and
top-1 1, another policy reads otherwise, and shards give the same table.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest
from claims_support import REPO, profile_like
from test_panel_declaration import (
    ID,
    _both,
    _set,
    folder,
    one_line,
    outcome_reference,
    plan_of,
)

from cli.main import main
from contracts.panel_table import OUTCOME_REFERENCE, read_rows
from protocol import commands, costs
from protocol.arms import decision_seconds
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.records.ids import protocol_document, protocol_sha256
from protocol.schema import DeclarationError

SEED = 20261203
LABEL = {"continuations": 8, "horizon": 40, "target": "lifetime"}


def outcome_rankers(doc: dict[str, Any]) -> None:
    """The outcome reference (one-ply continuations), and two outcome rankers beside an arm:
    ``deep`` continues with fair d2s7, ``shallow`` with the fair leaf one ply."""
    outcome_reference(doc)
    doc["panel"]["rankers"] = [
        {"deep": {"outcome": {"policy": "fair-d2s7", **LABEL}}},
        "fair-d3s7",
        {"shallow": {"outcome": {"policy": "one-ply", "continuations": 4, "horizon": 40,
                                 "target": "lifetime"}}}]
    doc["readings"] = {"deep-tau": {"kind": "figure-at-least", "ranker": "deep",
                                    "figure": "tau", "threshold": 0.75}}
    doc["verdict"]["rules"] = [{"when": {"deep-tau": ["fail", "not-run"]},
                                "then": "not-supported-as-tested"}]


# ---- the plan


def test_an_outcome_ranker_is_planned_as_the_reference_on_its_seed(tmp_path) -> None:
    plan = plan_of(tmp_path, outcome_rankers, profile=profile_like(tmp_path / "p", "pilot"))
    panel = plan.claims[ID].panel
    assert panel.names() == [OUTCOME_REFERENCE, "deep", "fair-d3s7", "shallow"]
    assert list(panel.arms) == panel.names() and panel.rankers == ("deep", "fair-d3s7",
                                                                   "shallow")
    # every labeller draws its scenarios from the reference's seed (common random numbers)
    assert panel.ranker_outcomes == {
        "deep": {"policy": "fair-d2s7", **LABEL, "seed": SEED},
        "shallow": {"policy": "one-ply", "continuations": 4, "horizon": 40,
                    "target": "lifetime", "seed": SEED}}
    assert panel.outcome_of("deep")["seed"] == panel.outcome_of(OUTCOME_REFERENCE)["seed"]
    assert panel.outcome_of("fair-d3s7") is None
    deep = panel.arms["deep"]
    assert deep.policy == "search:leaf=linear,d=2,s=7"
    assert deep.seconds_per_game == pytest.approx(
        costs.outcome_root_seconds(decision_seconds(deep.spec), 8, 40))
    # the workflow labels an outcome ranker, and ranks an arm
    label = shlex.split(commands.panel_answer("deep", deep.policy, panel.work,
                                              panel.outcome_of("deep")))
    assert label[:3] == ["drop7", "panel", "label"]
    assert label[label.index("--seed") + 1] == str(SEED)
    assert label[label.index("--name") + 1] == "deep"
    rank = commands.panel_answer("fair-d3s7", panel.arms["fair-d3s7"].policy, panel.work,
                                 panel.outcome_of("fair-d3s7"))
    assert shlex.split(rank)[:3] == ["drop7", "panel", "rank"]
    described = plan.claims[ID].describe()["panel"]
    assert described["ranker_outcomes"] == json.loads(json.dumps(panel.ranker_outcomes))
    assert protocol_document(plan.claims[ID].describe())["panel"]["ranker_outcomes"] == (
        described["ranker_outcomes"])


def test_a_labellers_sizes_join_the_protocol_hash(tmp_path) -> None:
    def hashed(horizon: int) -> str:
        def edit(doc: dict[str, Any]) -> None:
            outcome_rankers(doc)
            doc["panel"]["rankers"][0]["deep"]["outcome"]["horizon"] = horizon

        (tmp_path / str(horizon)).mkdir()
        plan = plan_of(tmp_path / str(horizon), edit)
        return protocol_sha256(plan.claims[ID].describe())

    assert hashed(40) != hashed(39)


def test_a_profile_shrinks_every_labellers_continuations_and_horizon_and_says_so(
        tmp_path) -> None:
    plan = plan_of(tmp_path, outcome_rankers, profile=profile_like(
        tmp_path / "p", "pilot", claims={ID: {"panel": {"continuations": 6, "horizon": 20}}}))
    p = plan.claims[ID]
    panel = p.panel
    assert [panel.outcome_of(n)["continuations"] for n in (OUTCOME_REFERENCE, "deep",
                                                           "shallow")] == [6, 6, 4]
    assert {panel.outcome_of(n)["horizon"] for n in (OUTCOME_REFERENCE, "deep",
                                                     "shallow")} == {20}
    for line in ("panel: the outcome reference plays 6 of the declared 8 continuations per "
                 "column",
                 "panel: outcome ranker deep plays 6 of the declared 8 continuations per column",
                 "panel: the outcome reference stops its continuations at 20 of the declared "
                 "40 moves (horizon)",
                 "panel: outcome ranker shallow stops its continuations at 20 of the declared "
                 "40 moves (horizon)"):
        assert line in p.shrunk, p.shrunk
    assert not any("shallow plays" in s for s in p.shrunk)  # its 4 are under the cap
    assert panel.arms["deep"].seconds_per_game == pytest.approx(
        costs.outcome_root_seconds(decision_seconds(panel.arms["deep"].spec), 6, 20))
    assert p.tier == "pilot"


def test_two_labellers_alike_are_noted_and_an_arm_beside_one_is_not(tmp_path) -> None:
    def edit(doc: dict[str, Any]) -> None:
        outcome_rankers(doc)
        doc["panel"]["rankers"][2]["shallow"]["outcome"]["continuations"] = 8
        doc["panel"]["rankers"].append("one-ply")

    p = plan_of(tmp_path, edit).claims[ID]
    notes = [s for s in p.shrunk if "play one policy" in s]
    assert len(notes) == 1 and "outcome-reference and shallow" in notes[0], notes


# ---- refusals


def _ranker(i: int, key: str, value: Any):
    """The outcome rankers with ranker ``i`` replaced by ``value`` (``key`` empty) or its
    outcome's ``key`` set to ``value``."""
    def edit(doc: dict[str, Any]) -> None:
        outcome_rankers(doc)
        rankers = doc["panel"]["rankers"]
        if key == "":
            rankers[i] = value
        else:
            next(iter(rankers[i].values()))["outcome"][key] = value
    return edit


def _arm_reference_without_seed(doc: dict[str, Any]) -> None:
    outcome_rankers(doc)
    doc["panel"]["reference"] = "fair-d4s7"


def _arm_reference_with_seeds(*seeds: int):
    def edit(doc: dict[str, Any]) -> None:
        _arm_reference_without_seed(doc)
        for i, seed in zip((0, 2), seeds, strict=True):
            next(iter(doc["panel"]["rankers"][i].values()))["outcome"]["seed"] = seed
    return edit


REFUSALS = {
    "external policy": (_ranker(0, "policy", "outsider"), "panel.rankers[0].deep.outcome.policy",
                        "is external: a continuation has no fallback"),
    "a baseline policy": (_both(_set("arms.rnd", {"play": "random"}),
                                _ranker(0, "policy", "rnd")),
                          "panel.rankers[0].deep.outcome.policy",
                          "plays random: an outcome ranker's continuations are played by a "
                          "search or direct arm"),
    "unknown policy": (_ranker(0, "policy", "nope"), "panel.rankers[0].deep.outcome.policy",
                       "no arm 'nope'"),
    "unknown target": (_ranker(0, "target", "score"), "panel.rankers[0].deep.outcome.target",
                       "unknown target 'score' (targets: points, lifetime, ended)"),
    "no continuations": (_ranker(2, "continuations", 0),
                         "panel.rankers[2].shallow.outcome.continuations", "outside 1..4,096"),
    "too many continuations": (_ranker(2, "continuations", 4097),
                               "panel.rankers[2].shallow.outcome.continuations",
                               "outside 1..4,096"),
    "horizon too long": (_ranker(0, "horizon", 1001), "panel.rankers[0].deep.outcome.horizon",
                         "outside 1..1,000"),
    "a seed of its own": (_ranker(0, "seed", SEED + 1), "panel.rankers[0].deep.outcome.seed",
                          "differs from the reference's 20261203"),
    "no seed beside an arm reference": (_arm_reference_without_seed,
                                        "panel.rankers[0].deep.outcome.seed", "missing"),
    "two seeds beside an arm reference": (_arm_reference_with_seeds(1, 2),
                                          "panel.rankers[2].shallow.outcome.seed",
                                          "2 differs from 1"),
    "named as an arm": (_ranker(0, "", {"fair-d1s7": {"outcome": {"policy": "one-ply",
                                                                  **LABEL}}}),
                        "panel.rankers[0]", "'fair-d1s7' is an arm"),
    "named as the outcome reference": (_ranker(0, "", {OUTCOME_REFERENCE: {"outcome": {
        "policy": "one-ply", **LABEL}}}), "panel.rankers[0]", "give the ranker another name"),
    "listed twice": (_ranker(2, "", {"deep": {"outcome": {"policy": "one-ply", **LABEL}}}),
                     "panel.rankers[2]", "'deep' is listed twice"),
    "an unknown key": (_ranker(0, "horizons", 4), "panel.rankers[0]", ""),
    "two names in one entry": (_ranker(0, "", {"a": {"outcome": {"policy": "one-ply", **LABEL}},
                                               "b": {"outcome": {"policy": "one-ply",
                                                                 **LABEL}}}),
                               "panel.rankers[0]", ""),
    "a reading of an unknown ranker": (_both(outcome_rankers, _set(
        "readings.deep-tau.ranker", "deeper")), "readings.deep-tau.ranker",
        "no ranker 'deeper'"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_bad_outcome_ranker_is_refused_in_one_line_naming_file_and_key(tmp_path,
                                                                        case) -> None:
    edit, key, words = REFUSALS[case]
    directory = folder(tmp_path, edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(directory)
    message = one_line(err, f"{directory / (ID + '.yaml')}: ")
    assert f"key {key}:" in message or f"key {key} " in message, message
    assert words in message, message


PROFILE_REFUSALS = {
    "more continuations than any labeller": ({"continuations": 9}, outcome_rankers,
                                             "panel.continuations", "more than the declared 8"),
    "a longer horizon": ({"horizon": 41}, outcome_rankers, "panel.horizon",
                         "more than the declared 40"),
    "a horizon without a labeller": ({"horizon": 8}, None, "panel.horizon", "no horizon"),
}


@pytest.mark.parametrize("case", sorted(PROFILE_REFUSALS))
def test_a_profile_only_shrinks_the_labellers(tmp_path, case) -> None:
    over, edit, key, words = PROFILE_REFUSALS[case]
    with pytest.raises(DeclarationError) as err:
        plan_of(tmp_path, edit, claims={ID: {"panel": over}})
    message = one_line(err, "")
    assert f"key claims.{ID}.{key}: " in message and words in message, message


def test_a_dry_run_refuses_a_bad_outcome_ranker_before_any_job(tmp_path) -> None:
    from workflow_support import snakemake

    directory = folder(tmp_path, _ranker(0, "target", "score"))
    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "-n", "--config", "profile=smoke", f"claims_dir={directory}",
                       "--", ID.replace("-", "_"))
    assert result.returncode != 0
    assert "panel.rankers[0].deep.outcome.target" in result.stdout + result.stderr
    assert not (work / "results").exists()


# ---- labelled as the workflow labels them


CHEAP = {"continuations": 2, "horizon": 6, "target": "points"}


def cheap_panel(doc: dict[str, Any]) -> None:
    """Roots from fair d1s3 games; the reference, ``same`` (its very labeller) and ``zero``
    (continuations by the zero leaf one ply) label with two continuations of six moves."""
    doc["arms"].update({"fair-d1s3": {"play": "search", "depth": 1, "strata": 3,
                                      "leaf": "linear"},
                        "one-ply-s3": {"play": "direct", "strata": 3, "leaf": "linear"},
                        "zero-s3": {"play": "direct", "strata": 3, "leaf": "zero"}})
    doc["panel"]["roots"] = {"policy": "fair-d1s3", "games": 3, "every": 9, "roots": 12}
    doc["panel"]["reference"] = {"outcome": {"policy": "one-ply-s3", **CHEAP, "seed": 77}}
    doc["panel"]["rankers"] = [{"same": {"outcome": {"policy": "one-ply-s3", **CHEAP}}},
                               {"zero": {"outcome": {"policy": "zero-s3", **CHEAP}}}]
    doc["readings"] = {"same-tau": {"kind": "figure-at-least", "ranker": "same",
                                    "figure": "tau", "threshold": 0.99},
                       "same-top1": {"kind": "figure-at-least", "ranker": "same",
                                     "figure": "top1", "threshold": 0.99}}
    doc["verdict"]["rules"] = [{"when": {"same-tau": "fail"},
                                "then": "not-supported-as-tested"}]
    doc["panel"]["conventions"] = "harness"


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> dict[str, Any]:
    """The cheap panel planned, its roots played, every name labelled by the command the
    workflow builds, in one shard and in two."""
    d = tmp_path_factory.mktemp("outcome-rankers")
    directory = folder(d, cheap_panel)
    plan = load_plan(REPO, {"profile": profile_like(d / "p", "pilot"),
                            "claims_dir": str(directory)})
    p = plan.claims[ID]
    panel = p.panel
    roots = d / "roots.json"
    assert main(["panel", "roots", "--policy", p.arms[panel.roots_arm].policy, "--seeds",
                 "{}:{}".format(*panel.seeds), "--every", str(panel.every), "--limit",
                 str(panel.limit), "--out", str(roots)]) == 0
    tables = {}
    for shards in (1, 2):
        parts = []
        for name in panel.names():
            words = shlex.split(commands.panel_answer(name, panel.arms[name].policy,
                                                      panel.work, panel.outcome_of(name)))
            assert words[:3] == ["drop7", "panel", "label"], words
            for k in range(1, shards + 1):
                parts.append(d / f"{shards}" / name / f"shard-{k}-of-{shards}.csv")
                assert main([*words[1:], "--roots", str(roots), "--shard", f"{k}/{shards}",
                             "--out", str(parts[-1])]) == 0
        tables[shards] = d / f"panel-{shards}.csv"
        assert main(["panel", "merge", "--rankers", ",".join(panel.names()), "--roots",
                     str(roots), "--out", str(tables[shards]), *map(str, parts)]) == 0
    (d / "panel.json").write_text(json.dumps(p.panel_declaration()), encoding="utf-8")
    assert main(["panel", "read", "--table", str(tables[1]), "--roots", str(roots),
                 "--declaration", str(d / "panel.json"), "--resamples", "200", "--out",
                 str(d / "readings.json")]) == 0
    return {"tables": tables, "readings": json.loads((d / "readings.json").read_text()),
            "rows": read_rows(tables[1])}


def test_shards_of_outcome_rankers_merge_to_the_same_bytes(labelled) -> None:
    t = labelled["tables"]
    assert t[1].read_bytes() == t[2].read_bytes()
    assert {r["ranker"] for r in labelled["rows"]} == {OUTCOME_REFERENCE, "same", "zero"}


def _by_ranker(rows) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for r in rows:
        out.setdefault(r["ranker"], []).append(
            (r["game"], r["root"], r["choice"], r["work"], *(r[f"v{c}"] for c in range(7))))
    return out


def test_a_ranker_labelling_as_the_reference_agrees_with_it_on_every_root(labelled) -> None:
    rows = _by_ranker(labelled["rows"])
    # the same labeller on the same scenarios: the very values, choices and work
    assert rows["same"] == rows[OUTCOME_REFERENCE]
    assert sum(int(r[3]) for r in rows["same"]) > 0  # its continuation searches' nodes
    figures = labelled["readings"]["figures"]["same"]
    assert figures["tau"]["estimate"] == figures["tau"]["lower"] == 1.0
    assert figures["top1"]["estimate"] == figures["top1"]["lower"] == 1.0
    assert figures["tau"]["roots"] > 0  # some root's labels are not all tied
    assert {r["name"]: r["outcome"] for r in labelled["readings"]["readings"].values()} == {
        "same-tau": "pass", "same-top1": "pass"}


def test_a_ranker_of_another_policy_labels_otherwise(labelled) -> None:
    rows = _by_ranker(labelled["rows"])
    ref, zero = rows[OUTCOME_REFERENCE], rows["zero"]
    assert [r[:2] for r in zero] == [r[:2] for r in ref]
    assert [r[4:] for r in zero] != [r[4:] for r in ref]
    assert labelled["readings"]["figures"]["zero"]["tau"]["estimate"] < 1.0


# ---- the shipped claim


CLAIM = "m6-depth-second-order-for-ordering"


def test_the_shipped_claim_reads_cheap_labels_against_d3_n7m6_on_one_seed() -> None:
    for profile in ("smoke", "pilot", "paper"):
        p = load_plan(REPO, {"profile": profile}).claims[CLAIM]
        panel = p.panel
        assert panel.names() == [OUTCOME_REFERENCE, "d2-m6", "d1-m6"]
        assert {panel.outcome_of(n)["seed"] for n in panel.names()} == {panel.outcome["seed"]}
        depths = [panel.arms[n].spec.depth for n in panel.names()]
        assert depths == [3, 2, 1], (profile, depths)  # the claim is about these depths
        assert p.claim.doc["theory"] == "TH-20260824-m6-depth-second-order-for-ordering-7de1e79e"
        assert "recorded" not in p.claim.doc
    paper = load_plan(REPO, {"profile": "paper"}).claims[CLAIM]
    assert paper.shrunk == [] and paper.panel.roots == 64
    assert {(o["continuations"], o["horizon"], o["target"]) for o in (
        paper.panel.outcome_of(n) for n in paper.panel.names())} == {(8, 40, "lifetime")}
    assert {paper.panel.arms[n].spec.reveals for n in paper.panel.names()} == {6}
    pilot = load_plan(REPO, {"profile": "pilot"}).claims[CLAIM]
    assert pilot.panel.roots == 16 and pilot.tier == "pilot"
    assert pilot.panel.outcome_of("d1-m6")["continuations"] == 2
    # about ten CPU minutes at the measured 0.17 s a d3-N7M6 decision (the plan's model is
    # lower): 7 columns x 2 continuations x 16 moves a root
    assert 16 * 7 * 2 * 16 * 0.17 / 60 < 12


def test_the_shipped_claims_smoke_panel_labels_its_roots_on_one_seed(tmp_path) -> None:
    """The claim's labellers at the smoke profile, run as the workflow runs them on two roots
    of a cheap game: each ranker labels the reference's roots, on the reference's seed."""
    p = load_plan(REPO, {"profile": "smoke"}).claims[CLAIM]
    panel = p.panel
    roots = tmp_path / "roots.json"
    assert main(["panel", "roots", "--policy", "search:leaf=linear,d=1,s=3", "--seeds", "3:1",
                 "--every", "30", "--limit", "2", "--out", str(roots)]) == 0
    parts = []
    for name in panel.names():
        words = shlex.split(commands.panel_answer(name, panel.arms[name].policy, panel.work,
                                                  panel.outcome_of(name)))
        parts.append(tmp_path / f"{name}.csv")
        assert main([*words[1:], "--roots", str(roots), "--out", str(parts[-1])]) == 0
    table = tmp_path / "panel.csv"
    assert main(["panel", "merge", "--rankers", ",".join(panel.names()), "--roots", str(roots),
                 "--out", str(table), *map(str, parts)]) == 0
    rows = read_rows(table)
    assert len(rows) == 2 * 3 and all(r["v3"] and r["work"] for r in rows)



@pytest.mark.workflow
def test_the_shipped_claim_runs_under_smoke_end_to_end(tmp_path) -> None:
    """Its smoke panel through Snakemake: roots, the three labellers in shards, the table, the
    readings, the verdict and the page (which names the outcome rankers' labellers)."""
    from workflow_support import failure_report, snakemake

    result = snakemake(tmp_path, "--cores", "2", "--config", "profile=smoke", "--",
                       CLAIM.replace("-", "_"))
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    plan = load_plan(REPO, {"profile": "smoke"})
    p, paths = plan.claims[CLAIM], plan.paths
    rows = read_rows(tmp_path / paths.path("panel_table", claim=CLAIM, block=p.label))
    assert {r["ranker"] for r in rows} == set(p.panel.names())
    assert len(rows) == 3 * len({(r["game"], r["root"]) for r in rows})
    readings = json.loads((tmp_path / paths.path("panel_readings", claim=CLAIM,
                                                 block=p.label)).read_text())
    assert readings["rankers"] == ["d2-m6", "d1-m6"]
    assert all(readings["values"].values())
    verdict = json.loads((tmp_path / paths.path("verdict", claim=CLAIM)).read_text())
    read = {r["name"]: r["outcome"] for r in verdict["readings"]}
    assert set(p.readings) <= set(read)
    html = (tmp_path / paths.path("page", claim=CLAIM)).read_text()
    assert "Outcome rankers" in html and "d1-m6" in html
    assert "stops its continuations at 8 of the declared 40 moves" in html
