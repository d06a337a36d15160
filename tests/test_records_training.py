"""``metrics.training``: every weights a claim trains, with its curve and health, in the result
record (protocol/records/training.py), from documents built the way the learners write them;
absent for a claim that trains nothing; kept by ``drop7 records rebuild``."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from analysis.contrast import contrast_scores
from analysis.health import HealthPoint, training_health
from engines.learners.kf_q_train import curve_point
from engines.learners.registry import LEARNERS
from protocol.plan import load_plan
from protocol.records.bundle import write_bundle
from protocol.records.check import check_bundle
from protocol.records.ids import RecordError
from protocol.records.training import (
    HEALTH_POINT,
    KINDS,
    VALIDATION_POINT,
    direct_entry,
    training_metrics,
)
from protocol.stages import POINT_KEYS

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC)
SHA = "5" * 64


def _health() -> dict:
    """analysis.health's document of two checkpoints: the second falls below the first."""
    rng = np.random.default_rng(7)
    seeds = list(range(100, 130))
    evals = [{"moves_trained": step, "seeds": seeds,
              "scores": {"one_ply": list(rng.normal(mean, 20, 30)),
                         "start": list(rng.normal(300, 20, 30)),
                         "random": list(rng.normal(100, 20, 30))}}
             for step, mean in ((1000, 900), (2000, 500))]
    manifests = [{"moves_trained": 1000, "games_trained": 10, "mean_score_trained": 400.0},
                 {"moves_trained": 2000, "games_trained": 30, "mean_score_trained": 500.0}]
    return training_health("ntuple-A", evals, manifests)


def _validation_curve() -> dict:
    """protocol.stages.validation_curve's document: a paired contrast per checkpoint."""
    points = []
    for step, lift in ((1000, 5.0), (2000, 9.0)):
        c = contrast_scores(np.arange(20.0) + lift, np.arange(20.0), candidate=f"A-{step}",
                            baseline="fair", n_resamples=50).to_dict()
        points.append({"step": step, "arm": f"A-{step}", "path": f"x/step-{step}",
                       "margin": c["mean_delta"], **{k: c[k] for k in POINT_KEYS}})
    return {"weights": "ntuple-A", "comparator": "fair", "points": points}


def _described(name: str, learner: str, kind: str) -> dict:
    """DirectTraining.describe()'s shape."""
    return {"name": name, "learner": learner, "produces": "weights", "recipe": {"games": 4},
            "shrunk": [f"{name}: trained on 4 games"], "record": f"r/{name}",
            "curve": None if kind == "ridge-q" else f"c/{name}", "curve_kind": kind,
            "figures": []}


def _kf_q() -> tuple[dict, dict]:
    """drop7 kf-train's curve.json and frozen.json (KfqRun.finish)."""
    rand = np.array([10, 12, 11, 9])
    points = []
    for games, moves in ((0, [8, 9, 10, 9]), (50, [20, 22, 19, 25])):
        health = {"games": games, "mean_abs_error": None if not games else 0.5,
                  "mean_moves": None if not games else 14.0, "finite": True, "wall_s": 1.0}
        points.append({"games": games, "moves": games * 15,
                       **curve_point(np.array(moves), np.array(moves) * 10, rand),
                       "health": health})
    curve = {"format": "drop7-kfq-curve-v1", "config": {"games": 50}, "points": points}
    record = {"format": "drop7-kfq-frozen-v1", "games": 50, "moves": 750,
              "weights": [1.0, -2.0, 0.5, 0.0, 3.0, -1.0], "sha256": SHA,
              "start_moves": 9.0, "final_moves": 21.5, "random_moves": 10.5,
              "config": {"games": 50}, "config_sha256": "c" * 64}
    return curve, record


def test_every_health_figure_and_validation_figure_is_named() -> None:
    """A field added to a health point or a validation point must get a register name."""
    assert set(HEALTH_POINT.values()) == {f.name for f in fields(HealthPoint)}
    assert set(VALIDATION_POINT.values()) == {"step", "arm", "margin", *POINT_KEYS}
    assert VALIDATION_POINT["bootstrapLower95"] == "bootstrap_lb"  # a contrast's names


def test_every_learner_s_curve_kind_has_its_figures() -> None:
    kinds = {k.curve for k in LEARNERS.values()}
    assert kinds - {"health"} == set(KINDS) and "health" in kinds, kinds
    with pytest.raises(RecordError, match="curve kind 'other'"):
        direct_entry(_described("x", "new", "other"), None, {"sha256": SHA})


