"""The screen's arms: their declaration's check, their plan at a profile, the planned type.

An arm is checked by its kind (:mod:`protocol.arms`) and its leaf by
:mod:`protocol.parts.pins`; a profile may shrink a search's depth, strata and
reveal samples and an arm's prefix of the screen's games.  A
:class:`PlannedArm` is an arm as this profile plays it: its typed spec, its
games, their shards and seconds, what it reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contracts.panel_table import OUTCOME_REFERENCE
from engines.learners import get_learner
from engines.play.arm_specs import DEFAULT_STRATA, KF, Arm, PolicySpec
from protocol import costs
from protocol.arms import arm_spec, check_arm, decision_seconds, play_kind
from protocol.claim import Claim, declared_screen, is_pinned, pinned_path
from protocol.files import OutsideRootError, program_files
from protocol.parts.base import KeyCheck, ProfileSettings, dtag
from protocol.parts.direct_training import direct_files
from protocol.parts.pins import (
    Artefact,
    Pinned,
    check_leaf,
    plan_artefact,
    plan_pinned,
    played_leaf,
)
from protocol.parts.prune_weights import planned_prune
from protocol.paths import Paths
from protocol.schema import DeclarationError


def check_arms(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each arm by its kind, its leaf, its name and its games (no prefix without a screen, none
    longer than the screen)."""
    for name, arm in doc["arms"].items():
        key = f"arms.{name}"
        check_arm(arm, lambda sub, message, key=key: chk.fail(f"{key}.{sub}", message))
        if "leaf" in arm:
            check_leaf(arm["leaf"], f"{key}.leaf", doc, chk)
        if name == OUTCOME_REFERENCE:
            chk.fail(key, f"{OUTCOME_REFERENCE!r} is the panel table's name of an outcome "
                     "reference: give the arm another name")
        if "games" in arm and "screen" not in doc:
            chk.fail(f"{key}.games", "a claim without a screen plays only the panel's "
                     "roots.games games of its roots arm: no prefix")
        if arm.get("games", 0) > declared_screen(doc)["games"]:
            chk.fail(f"{key}.games", f"{arm['games']} is more than the screen's "
                     f"{declared_screen(doc)['games']} games")


@dataclass(frozen=True)
class PlannedArm:
    """One arm on one block: the arm (its name and typed spec, formatted once) and how this
    profile plays it: its games, their shards and estimated seconds, what it reads."""

    arm: Arm
    games: int
    shards: int
    seconds_per_game: float
    artefact: Artefact | None = None
    weights: str | None = None  # validation arms: the trained weights ...
    step: int | None = None  # ... and the checkpoint
    entries: int = 0  # table entries the leaf maps (0 for hand-written leaves)
    pinned: Pinned | None = None  # a leaf from a pinned file
    declared: str | None = None  # a search this profile shrank: its declared dDsS(rR)
    #: weights this claim trains by one job that the arm plays (a kf or q arm's ``weights``,
    #: an arm's ``leaf: {weights: NAME}``, :mod:`protocol.parts.direct_training`): their
    #: frozen file and record
    direct: tuple[str, str] | None = None

    @property
    def name(self) -> str:
        """The arm's name."""
        return self.arm.name

    @property
    def spec(self) -> PolicySpec:
        """The arm's typed spec."""
        return self.arm.spec

    @property
    def policy(self) -> str:
        """The policy as played (the spec's canonical string)."""
        return self.arm.policy

    @property
    def reveals(self) -> int | None:
        """Reveal samples per disc stratum of a factored search (None: the plain node)."""
        return getattr(self.arm.spec, "reveals", None)


def sharded(name: str, spec: PolicySpec, count: int, seconds: float, prof: ProfileSettings,
            who: str = "arm", unit: str = "game", **extra: Any) -> PlannedArm:
    """``count`` games (or roots) of a policy, ``seconds`` of CPU each, cut into shards of
    about the profile's ``job_minutes`` (at most :data:`protocol.costs.MAX_SHARDS`: the
    refusal names the ``who`` and its jobs' ``unit``)."""
    minutes = prof.profile["job_minutes"]
    shards = costs.shards_for(count, seconds, minutes)
    if shards > costs.MAX_SHARDS:
        prof.fail("job_minutes", f"{minutes} cuts {who} {name} into {shards:,} {unit} jobs; "
                  f"at most {costs.MAX_SHARDS:,} per {who.split()[-1]}")
    return PlannedArm(Arm(name, spec), count, shards, seconds, **extra)


