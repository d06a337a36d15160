"""Building the plan of a run (:mod:`protocol.plan_model`) from a profile and the claims.

:func:`build_plan` takes a profile (:mod:`protocol.profile`) and the claim
declarations (:mod:`protocol.declaration`) and works out, for every claim,
what this profile runs of it: the effective training budgets, validation
and screen sizes, prefixes and searches (a profile only shrinks what a
claim declares, and :attr:`~protocol.plan_model.ClaimPlan.shrunk` says what
it shrank), the screen block and its seeds, the policy string of every arm,
the games of every contrast, how many shards each arm's games are cut
into, a sequential screen's looks (declared, given by the profile, or
scaled to a shrunk screen) with every arm's games of each look, and a
ranking panel's roots and rankers (:class:`~protocol.plan_model.PlannedPanel`).
No Snakemake, no engine kernels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analysis.games_table import DEFAULT_METRIC
from analysis.sequential_screen import design_of, scale_screen
from contracts.panel_table import OUTCOME_REFERENCE
from engines.leaves.kinds import LeafSpec, learner_leaf, parse_leaf
from engines.play.spec import DEFAULT_STRATA, Arm, PolicySpec, SearchSpec
from engines.seedbank import load_bank
from protocol import costs
from protocol.arms import arm_spec, decision_seconds, play_kind
from protocol.declaration import (
    DEFAULT_CLAIMS_DIR,
    MAX_CHECKPOINTS,
    NO_PREFIX,
    Claim,
    check_pins,
    checkpoint_count,
    is_checkpoint,
    is_pinned,
    load_claim_set,
    pinned_path,
    reference_name,
    sequential_contrast,
)
from protocol.paths import Paths
from protocol.plan_model import (
    Artefact,
    ClaimPlan,
    Contrast,
    Pinned,
    Plan,
    PlannedArm,
    PlannedPanel,
    Sequential,
    Training,
    table_entries,
)
from protocol.profile import blamer, evidence_limits
from protocol.profile import source as profile_source
from protocol.schema import DeclarationError

if TYPE_CHECKING:
    from protocol.profile import Origins


class _Profile:
    """The profile's settings for one claim: overrides first, then the caps."""

    def __init__(self, profile: Mapping[str, Any], claim: Claim,
                 blame: Callable[[str], str] | None = None) -> None:
        self.profile = profile
        self.claim = claim
        self.caps = profile["shrink"]
        self.over = profile["claims"].get(claim.id, {})
        self.blame = blame or blamer(profile_source(profile))

    def fail(self, key: str, message: str) -> None:
        raise DeclarationError(f"{self.blame(key)}: key {key}: {message}")

    def size(self, override_key: tuple[str, ...], cap: str | None, declared: int) -> int:
        """An effective size: the override (no larger than declared), else the capped value."""
        value: Any = self.over
        for k in override_key:
            value = value.get(k, {}) if isinstance(value, Mapping) else {}
        if isinstance(value, int):
            if value > declared:
                self.fail(f"claims.{self.claim.id}.{'.'.join(override_key)}",
                          f"{value:,} is more than the declared {declared:,}: a profile may "
                          "only shrink a claim")
            return value
        return min(declared, self.caps.get(cap, declared)) if cap else declared

    def search(self, depth: int, strata: int) -> tuple[int, int]:
        """A search's effective depth and strata: the claim's ``search`` settings, key by key
        in place of the caps (both only shrink: a shift of at most 0, strata at most these)."""
        shrink = {**self.caps, **self.over.get("search", {})}
        return (max(1, depth + shrink.get("depth_shift", 0)),
                min(strata, shrink.get("strata", strata)))

    def reveals(self, reveals: int | None) -> int | None:
        """A factored search's effective reveal samples per disc stratum (None: not one)."""
        return None if reveals is None else min(reveals, self.caps.get("reveals", reveals))


