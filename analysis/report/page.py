"""The screen report: one self-contained HTML page per screen run, and the index.

:class:`ScreenRun` holds what a run produced (plain dicts read from its JSON
files, and the screen's games table when the screen was opened);
:func:`build_figures` draws every figure, :func:`render_screen` renders the
page with the figures embedded as base64 PNGs (no server, no external files),
:func:`run_summary` is the line the index lists, and :func:`render_index`
lists every run found under ``reports/``.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from analysis import atomic_write
from analysis.report import figures as fig

#: figure names, in page order, with their headings
FIGURES = {
    "validation_curve": "Validation curve",
    "training_throughput": "Training throughput",
    "paired_deltas": "Paired deltas and their bounds",
    "score_distributions": "Score distributions per arm",
    "halves": "Split halves",
    "operating_characteristic": "Operating characteristic of the screen",
}
SCREEN_FIGURES = ("paired_deltas", "score_distributions", "halves", "operating_characteristic")


@dataclass
class ScreenRun:
    """Everything one screen run produced (``opened`` is None when the gate failed)."""

    config: dict[str, Any]
    gate: dict[str, Any]
    curves: dict[str, dict[str, Any]]
    verdict: dict[str, Any]
    provenance: dict[str, Any]
    manifests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    frozen: dict[str, Any] | None = None
    opened: dict[str, Any] | None = None
    contrasts: dict[str, dict[str, Any]] = field(default_factory=dict)
    games: pd.DataFrame | None = None
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def profile(self) -> str:
        """The profile's name."""
        return str(self.config["profile"])

    @property
    def block(self) -> int:
        """The screen block."""
        return int(self.config["screen"]["block"])

    @property
    def screened(self) -> bool:
        """True when the screen block was opened and played."""
        return self.opened is not None and self.games is not None

    @property
    def reused(self) -> bool:
        """True when the block had been opened before for a different candidate."""
        return bool(self.opened and self.opened.get("reused"))


def write_public(path: str | Path, data: str | bytes) -> Path:
    """Write a report file atomically, readable by everyone (reports are for reading)."""
    target = atomic_write(path, data)
    os.chmod(target, 0o644)
    return target


def _not_opened(run: ScreenRun) -> str:
    return f"screen block {run.block} not opened: {run.gate.get('reason', 'training gate failed')}"


def build_figures(run: ScreenRun) -> dict[str, bytes]:
    """Every figure of the page as PNG bytes (placeholders when the screen was not opened)."""
    candidate = run.gate.get("weights") or next(iter(run.curves), "")
    out = {
        "validation_curve": fig.validation_curve(
            run.curves, candidate=candidate,
            frozen_step=run.frozen["step"] if run.frozen else None),
        "training_throughput": fig.training_throughput(run.manifests),
    }
    if run.screened and run.contrasts:
        assert run.games is not None
        out["paired_deltas"] = fig.paired_deltas(run.games, run.contrasts)
        out["score_distributions"] = fig.score_distributions(run.games)
        out["halves"] = fig.halves(run.contrasts)
        primary = run.contrasts.get("primary", {})
        if primary.get("oc"):
            title = (f"{primary['candidate']} vs {primary['baseline']}: P(screen passes) "
                     f"(n = {primary['oc']['n']}, {primary['oc']['n_sims']:,} simulated screens)")
            out["operating_characteristic"] = fig.operating_characteristic(primary["oc"], title)
        else:
            out["operating_characteristic"] = fig.placeholder(
                FIGURES["operating_characteristic"], "not computed for this run")
    else:
        for name in SCREEN_FIGURES:
            out[name] = fig.placeholder(FIGURES[name], _not_opened(run))
    return out


