"""A sequential screen: its declaration's check, its looks at a profile, the planned type.

A screen with ``looks`` stops on the contrast of its one ``screen`` reading,
plays every arm on every look (no prefix) and has a design that keeps its
error rate (:mod:`analysis.sequential.screen`), built once by the check; a
profile gives its own looks or scales the declared ones to a shrunk
screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from analysis.sequential.design import SequentialDesign
from analysis.sequential.screen import design_key, design_of, scale_screen
from protocol import costs
from protocol.claim import Claim, declared_screen
from protocol.parts.arm import PlannedArm
from protocol.parts.base import KeyCheck, ProfileSettings

#: why a sequential screen refuses an arm on a prefix (declaration and profile)
NO_PREFIX = "a sequential screen plays every arm on every look's seeds: no arm on a prefix"


def sequential_contrast(doc: Mapping[str, Any]) -> str | None:
    """The contrast a sequential screen stops on (its one ``screen`` reading's); None for a
    fixed screen (or none)."""
    if "looks" not in declared_screen(doc):
        return None
    return next(r["contrast"] for r in doc["readings"].values() if r["kind"] == "screen")


def check_sequential(doc: dict[str, Any], chk: KeyCheck) -> SequentialDesign | None:
    """A sequential screen: one screen reading to stop on, every arm on every look, a design
    that keeps its error rate (analysis.sequential.screen); the design, built once here."""
    screen = declared_screen(doc)
    if "looks" not in screen:
        for key in ("spending", "futility"):
            if key in screen:
                chk.fail(f"screen.{key}", "given without screen.looks (a screen without "
                         "looks is the fixed one)")
        return None
    screens = [n for n, r in doc["readings"].items() if r["kind"] == "screen"]
    if len(screens) != 1:
        chk.fail("screen.looks", f"a sequential screen stops on the contrast of exactly one "
                 f"screen reading; this claim has {len(screens)} ({', '.join(screens) or 'none'})")
    for name, arm in doc["arms"].items():
        if "games" in arm:
            chk.fail(f"arms.{name}.games", NO_PREFIX)
    try:
        return design_of(screen, screen["games"])
    except ValueError as exc:
        chk.fail(f"screen.{design_key(exc)}", str(exc).split(": ", 1)[-1])
        raise  # not reached: fail raises


@dataclass(frozen=True)
class Sequential:
    """A sequential screen in this profile: the contrast it stops on, its looks (game counts of
    the block), its design's declaration, every arm's games of each look (the seeds from
    the previous look's count to this look's), and the design, built once from the
    declaration (the declared one when the profile keeps the looks) and handed to every job
    that reads it (the look and contrast jobs, the records' rebuild)."""

    contrast: str
    looks: tuple[int, ...]
    screen: dict[str, Any]  # the declaration's screen (spending, futility)
    arms: tuple[dict[str, PlannedArm], ...]  # per look
    design: SequentialDesign

    def spec(self) -> dict[str, Any]:
        """JSON-ready: the design as the looks' summary and the records write it."""
        keys = ("spending", "futility")
        return {"contrast": self.contrast, "looks": list(self.looks),
                "screen": {k: self.screen[k] for k in keys if k in self.screen}}

    def offsets(self, k: int) -> tuple[int, int]:
        """``(first, count)`` of look ``k``'s new games within the block (1-based)."""
        first = self.looks[k - 2] if k > 1 else 0
        return first, self.looks[k - 1] - first


def plan_sequential(claim: Claim, prof: ProfileSettings, games: int, arms: Mapping[str, PlannedArm],
                    shrunk: list[str]) -> Sequential | None:
    """A sequential screen at this profile's size: the declared looks, the profile's
    (``claims.<id>.screen.looks``), or the declared ones scaled to a shrunk screen."""
    screen, key = claim.screen, f"claims.{claim.id}.screen.looks"
    given = prof.over.get("screen", {}).get("looks")
    contrast = sequential_contrast(claim.doc)
    if contrast is None:
        if given is not None:
            prof.fail(key, f"claim {claim.id} declares no looks (a fixed screen)")
        return None
    for name, over in prof.over.get("arms", {}).items():
        if "games" in over:
            prof.fail(f"claims.{claim.id}.arms.{name}.games", NO_PREFIX)
    spending = screen.get("spending")
    if given is not None:
        looks = tuple(given)
        if isinstance(spending, list) and len(given) != len(spending):
            prof.fail(key, f"claim {claim.id} spends its alpha as a list of {len(spending)} "
                      f"cumulative alphas, one per declared look: give {len(spending)} looks, "
                      "or none (the declared looks scaled, with their alphas)")
    elif games == screen["games"]:
        looks = tuple(screen["looks"])
    else:
        screen = scale_screen(screen, games)
        looks = tuple(screen["looks"])
    try:
        declared_design = claim.design
        design = (declared_design if declared_design is not None and screen is claim.screen
                  and (looks, games) == (declared_design.looks, declared_design.games)
                  else design_of(screen, games, looks))
        design.boundaries  # noqa: B018 (its bounds hold: checked before any job)
    except ValueError as exc:
        prof.fail(key, f"{exc} (looks {', '.join(map(str, looks))} of {games} games in this "
                  "profile)")
    declared = claim.screen
    if list(looks) != list(declared["looks"]):
        shrunk.append(f"screen looks: {', '.join(map(str, looks))} (declared: "
                      f"{', '.join(map(str, declared['looks']))})")
    if screen.get("spending") != spending:
        shrunk.append(f"screen spending: {', '.join(map(str, screen['spending']))} at those "
                      f"looks (declared: {', '.join(map(str, spending))})")
    per_look = []
    for k in range(len(looks)):
        count = looks[k] - (looks[k - 1] if k else 0)
        per_look.append({n: replace(a, games=count, shards=costs.shards_for(
            count, a.seconds_per_game, prof.profile["job_minutes"])) for n, a in arms.items()})
    return Sequential(contrast, looks, dict(screen), tuple(per_look), design)
