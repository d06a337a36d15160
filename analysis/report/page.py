"""The claim report: one self-contained HTML page per claim and profile, and the index.

:class:`ClaimRun` holds what one claim's run produced: the plan's description
of the claim and its verdict (:mod:`analysis.report.model`), its contrasts
(:class:`~analysis.contrast.Contrast`) and training health
(:class:`~analysis.health.TrainingHealth`) as types read back from their
JSON, the gates, curves, frozen records and ledger files as their JSON, the
screen's games table when the block was opened, with each arm's summary
computed once (:attr:`ClaimRun.arms`), and a ranking panel's readings
(:class:`~analysis.report.panel_model.PanelSection`); :func:`build_figures`
draws every figure written beside the page, :func:`build_panel_figures` the
panel section's, :func:`render_claim` renders the page with the figures
embedded as base64 PNGs (no server, no external files), :func:`run_summary`
is the line the index lists, and :func:`render_index` lists every claim and
every report found under ``reports/``.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from analysis.contrast import Contrast
from analysis.health import TrainingHealth
from analysis.metrics import figure_text
from analysis.report import figures as fig
from analysis.report.kf_q_model import KfQSection, RidgeFitSection
from analysis.report.learner_curves import LearnerCurveSection
from analysis.report.model import ArmSummary, ClaimDescription, Verdict, arm_summaries
from analysis.report.panel_figures import agreement_figure, ranker_figure
from analysis.report.panel_model import PanelSection, reading_plots
from analysis.report.replay_model import ReplaySection
from analysis.sequential.screen import exceeded_error
from contracts.atomic import atomic_write
from contracts.cli_numbers import seed_hex

#: figure names, in page order, with their headings
FIGURES = {
    "training_health": "Training health",
    "validation_curve": "Validation curve",
    "training_throughput": "Training throughput",
    "paired_deltas": "Paired deltas and their bounds",
    "score_distributions": "Score distributions per arm",
    "halves": "Split halves",
    "operating_characteristic": "Operating characteristic of the screen",
}
SCREEN_FIGURES = ("paired_deltas", "score_distributions", "halves", "operating_characteristic")
#: the names of the panel section's figures: one per panel reading, and the agreement
PANEL_FIGURE = "panel-{}"
PANEL_AGREEMENT = "panel-agreement"
#: the contrast statistics the register's recorded figures may give, with their labels
RECORDED_KEYS = {"mean_delta": "mean delta", "bootstrap_lb": "bootstrap LB",
                 "bootstrap_ub": "bootstrap UB", "t_lb": "t LB", "sd_delta": "paired sd",
                 "halves": "halves", "wins_ties_losses": "W-T-L"}


@dataclass
class ClaimRun:
    """Everything one claim's run produced (``opened`` is None when the screen stayed closed)."""

    plan: ClaimDescription
    profile: dict[str, Any]
    gate: dict[str, Any]
    verdict: Verdict
    provenance: dict[str, Any]
    curves: dict[str, dict[str, Any]] = field(default_factory=dict)
    health: dict[str, TrainingHealth] = field(default_factory=dict)
    manifests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    frozen: dict[str, dict[str, Any]] = field(default_factory=dict)
    opened: dict[str, Any] | None = None
    closed: dict[str, Any] | None = None
    hashes: dict[str, Any] = field(default_factory=dict)
    contrasts: dict[str, Contrast] = field(default_factory=dict)
    games: pd.DataFrame | None = None
    #: register records: name, path and href (the record as a data: URI, or None)
    records: list[dict[str, str | None]] = field(default_factory=list)
    #: the ranking panel's readings (None: the claim has no panel, or it was not read)
    panel: PanelSection | None = None
    #: the register's published games of an arm replayed game for game (None: none declared)
    replay: ReplaySection | None = None
    #: weights trained by the Klein-Friedmann Q-learner: their curves, health and hashes
    kf_q: list[KfQSection] = field(default_factory=list)
    #: one-ply Q weights the claim fits (learner ridge-q): their reports and hashes
    fits: list[RidgeFitSection] = field(default_factory=list)
    #: weights a weight search or a network learner trains: their curves, recipes and hashes
    learners: list[LearnerCurveSection] = field(default_factory=list)
    #: what the page says of its declaration (edited since its block was opened; one's own in
    #: place of a shipped one): :func:`protocol.disclosure.declaration_notes`
    notes: list[str] = field(default_factory=list)

    @property
    def claim(self) -> str:
        """The claim's id."""
        return self.plan.id

    @property
    def profile_name(self) -> str:
        """The profile's name."""
        return str(self.profile["profile"])

    @property
    def screened(self) -> bool:
        """True when the screen block was opened and played."""
        return self.opened is not None and self.games is not None

    @property
    def reused(self) -> bool:
        """True when the block had been read before by another opener."""
        return bool(self.opened and self.opened.get("reused"))

    @property
    def unhealthy(self) -> dict[str, list[str]]:
        """``weights -> findings`` of every trained weights whose training health is flagged."""
        return {name: h.problems for name, h in self.health.items() if h.problems}

    def not_opened(self) -> str:
        """Why the screen block stayed closed."""
        return f"screen block {self.plan.block} not opened: {self.gate.get('reason', '')}"

    @cached_property
    def arms(self) -> list[ArmSummary]:
        """Every screen arm's summary, computed once (none when the screen stayed closed)."""
        return arm_summaries(self.plan, self.games)

    @property
    def exceeded(self) -> list[str]:
        """What the page says at its top of each sequential screen whose simulated type I error
        exceeds its declared alpha beyond Monte Carlo error."""
        out = []
        for name, c in self.contrasts.items():
            seq = c.sequential
            said = seq and exceeded_error(name, seq.design["alpha"], seq.operating)
            if said:
                out.append(said)
        return out

    @property
    def pair_means(self) -> dict[str, tuple[float, float]]:
        """The means over a contrast's pairs that are no arm's summary: an interaction's two
        differences, and the arms of a contrast read on a prefix of the block."""
        return {name: (c.mean_candidate, c.mean_baseline)
                for name, c in self.contrasts.items()
                if c.kind == "interaction" or self.plan.contrasts[name].prefix_of}