def test_a_segmented_training_gives_its_health_and_validation_curve() -> None:
    plan = load_plan(ROOT, {"profile": "smoke"}).claims["ntuple-line-tuples"].describe()
    health, curve = _health(), _validation_curve()
    e_curve = {**curve, "weights": "ntuple-E", "points": curve["points"][:1]}
    with pytest.raises(RecordError, match="no training health of the trained weights "
                                          "ntuple-E was given"):
        training_metrics(plan, curves={"ntuple-A": curve, "ntuple-E": e_curve},
                         health={"ntuple-A": health}, direct={})
    e_health = {**health, "weights": "ntuple-E"}
    with pytest.raises(RecordError, match="training health given for ntuple-E is another "
                                          "weights'"):
        training_metrics(plan, curves={"ntuple-A": curve, "ntuple-E": e_curve},
                         health={"ntuple-A": health, "ntuple-E": health}, direct={})
    out = training_metrics(plan, curves={"ntuple-A": curve, "ntuple-E": e_curve},
                           health={"ntuple-A": health, "ntuple-E": e_health}, direct={})
    assert set(out) == set(plan["trained"]) == {"ntuple-A", "ntuple-E"}
    a = out["ntuple-A"]
    assert a["learner"] == "ntuple" and a["curveKind"] == "health"
    assert a["frozenSha256"] is None and a["layout"] == "A"
    assert a["moves"] == plan["trained"]["ntuple-A"]["moves"]
    assert a["selection"] == plan["trained"]["ntuple-A"]["select"]
    h = a["health"]
    assert h["healthy"] is False and h["problems"] == health["problems"]
    assert any("fell" in p for p in h["problems"])  # the built document has a fall
    assert h["firstSeedHex"] == "0x0000000000000064" and h["games"] == 30
    assert [p["step"] for p in h["points"]] == [1000, 2000]
    assert h["points"][1]["fell"] is True
    assert h["points"][1]["onePlyMean"] == health["points"][1]["one_ply_mean"]
    assert h["points"][0]["leadLower95"] == health["points"][0]["lead_lb"]
    assert h["points"][1]["trainGames"] == 20 and h["points"][1]["trainMeanScore"] == 550.0
    v = a["validationCurve"]
    assert v["comparator"] == "fair" and [p["margin"] for p in v["points"]] == [5.0, 9.0]
    assert v["points"][1]["meanDelta"] == 9.0 and v["points"][1]["n"] == 20
    assert v["points"][0]["arm"] == "A-1000" and "path" not in v["points"][0]
    assert [p["step"] for p in out["ntuple-E"]["validationCurve"]["points"]] == [1000]


def test_kf_q_gives_its_checkpoints_and_frozen_figures() -> None:
    curve, record = _kf_q()
    e = direct_entry(_described("relearned", "kf-q", "kf-q"), curve, record)
    assert e["learner"] == "kf-q" and e["curveKind"] == "kf-q" and e["frozenSha256"] == SHA
    assert e["recipe"] == {"games": 4} and e["shrunk"] == ["relearned: trained on 4 games"]
    assert [p["games"] for p in e["curve"]] == [0, 50]
    last = e["curve"][1]
    assert last["greedyMoves"] == 21.5 and last["randomMoves"] == 10.5
    assert last["deltaMoves"] == 11.0 and last["winsTiesLosses"] == [4, 0, 0]
    assert last["meanAbsError"] == 0.5 and last["finite"] is True and "wall_s" not in last
    assert e["record"]["finalMoves"] == 21.5 and e["record"]["weights"][1] == -2.0


def test_a_ridge_fit_gives_its_report() -> None:
    fit = {"roots": 40, "rows": 240, "games": 4, "lambda": 1.0, "target": "raw",
           "top1_in_sample": 0.6, "top1_split_half": [0.5, 0.55], "reference": "search:d4",
           "roots_policy": "search:d2", "seed_role": "training", "first_game": 0,
           "games_played": 4, "every": 1, "strata": 7, "reveals": 1}
    e = direct_entry(_described("qfit", "ridge-q", "ridge-q"), None,
                     {"kind": "q", "sha256": SHA, "fit": fit})
    assert e["curveKind"] == "ridge-q" and "curve" not in e and e["frozenSha256"] == SHA
    assert e["record"]["top1SplitHalf"] == [0.5, 0.55] and e["record"]["rows"] == 240
    assert e["record"]["rootsPolicy"] == "search:d2" and e["record"]["lambda"] == 1.0