def _moves(n: int) -> str:
    """``2e7``, ``2.5e8`` or ``20,000``."""
    if n < 10**6:
        return f"{n:,}"
    exp = len(str(n)) - 1
    return f"{n / 10**exp:g}e{exp}"


def _init(claim: Claim, name: str, claims: Mapping[str, Claim], profile: str,
          paths: Paths) -> Artefact | Pinned | None:
    """A trained weights' warm start: another claim's frozen artefact or a pinned file whose
    kind is the learner's (its layout is checked with its hash, before any job)."""
    t = claim.weights[name]["train"]
    init = t.get("init")
    if init is None:
        return None
    if "claim" in init:
        return _artefact(init, claim, claims, profile, paths)
    key = f"weights.{name}.train.init"
    pinned = _pinned(claim, key, init)
    want = learner_leaf(t["learner"]).kind.replace("linear-trained", "linear") + "-file"
    if pinned.kind != want or pinned.entries != table_entries(t["learner"], t.get("layout")):
        raise DeclarationError(f"{claim.path}: key {key}.file: {pinned.path} holds a "
                               f"{pinned.kind} leaf of {pinned.entries:,} entries; these weights "
                               f"train {want.replace('-file', '')} weights of "
                               f"{table_entries(t['learner'], t.get('layout')):,}")
    return pinned


def _training(claim: Claim, prof: _Profile, paths: Paths, shrunk: list[str],
              claims: Mapping[str, Claim]) -> dict[str, Training]:
    out, total = {}, 0
    for name, w in claim.weights.items():
        t = w["train"]
        lanes = t.get("lanes", 1)
        moves = prof.size(("weights", name, "moves"), "train_moves", t["moves"])
        every = prof.over.get("weights", {}).get(name, {}).get("every")
        key = f"claims.{claim.id}.weights.{name}.every"
        if moves % lanes:
            prof.fail(f"claims.{claim.id}.weights.{name}.moves", f"{moves:,} moves is not a "
                      f"multiple of the {lanes} lanes the weights train in")
        if every is None:
            every = min(t["every"], moves)
            cap = prof.caps.get("checkpoints")
            if cap and checkpoint_count(moves, every) > cap:
                every = min(math.ceil(moves / cap / lanes) * lanes, moves)
        elif every > moves:
            prof.fail(key, f"{every:,} is larger than the {moves:,} moves trained")
        elif every % lanes:
            prof.fail(key, f"{every:,} is not a multiple of the {lanes} lanes the weights "
                      "train in")
        total += checkpoint_count(moves, every)
        if total > MAX_CHECKPOINTS:
            prof.fail(key, f"a checkpoint every {every:,} of {moves:,} moves gives claim "
                      f"{claim.id} {total:,} checkpoints; at most {MAX_CHECKPOINTS:,}")
        select = w["select"]
        if isinstance(select, Mapping) and not is_checkpoint(select["step"], moves, every):
            prof.fail(f"claims.{claim.id}.weights.{name}", f"the declared select.step "
                      f"{select['step']:,} is not a checkpoint at this profile's budget")
        if (moves, every) != (t["moves"], t["every"]):
            shrunk.append(f"{name}: trained {_moves(moves)} moves, a checkpoint every "
                          f"{_moves(every)} (declared: {_moves(t['moves'])} every "
                          f"{_moves(t['every'])})")
        out[name] = Training(claim.id, name, t["learner"], t.get("layout", "linear"), moves,
                             every, t["first_game"], t.get("alpha"), select,
                             paths.path("train", claim=claim.id, weights=name), lanes,
                             _init(claim, name, claims, prof.profile["profile"], paths))
    return out


def _dtag(depth: int, strata: int, reveals: int | None = None) -> str:
    """``d3s7``, or ``d3s7r6`` for a factored search with 6 reveal samples per disc stratum."""
    return f"d{depth}s{strata}" + ("" if reveals is None else f"r{reveals}")


