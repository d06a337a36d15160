"""A claim's replay of the register's published games of one arm (``recorded.replay``).

The replay follows the register, not the preregistration: it sits under ``recorded``,
outside the protocol and declaration hashes (:data:`protocol.disclosure.FOLLOWS_THE_REGISTER`),
and decides no reading.  It plays the arm's *declared* search (the published games are of
the declared player, so a profile's shrunk depth or strata would replay another player) with
the register's sampling, on the published seeds; a profile only caps how many games
(``shrink.replay_games``, ``claims.<id>.replay_games``).  Everything is checked before any
job: the arm, its kind, no ``reveals``, the games file, its SHA-256 and its policy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contracts.hashing import file_sha256, hash_mismatch, sha256_problem
from contracts.register_games import RegisterGamesError, read_published
from engines.play.arm_specs import DEFAULT_STRATA, REGISTER_POLICY_SEED, SearchSpec, parse_sampling
from protocol import costs
from protocol.arms import play_kind
from protocol.claim import Claim
from protocol.files import OutsideRootError, run_relative
from protocol.parts.arm import PlannedArm
from protocol.parts.base import KeyCheck, ProfileSettings, names_of

KEY = "recorded.replay"
#: the arm kinds the register's sampling plays (a search or a direct arm)
REPLAYED_KINDS = ("search", "direct")


def check_replay(doc: dict[str, Any], chk: KeyCheck) -> None:
    """A declared replay names a declared search or direct arm without ``reveals`` (the
    register's sampling has no factored chance node) and a well-formed SHA-256."""
    replay = doc.get("recorded", {}).get("replay")
    if replay is None:
        return
    arm = doc["arms"].get(replay["arm"])
    if arm is None:
        chk.fail(f"{KEY}.arm", f"{replay['arm']!r} is not a declared arm "
                 f"({names_of(doc['arms'])})")
    elif play_kind(arm["play"]).kind not in REPLAYED_KINDS:
        chk.fail(f"{KEY}.arm", f"{replay['arm']} is a {arm['play']} arm: the register's "
                 "games replay only a search or direct arm")
    elif "reveals" in arm:
        chk.fail(f"{KEY}.arm", f"{replay['arm']} declares reveals, which the register's "
                 "sampling refuses (it has no factored chance node)")
    problem = sha256_problem(replay["sha256"])
    if problem:
        chk.fail(f"{KEY}.sha256", problem)
    try:  # as the run reads it and the page shows it (protocol.files)
        replay["games"] = run_relative(replay["games"])
    except OutsideRootError as exc:
        chk.fail(f"{KEY}.games", str(exc))


@dataclass(frozen=True)
class PlannedReplay:
    """A claim's replay as this profile runs it: the arm, the policy that replays (its
    declared search with the register's sampling), the games file as the run reads it and
    its pin, the register result the games belong to, and how many games (None: all)."""

    arm: str
    policy: str
    games_file: str
    sha256: str
    result: str
    limit: int | None
    published: int

    @property
    def path(self) -> str:
        """Where the run reads the games file: as written, else the repository's (a shipped
        file, found as a shipped pinned leaf is, :func:`engines.pinned_leaf.locate`)."""
        from engines.pinned_leaf import locate

        return str(locate(self.games_file))

    @property
    def games(self) -> int:
        """The games replayed."""
        return self.published if self.limit is None else self.limit

    def seconds(self) -> float:
        """Estimated CPU seconds of the replay (the cost model's, at the declared search)."""
        from engines.play.policy_grammar import parse_policy
        from protocol.arms import decision_seconds

        return self.games * costs.game_seconds(decision_seconds(parse_policy(self.policy)))


def plan_replay(claim: Claim, prof: ProfileSettings,
                planned: Mapping[str, PlannedArm]) -> PlannedReplay | None:
    """The claim's declared replay (None: none), its games file read and checked against
    its SHA-256 and the arm's policy (``planned``: the claim's planned arms by name, whose
    resolved leaf the replay plays)."""
    from engines.pinned_leaf import locate

    replay = claim.doc.get("recorded", {}).get("replay")
    if replay is None:
        return None
    chk = KeyCheck(claim.path)
    name = replay["arm"]
    if name not in planned:
        chk.fail(f"{KEY}.arm", f"{name} plays no games in this claim (its arms that do: "
                 f"{names_of(planned)})")
    declared = claim.arms[name]
    spec = planned[name].spec
    assert isinstance(spec, SearchSpec)
    spec = dataclasses.replace(
        spec, depth=declared.get("depth", spec.depth),
        strata=declared.get("strata", DEFAULT_STRATA),
        sampling=(parse_sampling(declared["sampling"]) if "sampling" in declared
                  else REGISTER_POLICY_SEED))
    games_file = replay["games"]
    path = locate(games_file)
    if not path.is_file():
        chk.fail(f"{KEY}.games", f"{games_file}: no such file")
    have = file_sha256(path)
    if have != replay["sha256"]:
        chk.fail(f"{KEY}.sha256", f"{games_file}: its " + hash_mismatch(have, replay["sha256"]))
    try:
        published = read_published(path)
    except RegisterGamesError as exc:
        chk.fail(f"{KEY}.games", str(exc))
    if published["policy"] != spec.format():
        chk.fail(f"{KEY}.arm", f"{name} plays {spec.format()} with the register's sampling, "
                 f"but {games_file} holds games of {published['policy']}")
    count = len(published["games"])
    games = prof.size(("replay_games",), "replay_games", count)
    return PlannedReplay(name, spec.format(), games_file, have, replay["result"],
                         None if games >= count else games, count)
