"""A ranking panel: its declaration's check, its plan at a profile, the planned type.

A panel names arms: a roots arm and its games, a reference that values
every column (a search or direct arm, or an outcome within the labeller's
limits), distinct rankers, and a block of its own only without a screen
(docs/panels.md).  At a profile its roots, continuations and rankers are
planned over the roots arm's first games (:class:`PlannedPanel`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analysis.panel_conventions import HARNESS, REGISTER
from contracts.panel_table import OUTCOME_REFERENCE
from engines.play.spec import EXTERNAL, PolicySpec
from protocol import costs
from protocol.arms import decision_seconds, play_kind
from protocol.claim import Claim
from protocol.parts.arm import PlannedArm, played, sharded
from protocol.parts.base import KeyCheck, ProfileSettings, names_of
from protocol.paths import Paths
from protocol.records.ids import THEORY_ID


def panel_conventions(doc: Mapping[str, Any]) -> str:
    """The conventions a claim's panel is read under (:mod:`analysis.panel_conventions`): its
    ``panel.conventions``, else ``register`` for a claim whose ``theory`` is a register record
    id (it reads that theory's gates, computed the register's way), else ``harness``."""
    declared = doc["panel"].get("conventions")
    if declared is not None:
        return str(declared)
    return REGISTER if THEORY_ID.match(str(doc.get("theory") or "")) else HARNESS


def reference_name(panel: Mapping[str, Any]) -> str:
    """The panel reference's name in the panel table: its arm, or
    :data:`~contracts.panel_table.OUTCOME_REFERENCE` for an outcome labeller."""
    ref = panel["reference"]
    return OUTCOME_REFERENCE if isinstance(ref, Mapping) else ref


def _check_outcome(outcome: Mapping[str, Any], doc: Mapping[str, Any], chk: KeyCheck) -> None:
    """An outcome reference: its policy an arm of ours, its target, continuations and horizon
    within the labeller's (engines.play.labeller, imported only for a claim that has one)."""
    from engines.play.labeller import MAX_CONTINUATIONS, MAX_HORIZON, TARGETS

    key = "panel.reference.outcome"
    _check_arm_name(outcome["policy"], f"{key}.policy", doc, chk)
    if play_kind(doc["arms"][outcome["policy"]]["play"]).kind == EXTERNAL:
        chk.fail(f"{key}.policy", f"arm {outcome['policy']!r} is external: a continuation has "
                 "no fallback, so its policy must be one of ours (a search, direct or a "
                 "baseline)")
    if outcome["target"] not in TARGETS:
        chk.fail(f"{key}.target", f"unknown target {outcome['target']!r} (targets: "
                 f"{', '.join(TARGETS)})")
    for field, most in (("continuations", MAX_CONTINUATIONS), ("horizon", MAX_HORIZON)):
        if not 1 <= outcome[field] <= most:
            chk.fail(f"{key}.{field}", f"{outcome[field]:,} is outside 1..{most:,}")


def _check_arm_name(name: str, key: str, doc: Mapping[str, Any], chk: KeyCheck) -> None:
    if name not in doc["arms"]:
        chk.fail(key, f"no arm {name!r} (arms: {names_of(doc['arms'])})")