def write_public(path: str | Path, data: str | bytes) -> Path:
    """Write a report file atomically, readable by everyone (reports are for reading)."""
    target = atomic_write(path, data)
    os.chmod(target, 0o644)
    return target


def _frozen_steps(run: ClaimRun) -> dict[str, int]:
    own = f"{run.claim}/"
    return {k[len(own):]: int(r["step"]) for k, r in run.frozen.items()
            if k.startswith(own) and "step" in r}  # a table edit's record has no step


def build_figures(run: ClaimRun) -> dict[str, bytes]:
    """Every figure of the page as PNG bytes (placeholders where there is no data)."""
    out: dict[str, bytes] = {}
    out["training_health"] = (fig.training_health(run.health) if run.health else
                              fig.placeholder(FIGURES["training_health"],
                                              "this claim reads no trained weights"))
    if run.curves:
        out |= {"validation_curve": fig.validation_curve(run.curves, frozen=_frozen_steps(run)),
               "training_throughput": fig.training_throughput(run.manifests)}
    else:
        out |= {name: fig.placeholder(FIGURES[name], "this claim trains no weights")
                for name in ("validation_curve", "training_throughput")}
    if run.screened and run.contrasts:
        assert run.games is not None
        first = next(iter(run.contrasts))
        out["paired_deltas"] = fig.paired_deltas(run.games, run.contrasts, first)
        out["score_distributions"] = fig.score_distributions(
            run.games, fig.metric_of(run.contrasts[first])[0])
        out["halves"] = fig.halves(run.contrasts)
        name, c = next(((n, c) for n, c in run.contrasts.items() if c.oc), (None, None))
        if c is not None and c.oc is not None:
            title = (f"{name}: P(screen passes) (n = {c.oc['n']}, "
                     f"{c.oc['n_sims']:,} simulated screens)")
            out["operating_characteristic"] = fig.operating_characteristic(
                c.oc, title, fig.metric_of(c)[0])
        else:
            out["operating_characteristic"] = fig.placeholder(
                FIGURES["operating_characteristic"], "no contrast of this claim is screened")
    else:
        why = ("this claim declares no contrast (its games give the panel's roots)"
               if run.screened else run.not_opened())
        for name in SCREEN_FIGURES:
            out[name] = fig.placeholder(FIGURES[name], why)
    return out


