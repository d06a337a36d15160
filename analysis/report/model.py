"""What crosses from the protocol to the claim page, as types.

The page (:mod:`analysis.report.page`) knows nothing of claims: the protocol
fills these types (:meth:`protocol.plan_model.ClaimPlan.description`,
:func:`protocol.verdict.decide`) and writes their JSON, the report job reads
them back with ``from_json``, and the page reads them by attribute.  Each
arm's summary is computed here once (:func:`arm_summaries`) and shown once,
in the page's arms table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from analysis.contrast import filter_summary
from analysis.games_table import filter_counts
from analysis.readings import Reading


@dataclass(frozen=True)
class TrainedPlan:
    """One trained weights of the claim at the profile's budget."""

    learner: str
    layout: str
    moves: int
    every: int
    steps: list[int]
    select: str  # how the frozen checkpoint is selected, in words
    init: dict[str, Any] | None = None  # a warm start: {artefact} or a pinned {file, sha256, ...}


@dataclass(frozen=True)
class ArmPlan:
    """One screen arm: the policy as played, its games and shards, the artefact it reads."""

    policy: str
    games: int
    shards: int
    artefact: str | None
    pinned: dict[str, Any] | None = None  # a leaf from a pinned file: {file, sha256, kind, ...}


@dataclass(frozen=True)
class ContrastPlan:
    """A declared contrast at the profile's size (``prefix_of``: arms playing a prefix)."""

    kind: str
    arms: list[str]
    games: int
    title: str
    prefix_of: list[str]


@dataclass(frozen=True)
class ValidationPlan:
    """The validation block: games, seeds ``[start, count]`` (empty: none), comparator, search."""

    games: int
    seeds: list[int]
    comparator: str | None
    search: dict[str, Any] | None


@dataclass(frozen=True)
class ClaimDescription:
    """A claim's plan in one profile, as the page shows it and the records hash it.

    ``readings``, ``gates``, ``verdict`` (the declared rules), ``recorded`` and
    ``declaration`` are the declaration's own data; ``sequential`` the
    sequential screen's spec (None: a fixed screen).
    """

    id: str
    title: str
    claim: str
    theory: str | None
    path: str
    block: int
    blocks: list[int]
    seeds: list[int]  # [first seed, count] of the screen
    label: str
    shares_block_of: str | None
    tier: str
    shrunk: list[str]
    limits: list[str]
    validation: ValidationPlan
    trained: dict[str, TrainedPlan]
    arms: dict[str, ArmPlan]
    contrasts: dict[str, ContrastPlan]
    sequential: dict[str, Any] | None
    readings: dict[str, Any]
    gates: list[str]
    verdict: dict[str, Any]
    recorded: dict[str, Any]
    declaration: dict[str, Any]
    pinned: dict[str, Any] | None = None  # every pinned file the claim reads, by key
    #: the ranking panel as planned (``protocol.plan_model.PlannedPanel.describe``); None: none
    panel: dict[str, Any] | None = None
    #: the arms the profile plays as other searches than declared (a proxy screen: its
    #: verdict is on those arms, not on the claim's theory); empty: none
    proxy: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: every field in order, nested plans as mappings; the optional ``init``,
        ``pinned`` and ``panel`` only where present (so a claim without them hashes as it
        did)."""
        doc = asdict(self)
        for part in (doc["trained"].values(), doc["arms"].values(), (doc,)):
            for d in part:
                for key in ("init", "pinned", "panel"):
                    if key in d and d[key] is None:
                        del d[key]
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ClaimDescription:
        """The description :meth:`to_json` wrote (``limits`` may be absent: none)."""
        return cls(**{
            **doc, "limits": list(doc.get("limits", [])), "theory": doc.get("theory"),
            "recorded": doc.get("recorded", {}),
            "validation": ValidationPlan(**doc["validation"]),
            "trained": {n: TrainedPlan(**t) for n, t in doc["trained"].items()},
            "arms": {n: ArmPlan(**a) for n, a in doc["arms"].items()},
            "contrasts": {n: ContrastPlan(**c) for n, c in doc["contrasts"].items()}})


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict (:mod:`protocol.verdict`): the decision, its reason and the rule
    that decided (None: none did), the evidence tier and what lowered it, every reading."""

    tier: str
    tier_lowered_by: list[str]
    readings: list[Reading]
    outcomes: dict[str, str]
    methodological_errors: list[str]
    verdict: str
    reason: str
    rule: int | None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready, in the verdict file's key order."""
        return asdict(self)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Verdict:
        """The verdict :meth:`to_json` wrote."""
        return cls(**{**doc, "readings": [Reading(**r) for r in doc["readings"]]})


@dataclass(frozen=True)
class ArmSummary:
    """One screen arm's games as the page shows them (``prefix``: it plays a prefix of the
    block; ``recorded``: the register's figures for the arm, if any)."""

    arm: str
    policy: str
    games: int
    prefix: bool
    mean: float
    median: float
    q25: float
    q75: float
    moves: float | None
    censored: int | None
    illegal: int | None
    unfinished: int | None
    wall_s: float | None
    recorded: dict[str, Any] = field(default_factory=dict)
    #: the arm's root filter over its games (:func:`analysis.contrast.filter_summary`; None:
    #: it has none)
    filter: dict[str, Any] | None = None


def summarise_arm(arm: str, planned: ArmPlan, games: pd.DataFrame, block_games: int,
                  recorded: dict[str, Any] | None = None) -> ArmSummary:
    """The summary of one arm's rows of a games table (``block_games``: the block's seeds)."""
    s = games["score"].to_numpy(float)
    return ArmSummary(
        arm=arm, policy=planned.policy, games=int(s.size), prefix=planned.games < block_games,
        mean=float(s.mean()), median=float(np.median(s)),
        q25=float(np.quantile(s, 0.25)), q75=float(np.quantile(s, 0.75)),
        moves=float(games["moves"].mean()) if "moves" in games else None,
        censored=int(games["censored"].astype(float).sum()) if "censored" in games else None,
        illegal=int(games["illegal"].sum()) if "illegal" in games else None,
        unfinished=int(games["unfinished"].sum()) if "unfinished" in games else None,
        wall_s=float(games["wall_s"].sum()) if "wall_s" in games else None,
        recorded=dict(recorded or {}), filter=filter_summary(filter_counts(games, arm)))


def arm_summaries(plan: ClaimDescription, games: pd.DataFrame | None) -> list[ArmSummary]:
    """Every screen arm that played, in the plan's order (none when the screen was closed)."""
    if games is None:
        return []
    recorded = plan.recorded.get("arms", {})
    out = []
    for arm, planned in plan.arms.items():
        rows = games[games["arm"] == arm]
        if not rows.empty:
            out.append(summarise_arm(arm, planned, rows, plan.seeds[1], recorded.get(arm)))
    return out