#: the word of a shrink line that says an arm is searched otherwise than declared
SEARCH_SHRINK = "search"


def planned_arm(name: str, spec: PolicySpec, games: int, prof: ProfileSettings,
                **extra: Any) -> PlannedArm:
    """An arm as this profile plays ``games`` of it: their shards of about ``job_minutes`` and
    seconds a game."""
    return sharded(name, spec, games, costs.game_seconds(decision_seconds(spec)), prof,
                   **extra)


def search_shrink(name: str, now: str, was: str) -> str:
    """The shrink line of an arm the profile searches otherwise than declared (``now`` and
    ``was`` as ``d4s7``): the arm then plays another policy than the claim's."""
    return f"arm {name}: {SEARCH_SHRINK} {now} instead of {was}"


def is_search_shrink(line: str) -> bool:
    """Whether a shrink line is :func:`search_shrink`'s (an arm played as another search)."""
    return line.startswith("arm ") and f": {SEARCH_SHRINK} " in line


def played(claim: Claim, name: str, prof: ProfileSettings, claims: Mapping[str, Claim],
           paths: Paths, shrunk: list[str]) -> tuple[PolicySpec, dict[str, Any]]:
    """An arm's spec as this profile plays it (a search's shrink listed in ``shrunk``), and
    what it reads (``artefact``, ``pinned``, ``entries`` of :class:`PlannedArm`)."""
    a = claim.arms[name]
    played, extra = dict(a), {}
    if "strata" in play_kind(a["play"]).takes:  # a search: the profile may shrink it
        depth, strata = a.get("depth"), a.get("strata", DEFAULT_STRATA)
        reveals = a.get("reveals")
        depth_e, strata_e = prof.search(depth or 1, strata)
        depth_e = depth_e if depth is not None else None
        reveals_e = prof.reveals(reveals)
        if (depth_e, strata_e, reveals_e) != (depth, strata, reveals):
            was = (dtag(depth, strata, reveals) if depth
                   else dtag(0, strata, reveals)[2:])
            now = (dtag(depth_e, strata_e, reveals_e) if depth_e
                   else dtag(0, strata_e, reveals_e)[2:])
            shrunk.append(search_shrink(name, now, was))
            extra["declared"] = was
        played.update(depth=depth_e, strata=strata_e, reveals=reveals_e)
    if "command" in play_kind(a["play"]).takes:  # a program: its files, relative and pinned
        try:
            command, pins = program_files(a["command"])
        except OutsideRootError as exc:
            raise DeclarationError(f"{claim.path}: key arms.{name}.command[{exc.args[1]}]: "
                                   f"{exc.args[0]}") from None
        played.update(command=list(command), pins=pins)
    kf_file = (plan_kf_file(claim, f"arms.{name}.weights", a.get("weights"))
               if play_kind(a["play"]).kind == KF else None)
    if isinstance(a.get("weights"), str) and a["weights"] in claim.direct:
        weights, record = direct_files(claim, a["weights"], paths)
        played["weights"] = {"trained": weights.rpartition("/")[0], "frozen": weights}
        extra["direct"] = (weights, record)
    if "prune" in a:  # its prior's weights as policy text, trained ones waited for
        played["prune"], reads = planned_prune(claim, name, paths)
        if reads is not None:
            extra["direct"] = reads
    if kf_file is not None:
        played["weights"] = {"file": kf_file.path, "sha256": kf_file.sha256}
        extra["pinned"] = kf_file
    leaf = a.get("leaf")
    if isinstance(leaf, Mapping) and "claim" not in leaf and leaf.get("weights") in claim.direct:
        weights, record = direct_files(claim, leaf["weights"], paths)
        kind = get_learner(claim.direct[leaf["weights"]]["train"]["learner"])
        extra["direct"] = (weights, record)
        return arm_spec(played, kind.leaf_spec(weights)), {
            "artefact": None, "pinned": None,
            "entries": kind.entries(claim.direct[leaf["weights"]]["train"].get("target")),
            **extra}
    pinned = plan_pinned(claim, f"arms.{name}.leaf", leaf)
    artefact = (plan_artefact(leaf, claim, claims, prof.profile, paths)
                if isinstance(leaf, Mapping) and not pinned else None)
    return arm_spec(played, played_leaf(leaf, artefact, pinned)), {
        "artefact": artefact, "pinned": pinned,
        "entries": artefact.entries if artefact else pinned.entries if pinned else 0, **extra}


