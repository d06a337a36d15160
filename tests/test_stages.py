"""The stages between training and the screen: validation curves, gates, selection, freeze."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from contracts.games_table import GAMES_COLUMNS, write_rows
from contracts.hashing import file_sha256
from contracts.json_file import write_json
from engines.ntuple.layouts import get_layout
from engines.weights_files import array_chunks, save_weights, stream_sha256
from protocol.stages import (
    check_artefact,
    freeze,
    gates,
    select_checkpoint,
    validation_curve,
)

GATE = {"training-signal": {"kind": "margin-positive", "weights": "ntuple-A"}}


def write_games(path, arm, scores, first_seed=100):
    # moves .. trajectory (no root filter: its two counts empty)
    values = (50, 10, 0, 0, 10, 0, 0, 0.0, 50, 900, 700, "", "", 0, 0, 0.1, "0" * 64)
    write_rows([dict(zip(GAMES_COLUMNS, (arm, "p", first_seed + i, i, s, *values), strict=True))
                for i, s in enumerate(scores)], path)
    return str(path)


def curve(margins, weights="ntuple-A"):
    return {"weights": weights, "points": [{"step": 10 * (i + 1), "margin": m}
                                           for i, m in enumerate(margins)]}


def test_validation_curve_margins_are_paired_means_on_the_planned_seeds(tmp_path) -> None:
    fair = write_games(tmp_path / "fair.csv", "linear-d3s7", [100, 200, 300, 400, 500, 600])
    cps = []
    for step, shift in ((10, -50), (20, 25)):
        arm = f"ntuple-A-step{step}-d3s7"
        cps.append({"step": step, "arm": arm, "path": f"w/step-{step}",
                    "games": write_games(tmp_path / f"{arm}.csv", arm,
                                         [s + shift for s in (100, 200, 300, 400, 500, 600)])})
    out = validation_curve("ntuple-A", "linear-d3s7", fair, cps[::-1], (100, 6), 200)
    assert [p["step"] for p in out["points"]] == [10, 20]
    assert [p["margin"] for p in out["points"]] == [-50.0, 25.0]
    assert out["points"][1]["wins"] == 6 and out["comparator"] == "linear-d3s7"
    # the planned seeds are read explicitly: a table missing one is an error, not a shorter n
    with pytest.raises(ValueError, match="has 6 of the 7 games"):
        validation_curve("ntuple-A", "linear-d3s7", fair, cps, (100, 7), 200)


def test_selection_rules() -> None:
    pts = [{"step": 1, "margin": 5.0}, {"step": 2, "margin": 9.0}, {"step": 3, "margin": 9.0},
           {"step": 4, "margin": -1.0}]
    assert select_checkpoint(pts, "largest-margin")["step"] == 3  # ties to the later point
    assert select_checkpoint(pts, "final")["step"] == 4
    assert select_checkpoint(pts, {"step": 2})["step"] == 2
    with pytest.raises(ValueError):
        select_checkpoint(pts, {"step": 5})
    with pytest.raises(ValueError):
        select_checkpoint([], "final")


def test_gates_pass_on_any_positive_margin_and_say_whether_the_screen_opens() -> None:
    ok = gates("c", ["training-signal"], GATE, {"ntuple-A": curve([-5.0, 1.0, -3.0])}, True)
    assert ok["passed"] and ok["opens_screen"] and ok["gates"][0]["outcome"] == "pass"
    # zero is not a positive margin
    failed = gates("c", ["training-signal"], GATE, {"ntuple-A": curve([-5.0, 0.0])}, True)
    assert not failed["passed"] and not failed["opens_screen"]
    assert "no validation point of ntuple-A" in failed["reason"]
    forced = gates("c", ["training-signal"], GATE, {"ntuple-A": curve([-5.0])}, False)
    assert not forced["passed"] and forced["opens_screen"]
    assert gates("c", [], {}, {}, True)["opens_screen"]


def _checkpoint(directory, value):
    layout = get_layout("T1")
    arr = np.full(layout.entries, value, dtype=np.float32)
    save_weights(directory, arr.shape, arr.dtype, array_chunks(arr),
                 {"kind": "ntuple", "layout": "T1", "entries": layout.entries,
                  "moves_trained": 10})


def _points(tmp_path, margins):
    return {"weights": "ntuple-A", "points": [
        {"step": s, "margin": m, "path": str(tmp_path / f"step-{s}"), "bootstrap_lb": 0,
         "t_lb": 0} for s, m in margins]}


def test_freeze_copies_the_selected_checkpoint_and_records_its_hash(tmp_path) -> None:
    for step, value in ((10, 0.1), (20, 0.2)):
        _checkpoint(tmp_path / f"step-{step}", value)
    c = _points(tmp_path, ((10, 3.0), (20, 1.0)))
    gate = gates("c", ["training-signal"], GATE, {"ntuple-A": c}, True)
    record = freeze(c, gate, "largest-margin", tmp_path / "frozen", tmp_path / "frozen.json",
                    "c/ntuple-A")
    assert record["step"] == 10 and record["artefact"] == "c/ntuple-A"
    # the frozen weights are the checkpoint's values as a plain .npy, of the manifest's hash
    assert record["sha256"] == file_sha256(tmp_path / "frozen" / "tables.npy")
    assert record["sha256"] == stream_sha256(tmp_path / "step-10" / "tables.npy.zst")
    assert json.loads((tmp_path / "frozen.json").read_text())["sha256"] == record["sha256"]
    assert json.loads((tmp_path / "frozen" / "manifest.json").read_text())["file"] == "tables.npy"
    assert freeze(c, gate, "final", tmp_path / "frozen", tmp_path / "f.json", "c/x")["step"] == 20


def test_freeze_refuses_a_failed_gate_and_a_tampered_checkpoint(tmp_path) -> None:
    _checkpoint(tmp_path / "step-10", 0.1)
    c = _points(tmp_path, ((10, -3.0),))
    strict = gates("c", ["training-signal"], GATE, {"ntuple-A": c}, True)
    with pytest.raises(ValueError, match="gates failed"):
        freeze(c, strict, "largest-margin", tmp_path / "frozen", tmp_path / "frozen.json", "c/w")
    assert not (tmp_path / "frozen.json").exists()
    _checkpoint(tmp_path / "other", 0.2)  # a whole checkpoint of other values in its place
    shutil.copyfile(tmp_path / "other" / "tables.npy.zst", tmp_path / "step-10" / "tables.npy.zst")
    loose = gates("c", ["training-signal"], GATE, {"ntuple-A": c}, False)
    with pytest.raises(ValueError, match="SHA-256"):
        freeze(c, loose, "largest-margin", tmp_path / "frozen", tmp_path / "frozen.json", "c/w")
    assert not (tmp_path / "frozen").exists() and not (tmp_path / "frozen.json").exists()


def test_a_pinned_artefact_must_match() -> None:
    check_artefact({"sha256": "a" * 64}, "c/w", None, "f.yaml")
    check_artefact({"sha256": "a" * 64}, "c/w", "a" * 64, "f.yaml")
    with pytest.raises(ValueError, match="f.yaml: the frozen c/w's SHA-256 aaaa"):
        check_artefact({"sha256": "a" * 64}, "c/w", "b" * 64, "f.yaml")


def test_write_json_turns_nan_into_null(tmp_path) -> None:
    write_json(tmp_path / "x.json", {"a": [1.0, float("nan")], "b": float("inf")})
    assert json.loads((tmp_path / "x.json").read_text()) == {"a": [1.0, None], "b": None}
