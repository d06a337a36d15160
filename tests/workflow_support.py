"""Helpers of the workflow tests: the repo's paths and running Snakemake in a scratch directory."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEFILE = REPO / "Snakefile"
sys.path.insert(0, str(REPO / "workflow" / "scripts"))

import plan  # noqa: E402, F401  (workflow/scripts: the workflow's plan)
import protocol  # noqa: E402, F401  (workflow/scripts: gate, freeze, validation curves)


def snakemake_env() -> dict[str, str]:
    """The environment of a Snakemake run: this interpreter's bin first (``drop7``)."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def snakemake(workdir: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run Snakemake on the repo's Snakefile with ``workdir`` as its working directory."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir),
           *args]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                            env=snakemake_env())
    result.workdir = Path(workdir)  # for failure_report
    return result


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