def _artefact(leaf: Mapping[str, Any], claim: Claim, claims: Mapping[str, Claim],
              profile: str, paths: Paths) -> Artefact:
    source = leaf.get("claim", claim.id)
    recipe = claims[source].weights[leaf["weights"]]["train"]
    pin = leaf.get("sha256")
    if isinstance(pin, Mapping):
        pin = pin.get(profile)
    return Artefact(source, leaf["weights"], learner_leaf(recipe["learner"]).kind,
                    paths.path("frozen", claim=source, weights=leaf["weights"]),
                    paths.path("frozen_record", claim=source, weights=leaf["weights"]),
                    table_entries(recipe["learner"], recipe.get("layout")), pin)


def _pinned(claim: Claim, key: str, leaf: Any) -> Pinned | None:
    """A pinned file's facts read cheaply (kind and entries; the hash is checked before any
    job, :func:`protocol.checks.before_any_job`), or None for another leaf."""
    if not is_pinned(leaf):
        return None
    from engines.pinned_leaf import PinnedError, inspect_pinned

    path = pinned_path(claim, leaf["file"])
    try:
        kind, entries = inspect_pinned(path)
    except PinnedError as exc:
        raise DeclarationError(f"{claim.path}: key {key}.file: {exc}") from None
    return Pinned(path, leaf["sha256"], kind, entries, key)


def _leaf(leaf: Any, artefact: Artefact | None, pinned: Pinned | None = None
          ) -> LeafSpec | None:
    """A declared leaf as played: a frozen artefact's tables, a pinned file (its kind, path
    and hash), or a leaf named by its kind."""
    if artefact is not None:
        return LeafSpec(artefact.leaf, artefact.dir)
    if pinned is not None:
        return LeafSpec(pinned.kind, pinned.path, pinned.sha256)
    return parse_leaf(leaf) if leaf is not None else None


def _arm(name: str, spec: PolicySpec, games: int, prof: _Profile,
         **extra: Any) -> PlannedArm:
    sec = costs.game_seconds(decision_seconds(spec))
    minutes = prof.profile["job_minutes"]
    shards = costs.shards_for(games, sec, minutes)
    if shards > costs.MAX_SHARDS:
        prof.fail("job_minutes", f"{minutes} cuts arm {name} into {shards:,} game jobs; at "
                  f"most {costs.MAX_SHARDS:,} per arm")
    return PlannedArm(Arm(name, spec), games, shards, sec, **extra)


def _validation(claim: Claim, prof: _Profile, trained: Mapping[str, Training],
                claims: Mapping[str, Claim], paths: Paths, shrunk: list[str]
                ) -> tuple[int, dict[str, PlannedArm], str | None]:
    if not trained:
        return 0, {}, None
    v = claim.doc["validation"]
    games = prof.size(("validation", "games"), "validation_games", v["games"])
    if games != v["games"]:
        shrunk.append(f"validation: {games} of the declared {v['games']} games")
    depth, strata = prof.search(v["search"]["depth"], v["search"]["strata"])
    if (depth, strata) != (v["search"]["depth"], v["search"]["strata"]):
        shrunk.append(f"validation search: {_dtag(depth, strata)} instead of "
                      f"{_dtag(v['search']['depth'], v['search']['strata'])}")
    dtag, profile = _dtag(depth, strata), prof.profile
    comp = v["comparator"]
    pinned = _pinned(claim, "validation.comparator", comp)
    artefact = (None if isinstance(comp, str) or pinned
                else _artefact(comp, claim, claims, profile["profile"], paths))
    comp_name = (f"{comp}-{dtag}" if isinstance(comp, str)
                 else f"pinned-{pinned.sha256[:8]}-{dtag}" if pinned
                 else f"{artefact.claim}-{artefact.weights}-{dtag}")
    arms = {comp_name: _arm(comp_name, SearchSpec("search", _leaf(comp, artefact, pinned),
                                                  depth, strata),
                            games, prof, artefact=artefact, pinned=pinned,
                            entries=artefact.entries if artefact else
                            pinned.entries if pinned else 0)}
    for t in trained.values():
        for step in t.steps:
            name = f"{t.name}-step{step}-{dtag}"
            leaf = learner_leaf(t.learner, t.checkpoint(step))
            arms[name] = _arm(name, SearchSpec("search", leaf, depth, strata),
                              games, prof, weights=t.name, step=step, entries=t.entries)
    return games, arms, comp_name


