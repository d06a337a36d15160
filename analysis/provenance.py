"""Provenance of a screen run: what produced the numbers, so a reader can rerun them.

Collected at report time: the git commit (and whether the tree had local
changes), the config hash, package versions, the seed blocks read, the
SHA-256 of every checkpoint and of the frozen weights, and wall times
(training from the weights manifests, games from the games tables, every
job from Snakemake's benchmark files when present).
"""

from __future__ import annotations

import csv
import hashlib
import json
import platform
import subprocess
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("drop7-harness", "numpy", "numba", "scipy", "pandas", "matplotlib", "jinja2",
            "pyyaml", "snakemake", "snakemake-executor-plugin-cluster-generic")


def git_state(repo: str | Path) -> dict[str, Any]:
    """``{"commit": sha or None, "dirty": bool or None}`` of the checkout at ``repo``."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                                 text=True, timeout=30, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip()

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str | None]:
    """Installed versions (None when absent), plus Python and the platform."""
    out: dict[str, str | None] = {"python": platform.python_version(),
                                  "platform": platform.platform()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def config_hash(cfg: Mapping[str, Any]) -> str:
    """SHA-256 of a config's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(cfg, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def weights_record(manifests: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One entry per weights manifest (a dict with its directory under ``path``):
    path, layout, moves, games, SHA-256, wall time, moves/s."""
    out = []
    for m in manifests:
        out.append({"path": m.get("path"), "layout": m.get("layout"),
                    "moves_trained": m.get("moves_trained"),
                    "games_trained": m.get("games_trained"), "sha256": m.get("sha256"),
                    "wall_s": m.get("wall_s"), "moves_per_s": m.get("moves_per_s")})
    return out


def games_wall(paths: Iterable[str | Path]) -> dict[str, dict[str, float]]:
    """Per arm: games played and the summed per-game wall seconds of games tables."""
    out: dict[str, dict[str, float]] = {}
    for path in paths:
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                arm = out.setdefault(row["arm"], {"games": 0, "wall_s": 0.0})
                arm["games"] += 1
                arm["wall_s"] += float(row.get("wall_s") or 0.0)
    return {k: {"games": v["games"], "wall_s": round(v["wall_s"], 3)} for k, v in out.items()}


def benchmark_walls(directory: str | Path) -> dict[str, float]:
    """Wall seconds of every job with a Snakemake benchmark TSV under ``directory``."""
    out: dict[str, float] = {}
    root = Path(directory)
    for path in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        if rows and "s" in rows[-1]:
            out[str(path.relative_to(root).with_suffix(""))] = round(float(rows[-1]["s"]), 3)
    return out


def collect(*, repo: str | Path, cfg: Mapping[str, Any], seed_blocks: Mapping[str, Any],
            manifests: Iterable[Mapping[str, Any]] = (), frozen: Mapping[str, Any] | None = None,
            games: Iterable[str | Path] = (), benchmarks: str | Path | None = None
            ) -> dict[str, Any]:
    """Everything the report's provenance section shows, as one JSON-ready dict."""
    git = git_state(repo)
    return {
        "commit": git["commit"],
        "dirty": git["dirty"],
        "config_hash": config_hash(cfg),
        "profile": cfg.get("profile"),
        "packages": package_versions(),
        "seed_blocks": dict(seed_blocks),
        "weights": weights_record(manifests),
        "frozen": dict(frozen) if frozen else None,
        "games_wall_s": games_wall(games),
        "job_wall_s": benchmark_walls(benchmarks) if benchmarks else {},
    }
