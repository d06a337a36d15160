"""The source state a run records: what the run itself writes does not make the tree dirty."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol.provenance import git_state, written_by_runs

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_the_reports_and_the_ledger_do_not_make_the_tree_dirty(tmp_path) -> None:
    repo = tmp_path / "repo"
    for name in ("reports/pilot/c.json", "data/screen-ledger.json", "engines/x.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("0\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    written = written_by_runs("data/screen-ledger.json")
    clean = git_state(repo, written)
    assert len(clean["commit"]) == 40 and clean["dirty"] is False
    (repo / "reports/pilot/c.json").write_text("1\n")
    (repo / "data/screen-ledger.json").write_text("1\n")
    assert git_state(repo, written)["dirty"] is False
    assert git_state(repo)["dirty"] is True  # without them, any change counts
    (repo / "engines/x.py").write_text("1\n")
    assert git_state(repo, written)["dirty"] is True


def test_a_dirty_tree_records_the_sha256_of_its_diff(tmp_path) -> None:
    repo = tmp_path / "repo"
    (repo / "engines").mkdir(parents=True)
    (repo / "engines/x.py").write_text("0\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    assert git_state(repo)["diff_sha256"] is None  # clean: nothing to hash
    (repo / "engines/x.py").write_text("1\n")
    diff = subprocess.run(["git", "-C", str(repo), "diff", "HEAD", "--binary", "--", "."],
                          check=True, capture_output=True).stdout
    state = git_state(repo)
    assert state["dirty"] is True
    assert state["diff_sha256"] == hashlib.sha256(diff).hexdigest() and diff