def check_panel(doc: dict[str, Any], chk: KeyCheck) -> None:
    """A ranking panel: its block where there is no screen, its roots arm and games, its
    reference (a search or direct arm, or an outcome), its rankers, its recall."""
    panel = doc.get("panel")
    if panel is None:
        return
    if "screen" in doc and "block" in panel:
        chk.fail("panel.block", "beside a screen the roots come from the screen's block: "
                 "give no panel block")
    if "screen" not in doc and "block" not in panel:
        chk.fail("panel.block", "missing: a panel without a screen reads its roots from a "
                 "block of its own")
    if "looks" in doc.get("screen", {}):
        chk.fail("panel", "a panel beside a sequential screen (screen.looks) is not "
                 "supported: the screen may stop before the roots' games are played")
    roots = panel["roots"]
    _check_arm_name(roots["policy"], "panel.roots.policy", doc, chk)
    if play_kind(doc["arms"][roots["policy"]]["play"]).kind == EXTERNAL:
        chk.fail("panel.roots.policy", f"arm {roots['policy']!r} is external: the roots are "
                 "its games replayed move by move, and a program's game cannot be played "
                 "again; give the roots to an arm of ours (a search, direct or a baseline) "
                 "and rank with the program")
    if "screen" in doc:
        arm = doc["arms"][roots["policy"]]
        most, what = arm.get("games", doc["screen"]["games"]), (
            f"arm {roots['policy']}'s {arm['games']}" if "games" in arm
            else f"the screen's {doc['screen']['games']}")
        if roots["games"] > most:
            chk.fail("panel.roots.games", f"{roots['games']:,} is more than {what} games: "
                     "the roots come from the roots arm's screen games")
    ref = panel["reference"]
    if isinstance(ref, Mapping):
        _check_outcome(ref["outcome"], doc, chk)
    else:
        _check_arm_name(ref, "panel.reference", doc, chk)
        if "filter" in doc["arms"].get(ref, {}):
            chk.fail("panel.reference", f"arm {ref!r} declares a root filter: a reference "
                     "values every legal column, so it ranks without one")
        if doc["arms"].get(ref, {}).get("prune", {}).get("root") == "pruned":
            chk.fail("panel.reference", f"arm {ref!r} prunes its root: a reference values "
                     "every legal column, so its root is searched full width (root: full)")
        if doc["arms"][ref]["play"] not in ("search", "direct"):
            chk.fail("panel.reference", f"arm {ref!r} plays {doc['arms'][ref]['play']}: a "
                     "reference values every column, so it is a search or direct arm (or an "
                     "outcome)")
    seen: set[str] = set()
    for i, name in enumerate(panel["rankers"]):
        key = f"panel.rankers[{i}]"
        _check_arm_name(name, key, doc, chk)
        if "filter" in doc["arms"].get(name, {}):
            chk.fail(key, f"arm {name!r} declares a root filter: a ranker values every legal "
                     "column, so it ranks without one")
        if name == ref:
            chk.fail(key, f"{name!r} is the reference: it is read against itself in every "
                     "panel already")
        if name in seen:
            chk.fail(key, f"{name!r} is listed twice")
        seen.add(name)
    if len(set(panel["recall"])) != len(panel["recall"]):
        chk.fail("panel.recall", f"{panel['recall']} lists a k twice")


@dataclass(frozen=True)
class PlannedPanel:
    """A ranking panel in this profile (docs/panels.md): where its roots come from, its
    reference and rankers, and every ranker planned over the roots.

    ``arms`` holds every ranker of the panel table by its table name: the reference first
    (an outcome reference under :data:`~contracts.panel_table.OUTCOME_REFERENCE`, its arm
    the continuation policy's), then each ranker; an arm's ``games`` are the roots, its
    ``shards`` the jobs they are cut into and its ``seconds_per_game`` the CPU seconds of
    one root."""

    roots_arm: str  #: the arm whose games give the roots
    games: int  #: the block's first ``games`` games give the roots
    seeds: tuple[int, int]  #: ``(start, games)`` of those games
    every: int  #: every this many decisions of a game, from its first
    limit: int | None  #: the declared (or shrunk) cap on roots; None: none
    roots: int  #: the planned roots: ``min(limit, games * MOVES_PER_GAME // every)``
    reference: str  #: the reference's table name: its arm, or ``OUTCOME_REFERENCE``
    outcome: dict[str, Any] | None  #: {policy, continuations, horizon, target, seed}, or None
    rankers: tuple[str, ...]
    work: str  #: nodes | leaves
    recall: tuple[int, ...]
    arms: dict[str, PlannedArm]
    #: the rules the figures are read under (:func:`panel_conventions`)
    conventions: str = HARNESS

    def names(self) -> list[str]:
        """The panel table's rankers in order: the reference, then the rankers."""
        return [self.reference, *self.rankers]

    def seconds(self) -> float:
        """Estimated CPU seconds of labelling and ranking every root."""
        return sum(a.games * a.seconds_per_game for a in self.arms.values())

    def describe(self) -> dict[str, Any]:
        """JSON-ready, for the page, the records and the protocol hash."""
        return {
            "roots_arm": self.roots_arm, "games": self.games, "seeds": list(self.seeds),
            "every": self.every, "limit": self.limit, "roots": self.roots,
            "reference": self.reference, "outcome": self.outcome,
            "rankers": list(self.rankers), "work": self.work, "recall": list(self.recall),
            "conventions": self.conventions,
            "arms": {n: {"policy": a.policy, "roots": a.games, "shards": a.shards,
                         "artefact": a.artefact.key if a.artefact else None,
                         **({"pinned": a.pinned.describe()} if a.pinned else {})}
                     for n, a in self.arms.items()}}


