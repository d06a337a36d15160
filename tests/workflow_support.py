"""Helpers of the workflow tests: running Snakemake in a scratch directory, reading its results."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.paths import VALIDATION
from protocol.plan import load_plan
from protocol.plan_model import Plan

REPO = Path(__file__).resolve().parents[1]
SNAKEFILE = REPO / "Snakefile"


def snakemake_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a Snakemake run (``base``, else this process's): this interpreter's
    bin first (``drop7``)."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def snakemake(workdir: Path, *args: str, timeout: float = 900,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run Snakemake on the repo's Snakefile with ``workdir`` as its working directory."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir),
           *args]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                            env=snakemake_env(env))
    result.workdir = Path(workdir)  # for failure_report
    return result


def ok(result: subprocess.CompletedProcess, *extra: Path) -> None:
    """Fail the test with :func:`failure_report` unless the Snakemake run succeeded."""
    if result.returncode != 0:
        pytest.fail(failure_report(result, *extra), pytrace=False)


def drop_tables(work: Path) -> None:
    """Remove a run's gigabytes of tables (pytest keeps recent temporary directories)."""
    for path in (work / "results").rglob("*.npy"):
        path.unlink()


def failure_report(result: subprocess.CompletedProcess, *extra: Path, tail: int = 1500) -> str:
    """What a failed Snakemake run says: its own output's end, then the end of every job log
    it names (``log: ...``) and of the ``extra`` files, and the free disk space."""
    text = result.stdout + result.stderr
    parts = [f"snakemake exit {result.returncode}; its output ends:\n{text[-3000:]}"]
    workdir = getattr(result, "workdir", Path.cwd())
    logs = dict.fromkeys(workdir / m for m in re.findall(r"^\s*log: (\S+)", text, re.M))
    for path in [*logs, *extra]:
        try:
            body = path.read_text(errors="replace")[-tail:]
        except OSError as exc:
            body = f"(unreadable: {exc})"
        parts.append(f"--- {path}:\n{body}")
    free = shutil.disk_usage(workdir).free / 1e9
    parts.append(f"--- free disk at {workdir}: {free:.1f} GB")
    return "\n".join(parts)


def games_rows(path: Path) -> list[dict[str, str]]:
    """A games table's rows without the machine-dependent wall time."""
    with open(path, newline="") as fh:
        return [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(fh)]


def plan_of(profile: str = "smoke", **overrides: object) -> Plan:
    """The plan of a profile (what the workflow runs)."""
    return load_plan(REPO, {"profile": profile, **overrides})


def load(path: Path) -> object:
    """A JSON file's content."""
    return json.loads(Path(path).read_text())


def compare_runs(plan: Plan, a: Path, b: Path) -> None:
    """Assert that two runs of ``plan`` in work directories ``a`` and ``b`` gave the same results:
    every checkpoint's and frozen artefact's SHA-256, every games table (wall time aside), every
    contrast and every verdict."""
    paths = plan.paths
    for c in plan.run:
        p = plan.claims[c]
        for t in p.trained.values():
            for step in t.steps:
                manifest = Path(t.checkpoint(step), "manifest.json")
                assert load(a / manifest)["sha256"] == load(b / manifest)["sha256"], manifest
        for art in p.artefacts.values():
            assert load(a / art.record)["sha256"] == load(b / art.record)["sha256"], art.record
        tables = [paths.path("games", claim=c, block=VALIDATION, arm=arm)
                  for arm in p.validation_arms]
        tables.append(paths.path("table", claim=c, block=p.label))
        for table in tables:
            assert games_rows(a / table) == games_rows(b / table), table
        for name in p.contrasts:
            path = paths.path("contrast", claim=c, block=p.label, contrast=name)
            assert load(a / path) == load(b / path), path
        verdict = paths.path("verdict", claim=c)
        assert load(a / verdict) == load(b / verdict), verdict