def test_a_weight_search_and_an_evolution_give_their_generations() -> None:
    point = {"generation": 1, "best": 900.0, "mean": 700.0, "control": 650.0,
             "frozen_sha256": "a" * 64}
    searched = {"config_sha256": "c" * 64, "generations": 2,
                "frozen": {"file": "frozen.json", "sha256": SHA, "rule": "mean"},
                "curve": [point, {**point, "generation": 2, "best": 950.0,
                                  "health_one_ply": 800.0, "health_start": 600.0,
                                  "health_random": 100.0}],
                "fitness": "moves"}
    e = direct_entry(_described("cmaes", "cmaes", "search"), searched,
                     {"kind": "linear", "sha256": SHA, "learner": "cmaes"})
    assert e["generations"] == 2 and e["frozenRule"] == "mean" and e["fitness"] == "moves"
    assert e["curve"][0] == {"generation": 1, "best": 900.0, "mean": 700.0, "control": 650.0,
                             "frozenSha256": "a" * 64}
    assert e["curve"][1]["healthOnePly"] == 800.0 and e["curve"][1]["healthRandom"] == 100.0
    assert "selectionWinner" not in e and "record" not in e
    evolved = {**searched, "frozen": {"file": "frozen", "sha256": SHA, "rule": "re-selected"},
               "selection": {"seeds": [1, 2], "finalists": ["c1", "c2"], "means": [5.0, 6.0],
                             "winner": "c2", "winner_sha256": "b" * 64}}
    del evolved["fitness"]
    e = direct_entry(_described("evolved", "nnue-evolve", "search"), evolved,
                     {"kind": "nnue", "sha256": SHA, "hidden": 8, "mid": 4, "entries": 99})
    assert e["frozenRule"] == "re-selected" and e["selectionWinner"] == "c2"
    assert e["selectionMeans"] == [5.0, 6.0] and "fitness" not in e
    assert e["record"] == {"hidden": 8, "mid": 4, "entries": 99}


def test_a_distillation_gives_its_epochs_and_held_out_top1() -> None:
    summary = {"config_sha256": "c" * 64, "epochs": 2,
               "curve": [{"epoch": 1, "train_loss": 0.5, "heldout_loss": 0.6},
                         {"epoch": 2, "train_loss": 0.4, "heldout_loss": 0.55,
                          "heldout_top1": 0.41}],
               "roots": {"train": 90, "held_out": 10}, "network": {"dir": "network",
                                                                  "sha256": SHA},
               "top1": {"network": 0.4, "random_start": 0.2}}
    e = direct_entry(_described("distilled", "nnue-distil", "distil"), summary,
                     {"kind": "nnue", "sha256": SHA, "hidden": 8, "mid": 4, "entries": 99})
    assert e["epochs"] == 2 and e["heldoutTop1"] == 0.4 and e["heldoutTop1RandomStart"] == 0.2
    assert e["trainRoots"] == 90 and e["heldoutRoots"] == 10
    assert e["curve"][0] == {"epoch": 1, "trainLoss": 0.5, "heldoutLoss": 0.6}
    assert e["curve"][1]["heldoutTop1"] == 0.41


@pytest.fixture(scope="module")
def kf_plan() -> dict:
    return load_plan(ROOT, {"profile": "smoke"}).claims["kf-linear-q-transfer"].describe()


def _never_screened() -> dict:
    return {"tier": "pilot", "tier_lowered_by": [], "readings": [], "outcomes": {},
            "methodological_errors": [], "verdict": "not-supported-as-tested",
            "reason": "a gate failed: the screen was not opened", "rule": None}


def test_the_bundle_holds_the_training_figures_and_none_without(kf_plan, tmp_path) -> None:
    curve, record = _kf_q()
    direct = {n: (_described(n, "kf-q", "kf-q"), curve, record)
              for n in kf_plan["declaration"]["weights"]}
    training = training_metrics(kf_plan, curves={}, health={}, direct=direct)
    args = (kf_plan, _never_screened(), {"commit": None, "dirty": None})
    result = write_bundle(tmp_path / "a", *args, now=NOW, decided_utc="2026-12-02T02:59:49Z",
                          training=training)
    assert check_bundle(tmp_path / "a") == []
    got = result["metrics"]["training"]
    assert set(got) == set(kf_plan["declaration"]["weights"]) and got == training
    assert all(e["frozenSha256"] == SHA and e["curve"][1]["greedyMoves"] == 21.5
               for e in got.values())
    # without training (or with none) the record is the one written before it existed
    plain = write_bundle(tmp_path / "b", *args, now=NOW, decided_utc="2026-12-02T02:59:49Z")
    empty = write_bundle(tmp_path / "c", *args, now=NOW, decided_utc="2026-12-02T02:59:49Z",
                         training={})
    assert "training" not in plain["metrics"] and empty == plain
    [b], [c] = ((tmp_path / d).glob("result-*.json") for d in "bc")
    assert b.name == c.name and b.read_bytes() == c.read_bytes()
    with pytest.raises(RecordError, match="training figures of other-w, weights the claim "
                                          "does not declare"):
        write_bundle(tmp_path / "d", *args, now=NOW, training={**training, "other-w": {}})
    assert not (tmp_path / "d").exists()


