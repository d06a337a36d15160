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
ranking panel's roots and rankers (:class:`~protocol.parts.panel.PlannedPanel`).
Each part of a claim is planned by its module of :mod:`protocol.parts`;
:func:`plan_claim` composes them, :func:`build_plan` plans every claim and
checks what holds across claims (blocks, the shrinks of artefacts read).
No Snakemake, no engine kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engines.seedbank import load_bank
from protocol.declaration import DEFAULT_CLAIMS_DIR, Claim, check_pins, load_claim_set
from protocol.parts.arm import check_artefact_pins, pairing_notes, plan_screen_arms
from protocol.parts.base import ProfileSettings, dtag, moves_text
from protocol.parts.contrasts import plan_contrasts
from protocol.parts.direct_training import plan_direct_training
from protocol.parts.edits import plan_edits
from protocol.parts.panel import plan_panel
from protocol.parts.pins import Artefact
from protocol.parts.replay import plan_replay
from protocol.parts.screen import plan_blocks, plan_screen_games
from protocol.parts.sequential import plan_sequential
from protocol.parts.training import check_first_games, layout_shrink, plan_training
from protocol.parts.validation import plan_validation
from protocol.paths import Paths
from protocol.plan_model import ClaimPlan, Plan
from protocol.profile import blamer, evidence_limits
from protocol.profile import source as profile_source
from protocol.schema import DeclarationError

if TYPE_CHECKING:
    from protocol.profile import Origins


def plan_claim(claim: Claim, claims: Mapping[str, Claim], profile: Mapping[str, Any],
               paths: Paths, blame: Callable[[str], str] | None = None) -> ClaimPlan:
    """What ``profile`` runs of ``claim`` (``blame``: the source to name for a profile key,
    :func:`protocol.profile.blamer`): each part planned by its module, in order."""
    prof, shrunk = ProfileSettings(profile, claim, blame), []
    bank = load_bank()
    trained = plan_training(claim, prof, paths, shrunk, claims)
    direct = plan_direct_training(claim, prof, paths, shrunk)
    edits = plan_edits(claim, prof, claims, paths)
    vgames, varms, comparator = plan_validation(claim, prof, trained, claims, paths, shrunk)
    games = plan_screen_games(claim, prof, shrunk)
    check_first_games(claim, trained, bank, profile["statistics"]["health_games"])
    blocks, start, shares = plan_blocks(claim, prof, claims, games, bank)
    arms = plan_screen_arms(claim, prof, games, claims, paths, shrunk)
    sequential = plan_sequential(claim, prof, games, arms, shrunk)
    panel = plan_panel(claim, prof, arms, start, claims, paths, shrunk)
    shrunk += pairing_notes(claim, arms, {f"contrast {n}": claim.contrast_arms(n)
                                          for n in claim.contrasts})
    if panel is not None:
        shrunk += pairing_notes(claim, panel.arms, {"panel": list(panel.arms)},
                                panel.labellers())
    check_artefact_pins(claim, [*arms.values(), *(panel.arms.values() if panel else ())])
    vseeds = (int(bank.validation(vgames)[0]), vgames) if vgames else None
    replay = plan_replay(claim, prof, {**arms, **(panel.arms if panel else {})})
    return ClaimPlan(claim, blocks[0], blocks, (start, games), shares, trained, vgames, vseeds,
                     varms, comparator, arms, plan_contrasts(claim, arms, games), shrunk,
                     sequential, panel=panel, replay=replay, direct_trained=direct, edits=edits)


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
        out.append(f"trained {moves_text(t.moves)} moves, a checkpoint every "
                   f"{moves_text(t.every)} (declared: {moves_text(declared['moves'])} every "
                   f"{moves_text(declared['every'])})")
    if layout_shrink(t.layout, declared.get("layout")):
        out.append(f"trained as {layout_shrink(t.layout, declared.get('layout'))}")
    v = src.claim.doc["validation"]
    if src.validation_games != v["games"]:
        out.append(f"selected on {src.validation_games} of the declared {v['games']} "
                   "validation games")
    comp = src.validation_arms[src.comparator]
    if (comp.spec.depth, comp.spec.strata) != (v["search"]["depth"], v["search"]["strata"]):
        out.append(f"validated in {dtag(comp.spec.depth, comp.spec.strata)} instead of "
                   f"{dtag(v['search']['depth'], v['search']['strata'])}")
    a = comp.artefact
    if a is not None and a.claim != src.id:
        out.extend(f"its comparator {a.key} {why}" for why in _lowered(plans[a.claim],
                                                                       a.weights, plans))
    return out


def _inherit_shrinks(plans: Mapping[str, ClaimPlan]) -> None:
    """Every frozen artefact of another claim that a claim reads (an arm's leaf, its
    validation comparator, a warm start or an edit's source) adds what the profile shrank of
    it to the claim's ``shrunk``, so the evidence tier and the report account for every
    artefact the claim reads."""
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
        for e in p.edits.values():
            if isinstance(e.source, Artefact) and e.source.claim != p.id:
                read.setdefault(e.source.key, (e.source, []))[1].append(f"the edit {e.name}")
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
        for part, names in (("weights", {**decl.weights, **decl.direct}), ("arms", decl.arms)):
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
    from protocol.profile import load_profile_deferring_sizes, profile_names

    profile, check_sizes = load_profile_deferring_sizes(basedir, overrides, origins)
    own = profile["claims_dir"]
    shipped = Path(basedir) / DEFAULT_CLAIMS_DIR
    if own == DEFAULT_CLAIMS_DIR:
        own = shipped
    claims, plan_own, replaces = load_claim_set(shipped, own, profile["claims_dir"])
    check_pins(claims, profile_names(basedir))
    plan = build_plan(profile, claims, blamer(profile_source(profile), origins))
    check_sizes()
    plan.own, plan.replaces = plan_own, replaces
    return plan
