"""The page's section of weights an arm plays by name, by the learner's ``curve`` kind: each
kf-q weights' curve (the greedy policy against random play, paired, at every checkpoint), its
health and its frozen hash; each ridge-q fit's report and its frozen hash."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KfQSection:
    """One kf-q weights as the page shows it: its curve file's document and its frozen record."""

    name: str
    curve: dict[str, Any]
    record: dict[str, Any]

    @classmethod
    def from_json(cls, name: str, curve: Mapping[str, Any],
                  record: Mapping[str, Any]) -> KfQSection:
        """A section from ``drop7 kf-train``'s ``curve.json`` and ``frozen.json``."""
        return cls(name, dict(curve), dict(record))

    @property
    def points(self) -> list[dict[str, Any]]:
        """The curve's points, the start (``games`` 0) first."""
        return list(self.curve["points"])

    @property
    def problems(self) -> list[str]:
        """What is wrong with the learning (empty: healthy): a weight that is not finite, a
        last checkpoint that does not live longer than its start, or not longer than random
        play by two standard errors of the paired delta."""
        first, last = self.points[0], self.points[-1]
        out = [f"a weight is not finite at {p['games']:,} games"
               for p in self.points if not p["health"]["finite"]][:1]
        if last["greedy_moves"] <= first["greedy_moves"]:
            out.append(f"the last checkpoint lives {last['greedy_moves']:.2f} moves, no longer "
                       f"than its start ({first['greedy_moves']:.2f})")
        if last["delta_moves"] <= 2 * last["delta_se"]:
            out.append(f"the last checkpoint is not shown longer-lived than random play "
                       f"({last['delta_moves']:+.2f} moves, se {last['delta_se']:.2f})")
        return out


@dataclass(frozen=True)
class RidgeFitSection:
    """One ridge-q fit as the page shows it: its name and its weights directory's manifest (the
    fit's report under ``fit``, the frozen SHA-256 under ``sha256``)."""

    name: str
    manifest: dict[str, Any]

    @property
    def fit(self) -> dict[str, Any]:
        """The fit's report: roots, rows, games, lambda, target, top-1 in sample and by half."""
        return dict(self.manifest["fit"])
