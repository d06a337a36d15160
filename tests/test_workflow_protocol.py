"""The protocol between training and the screen: validation margins, the gate, the freeze."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from workflow_support import plan, protocol

from engines.ntuple.layouts import get_layout
from engines.ntuple.storage import array_chunks, file_sha256, save_weights

freeze, gate_decision = protocol.freeze, protocol.gate_decision
select_checkpoint, validation_curve = protocol.select_checkpoint, protocol.validation_curve

COLUMNS = ("arm", "policy", "seed", "game", "score", "moves", "levels", "clears", "censored",
           "popped", "decisions", "illegal", "unfinished", "wall_s")


def write_games(path, arm, scores, first_seed=100):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for i, s in enumerate(scores):
            w.writerow([arm, "p", first_seed + i, i, s, 50, 10, 0, 0, 10, 50, 0, 0, 0.1])
    return str(path)


def test_validation_curve_margins_are_paired_means(tmp_path) -> None:
    fair = write_games(tmp_path / "fair.csv", "linear-d3s7", [100, 200, 300, 400, 500, 600])
    cps = []
    for step, shift in ((10, -50), (20, 25)):
        arm = f"ntuple-A-step{step}-d3s7"
        scores = [100 + shift, 200 + shift, 300 + shift, 400 + shift, 500 + shift, 600 + shift]
        cps.append({"step": step, "arm": arm, "path": f"w/step-{step}",
                    "games": write_games(tmp_path / f"{arm}.csv", arm, scores)})
    curve = validation_curve("ntuple-A", "linear-d3s7", fair, cps[::-1], n_resamples=200)
    assert [p["step"] for p in curve["points"]] == [10, 20]
    assert [p["margin"] for p in curve["points"]] == [-50.0, 25.0]
    assert curve["points"][1]["wins"] == 6


def test_select_takes_largest_margin_ties_to_later() -> None:
    pts = [{"step": 1, "margin": 5.0}, {"step": 2, "margin": 9.0}, {"step": 3, "margin": 9.0},
           {"step": 4, "margin": -1.0}]
    assert select_checkpoint(pts)["step"] == 3
    with pytest.raises(ValueError):
        select_checkpoint([])


def test_gate_passes_on_any_positive_margin() -> None:
    def curve(margins):
        return {"weights": "ntuple-A",
                "points": [{"step": i + 1, "margin": m} for i, m in enumerate(margins)]}

    assert gate_decision(curve([-5.0, 1.0, -3.0]))["passed"]
    failed = gate_decision(curve([-5.0, 0.0, -3.0]))  # zero is not a positive margin
    assert not failed["passed"] and "not opened" in failed["reason"]
    assert failed["best_step"] == 2


def _checkpoint(directory, value):
    layout = get_layout("T1")
    arr = np.full(layout.entries, value, dtype=np.float32)
    save_weights(directory, arr.shape, arr.dtype, array_chunks(arr),
                 {"kind": "ntuple", "layout": "T1", "entries": layout.entries,
                  "moves_trained": 10})


def test_freeze_copies_the_best_checkpoint_and_records_its_hash(tmp_path) -> None:
    for step, value in ((10, 0.1), (20, 0.2)):
        _checkpoint(tmp_path / f"step-{step}", value)
    curve = {"weights": "ntuple-A", "points": [
        {"step": 10, "margin": 3.0, "path": str(tmp_path / "step-10"), "bootstrap_lb": 0,
         "t_lb": 0},
        {"step": 20, "margin": 1.0, "path": str(tmp_path / "step-20"), "bootstrap_lb": 0,
         "t_lb": 0}]}
    gate = gate_decision(curve)
    record = freeze(curve, gate, tmp_path / "frozen", tmp_path / "frozen.json")
    assert record["step"] == 10
    assert record["sha256"] == file_sha256(tmp_path / "frozen" / "tables.npy")
    assert record["sha256"] == file_sha256(tmp_path / "step-10" / "tables.npy")
    assert json.loads((tmp_path / "frozen.json").read_text())["sha256"] == record["sha256"]
    assert (tmp_path / "frozen" / "tables.npy").stat().st_ino != (
        tmp_path / "step-10" / "tables.npy").stat().st_ino  # a copy, not a link


def test_freeze_refuses_a_failed_gate_and_a_tampered_checkpoint(tmp_path) -> None:
    _checkpoint(tmp_path / "step-10", 0.1)
    curve = {"weights": "ntuple-A", "points": [
        {"step": 10, "margin": -3.0, "path": str(tmp_path / "step-10"), "bootstrap_lb": 0,
         "t_lb": 0}]}
    with pytest.raises(ValueError, match="gate failed"):
        freeze(curve, gate_decision(curve), tmp_path / "frozen", tmp_path / "frozen.json")
    assert not (tmp_path / "frozen.json").exists()
    tables = tmp_path / "step-10" / "tables.npy"
    data = bytearray(tables.read_bytes())
    data[-1] ^= 0xFF
    tables.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        freeze(curve, gate_decision(curve), tmp_path / "frozen", tmp_path / "frozen.json",
               require_gate=False)
    assert not (tmp_path / "frozen").exists() and not (tmp_path / "frozen.json").exists()


def _fake_training(out, steps, latest):
    for step in steps:
        (out / f"step-{step}").mkdir(parents=True)
        (out / f"step-{step}" / "manifest.json").write_text(json.dumps({"moves_trained": step}))
    (out / f"resume-{latest}").mkdir()
    (out / f"resume-{latest}" / "manifest.json").write_text(
        json.dumps({"moves_trained": latest}))
    (out / "latest").symlink_to(f"resume-{latest}")


def test_prepare_training_resumes_only_the_same_request(tmp_path) -> None:
    out = tmp_path / "ntuple-A"
    request = {"layout": "A", "moves": 30, "every": 10, "first_game": 0}
    assert protocol.prepare_training(out, request, [10, 20, 30]) is False  # nothing yet
    _fake_training(out, [10, 20], 20)
    # an interrupted run resumes: its checkpoints are kept
    assert protocol.prepare_training(out, request, [10, 20, 30]) is True
    assert (out / "step-10" / "manifest.json").exists()
    # a longer budget with the same interval resumes too
    longer = {**request, "moves": 40}
    assert protocol.prepare_training(out, longer, [10, 20, 30, 40]) is True
    # another interval, first game or a shorter budget starts over
    for changed in ({**request, "every": 5}, {**request, "first_game": 7},
                    {**request, "moves": 10}):
        out2 = tmp_path / f"other-{len(list(tmp_path.iterdir()))}"
        protocol.prepare_training(out2, request, [10, 20, 30])
        _fake_training(out2, [10, 20], 20)
        steps = plan.checkpoint_steps(changed["moves"], changed["every"])
        assert protocol.prepare_training(out2, changed, steps) is False
        assert not (out2 / "step-10").exists()
    # a missing checkpoint below the resume point starts over
    (out / "step-10" / "manifest.json").unlink()
    assert protocol.prepare_training(out, request, [10, 20, 30]) is False


def test_trained_record_lists_every_checkpoint(tmp_path) -> None:
    out = tmp_path / "w"
    _fake_training(out, [10, 20], 20)
    record = protocol.trained_record(out, {"layout": "A"}, [10, 20])
    assert [c["moves_trained"] for c in record["checkpoints"]] == [10, 20]
    assert record["checkpoints"][1]["path"] == str(out / "step-20")
    with pytest.raises(ValueError, match="step-30"):
        protocol.trained_record(out, {"layout": "A"}, [10, 20, 30])


def test_dropped_resume_state_keeps_checkpoints_and_starts_a_longer_budget_over(
        tmp_path) -> None:
    out = tmp_path / "w"
    request = {"layout": "A", "moves": 20, "every": 10, "first_game": 0}
    protocol.prepare_training(out, request, [10, 20])
    _fake_training(out, [10, 20], 20)
    protocol.drop_resume_state(out)
    assert not (out / "latest").is_symlink() and not list(out.glob("resume-*"))
    assert protocol.trained_record(out, request, [10, 20])["checkpoints"][1]["moves_trained"] == 20
    protocol.drop_resume_state(out)  # nothing left to drop: no error
    longer = {**request, "moves": 30}
    assert protocol.prepare_training(out, longer, [10, 20, 30]) is False
    assert not (out / "step-10").exists()


def test_write_json_turns_nan_into_null(tmp_path) -> None:
    protocol.write_json(tmp_path / "x.json", {"a": [1.0, float("nan")], "b": float("inf")})
    assert json.loads((tmp_path / "x.json").read_text()) == {"a": [1.0, None], "b": None}
