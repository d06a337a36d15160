"""What a claim's page discloses about its declaration: an edit made after its block was
opened, and a declaration of one's own that stands in for a shipped claim.

The protocol hash (:func:`protocol.records.ids.protocol_sha256`) refuses an edit of
the parts that decide a verdict; an edit of the rest (the title, the claim's text,
notes) is allowed, since a typo must stay fixable, but the page then says so, because
the text it quotes over the verdict is no longer the text that was preregistered.  The
ledger keeps :func:`declaration_sha256` of the declaration an opening read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.hashing import canonical_sha256

#: declaration keys an edit of which the page does not flag: the register's figures quoted
#: beside ours and the register theory a claim of our own derives from follow the register,
#: not the preregistration
FOLLOWS_THE_REGISTER = ("recorded", "derived_from")


def declaration_sha256(declaration: Mapping[str, Any]) -> str:
    """SHA-256 of a declaration (as planned, defaults filled in) but its
    :data:`FOLLOWS_THE_REGISTER` keys."""
    return canonical_sha256({k: v for k, v in declaration.items()
                             if k not in FOLLOWS_THE_REGISTER})


def declaration_notes(declaration: Mapping[str, Any], opened: Mapping[str, Any] | None,
                      path: str, replaces: str | None) -> list[str]:
    """The page's notes on its declaration (``path``): edited since an opening of its block
    recorded another :func:`declaration_sha256` (``opened``: the ledger's answer), and
    standing in for the shipped declaration ``replaces``."""
    notes = []
    now = declaration_sha256(declaration)
    for block, answer in sorted(((opened or {}).get("blocks") or {}).items()):
        kept = answer["entry"].get("declaration_sha256")
        if kept is not None and kept != now:
            notes.append(f"The declaration ({path}) was edited after screen block {block} was "
                         f"opened on {answer['entry']['opened_utc']}: the parts that decide "
                         "the verdict did not change (the protocol hash holds), but the title, "
                         "claim and notes this page quotes may not be those preregistered; "
                         "the preregistered experiment record keeps them")
    if replaces is not None:
        notes.append(f"This claim is declared in {path}, a claims folder of one's own, in "
                     f"place of the shipped {replaces} of the same id")
    return notes