def _played(claim: Claim, name: str, prof: _Profile, claims: Mapping[str, Claim],
            paths: Paths, shrunk: list[str]) -> tuple[PolicySpec, dict[str, Any]]:
    """An arm's spec as this profile plays it (a search's shrink listed in ``shrunk``), and
    what it reads (``artefact``, ``pinned``, ``entries`` of :class:`PlannedArm`)."""
    a = claim.arms[name]
    played = dict(a)
    if "strata" in play_kind(a["play"]).takes:  # a search: the profile may shrink it
        depth, strata = a.get("depth"), a.get("strata", DEFAULT_STRATA)
        reveals = a.get("reveals")
        depth_e, strata_e = prof.search(depth or 1, strata)
        depth_e = depth_e if depth is not None else None
        reveals_e = prof.reveals(reveals)
        if (depth_e, strata_e, reveals_e) != (depth, strata, reveals):
            was = (_dtag(depth, strata, reveals) if depth
                   else _dtag(0, strata, reveals)[2:])
            now = (_dtag(depth_e, strata_e, reveals_e) if depth_e
                   else _dtag(0, strata_e, reveals_e)[2:])
            shrunk.append(f"arm {name}: search {now} instead of {was}")
        played.update(depth=depth_e, strata=strata_e, reveals=reveals_e)
    leaf = a.get("leaf")
    pinned = _pinned(claim, f"arms.{name}.leaf", leaf)
    artefact = (_artefact(leaf, claim, claims, prof.profile["profile"], paths)
                if isinstance(leaf, Mapping) and not pinned else None)
    return arm_spec(played, _leaf(leaf, artefact, pinned)), {
        "artefact": artefact, "pinned": pinned,
        "entries": artefact.entries if artefact else pinned.entries if pinned else 0}


def _screen_arms(claim: Claim, prof: _Profile, games: int, claims: Mapping[str, Claim],
                 paths: Paths, shrunk: list[str]) -> dict[str, PlannedArm]:
    out = {}
    for name, a in claim.screen_arms.items():
        spec, reads = _played(claim, name, prof, claims, paths, shrunk)
        declared = a.get("games", claim.screen["games"])
        cap = "prefix_games" if "games" in a else None
        n = min(prof.size(("arms", name, "games"), cap, declared), games)
        if n < min(declared, games):
            shrunk.append(f"arm {name}: plays the first {n} of the screen's seeds (declared: "
                          f"{declared})")
        out[name] = _arm(name, spec, n, prof, **reads)
    return out


def _root_arm(name: str, spec: PolicySpec, roots: int, seconds: float, prof: _Profile,
              **reads: Any) -> PlannedArm:
    """A ranker of a panel over its roots: ``seconds`` of CPU per root, its roots cut into
    shards of about ``job_minutes``."""
    minutes = prof.profile["job_minutes"]
    shards = costs.shards_for(roots, seconds, minutes)
    if shards > costs.MAX_SHARDS:
        prof.fail("job_minutes", f"{minutes} cuts panel ranker {name} into {shards:,} root "
                  f"jobs; at most {costs.MAX_SHARDS:,} per ranker")
    return PlannedArm(Arm(name, spec), roots, shards, seconds, **reads)


def _panel_games(claim: Claim, prof: _Profile) -> int:
    """The games whose roots the panel reads in this profile (``claims.<id>.panel.games``, or
    the ``screen_games`` cap)."""
    return prof.size(("panel", "games"), "screen_games", claim.panel["roots"]["games"])


