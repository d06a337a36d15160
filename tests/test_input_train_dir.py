"""``drop7 train`` output directories: ``--resume`` without a usable ``latest`` is refused,
and the debris of a killed write is removed by the next run (which then gives the same
tables)."""

from __future__ import annotations

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


def test_resume_needs_a_latest_link_when_the_directory_holds_output(tmp_path, capsys) -> None:
    fresh = tmp_path / "fresh"
    assert _train(fresh, 300, 300, "--resume") == 0  # an absent directory starts fresh
    run = tmp_path / "run"
    assert _train(run, 300, 300) == 0
    before = _sha(run / "step-300")
    capsys.readouterr()
    (run / "latest").unlink()
    assert _train(run, 600, 300, "--resume") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no latest link" in err and str(run) in err, err
    os.symlink("resume-999", run / "latest")
    assert _train(run, 600, 300, "--resume") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "dangling" in err and "resume-999" in err, err
    assert not (run / "step-600").exists() and _sha(run / "step-300") == before


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