def build_panel_figures(run: ClaimRun) -> dict[str, bytes]:
    """The panel section's figures as PNG bytes: one per panel reading that reads a figure
    (:data:`PANEL_FIGURE`; every ranker, the threshold dashed) and the agreement of the
    rankers' choices (none when the panel was not read)."""
    panel = run.panel
    if panel is None:
        return {}
    out = {}
    for name, (figure, ranker, threshold) in reading_plots(panel, run.plan.readings).items():
        out[PANEL_FIGURE.format(name)] = ranker_figure(
            figure, panel.reading_figures(figure, ranker), threshold, panel.reference)
    if panel.agreement_names:
        out[PANEL_AGREEMENT] = agreement_figure(panel.agreement_names,
                                                np.array(panel.agreement))
    return out


def _num(x: Any, signed: bool = False, digits: int = 0) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, list | tuple):
        return " / ".join(_num(v, signed, digits) for v in x)
    return f"{x:{'+' if signed else ''},.{digits}f}"


def _panel_num(x: float | None) -> str:
    """A panel figure: three decimals below 10 (fractions, tau), one below 100, else whole
    with thousands separated (points, work)."""
    if x is None or not np.isfinite(x):
        return "-"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.3f}"


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("analysis.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda x, digits=0: _num(x, False, digits)
    env.filters["snum"] = lambda x, digits=0: _num(x, True, digits)
    env.filters["short"] = lambda s, n=12: "-" if not s else str(s)[:n]
    env.filters["seedhex"] = seed_hex
    env.filters["pnum"] = _panel_num
    # a figure in a metric's units at its precision (analysis.metrics): value | mnum(metric)
    env.filters["mnum"] = lambda x, metric, at_least=0: figure_text(x, metric, False, at_least)
    env.filters["msnum"] = lambda x, metric, at_least=0: figure_text(x, metric, True, at_least)
    return env


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def run_summary(run: ClaimRun, page: str) -> dict[str, Any]:
    """What the index lists for this claim's run (also written beside the page as JSON)."""
    first = next(iter(run.contrasts.values()), None)
    return {
        "claim": run.claim, "title": run.plan.title, "profile": run.profile_name,
        "page": page, "block": run.plan.block, "shrunk": bool(run.plan.shrunk),
        "verdict": run.verdict.verdict, "tier": run.verdict.tier,
        "reason": run.verdict.reason, "outcomes": run.verdict.outcomes,
        "screened": run.screened, "reused": run.reused,
        "training_health": {name: not h.problems for name, h in run.health.items()},
        "hashes": run.opened["hashes"] if run.opened else {},
        "contrast": first and {"candidate": first.candidate, "baseline": first.baseline,
                               "n": first.n, "mean_delta": first.mean_delta,
                               "unit": fig.metric_of(first)[1], "metric": first.metric},
        "commit": run.provenance.get("commit"), "generated_utc": _now(),
    }


def render_claim(run: ClaimRun, figures: Mapping[str, bytes] | None = None) -> str:
    """The self-contained HTML page of one claim's run."""
    pngs = dict(build_figures(run) if figures is None else figures)
    if run.panel is not None and not any(k.startswith(PANEL_FIGURE.format("")) for k in pngs):
        pngs.update(build_panel_figures(run))
    images = {k: base64.b64encode(v).decode("ascii") for k, v in pngs.items()}
    plots = reading_plots(run.panel, run.plan.readings) if run.panel else {}
    template = _environment().get_template("claim.html.j2")
    return template.render(
        run=run, plan=run.plan, verdict=run.verdict, gate=run.gate, frozen=run.frozen,
        opened=run.opened, closed=run.closed, hashes=run.hashes, contrasts=run.contrasts,
        arms=run.arms, pair_means=run.pair_means, curves=run.curves, health=run.health,
        panel=run.panel, replay=run.replay, kf_q=run.kf_q, fits=run.fits,
        learners=run.learners,
        panel_plots=plots,
        panel_figure=PANEL_FIGURE,
        panel_agreement=PANEL_AGREEMENT,
        prov=run.provenance, figures=FIGURES,
        images=images, recorded=run.plan.recorded, recorded_keys=RECORDED_KEYS,
        units={name: fig.metric_of(c) for name, c in run.contrasts.items()},
        not_opened=None if run.screened else run.not_opened(), generated=_now(),
        profile_text=json.dumps(run.profile, indent=2, sort_keys=True),
        declaration_text=json.dumps(run.plan.declaration, indent=2),
    )


def record_link(path: Path) -> dict[str, str | None]:
    """A register record as the page links it: the record itself embedded (the page stays
    self-contained); the per-game rows, too large to embed, by their path alone."""
    href = None
    if path.suffix == ".json":
        href = "data:application/json;base64," + base64.b64encode(path.read_bytes()).decode()
    return {"name": path.name, "path": str(path), "href": href}


_RECORDS = re.compile(r"<h2>Register records</h2>\n<p>.*?</p>", re.S)
#: the ledger's completion line as pages write it now, and as pages written before wrote it
_COMPLETION = re.compile(
    r'<span class="completion">Complete:.*?\.</span>|Complete: \d+ games, table SHA-256 '
    r'<span class="mono">[0-9a-f-]+</span>(?:; <b>a later run of the same opener produced a '
    r'different table</b> \(<span class="mono">[0-9a-f]+</span>\))?\.', re.S)


def refresh_page(html: str, records: list[dict[str, str | None]],
                 closed: Mapping[str, Any] | None) -> str:
    """A rendered claim page with its register records' list and its ledger's completion line
    written again (``closed``: ``games``, ``table_sha256`` of the games shown and the block's
    ``entries``; None: no screen).  Each part must be found once."""
    parts = _environment().get_template("parts.html.j2").module
    out, found = _RECORDS.subn(lambda _: str(parts.records(records)), html)
    if found != 1:
        raise ValueError(f"the page has {found} register-records sections, not one")
    if closed is not None:
        (block,) = closed["entries"]
        out, found = _COMPLETION.subn(lambda _: str(parts.completion(closed, block)), out)
        if found != 1:
            raise ValueError(f"the page has {found} ledger completion lines, not one")
    return out


def find_summaries(reports_dir: str | Path) -> list[dict[str, Any]]:
    """Every claim's run summary (``reports/<profile>/<claim>.json``), newest first."""
    out = []
    for path in sorted(Path(reports_dir).glob("*/*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and "verdict" in doc and "claim" in doc:
            doc["href"] = path.with_suffix(".html").relative_to(reports_dir).as_posix()
            out.append(doc)
    out.sort(key=lambda d: (d.get("generated_utc", ""), d["profile"], d["claim"]), reverse=True)
    return out


def render_index(claims: Mapping[str, Mapping[str, Any]], summaries: Sequence[Mapping[str, Any]],
                 ledgers: Mapping[str, Mapping[int, Sequence[Mapping[str, Any]]]] | None = None
                 ) -> str:
    """``reports/index.html``: every declared claim with its verdict in each profile, every
    report found, and the ledgers' blocks.

    ``claims`` maps a claim id to its title and declaration path; ``ledgers``
    maps a ledger's path to its blocks (:func:`protocol.ledger.opened_blocks`).
    """
    latest: dict[tuple[str, str], Mapping[str, Any]] = {}
    for s in summaries:  # newest first: keep the first of each (claim, profile)
        latest.setdefault((s["claim"], s["profile"]), s)
    profiles = sorted({p for _, p in latest})
    template = _environment().get_template("index.html.j2")
    shown = {path: dict(sorted(blocks.items())) for path, blocks in (ledgers or {}).items()}
    return template.render(claims=claims, latest=latest, profiles=profiles, runs=summaries,
                           ledgers=shown, generated=_now())
