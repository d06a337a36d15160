"""The set-up files agree: pyproject.toml, environment.yml, the README and CI."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# conda names of PyPI packages where they differ
CONDA_NAMES = {"matplotlib": "matplotlib-base", "snakemake": "snakemake-minimal"}


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~ \[]", r, maxsplit=1)[0].lower() for r in requirements}


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _names(project["dependencies"] + project["optional-dependencies"]["test"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = _names([d for d in env["dependencies"] if isinstance(d, str)])
    missing = {n for n in wanted if CONDA_NAMES.get(n, n) not in conda}
    assert not missing, f"environment.yml lacks {sorted(missing)}"
    extra = conda - {CONDA_NAMES.get(n, n) for n in wanted} - {"python", "pip"}
    assert not extra, f"environment.yml has {sorted(extra)} that pyproject.toml does not"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.search(r"```\n(.*?)\n```", readme, re.S).group(1).splitlines()
    assert len(commands) == 2 and "snakemake --cores all" in commands[0]
    assert commands[1].endswith("pytest")
    assert commands[1] in (ROOT / ".ci" / "run").read_text()
