"""A ranking panel: its declaration's check, its plan at a profile, the planned type.

A panel names arms: a roots arm and its games, a reference that values
every column (a search or direct arm, or an outcome within the labeller's
limits), distinct rankers (arms, or outcome labellers named by the panel,
whose continuations share the reference's scenarios), and a block of its own
only without a screen (docs/panels.md).  At a profile its roots, continuations,
horizons and rankers are planned over the roots arm's first games
(:class:`PlannedPanel`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from analysis.panel_conventions import HARNESS, REGISTER
from contracts.panel_table import OUTCOME_REFERENCE
from engines.play.arm_specs import EXTERNAL, PolicySpec
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


def ranker_names(panel: Mapping[str, Any]) -> list[str]:
    """The rankers' table names in declared order: an arm's name, or the name an outcome
    ranker (``{NAME: {outcome: {...}}}``) is declared under."""
    return [r if isinstance(r, str) else next(iter(r)) for r in panel["rankers"]]


def ranker_outcomes(panel: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The outcome rankers' settings by table name, as declared (no seed where the panel's
    reference gives it)."""
    return {next(iter(r)): dict(next(iter(r.values()))["outcome"])
            for r in panel["rankers"] if not isinstance(r, str)}


def labelling_seed(panel: Mapping[str, Any]) -> int | None:
    """The one seed every outcome labeller of a panel draws its scenarios from (common random
    numbers across siblings and labellers): the outcome reference's, else the outcome
    rankers' (None: the panel has no outcome)."""
    ref = panel["reference"]
    if isinstance(ref, Mapping):
        return int(ref["outcome"]["seed"])
    seeds = [o["seed"] for o in ranker_outcomes(panel).values() if "seed" in o]
    return int(seeds[0]) if seeds else None


def _check_outcome(outcome: Mapping[str, Any], key: str, doc: Mapping[str, Any],
                   chk: KeyCheck, searches_only: bool = False) -> None:
    """An outcome labeller: its policy an arm of ours (an outcome ranker's a search or direct
    arm), its target, continuations and horizon within the labeller's
    (engines.play.labeller, imported only for a claim that has one)."""
    from engines.play.labeller import MAX_CONTINUATIONS, MAX_HORIZON, TARGETS

    _check_arm_name(outcome["policy"], f"{key}.policy", doc, chk)
    play = doc["arms"][outcome["policy"]]["play"]
    if play_kind(play).kind == EXTERNAL:
        ours = "a search or direct arm" if searches_only else "a search, direct or a baseline"
        chk.fail(f"{key}.policy", f"arm {outcome['policy']!r} is external: a continuation has "
                 f"no fallback, so its policy must be one of ours ({ours})")
    if searches_only and play not in ("search", "direct"):
        chk.fail(f"{key}.policy", f"arm {outcome['policy']!r} plays {play}: an outcome "
                 "ranker's continuations are played by a search or direct arm (a continuation "
                 "engine)")
    if outcome["target"] not in TARGETS:
        chk.fail(f"{key}.target", f"unknown target {outcome['target']!r} (targets: "
                 f"{', '.join(TARGETS)})")
    for name, most in (("continuations", MAX_CONTINUATIONS), ("horizon", MAX_HORIZON)):
        if not 1 <= outcome[name] <= most:
            chk.fail(f"{key}.{name}", f"{outcome[name]:,} is outside 1..{most:,}")


