"""The screen: its declaration's check, its games and blocks at a profile.

A claim screens games, ranks a panel's roots, or both; a shared block is the
block of a claim that owns one and declares at least as many games.  At a
profile the screen plays its (shrunk) games on its block's seeds, or, for a
claim without a screen, its panel's roots arm plays the panel's games.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from protocol.claim import Claim
from protocol.parts.base import KeyCheck, ProfileSettings, names_of
from protocol.parts.panel import panel_games
from protocol.schema import DeclarationError


def check_screen(doc: dict[str, Any], chk: KeyCheck) -> None:
    """A claim screens games, ranks a panel's roots, or both; without a panel it has
    contrasts, without a screen none (only the roots arm plays)."""
    if "screen" not in doc and "panel" not in doc:
        chk.fail("screen", "missing: a claim declares a screen:, a panel: or both "
                 "(docs/claims.md)")
    if "panel" not in doc and "contrasts" not in doc:
        chk.fail("contrasts", "missing: a claim with a screen compares its arms in contrasts")
    if "screen" not in doc and "contrasts" in doc:
        chk.fail("contrasts", "a claim without a screen plays only its panel's roots arm: "
                 "no contrasts")


def check_shared_block(claim: Claim, claims: Mapping[str, Claim], chk: KeyCheck) -> None:
    """A shared block is the block of a claim that owns one and declares at least as many
    games (more would read the next block, which may be a third claim's)."""
    block = claim.screen["block"]
    if not isinstance(block, Mapping):
        return
    owner = claims.get(block["claim"])
    if block["claim"] == claim.id:
        chk.fail("screen.block.claim", "names this claim itself")
    if owner is None:
        chk.fail("screen.block.claim", f"no claim {block['claim']!r} (claims: "
                 f"{names_of(claims)})")
    further = owner.screen["block"]
    if isinstance(further, Mapping) and further["claim"] == claim.id:
        chk.fail("screen.block.claim", f"claim {owner.id} shares this claim's block in turn (a "
                 "cycle of shared blocks): one of them must own a block")
    if isinstance(further, Mapping):
        chk.fail("screen.block.claim", f"claim {owner.id} itself shares the block of claim "
                 f"{further['claim']}: name the claim that owns the block (screen.block: "
                 f"{{claim: {further['claim']}}})")
    games, owned = claim.screen["games"], owner.screen["games"]
    if games > owned:
        chk.fail("screen.games", f"{games:,} games is more than the {owned:,} of claim "
                 f"{owner.id}, whose block this claim shares: the extra games would read the "
                 "next block, which may be another claim's")


def plan_block(claim: Claim, prof: ProfileSettings, claims: Mapping[str, Claim]
               ) -> tuple[int, str | None]:
    """The claim's first screen block at this profile and the claim whose block it shares."""
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
        return ProfileSettings(prof.profile, other, prof.blame).over.get(
            "block", owned + prof.profile["block_offset"]), other.id
    return prof.over.get("block", declared + prof.profile["block_offset"]), None


def plan_screen_games(claim: Claim, prof: ProfileSettings, shrunk: list[str]) -> int:
    """The games the screen plays at this profile (its shrink listed in ``shrunk``); for a
    claim without a screen, the panel's games, which only its roots arm plays."""
    if "screen" in claim.doc:
        declared_games = claim.screen["games"]
        games = prof.size(("screen", "games"), "screen_games", declared_games)
        if games != declared_games:
            shrunk.append(f"screen: {games} of the declared {declared_games} games")
        return games
    if "screen" in prof.over:
        prof.fail(f"claims.{claim.id}.screen", f"claim {claim.id} declares no screen "
                  f"(its panel's roots arm plays claims.{claim.id}.panel.games games)")
    for name, over in prof.over.get("arms", {}).items():
        if "games" in over:
            prof.fail(f"claims.{claim.id}.arms.{name}.games", f"claim {claim.id} declares "
                      "no screen: its arms play no prefix")
    return panel_games(claim, prof)


def plan_blocks(claim: Claim, prof: ProfileSettings, claims: Mapping[str, Claim], games: int,
                bank: Any) -> tuple[list[int], int, str | None]:
    """The screen blocks ``games`` games read at this profile, the first game's seed and the
    claim whose block it shares (None: its own); ``bank``: the seed bank."""
    block, shares = plan_block(claim, prof, claims)
    size, count = bank.roles["screen"]["block_size"], bank.roles["screen"]["blocks"]
    n_blocks = math.ceil(games / size)
    if n_blocks > count:  # before any list of blocks is built
        key = "screen.games" if "screen" in claim.doc else "panel.roots.games"
        raise DeclarationError(f"{claim.path}: key {key}: {games:,} games would read "
                               f"{n_blocks:,} blocks of {size} seeds; the screen role holds "
                               f"{count:,}")
    if block + n_blocks > count:
        prof.fail(f"claims.{claim.id}.block", f"blocks {block:,} to {block + n_blocks - 1:,} "
                  f"({games:,} games, {size} seeds a block) are outside the screen role's "
                  f"blocks 0..{count - 1}")
    blocks = list(range(block, block + n_blocks))
    return blocks, int(bank.screen_block(blocks[0], 1)[0]), shares
