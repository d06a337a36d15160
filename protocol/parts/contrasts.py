"""Contrasts: their declaration's check, their plan at a profile, the planned type.

A contrast names declared arms (two for a difference, four for an
interaction) and a known metric; at a profile its games are those every one
of its arms plays (an arm on a prefix sets them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analysis.games_table import DEFAULT_METRIC, METRICS
from protocol.claim import Claim
from protocol.parts.arm import PlannedArm
from protocol.parts.base import KeyCheck, names_of


def check_contrasts(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each contrast names declared arms, not one against itself, and a known metric."""
    arms = doc["arms"]
    for name, c in doc.get("contrasts", {}).items():
        kind = "difference" if "difference" in c else "interaction"
        pairs = [c["difference"]] if kind == "difference" else c["interaction"]
        for i, pair in enumerate(pairs):
            for j, arm in enumerate(pair):
                where = f"contrasts.{name}.{kind}" + (f"[{i}]" if kind == "interaction" else "")
                if arm not in arms:
                    chk.fail(f"{where}[{j}]", f"no arm {arm!r} (arms: {names_of(arms)})")
            if pair[0] == pair[1]:
                chk.fail(f"contrasts.{name}.{kind}", f"{pair[0]!r} against itself")
        if kind == "interaction" and sorted(pairs[0]) == sorted(pairs[1]):
            chk.fail(f"contrasts.{name}.interaction", "the two differences are the same arms")
        if "metric" in c and c["metric"] not in METRICS:
            chk.fail(f"contrasts.{name}.metric", f"unknown metric {c['metric']!r} (metrics: "
                     f"{', '.join(f'{m} ({u.unit})' for m, u in METRICS.items())})")


@dataclass(frozen=True)
class PlannedContrast:
    """A declared contrast at this profile's size."""

    name: str
    kind: str  # difference | interaction
    arms: tuple[str, ...]
    games: int
    title: str
    prefix_of: tuple[str, ...] = ()  # arms whose prefix sets ``games``
    metric: str = DEFAULT_METRIC  # what it compares game by game (analysis.games_table.METRICS)


def plan_contrasts(claim: Claim, arms: Mapping[str, PlannedArm], games: int
                   ) -> dict[str, PlannedContrast]:
    """Every contrast on the games all its arms play (an arm on a prefix sets them)."""
    out = {}
    for name, c in claim.contrasts.items():
        members = tuple(claim.contrast_arms(name))
        n = min(arms[a].games for a in members)
        prefix = tuple(a for a in members if arms[a].games == n) if n < games else ()
        kind = "difference" if "difference" in c else "interaction"
        out[name] = PlannedContrast(name, kind, members, n, c.get("title", name), prefix,
                             c.get("metric", DEFAULT_METRIC))
    return out
