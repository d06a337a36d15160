"""``drop7 tables edit``: the zeroed and class-mean edits on hand-made tables with known
answers (a bucketed layout's classes are per bucket), the written file and its hash, and
the refusals in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cli.main import main
from engines.ntuple.edits import edit_values
from engines.ntuple.layouts import get_layout
from engines.ntuple.storage import load_ntuple
from engines.weights_files import array_chunks, save_weights, stream_sha256

#: layout T1: two win32 tables of 10^6 patterns (slots 44 and 60), unphased; start 20/2
T1 = get_layout("T1")
W = 10**6


def _hand_tables() -> np.ndarray:
    """T1 at its start but four entries of table 0: pattern 0 (no disc) 1.0, patterns 1 and
    2 (one disc) 2.0 and 4.0, pattern 11 (two discs) 5.0; table 1 untouched."""
    values = np.full(T1.entries, np.float32(T1.initial_entry), dtype=np.float32)
    values[[0, 1, 2, 11]] = [1.0, 2.0, 4.0, 5.0]
    return values


def test_zeroed_edit_zeroes_every_untouched_entry() -> None:
    values = _hand_tables()
    out, counts = edit_values(values, T1, "zero-untouched")
    assert out[[0, 1, 2, 11]].tolist() == [1.0, 2.0, 4.0, 5.0]
    assert np.count_nonzero(out) == 4
    assert counts == {"untouched": 2 * W - 4, "changed": 2 * W - 4,
                      "classes_without_touched": 0}


def test_class_mean_edit_uses_the_touched_mean_of_the_same_table_and_occupancy() -> None:
    values = _hand_tables()
    out, counts = edit_values(values, T1, "class-mean")
    start = np.float32(T1.initial_entry)
    assert out[[0, 1, 2, 11]].tolist() == [1.0, 2.0, 4.0, 5.0]
    assert out[3] == 3.0 and out[100_000] == 3.0          # one disc: (2 + 4) / 2
    assert out[12] == 5.0 and out[900_009] == 5.0         # two discs: 5
    assert out[111] == start and out[999_999] == start    # three or more discs: none touched
    assert (out[W:] == start).all()                       # table 1: nothing touched
    # one-disc patterns 6 x 9 less the two touched, two-disc 15 x 81 less one
    assert counts == {"untouched": 2 * W - 4, "changed": 52 + 1214,
                      "classes_without_touched": 4 + 7}


def test_a_bucket_is_a_class_of_its_own() -> None:
    layout = get_layout("T1+hgt5")
    values = np.full(layout.entries, np.float32(layout.initial_entry), dtype=np.float32)
    copy = layout.entries // layout.buckets
    values[1], values[copy + 2] = 2.0, 6.0                 # table 0, one disc, buckets 0 and 1
    out, _ = edit_values(values, layout, "class-mean")
    assert out[10] == 2.0 and out[copy + 10] == 6.0
    assert out[2 * copy + 10] == np.float32(layout.initial_entry)


def _save(path: Path, values: np.ndarray, **extra) -> str:
    manifest = save_weights(path, values.shape, values.dtype, array_chunks(values),
                            {"kind": "ntuple", "layout": "T1", "entries": T1.entries, **extra})
    return manifest["sha256"]


def test_the_command_writes_a_table_file_with_its_hash(tmp_path: Path, capsys) -> None:
    source = tmp_path / "frozen"
    sha = _save(source, _hand_tables())
    assert main(["tables", "edit", str(source), "--class-mean", "--out",
                 str(tmp_path / "mean")]) == 0
    facts = json.loads(capsys.readouterr().out)
    values, layout, manifest = load_ntuple(tmp_path / "mean")
    assert layout is T1 and values[3] == 3.0
    assert facts["sha256"] == manifest["sha256"] == stream_sha256(tmp_path / "mean" /
                                                                  manifest["file"])
    assert manifest["edit"]["source_sha256"] == sha and manifest["edit"]["rule"] == "class-mean"
    assert facts["changed"] == 1266
    # the same source edits to the same bits
    assert main(["tables", "edit", str(source), "--class-mean", "--out",
                 str(tmp_path / "again")]) == 0
    assert json.loads(capsys.readouterr().out)["sha256"] == facts["sha256"]


def test_refusals_name_the_file_and_the_key(tmp_path: Path, capsys) -> None:
    warm = tmp_path / "warm"
    _save(warm, _hand_tables(), init={"path": "x", "sha256": "0" * 64})
    assert main(["tables", "edit", str(warm), "--zero-untouched", "--out",
                 str(tmp_path / "z")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{warm}/manifest.json: key init" in err
    assert not (tmp_path / "z").exists()
    assert main(["tables", "edit", str(warm), "--out", str(tmp_path / "z")]) == 2
    assert "--zero-untouched" in capsys.readouterr().err


def test_the_accumulators_of_the_same_step_confirm_the_untouched_entries(tmp_path: Path,
                                                                       capsys) -> None:
    """A real training's checkpoint and resume state: every entry whose accumulator A is 0
    is at the starting value; another step's state is refused in one line."""
    run = tmp_path / "run"
    assert main(["train", "--layout", "T1", "--moves", "3000", "--every", "1500", "--seeds",
                 "0x2000:1000", "--out", str(run), "--log-every", "1000"]) == 0
    capsys.readouterr()
    assert main(["tables", "edit", str(run / "step-3000"), "--zero-untouched", "--out",
                 str(tmp_path / "z"), "--state", str(run / "resume-3000")]) == 0
    facts = json.loads(capsys.readouterr().out)
    values, _, _ = load_ntuple(run / "step-3000")
    at_start = int((values == np.float32(T1.initial_entry)).sum())
    assert 0 < facts["untouched"] == at_start < T1.entries
    assert facts["accumulators"]["never_updated"] + facts["accumulators"][
        "updated_at_start"] == at_start
    assert main(["train", "--layout", "T1", "--moves", "4500", "--every", "1500", "--seeds",
                 "0x2000:1000", "--out", str(run), "--log-every", "1000", "--resume"]) == 0
    capsys.readouterr()
    assert main(["tables", "edit", str(run / "step-3000"), "--zero-untouched", "--out",
                 str(tmp_path / "z2"), "--state", str(run / "resume-4500")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "resume-4500: its tables are not the edited" in err


def test_the_workflow_form_writes_plain_tables_and_their_record(tmp_path: Path,
                                                                capsys) -> None:
    """``--plain --record --artefact --source-record``: what a claim's edit job runs.  The
    empty directory the workflow makes for its outputs is filled; the record names the
    artefact and holds the plain file's SHA-256; a source of another hash is refused in one
    line before anything is written."""
    from contracts.hashing import file_sha256
    from contracts.weights_dir import FORMAT_RAW, TABLES

    source, out, record = tmp_path / "frozen", tmp_path / "edits" / "zeroed", tmp_path / "r.json"
    sha = _save(source, _hand_tables())
    (tmp_path / "src.json").write_text(json.dumps({"sha256": sha, "gates_passed": False}))
    out.mkdir(parents=True)
    assert main(["tables", "edit", str(source), "--zero-untouched", "--out", str(out),
                 "--plain", "--record", str(record), "--artefact", "c/zeroed",
                 "--source-record", str(tmp_path / "src.json")]) == 0
    facts = json.loads(capsys.readouterr().out)
    rec = json.loads(record.read_text())
    # the source's failed gates go with the edit (the verdict reads them)
    assert rec == {"artefact": "c/zeroed", **facts, "gates_passed": False}
    assert rec["sha256"] == file_sha256(out / TABLES) and rec["source_sha256"] == sha
    assert rec["rule"] == "zero-untouched" and rec["changed"] == 2 * W - 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == FORMAT_RAW and manifest["sha256"] == rec["sha256"]
    values, _, _ = load_ntuple(out)
    assert np.count_nonzero(np.asarray(values)) == 4
    assert main(["tables", "edit", str(source), "--zero-untouched", "--out",
                 str(tmp_path / "other"), "--plain", "--source-sha256", "f" * 64]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{source}/manifest.json: key sha256: {sha}" in err
    assert not (tmp_path / "other").exists()
    # a directory that holds something is never overwritten
    assert main(["tables", "edit", str(source), "--zero-untouched", "--out", str(out),
                 "--plain"]) == 2
    assert "exists" in capsys.readouterr().err