def _root_arm(name: str, spec: PolicySpec, roots: int, seconds: float, prof: ProfileSettings,
              **reads: Any) -> PlannedArm:
    """A ranker of a panel over its roots: ``seconds`` of CPU per root, its roots cut into
    shards of about ``job_minutes``."""
    return sharded(name, spec, roots, seconds, prof, who="panel ranker", unit="root", **reads)


def panel_games(claim: Claim, prof: ProfileSettings) -> int:
    """The games whose roots the panel reads in this profile (``claims.<id>.panel.games``, or
    the ``screen_games`` cap)."""
    return prof.size(("panel", "games"), "screen_games", claim.panel["roots"]["games"])


def plan_panel(claim: Claim, prof: ProfileSettings, arms: Mapping[str, PlannedArm], start: int,
               claims: Mapping[str, Claim], paths: Paths, shrunk: list[str]
               ) -> PlannedPanel | None:
    """A ranking panel at this profile's size (each shrink listed in ``shrunk``): its roots
    from the roots arm's first games of the screen block, its reference and rankers planned
    over them (an arm that plays the screen as it plays there)."""
    panel, over = claim.panel, prof.over.get("panel", {})
    key = f"claims.{claim.id}.panel"
    if panel is None:
        if "panel" in prof.over:
            prof.fail(key, f"claim {claim.id} declares no panel")
        return None
    roots = panel["roots"]
    games = min(panel_games(claim, prof), arms[roots["policy"]].games)
    if games != roots["games"]:
        shrunk.append(f"panel: roots from {games} of the declared {roots['games']} games")
    limit = roots.get("roots")
    if "roots" in over:
        if limit is not None and over["roots"] > limit:
            prof.fail(f"{key}.roots", f"{over['roots']:,} is more than the declared "
                      f"{limit:,}: a profile may only shrink a claim")
        limit = over["roots"]
    if limit != roots.get("roots"):
        shrunk.append(f"panel: at most {limit:,} roots (declared: "
                      f"{roots.get('roots') or 'no cap'})")
    # the decisions 0, every, 2 every, ... of a game of MOVES_PER_GAME moves
    count = games * -(-costs.MOVES_PER_GAME // roots["every"])
    count = count if limit is None else min(limit, count)

    def spec_of(name: str) -> tuple[PolicySpec, dict[str, Any]]:
        if name in arms:  # played on the screen: as it plays there
            a = arms[name]
            return a.spec, {"artefact": a.artefact, "pinned": a.pinned, "entries": a.entries}
        return played(claim, name, prof, claims, paths, shrunk)

    out: dict[str, PlannedArm] = {}
    ref, outcome = panel["reference"], None
    if isinstance(ref, Mapping):
        outcome = dict(ref["outcome"])
        k = prof.size(("panel", "continuations"), None, outcome["continuations"])
        if k != outcome["continuations"]:
            shrunk.append(f"panel: the outcome reference plays {k} of the declared "
                          f"{outcome['continuations']} continuations per column")
        outcome["continuations"] = k
        spec, reads = spec_of(outcome["policy"])
        out[OUTCOME_REFERENCE] = _root_arm(
            OUTCOME_REFERENCE, spec, count,
            costs.outcome_root_seconds(decision_seconds(spec), k, outcome["horizon"]), prof,
            **reads)
    else:
        if "continuations" in over:
            prof.fail(f"{key}.continuations", f"claim {claim.id}'s panel reference is an arm, "
                      "not an outcome: no continuations")
        spec, reads = spec_of(ref)
        out[ref] = _root_arm(ref, spec, count, decision_seconds(spec), prof, **reads)
    for name in panel["rankers"]:
        spec, reads = spec_of(name)
        out[name] = _root_arm(name, spec, count, decision_seconds(spec), prof, **reads)
    return PlannedPanel(roots["policy"], games, (start, games), roots["every"], limit, count,
                        reference_name(panel), outcome, tuple(panel["rankers"]),
                        panel["work"], tuple(panel["recall"]), out,
                        panel_conventions(claim.doc))