def test_a_malformed_training_entry_breaks_the_result_s_format(kf_plan, tmp_path) -> None:
    curve, record = _kf_q()
    training = training_metrics(kf_plan, curves={}, health={}, direct={
        "relearned": (_described("relearned", "kf-q", "kf-q"), curve, {**record,
                                                                        "sha256": "nothex"})})
    with pytest.raises(RecordError, match="metrics.training.relearned.frozenSha256"):
        write_bundle(tmp_path, kf_plan, _never_screened(), {}, now=NOW, training=training)


def test_a_screened_segmented_training_gets_the_ledger_s_frozen_hash() -> None:
    from protocol.records.training import with_frozen

    entry = {"learner": "ntuple", "curveKind": "health", "frozenSha256": None}
    out = with_frozen({"ntuple-A": entry, "kf": {**entry, "frozenSha256": SHA}},
                      {"c/ntuple-A": "9" * 64, "c/kf": "8" * 64, "other/ntuple-A": "7" * 64},
                      "c")
    assert out["ntuple-A"]["frozenSha256"] == "9" * 64 and out["kf"]["frozenSha256"] == SHA
    assert with_frozen({"ntuple-A": entry}, {}, "c")["ntuple-A"]["frozenSha256"] is None


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git history of a checkout")
def test_rebuild_keeps_the_bundle_s_training_figures(tmp_path, monkeypatch) -> None:
    """The curves, health files and records are not committed: a rebuild keeps the committed
    result's ``metrics.training`` as it is, and writes none where it has none."""
    from protocol.records import rebuild as module

    bundle = ROOT / "reports/pilot/records/linear-trained-leaf"
    plain = module.rebuild(bundle, ROOT, out=tmp_path / "plain" / bundle.name, now=NOW)
    assert "training" not in plain["metrics"]
    plan = load_plan(ROOT, {"profile": "pilot"}).claims[bundle.name].describe()
    kept = training_metrics(
        plan, curves={w: {**_validation_curve(), "weights": w} for w in plan["trained"]},
        health={w: {**_health(), "weights": w} for w in plan["trained"]}, direct={})
    assert kept and all("health" in e for e in kept.values())
    read = module._old_records

    def with_training(directory):
        old = read(directory)
        old["result"]["metrics"]["training"] = kept
        return old

    monkeypatch.setattr(module, "_old_records", with_training)
    out = tmp_path / "kept" / bundle.name
    result = module.rebuild(bundle, ROOT, out=out, now=NOW)
    assert result["metrics"]["training"] == kept and check_bundle(out) == []
    assert {k: v for k, v in result["metrics"].items() if k != "training"} == plain["metrics"]


def test_the_records_job_reads_the_training_files(kf_plan, tmp_path) -> None:
    """workflow/scripts/records.py with the records rule's training inputs (a claim whose
    screen was never opened): the direct learners' curves and records become its figures."""
    import json
    import runpy
    from types import SimpleNamespace

    class Files(dict):
        __getattr__ = dict.__getitem__

    curve, record = _kf_q()
    direct = {}
    for name in kf_plan["declaration"]["weights"]:
        d = _described(name, "kf-q", "kf-q")
        d.update(curve=str(tmp_path / f"{name}-curve.json"),
                 record=str(tmp_path / f"{name}-frozen.json"))
        Path(d["curve"]).write_text(json.dumps(curve))
        Path(d["record"]).write_text(json.dumps({**record, "sha256": SHA}))
        direct[name] = d
    (tmp_path / "verdict.json").write_text(json.dumps(_never_screened()))
    job = SimpleNamespace(
        input=Files(verdict=str(tmp_path / "verdict.json"), curves=[],
                    direct_records=[d["record"] for d in direct.values()]),
        output=[str(tmp_path / "records")], log=[str(tmp_path / "job.log")],
        params=SimpleNamespace(plan=kf_plan, repo=str(ROOT),
                               ledger=str(ROOT / "data/screen-ledger.json"),
                               benchmarks=str(tmp_path / "none"), health={}, direct=direct))
    runpy.run_path(str(ROOT / "workflow/scripts/records.py"), init_globals={"snakemake": job})
    [result] = (tmp_path / "records").glob("result-*.json")
    got = json.loads(result.read_text())["metrics"]["training"]
    assert set(got) == set(direct) and all(e["frozenSha256"] == SHA for e in got.values())
    assert all(e["curve"][1]["deltaMoves"] == 11.0 for e in got.values())
