"""The validation of trained weights: its declaration's check and its plan at a profile.

A claim that trains declares a validation search and a comparator leaf;
every checkpoint plays that search against the comparator on the
validation seeds (:func:`plan_validation`), at a profile's games and
search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.learners import learner_leaf
from engines.play.arm_specs import SearchSpec
from protocol.claim import Claim, is_pinned, td_weights
from protocol.parts.arm import PlannedArm, planned_arm
from protocol.parts.base import KeyCheck, ProfileSettings, dtag
from protocol.parts.pins import check_leaf, plan_artefact, plan_pinned, played_leaf
from protocol.parts.training import Training
from protocol.paths import Paths


def check_validation(doc: dict[str, Any], chk: KeyCheck) -> None:
    """A claim that trains declares its validation; the comparator's leaf is checked as an
    arm's, and is pinned on an arm rather than here (no screen block opens for it)."""
    if td_weights(doc) and "validation" not in doc:
        chk.fail("validation", "a claim that trains weights must declare its validation search")
    if "validation" in doc and not td_weights(doc):
        chk.fail("validation", "no weights of this claim are validated (weights trained by one "
                 "job, a weight search's or a network's, have no validation search): drop the "
                 "block, which would never run")
    if "validation" in doc:
        comparator = doc["validation"]["comparator"]
        check_leaf(comparator, "validation.comparator", doc, chk)
        if isinstance(comparator, Mapping) and "sha256" in comparator and not is_pinned(
                comparator):
            chk.fail("validation.comparator.sha256", "a pin is checked where a screen block "
                     "opens, which the validation comparator never reaches: pin the artefact "
                     "on an arm that reads it")


def plan_validation(claim: Claim, prof: ProfileSettings, trained: Mapping[str, Training],
                    claims: Mapping[str, Claim], paths: Paths, shrunk: list[str]
                    ) -> tuple[int, dict[str, PlannedArm], str | None]:
    """The validation's games, its arms (the comparator and every checkpoint) and the
    comparator's name."""
    if not trained:
        return 0, {}, None
    v = claim.doc["validation"]
    games = prof.size(("validation", "games"), "validation_games", v["games"])
    if games != v["games"]:
        shrunk.append(f"validation: {games} of the declared {v['games']} games")
    depth, strata = prof.search(v["search"]["depth"], v["search"]["strata"])
    if (depth, strata) != (v["search"]["depth"], v["search"]["strata"]):
        shrunk.append(f"validation search: {dtag(depth, strata)} instead of "
                      f"{dtag(v['search']['depth'], v['search']['strata'])}")
    tag, profile = dtag(depth, strata), prof.profile
    comp = v["comparator"]
    pinned = plan_pinned(claim, "validation.comparator", comp)
    artefact = (None if isinstance(comp, str) or pinned
                else plan_artefact(comp, claim, claims, profile, paths))
    comp_name = (f"{comp}-{tag}" if isinstance(comp, str)
                 else f"pinned-{pinned.sha256[:8]}-{tag}" if pinned
                 else f"{artefact.claim}-{artefact.weights}-{tag}")
    leaf = played_leaf(comp, artefact, pinned)
    arms = {comp_name: planned_arm(comp_name, SearchSpec("search", leaf, depth, strata), games,
                                   prof, artefact=artefact, pinned=pinned,
                                   entries=artefact.entries if artefact else
                                   pinned.entries if pinned else 0)}
    for t in trained.values():
        for step in t.steps:
            name = f"{t.name}-step{step}-{tag}"
            leaf = learner_leaf(t.learner, t.checkpoint(step))
            arms[name] = planned_arm(name, SearchSpec("search", leaf, depth, strata),
                                     games, prof, weights=t.name, step=step, entries=t.entries)
    return games, arms, comp_name