def _arm_rows(run: ScreenRun) -> list[dict[str, Any]]:
    if run.games is None:
        return []
    rows = []
    for arm, g in run.games.groupby("arm", sort=False):
        s = g["score"].to_numpy(float)
        rows.append({
            "arm": arm, "policy": run.arms.get(arm, {}).get("policy", g["policy"].iloc[0]
                                                             if "policy" in g else ""),
            "games": int(s.size), "mean": float(s.mean()), "median": float(np.median(s)),
            "q25": float(np.quantile(s, 0.25)), "q75": float(np.quantile(s, 0.75)),
            "moves": float(g["moves"].mean()) if "moves" in g else None,
            "censored": int(g["censored"].astype(float).sum()) if "censored" in g else None,
            "illegal": int(g["illegal"].sum()) if "illegal" in g else None,
            "unfinished": int(g["unfinished"].sum()) if "unfinished" in g else None,
            "wall_s": float(g["wall_s"].sum()) if "wall_s" in g else None,
        })
    return rows


def _num(x: Any, signed: bool = False, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    return f"{x:{'+' if signed else ''},.{digits}f}"


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("analysis.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda x, digits=0: _num(x, False, digits)
    env.filters["snum"] = lambda x, digits=0: _num(x, True, digits)
    env.filters["short"] = lambda s, n=12: "-" if not s else str(s)[:n]
    return env


def run_summary(run: ScreenRun, page: str) -> dict[str, Any]:
    """What the index lists for this run (also written beside the page as JSON)."""
    primary = run.contrasts.get("primary")
    return {
        "profile": run.profile, "block": run.block, "page": page,
        "description": run.config.get("description", ""),
        "registered_budget": bool(run.config.get("registered_budget")),
        "verdict": run.verdict["verdict"], "tier": run.verdict["tier"],
        "reason": run.verdict["reason"],
        "criteria": {c["key"]: c["status"] for c in run.verdict["criteria"]},
        "screened": run.screened, "reused": run.reused,
        "candidate": run.frozen.get("weights") if run.frozen else run.gate.get("weights"),
        "sha256": run.frozen.get("sha256") if run.frozen else None,
        "mean_delta": primary["mean_delta"] if primary else None,
        "n": primary["n"] if primary else None,
        "commit": run.provenance.get("commit"),
        "generated_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ"),
    }


def render_screen(run: ScreenRun, figures: Mapping[str, bytes] | None = None) -> str:
    """The self-contained HTML page of one screen run."""
    pngs = build_figures(run) if figures is None else figures
    images = {k: base64.b64encode(v).decode("ascii") for k, v in pngs.items()}
    template = _environment().get_template("screen.html.j2")
    return template.render(
        run=run, cfg=run.config, verdict=run.verdict, gate=run.gate, frozen=run.frozen,
        opened=run.opened, contrasts=run.contrasts, arms=_arm_rows(run),
        curves=run.curves, prov=run.provenance, figures=FIGURES, images=images,
        not_opened=None if run.screened else _not_opened(run),
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ"),
        config_text=json.dumps(run.config, indent=2, sort_keys=True),
    )


def find_summaries(reports_dir: str | Path) -> list[dict[str, Any]]:
    """Every run summary (``reports/<profile>/screen-<block>.json``), newest first."""
    out = []
    for path in sorted(Path(reports_dir).glob("*/screen-*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and "verdict" in doc:
            doc["href"] = path.with_suffix(".html").relative_to(reports_dir).as_posix()
            out.append(doc)
    out.sort(key=lambda d: (d.get("generated_utc", ""), d["profile"], d["block"]), reverse=True)
    return out


def render_index(summaries: Sequence[Mapping[str, Any]],
                 ledgers: Mapping[str, Mapping[int, Sequence[Mapping[str, Any]]]] | None = None
                 ) -> str:
    """``reports/index.html``: every screen run with its verdict, and the ledgers' blocks.

    ``ledgers`` maps a ledger's path to its blocks (:func:`analysis.ledger.opened_blocks`).
    """
    template = _environment().get_template("index.html.j2")
    shown = {path: dict(sorted(blocks.items())) for path, blocks in (ledgers or {}).items()}
    return template.render(runs=summaries, ledgers=shown,
                           generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ"))
