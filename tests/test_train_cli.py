"""``drop7 train``: outputs, resume == uninterrupted, and the exit-2 refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engines import weights_files as storage
from engines.ntuple.layouts import get_layout
from engines.ntuple.storage import load_ntuple
from engines.train.trainer import NtupleLearner, SeedRange, Trainer

SEEDS = "0x1000000000000000:1000000"


def _train(out: Path, moves: int, every: int, *extra: str) -> int:
    return main(["train", "--layout", "T1", "--moves", str(moves), "--every", str(every),
                 "--seeds", SEEDS, "--out", str(out), "--log-every", "1000", *extra])


def _sha(directory: Path) -> str:
    return json.loads((directory / "manifest.json").read_text())["sha256"]


def test_outputs_manifests_and_loadable_tables(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert _train(out, 1500, 600) == 0
    assert sorted(p.name for p in out.iterdir()) == ["latest", "resume-1500", "step-1200",
                                                       "step-1500", "step-600"]
    captured = capsys.readouterr()
    facts = json.loads(captured.out)
    assert facts["moves_trained"] == 1500 and facts["layout"] == "T1"
    values, layout, manifest = load_ntuple(out / "step-1500")
    assert "3 checkpoints to write, up to" in captured.err  # logged before training
    for key in ("layout", "moves_trained", "games_trained", "seeds", "config_hash", "sha256",
                "wall_s", "moves_per_s", "entries", "dtype"):
        assert key in manifest
    assert manifest["seeds"] == {"start": 0x1000000000000000, "count": 1000000,
                                 "first_game": 0}
    assert values.dtype == np.float32 and values.shape == (layout.entries,)
    changed = values != np.float32(layout.initial_entry)
    assert 0 < changed.sum() < layout.entries


def test_disk_need_counts_compressed_tables_and_two_resume_states(tmp_path: Path) -> None:
    layout = get_layout("A")
    trainer = Trainer(NtupleLearner(layout), SeedRange(0, 10), tmp_path)
    # measured at 2e7 moves: 42.5 MB of values, 130 MB of state (docs/training.md, Files)
    need = trainer.disk_need([2 * 10**7])
    assert 42_500_000 + 130_000_000 < need < 0.5e9  # the raw files were 1.92 + 5.76 GB
    pilot = trainer.disk_need([10**7, 2 * 10**7])
    assert pilot == sum(storage.packed_bound(raw, s * 74, k) for s in (10**7, 2 * 10**7)
                        for raw, k in ((layout.entries * 4, storage.PACKED_STEP_K),
                                       (layout.entries * 12, storage.PACKED_STATE_K)))
    # a long training is bounded by the raw sizes (4-byte values, 12-byte states) and a little
    raw = 2 * layout.entries * 4 + 2 * layout.entries * 12
    long = trainer.disk_need([5 * 10**8, 10**9])
    assert raw < long <= raw + raw // 1000 + 4 * storage.PACKED_SLACK
    # the bound grows with the updates, continuously past the measured range
    k, u = storage.PACKED_STEP_K, storage.PACKED_MEASURED_UPDATES
    assert 0 <= storage.packed_bound(10**12, u + 1, k) - storage.packed_bound(10**12, u, k) <= 2
    assert storage.packed_bound(10**12, 4 * u, k) - storage.PACKED_SLACK == pytest.approx(
        4 * (storage.packed_bound(10**12, u, k) - storage.PACKED_SLACK), abs=4)


def test_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    assert _train(tmp_path / "once", 2000, 700) == 0
    assert _train(tmp_path / "twice", 900, 700) == 0       # stops at 900 (not a multiple)
    assert _train(tmp_path / "twice", 2000, 700, "--resume") == 0
    for step in ("step-1400", "step-2000"):
        assert _sha(tmp_path / "once" / step) == _sha(tmp_path / "twice" / step)
    once = json.loads((tmp_path / "once" / "latest" / "manifest.json").read_text())["files"]
    twice = json.loads((tmp_path / "twice" / "latest" / "manifest.json").read_text())["files"]
    assert once["vals"] == twice["vals"] and once["acc"] == twice["acc"]


def _exit_and_line(capsys, argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err[-1] if err else ""


@pytest.mark.parametrize("argv, message", [
    (["--layout", "F", "--moves", "10"], "unknown layout"),
    (["--layout", "null", "--moves", "10"], "no tuples"),
    (["--layout", "T1", "--moves", "0"], "--moves"),
    (["--layout", "T1", "--moves", "10", "--every", "0"], "--every"),
    (["--layout", "T1", "--moves", "10", "--seeds", "5"], "START:COUNT"),
    (["--layout", "T1", "--moves", "10", "--seeds=-1:5"], "START:COUNT"),
    (["--layout", "T1", "--moves", "10", "--alpha", "2"], "alpha"),
])
def test_bad_input_exits_2(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    code, line = _exit_and_line(capsys, ["train", *argv, "--out", str(tmp_path / "o")])
    assert code == 2 and message in line and line.startswith("drop7 train: error:")
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_existing_output_is_never_overwritten(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert _train(out, 300, 300) == 0
    before = _sha(out / "step-300")
    code, line = _exit_and_line(capsys, ["train", "--layout", "T1", "--moves", "300",
                                         "--seeds", SEEDS, "--out", str(out)])
    assert code == 2 and "--resume" in line
    # resuming under another config (alpha) is refused too
    code, line = _exit_and_line(capsys, ["train", "--layout", "T1", "--moves", "600",
                                         "--seeds", SEEDS, "--alpha", "0.5", "--out", str(out),
                                         "--resume"])
    assert code == 2 and "another config" in line
    assert _sha(out / "step-300") == before and not (out / "step-600").exists()


def test_evaluate_refuses_a_truncated_table(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert _train(out, 200, 200) == 0
    tables = out / "step-200" / "tables.npy.zst"
    with open(tables, "r+b") as fh:
        fh.truncate(tables.stat().st_size - 8)
    assert main(["evaluate", str(out / "step-200"), "--games", "2"]) == 2
    assert "truncated" in capsys.readouterr().err


def test_evaluate_plays_and_reports(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert _train(out, 300, 300) == 0
    assert main(["evaluate", str(out / "step-300"), "--games", "6"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["games"] == 6 and result["random"]["mean"] > 0
    assert -1.0 <= result["value_return_corr"] <= 1.0


def test_segments_equal_an_uninterrupted_run_and_leave_other_states(tmp_path: Path) -> None:
    assert _train(tmp_path / "once", 1800, 600) == 0
    seg = tmp_path / "seg"
    for start, end in ((0, 600), (600, 1200), (1200, 1800)):
        assert _train(seg, end, 600, "--start", str(start)) == 0
    for step in (600, 1200, 1800):
        assert _sha(seg / f"step-{step}") == _sha(tmp_path / "once" / f"step-{step}")
    # a segment prunes nothing and points no latest: the caller keeps what it needs
    assert sorted(p.name for p in seg.iterdir()) == [
        "resume-1200", "resume-1800", "resume-600", "step-1200", "step-1800", "step-600"]
    # a segment from a state that does not exist is one line, exit 2
    assert _train(tmp_path / "seg2", 1200, 600, "--start", "600") == 2
    assert _train(seg, 600, 600, "--start", "600") == 2  # --start must be below --moves