def _panel(claim: Claim, prof: _Profile, arms: Mapping[str, PlannedArm], start: int,
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
    games = min(_panel_games(claim, prof), arms[roots["policy"]].games)
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
        return _played(claim, name, prof, claims, paths, shrunk)

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
                        panel["work"], tuple(panel["recall"]), out)


def _sequential(claim: Claim, prof: _Profile, games: int, arms: Mapping[str, PlannedArm],
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


def _check_pins(claim: Claim, arms: list[PlannedArm]) -> None:
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


def _contrasts(claim: Claim, arms: Mapping[str, PlannedArm], games: int) -> dict[str, Contrast]:
    out = {}
    for name, c in claim.contrasts.items():
        members = tuple(claim.contrast_arms(name))
        n = min(arms[a].games for a in members)
        prefix = tuple(a for a in members if arms[a].games == n) if n < games else ()
        kind = "difference" if "difference" in c else "interaction"
        out[name] = Contrast(name, kind, members, n, c.get("title", name), prefix,
                             c.get("metric", DEFAULT_METRIC))
    return out


def _block(claim: Claim, prof: _Profile, claims: Mapping[str, Claim]) -> tuple[int, str | None]:
    declared = claim.screen["block"]
    if isinstance(declared, Mapping):
        if "block" in prof.over:
            prof.fail(f"claims.{claim.id}.block", f"claim {claim.id} shares the block of claim "
                      f"{declared['claim']} (screen.block: {{claim: {declared['claim']}}}): set "
                      "that claim's block instead")
        other = claims.get(declared["claim"])
        owned = other.screen["block"] if other is not None else None
        if other is None or isinstance(owned, Mapping):
            raise DeclarationError(f"{claim.path}: key screen.block.claim: "
                                   f"{declared['claim']!r} is not a claim that owns a block")
        return _Profile(prof.profile, other, prof.blame).over.get(
            "block", owned + prof.profile["block_offset"]), other.id
    return prof.over.get("block", declared + prof.profile["block_offset"]), None


def plan_claim(claim: Claim, claims: Mapping[str, Claim], profile: Mapping[str, Any],
               paths: Paths, blame: Callable[[str], str] | None = None) -> ClaimPlan:
    """What ``profile`` runs of ``claim`` (``blame``: the source to name for a profile key,
    :func:`protocol.profile.blamer`)."""
    prof, shrunk = _Profile(profile, claim, blame), []
    bank = load_bank()
    trained = _training(claim, prof, paths, shrunk, claims)
    vgames, varms, comparator = _validation(claim, prof, trained, claims, paths, shrunk)
    if "screen" in claim.doc:
        declared_games = claim.screen["games"]
        games = prof.size(("screen", "games"), "screen_games", declared_games)
        if games != declared_games:
            shrunk.append(f"screen: {games} of the declared {declared_games} games")
    else:  # only the roots arm plays, the panel's games (their shrink: the panel's)
        if "screen" in prof.over:
            prof.fail(f"claims.{claim.id}.screen", f"claim {claim.id} declares no screen "
                      f"(its panel's roots arm plays claims.{claim.id}.panel.games games)")
        games = _panel_games(claim, prof)
        for name, over in prof.over.get("arms", {}).items():
            if "games" in over:
                prof.fail(f"claims.{claim.id}.arms.{name}.games", f"claim {claim.id} declares "
                          "no screen: its arms play no prefix")
    for name, t in trained.items():
        if t.first_game >= bank.roles["training"]["count"]:
            raise DeclarationError(f"{claim.path}: key weights.{name}.train.first_game: "
                                   f"{t.first_game:,} is beyond the training role's "
                                   f"{bank.roles['training']['count']:,} games")
    block, shares = _block(claim, prof, claims)
    size, count = bank.roles["screen"]["block_size"], bank.roles["screen"]["blocks"]
    n_blocks = math.ceil(games / size)
    if n_blocks > count:  # before any list of blocks is built
        raise DeclarationError(f"{claim.path}: key screen.games: {games:,} games would read "
                               f"{n_blocks:,} blocks of {size} seeds; the screen role holds "
                               f"{count:,}")
    if block + n_blocks > count:
        prof.fail(f"claims.{claim.id}.block", f"blocks {block:,} to {block + n_blocks - 1:,} "
                  f"({games:,} games, {size} seeds a block) are outside the screen role's "
                  f"blocks 0..{count - 1}")
    blocks = list(range(block, block + n_blocks))
    start = int(bank.screen_block(blocks[0], 1)[0])
    arms = _screen_arms(claim, prof, games, claims, paths, shrunk)
    sequential = _sequential(claim, prof, games, arms, shrunk)
    panel = _panel(claim, prof, arms, start, claims, paths, shrunk)
    _check_pins(claim, [*arms.values(), *(panel.arms.values() if panel else ())])
    vseeds = (int(bank.validation(vgames)[0]), vgames) if vgames else None
    return ClaimPlan(claim, block, blocks, (start, games), shares, trained, vgames, vseeds,
                     varms, comparator, arms, _contrasts(claim, arms, games), shrunk,
                     sequential, panel=panel)


def _check_blocks(plans: Mapping[str, ClaimPlan], source: str) -> None:
    owner: dict[int, str] = {}
    for c in sorted(plans):
        p = plans[c]
        if p.shares_block_of:
            continue
        for b in p.blocks:
            if b in owner:
                raise DeclarationError(
                    f"{source}: claims {owner[b]} and {c} both read screen block {b}: give one "
                    f"another block (claims.{c}.block), or declare screen.block: {{claim: "
                    f"{owner[b]}}} in {c} to share it knowingly")
            owner[b] = c
    for c in sorted(plans):
        p = plans[c]
        theirs = plans[p.shares_block_of].blocks if p.shares_block_of else p.blocks
        extra = [b for b in p.blocks if b not in theirs]
        if extra:
            held = f"claim {owner[extra[0]]}'s" if extra[0] in owner else "a block it never read"
            raise DeclarationError(
                f"{source}: key claims.{c}.screen.games: claim {c} shares the block of claim "
                f"{p.shares_block_of} but its {p.seeds[1]:,} games read {len(p.blocks)} "
                f"block(s) where that claim reads {len(theirs)} in this profile: block "
                f"{extra[0]} is {held}; give {c} no more games than {p.shares_block_of}")


def _lowered(src: ClaimPlan, weights: str, plans: Mapping[str, ClaimPlan]) -> list[str]:
    """What this profile shrank of the frozen ``weights`` of claim ``src``: their training, the
    validation that selected and gated them, and (in turn) their comparator's artefact."""
    declared, t = src.claim.weights[weights]["train"], src.trained[weights]
    out = []
    if (t.moves, t.every) != (declared["moves"], declared["every"]):
        out.append(f"trained {_moves(t.moves)} moves, a checkpoint every {_moves(t.every)} "
                   f"(declared: {_moves(declared['moves'])} every {_moves(declared['every'])})")
    v = src.claim.doc["validation"]
    if src.validation_games != v["games"]:
        out.append(f"selected on {src.validation_games} of the declared {v['games']} "
                   "validation games")
    comp = src.validation_arms[src.comparator]
    if (comp.spec.depth, comp.spec.strata) != (v["search"]["depth"], v["search"]["strata"]):
        out.append(f"validated in {_dtag(comp.spec.depth, comp.spec.strata)} instead of "
                   f"{_dtag(v['search']['depth'], v['search']['strata'])}")
    a = comp.artefact
    if a is not None and a.claim != src.id:
        out.extend(f"its comparator {a.key} {why}" for why in _lowered(plans[a.claim],
                                                                       a.weights, plans))
    return out


def _inherit_shrinks(plans: Mapping[str, ClaimPlan]) -> None:
    """Every frozen artefact of another claim that a claim reads (an arm's leaf or its
    validation comparator) adds what the profile shrank of it to the claim's ``shrunk``, so
    the evidence tier and the report account for every artefact the claim reads."""
    for p in plans.values():
        read: dict[str, tuple[Artefact, list[str]]] = {}
        arms = [*p.arms.values(), *p.validation_arms.values(),
                *(a for a in (p.panel.arms.values() if p.panel else ()) if a.name not in p.arms)]
        for arm in arms:
            if arm.artefact is not None and arm.artefact.claim != p.id:
                readers = read.setdefault(arm.artefact.key, (arm.artefact, []))[1]
                who = (arm.name if arm.name in p.arms or (p.panel and arm.name in p.panel.arms)
                       else "the validation comparator")
                if who not in readers:
                    readers.append(who)
        for t in p.trained.values():
            if isinstance(t.init, Artefact):
                read.setdefault(t.init.key, (t.init, []))[1].append(
                    f"the warm start of {t.name}")
        for key, (a, readers) in sorted(read.items()):
            why = _lowered(plans[a.claim], a.weights, plans)
            if why:
                p.shrunk.append(f"artefact {key} (read by {', '.join(readers)}): "
                                f"{'; '.join(why)}")


def build_plan(profile: Mapping[str, Any], claims: Mapping[str, Claim],
               blame: Callable[[str], str] | None = None) -> Plan:
    """The plan of a validated ``profile`` (:func:`~protocol.profile.load_profile`) of
    ``claims`` (``blame``: the source to name for a profile key)."""
    paths = Paths(profile["profile"])
    source = profile_source(profile)
    blame = blame or blamer(source)
    for key in ("claims", "run"):
        for c in profile.get(key) or []:
            if c not in claims:
                raise DeclarationError(f"{blame(key)}: key {key}: no claim {c!r} (claims: "
                                       f"{', '.join(claims)})")
    for c, over in profile["claims"].items():
        decl = claims[c]
        for part, names in (("weights", decl.weights), ("arms", decl.arms)):
            for name in over.get(part, {}):
                if name not in names:
                    raise DeclarationError(f"{blame(f'claims.{c}.{part}.{name}')}: key "
                                           f"claims.{c}.{part}.{name}: claim {c} "
                                           f"declares no such {part[:-1]} "
                                           f"({', '.join(names) or 'none'})")
    plans = {c: plan_claim(claim, claims, profile, paths, blame)
             for c, claim in claims.items()}
    _check_blocks(plans, source)
    _inherit_shrinks(plans)
    limits = evidence_limits(profile)
    for p in plans.values():
        p.limits = list(limits)
    return Plan(dict(profile), plans, paths, blame)


def load_plan(basedir: str | Path, overrides: Mapping[str, Any],
              origins: Origins | None = None) -> Plan:
    """Profile, declarations and plan of a run from the repository at ``basedir``: the shipped
    claims and those of the profile's ``claims_dir`` (relative paths from the working
    directory), if it names a folder of one's own (``origins``: where the overrides come
    from, to name them in errors)."""
    from protocol.profile import check_size_overrides, load_profile, profile_names

    profile = load_profile(basedir, overrides, origins, sizes=False)
    own = profile["claims_dir"]
    shipped = Path(basedir) / DEFAULT_CLAIMS_DIR
    if own == DEFAULT_CLAIMS_DIR:
        own = shipped
    claims, plan_own, replaces = load_claim_set(shipped, own, profile["claims_dir"])
    check_pins(claims, profile_names(basedir))
    plan = build_plan(profile, claims, blamer(profile_source(profile), origins))
    check_size_overrides(basedir, overrides, origins)
    plan.own, plan.replaces = plan_own, replaces
    return plan