def plan_kf_file(claim: Claim, key: str, weights: Any) -> Pinned | None:
    """A kf arm's pinned weights file ``{file, sha256}`` (its hash and length are checked
    before any job, :func:`protocol.checks.pinned_files`), or None for a named vector."""
    if not is_pinned(weights):
        return None
    from engines.filters.kf_weights import FEATURES, KF_FILE

    try:
        path = pinned_path(claim, weights["file"])
    except OutsideRootError as exc:
        raise DeclarationError(f"{claim.path}: key {key}.file: {exc}") from None
    return Pinned(path, weights["sha256"], KF_FILE, len(FEATURES), key)


def plan_screen_arms(claim: Claim, prof: ProfileSettings, games: int, claims: Mapping[str, Claim],
                     paths: Paths, shrunk: list[str]) -> dict[str, PlannedArm]:
    """The arms that play the screen's games, each on its (shrunk) prefix of the ``games``."""
    out = {}
    for name, a in claim.screen_arms.items():
        spec, reads = played(claim, name, prof, claims, paths, shrunk)
        declared = a.get("games", claim.screen["games"])
        cap = "prefix_games" if "games" in a else None
        n = min(prof.size(("arms", name, "games"), cap, declared), games)
        if n < min(declared, games):
            shrunk.append(f"arm {name}: plays the first {n} of the screen's seeds (declared: "
                          f"{declared})")
        out[name] = planned_arm(name, spec, n, prof, **reads)
    return out


def pairing_notes(claim: Claim, arms: Mapping[str, PlannedArm],
                  groups: Mapping[str, Sequence[str]],
                  played_as: Mapping[str, str] | None = None) -> list[str]:
    """What a profile's shrink did to arms read against each other (``groups``: ``what ->
    its arms``, e.g. a contrast's or a panel's): two declared arms now playing one policy, and
    a search it shrank read against an arm it cannot shrink (an external program, whose own
    search a profile never sees, or a baseline), which is no longer the declared pair."""
    out = []
    for what, names in groups.items():
        by_policy: dict[str, list[str]] = {}
        for n in names:
            by_policy.setdefault(arms[n].policy, []).append(n)
        for policy, same in by_policy.items():
            if len(same) > 1:
                out.append(f"{what}: {' and '.join(same)} play one policy in this profile "
                           f"({policy}): reading one against the other compares it with "
                           "itself")
        cut = [n for n in names if arms[n].declared]
        kept = [n for n in names
                if n in claim.arms and "strata" not in play_kind(claim.arms[n]["play"]).takes]
        if cut and kept:
            shallower = ", ".join(f"{n} searches shallower than declared ({arms[n].declared})"
                                  for n in cut)
            as_declared = ", ".join(f"{n} ({claim.arms[n]['play']})" for n in kept)
            out.append(f"{what}: {shallower}, but {as_declared} plays as declared (a profile "
                       "shrinks only our own searches): the pair is not the declared one")
    return out


def check_artefact_pins(claim: Claim, arms: list[PlannedArm]) -> None:
    """Arms that read one artefact may not pin it to different hashes."""
    pins: dict[str, tuple[str, str]] = {}
    for a in arms:
        name = a.name
        if a.artefact is None or a.artefact.sha256 is None:
            continue
        other = pins.setdefault(a.artefact.key, (name, a.artefact.sha256))
        if other[1] != a.artefact.sha256:
            raise DeclarationError(f"{claim.path}: key arms.{name}.leaf.sha256: pins "
                                   f"{a.artefact.key} to another hash than arm {other[0]} does")
