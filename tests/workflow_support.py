"""Helpers of the workflow tests: the repo's paths and running Snakemake in a scratch directory."""

from __future__ import annotations

import csv
import os
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
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=snakemake_env())


def games_rows(path: Path) -> list[dict[str, str]]:
    """A games table's rows without the machine-dependent wall time."""
    with open(path, newline="") as fh:
        return [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(fh)]
