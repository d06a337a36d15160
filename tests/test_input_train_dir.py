"""``drop7 train`` output directories: ``--resume`` without a usable ``latest`` goes on from
the newest complete state (checking what it writes again), and the debris of a killed write
is removed by the next run (which then gives the same tables)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_train_cli import _sha, _train

from contracts.atomic import LINK_TEMP, atomic_dir, temp_path
from contracts.train_directory import LATEST, resume_dir, step_dir


class _KilledError(Exception):
    """The write is cut short here (the process is 'killed')."""


def _killed_write(path: Path) -> Path:
    """What a write killed halfway leaves: the folder the real writer
    (:func:`contracts.atomic.atomic_dir`) builds in, part-written, as another (dead)
    process's."""
    with pytest.raises(_KilledError), atomic_dir(path) as tmp:
        (tmp / "tables.npy").write_bytes(b"\0" * 4096)
        dead = tmp.with_name(tmp.name.replace(str(os.getpid()), "4242"))
        assert dead != tmp
        shutil.copytree(tmp, dead)
        raise _KilledError
    return dead


def test_resume_without_latest_goes_on_from_the_newest_state_or_zero(tmp_path, capsys) -> None:
    """A run killed between a checkpoint and its resume state (simulated by removing the state
    and ``latest``) resumes from what is complete, says so in one line, and gives the tables
    of an uninterrupted run; segments (no ``latest``) resume from their newest state."""
    fresh = tmp_path / "fresh"
    assert _train(fresh, 300, 300, "--resume") == 0  # an absent directory starts fresh
    assert _train(tmp_path / "once", 900, 300) == 0
    run = tmp_path / "run"
    assert _train(run, 600, 300) == 0
    before = {s: _sha(run / f"step-{s}") for s in (300, 600)}
    capsys.readouterr()
    (run / "latest").unlink()
    shutil.rmtree(resume_dir(run, 600))  # no state at all: from zero
    assert _train(run, 900, 300, "--resume") == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "no latest link" in line]
    assert len(lines) == 1 and "going on from zero" in lines[0] and str(run) in lines[0], err
    assert {s: _sha(run / f"step-{s}") for s in (300, 600)} == before
    assert _sha(run / "step-900") == _sha(tmp_path / "once" / "step-900")
    assert (run / "latest").resolve() == resume_dir(run, 900).resolve()

    seg = tmp_path / "seg"  # segments keep their states and make no latest
    assert _train(seg, 300, 300, "--start", "0") == 0
    assert _train(seg, 600, 300, "--start", "300") == 0
    os.symlink("resume-999", seg / "latest")  # dangling
    capsys.readouterr()
    assert _train(seg, 900, 300, "--resume") == 0
    err = capsys.readouterr().err
    assert f"going on from {resume_dir(seg, 600)}" in err and "dangling" in err, err
    assert "resumed at 600 moves" in err
    assert _sha(seg / "step-900") == _sha(tmp_path / "once" / "step-900")


def test_resume_refuses_a_checkpoint_written_again_that_differs(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert _train(run, 600, 300) == 0
    (run / "latest").unlink()
    shutil.rmtree(resume_dir(run, 600))
    manifest = json.loads((run / "step-300" / "manifest.json").read_text())
    manifest["sha256"] = "0" * 64  # the checkpoint there is not what this run writes
    (run / "step-300" / "manifest.json").write_text(json.dumps(manifest))
    tables = (run / "step-300" / "tables.npy.zst").read_bytes()
    capsys.readouterr()
    assert _train(run, 900, 300, "--resume") == 2
    err = capsys.readouterr().err.splitlines()
    assert "error" in err[-1] and "step-300" in err[-1] and "written again" in err[-1], err
    assert (run / "step-300" / "tables.npy.zst").read_bytes() == tables  # left as it was
    assert not (run / "step-900").exists()


def test_the_next_run_removes_a_killed_writes_debris(tmp_path, capsys) -> None:
    assert _train(tmp_path / "clean", 600, 300) == 0
    dirty = tmp_path / "dirty"
    dirty.mkdir()
    debris = [_killed_write(step_dir(dirty, 300)), _killed_write(resume_dir(dirty, 300))]
    link = temp_path(LINK_TEMP, dirty / LATEST, pid=4242)  # replace_symlink's name
    os.symlink("resume-300", link)
    debris.append(link)
    capsys.readouterr()
    assert _train(dirty, 600, 300) == 0  # debris is not output: a fresh run proceeds
    err = capsys.readouterr().err
    for path in debris:
        assert f"removing {path}" in err
        assert not path.is_symlink() and not path.exists()
    assert sorted(p.name for p in dirty.iterdir()) == ["latest", "resume-600", "step-300",
                                                      "step-600"]
    for step in ("step-300", "step-600"):
        assert _sha(dirty / step) == _sha(tmp_path / "clean" / step)
    # a resumed run cleans up too
    _killed_write(step_dir(dirty, 900))
    assert _train(dirty, 900, 300, "--resume") == 0
    assert sorted(p.name for p in dirty.iterdir()) == ["latest", "resume-900", "step-300",
                                                      "step-600", "step-900"]


def test_a_segment_removes_its_own_debris_only(tmp_path, capsys) -> None:
    assert _train(tmp_path / "once", 600, 300) == 0
    seg = tmp_path / "seg"
    seg.mkdir()
    own = [_killed_write(step_dir(seg, 600)), _killed_write(resume_dir(seg, 300))]
    other = _killed_write(step_dir(seg, 1200))  # a later segment's: not this one's to judge
    assert _train(seg, 600, 300, "--start", "0") == 0
    assert not any(p.exists() for p in own) and other.exists()
    assert _sha(seg / "step-600") == _sha(tmp_path / "once" / "step-600")