def _check_outcome_ranker(name: str, outcome: Mapping[str, Any], key: str,
                          doc: Mapping[str, Any], chk: KeyCheck) -> None:
    """An outcome ranker: an outcome labeller whose table name is no arm's, drawing its
    scenarios from the panel's one labelling seed."""
    if name in doc["arms"]:
        chk.fail(key, f"{name!r} is an arm: an outcome ranker's name is its own row of the "
                 "panel table, so give it a name no arm has")
    if name == OUTCOME_REFERENCE:
        chk.fail(key, f"{OUTCOME_REFERENCE!r} is the panel table's name of an outcome "
                 "reference: give the ranker another name")
    _check_outcome(outcome, f"{key}.{name}.outcome", doc, chk, searches_only=True)
    ref, seed = doc["panel"]["reference"], outcome.get("seed")
    if isinstance(ref, Mapping):
        if seed is not None and seed != ref["outcome"]["seed"]:
            chk.fail(f"{key}.{name}.outcome.seed", f"{seed} differs from the reference's "
                     f"{ref['outcome']['seed']}: every labeller's continuations share the "
                     "reference's scenarios (common random numbers), so give no seed")
        return
    if seed is None:
        chk.fail(f"{key}.{name}.outcome.seed", "missing: beside a reference that is an arm, "
                 "an outcome ranker names the seed of its scenarios")
    first = labelling_seed(doc["panel"])
    if seed != first:
        chk.fail(f"{key}.{name}.outcome.seed", f"{seed} differs from {first}: the outcome "
                 "rankers share one seed (common random numbers across labellers)")


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
        _check_outcome(ref["outcome"], "panel.reference.outcome", doc, chk)
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
    for i, (entry, name) in enumerate(zip(panel["rankers"], ranker_names(panel), strict=True)):
        key = f"panel.rankers[{i}]"
        if isinstance(entry, str):
            _check_arm_name(name, key, doc, chk)
            if "filter" in doc["arms"].get(name, {}):
                chk.fail(key, f"arm {name!r} declares a root filter: a ranker values every "
                         "legal column, so it ranks without one")
        else:
            _check_outcome_ranker(name, entry[name]["outcome"], key, doc, chk)
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
    one root; ``ranker_outcomes`` the outcome rankers' labellers by table name (their
    ``arms`` entry the continuation policy's, as an outcome reference's)."""

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
    #: each outcome ranker's {policy, continuations, horizon, target, seed} as planned
    ranker_outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)

    def outcome_of(self, name: str) -> dict[str, Any] | None:
        """The labeller settings of table name ``name`` (the reference or a ranker), or None
        for a name that is an arm's ranking."""
        return self.outcome if name == OUTCOME_REFERENCE else self.ranker_outcomes.get(name)

    def labellers(self) -> dict[str, str]:
        """What each outcome labeller of the table plays, in words: its continuation policy
        and sizes (two labellers alike in these give the same labels)."""
        return {n: "{} over {} continuations of {} moves, {}".format(
                    self.arms[n].policy, o["continuations"], o["horizon"], o["target"])
                for n in self.names() if (o := self.outcome_of(n)) is not None}

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
            # only a panel with outcome rankers has the key: every other hashes as before
            **({"ranker_outcomes": self.ranker_outcomes} if self.ranker_outcomes else {}),
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
    ref = panel["reference"]
    declared = {**({OUTCOME_REFERENCE: ref["outcome"]} if isinstance(ref, Mapping) else {}),
                **ranker_outcomes(panel)}
    outcomes = _outcome_sizes(claim, prof, declared, shrunk)
    for name, outcome in outcomes.items():
        outcome["seed"] = labelling_seed(panel)
        spec, reads = spec_of(outcome["policy"])
        out[name] = _root_arm(name, spec, count, costs.outcome_root_seconds(
            decision_seconds(spec), outcome["continuations"], outcome["horizon"]), prof,
            **reads)
    if not isinstance(ref, Mapping):
        spec, reads = spec_of(ref)
        out = {ref: _root_arm(ref, spec, count, decision_seconds(spec), prof, **reads), **out}
    names = ranker_names(panel)
    for name in names:
        if name not in out:
            spec, reads = spec_of(name)
            out[name] = _root_arm(name, spec, count, decision_seconds(spec), prof, **reads)
    out = {n: out[n] for n in [reference_name(panel), *names]}  # the table's order
    return PlannedPanel(roots["policy"], games, (start, games), roots["every"], limit, count,
                        reference_name(panel), outcomes.pop(OUTCOME_REFERENCE, None),
                        tuple(names), panel["work"], tuple(panel["recall"]), out,
                        panel_conventions(claim.doc), outcomes)


#: the sizes of an outcome labeller a profile may shrink (``claims.<id>.panel.<size>``), and
#: how the shrink line says each
OUTCOME_SIZES = {"continuations": "plays {now} of the declared {was} continuations per column",
                 "horizon": "stops its continuations at {now} of the declared {was} moves "
                            "(horizon)"}


def _outcome_sizes(claim: Claim, prof: ProfileSettings, declared: Mapping[str, Mapping],
                   shrunk: list[str]) -> dict[str, dict[str, Any]]:
    """Every outcome labeller of a panel (``declared``: table name -> settings) at this
    profile's continuations and horizon: a profile's size caps each labeller's (each shrink
    listed in ``shrunk``) and is refused where it exceeds every declared one, or the panel has
    no labeller."""
    over, key = prof.over.get("panel", {}), f"claims.{claim.id}.panel"
    out = {name: dict(o) for name, o in declared.items()}
    for size, says in OUTCOME_SIZES.items():
        if size not in over:
            continue
        cap = over[size]
        if not out:
            prof.fail(f"{key}.{size}", f"claim {claim.id}'s panel reference is an arm, not "
                      f"an outcome, and no ranker is an outcome: no {size}")
        most = max(o[size] for o in out.values())
        if cap > most:
            prof.fail(f"{key}.{size}", f"{cap:,} is more than the declared {most:,}: a "
                      "profile may only shrink a claim")
        for name, o in out.items():
            if cap < o[size]:
                who = ("the outcome reference" if name == OUTCOME_REFERENCE
                       else f"outcome ranker {name}")
                shrunk.append(f"panel: {who} {says.format(now=cap, was=o[size])}")
                o[size] = cap
    return out
