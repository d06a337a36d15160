"""Provenance of a claim's run: what produced the numbers, so a reader can rerun them.

Collected at report time: the git commit (and whether the tree had local
changes), the hash of the profile and of the declaration, package versions,
the seed blocks read, the SHA-256 of every checkpoint and frozen artefact,
and times (training from the weights manifests, games from the games
tables, every job and every stage from Snakemake's benchmark files: wall and
CPU seconds, peak memory).
"""

from __future__ import annotations

import csv
import hashlib
import os
import platform
import subprocess
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from contracts.hashing import canonical_sha256
from protocol.paths import INDEX

PACKAGES = ("drop7-harness", "numpy", "numba", "scipy", "pandas", "matplotlib", "jinja2",
            "pyyaml", "jsonschema", "snakemake")


def written_by_runs(ledger: str | None) -> tuple[str, ...]:
    """What a run itself writes into the checkout, to be committed as a record: the reports
    (pages and bundles) and the ledger.  A run that opens a block always changes the ledger,
    so these say nothing about the source a run used."""
    return (str(Path(INDEX).parent), *([ledger] if ledger else []))


def git_state(repo: str | Path, written: Iterable[str] = ()) -> dict[str, Any]:
    """``{"commit": sha or None, "dirty": bool or None, "diff_sha256": ...}`` of the checkout
    at ``repo``; ``dirty`` leaves out the paths ``written`` (:func:`written_by_runs`), and
    ``diff_sha256`` (None when clean) is the SHA-256 of ``git diff HEAD --binary`` over the
    same paths: the local changes the run used (untracked files are not in it)."""

    def git(*args: str) -> str | None:
        raw = git_bytes(*args)
        return None if raw is None else raw.decode(errors="replace").strip()

    def git_bytes(*args: str) -> bytes | None:
        try:
            out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                                 timeout=30, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout

    commit = git("rev-parse", "HEAD")
    paths = ("--", ".", *(f":(exclude){w}" for w in written))
    status = git("status", "--porcelain", "--untracked-files=no", *paths)
    diff = git_bytes("diff", "HEAD", "--binary", *paths) if status else None
    return {"commit": commit, "dirty": None if status is None else bool(status),
            "diff_sha256": None if diff is None else hashlib.sha256(diff).hexdigest()}


def run_source(repo: str | Path, ledger: str | None) -> dict[str, Any]:
    """The checkout and the Snakemake command of the run this job belongs to: ``commit``,
    ``dirty`` (:func:`git_state`, leaving out :func:`written_by_runs`) and ``command``
    (:func:`invoking_command`)."""
    return {**git_state(repo, written_by_runs(ledger)), "command": invoking_command()}


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
    return canonical_sha256(cfg)


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


def _benchmarks(directory: str | Path) -> dict[str, dict[str, float]]:
    """Every job's last benchmark row under ``directory``: wall s, CPU s, peak RSS MB."""
    out: dict[str, dict[str, float]] = {}
    root = Path(directory)
    for path in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        if not rows or "s" not in rows[-1]:
            continue

        def number(key: str, row: dict[str, str] = rows[-1]) -> float:
            try:
                return float(row.get(key) or 0.0)
            except ValueError:
                return 0.0

        out[str(path.relative_to(root).with_suffix(""))] = {
            "wall_s": round(number("s"), 3), "cpu_s": round(number("cpu_time"), 3),
            "max_rss_mb": round(number("max_rss"), 1)}
    return out


def snakemake_words(words: list[str]) -> list[str] | None:
    """A process's command line from its ``snakemake`` word on, that word bare: the
    interpreter and the paths it was started by are this machine's, not the command's
    (None when no word of the first three is ``snakemake``)."""
    at = next((i for i, w in enumerate(words[:3]) if Path(w).name == "snakemake"), None)
    return None if at is None else ["snakemake", *words[at + 1:]]


def invoking_command(levels: int = 6) -> list[str] | None:
    """The command line of the nearest ancestor process running Snakemake
    (:func:`snakemake_words`; None when no ancestor within ``levels`` is one, or ``/proc``
    cannot be read)."""
    pid = os.getppid()
    for _ in range(levels):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        command = snakemake_words([a.decode(errors="replace") for a in args if a])
        if command is not None:
            return command
        pid = int(stat.rsplit(")", 1)[1].split()[1])
        if pid <= 1:
            return None
    return None


def job_times(directory: str | Path) -> dict[str, dict[str, float]]:
    """Every job's last benchmark row under ``directory`` (wall s, CPU s, peak RSS MB)."""
    return _benchmarks(directory)


def jobs_written(directory: str | Path) -> dict[str, dict[str, Any]]:
    """:func:`job_times` with the time each job's benchmark file was written (``written_utc``,
    RFC 3339): which run a job's figures belong to."""
    root = Path(directory)
    return {name: {**job, "written_utc": datetime.fromtimestamp(
                (root / f"{name}.tsv").stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
            for name, job in _benchmarks(directory).items()}


def stage_times(jobs: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Per stage (a job name's first part): jobs, summed wall and CPU seconds, peak RSS."""
    out: dict[str, dict[str, float]] = {}
    for name, job in jobs.items():
        stage = out.setdefault(name.split("/")[0], {"jobs": 0, "wall_s": 0.0, "cpu_s": 0.0,
                                                     "max_rss_mb": 0.0})
        stage["jobs"] += 1
        stage["wall_s"] = round(stage["wall_s"] + job["wall_s"], 3)
        stage["cpu_s"] = round(stage["cpu_s"] + job["cpu_s"], 3)
        stage["max_rss_mb"] = max(stage["max_rss_mb"], job["max_rss_mb"])
    return out


def collect(*, repo: str | Path, profile: Mapping[str, Any], declaration: Mapping[str, Any],
            seed_blocks: Mapping[str, Any], manifests: Iterable[Mapping[str, Any]] = (),
            frozen: Mapping[str, Mapping[str, Any]] | None = None,
            games: Iterable[str | Path] = (), benchmarks: str | Path | None = None,
            pinned: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Everything the report's provenance section shows, as one JSON-ready dict (``pinned``:
    the pinned files the claim reads, by declaration key: file, SHA-256, leaf kind)."""
    git = git_state(repo, written_by_runs(profile.get("ledger")))
    jobs = _benchmarks(benchmarks) if benchmarks else {}
    return {
        "commit": git["commit"],
        "dirty": git["dirty"],
        "config_hash": config_hash(profile),
        "declaration_hash": config_hash(declaration),
        "profile": profile.get("profile"),
        "packages": package_versions(),
        "seed_blocks": dict(seed_blocks),
        "weights": weights_record(manifests),
        "frozen": {k: dict(v) for k, v in (frozen or {}).items()},
        "pinned": {k: dict(v) for k, v in (pinned or {}).items()},
        "games_wall_s": games_wall(games),
        "jobs": jobs,
        "stages": stage_times(jobs),
    }
