"""The ledger of opened screen blocks (``data/screen-ledger.json``).

A held-out screen block is read once per candidate.  The first candidate to
open a block owns it: the ledger records the SHA-256 of its frozen weights.
Opening the block again for the same weights (a rerun) is fine.  Opening it
for different weights is refused with :class:`LedgerError`, unless the
caller names the block in ``reuse_blocks``; the opening is then recorded with
``reused: true`` and the report must say so.

File format (``drop7-screen-ledger-v1``)::

    {"format": "drop7-screen-ledger-v1",
     "blocks": {"1": [{"sha256": "...", "candidate": "ntuple-A", "profile": "pilot",
                       "seeds": [start, count], "opened_utc": "...", "reused": false,
                       "config_hash": "...", "commit": "..."}, ...]}}

The first entry of a block is its owner; each later entry is a reuse by a
different candidate (one entry per distinct SHA-256).  Updates hold an
exclusive lock on ``<ledger>.lock`` and replace the file atomically.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analysis import atomic_write

FORMAT = "drop7-screen-ledger-v1"


class LedgerError(ValueError):
    """A refused opening, or a ledger file that cannot be read."""


@dataclass(frozen=True)
class Opening:
    """The ledger's answer: this run may read the block; ``reused`` if it was another's."""

    block: int
    sha256: str
    reused: bool
    owner: dict[str, Any]
    entry: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"block": self.block, "sha256": self.sha256, "reused": self.reused,
                "owner": self.owner, "entry": self.entry}


def read_ledger(path: str | Path) -> dict[str, Any]:
    """The ledger's content (an empty ledger when the file does not exist)."""
    p = Path(path)
    if not p.exists():
        return {"format": FORMAT, "blocks": {}}
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LedgerError(f"{p}: unreadable ledger ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("blocks"), dict):
        raise LedgerError(f"{p}: not a {FORMAT} ledger")
    return doc


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _short(sha: str) -> str:
    return sha[:12]


def open_block(path: str | Path, block: int, sha256: str, *, candidate: str, profile: str,
               seeds: Sequence[int], reuse_blocks: Sequence[int] = (),
               config_hash: str | None = None, commit: str | None = None,
               now: datetime | None = None) -> Opening:
    """Record that ``sha256`` reads screen ``block``, or refuse.

    Returns the :class:`Opening`; raises :class:`LedgerError` (one line naming
    the block, its owner and the way out) when a different candidate already
    opened the block and ``block`` is not in ``reuse_blocks``.
    """
    if len(sha256) != 64 or any(ch not in "0123456789abcdef" for ch in sha256):
        raise LedgerError(f"not a SHA-256 hex digest: {sha256!r}")
    p = Path(path)
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    with _locked(p):
        doc = read_ledger(p)
        entries: list[dict[str, Any]] = doc["blocks"].setdefault(str(block), [])
        mine = next((e for e in entries if e["sha256"] == sha256), None)
        if mine is None:
            if entries and block not in reuse_blocks:
                owner = entries[0]
                raise LedgerError(
                    f"screen block {block} was opened on {owner['opened_utc']} for "
                    f"{owner['candidate']} (sha256 {_short(owner['sha256'])}, profile "
                    f"{owner['profile']}); refusing to read it for a different candidate "
                    f"(sha256 {_short(sha256)}): choose an unopened block (screen.block) or "
                    f"name block {block} in screen.reuse_blocks to reuse it knowingly")
            mine = {"sha256": sha256, "candidate": candidate, "profile": profile,
                    "seeds": [int(s) for s in seeds], "opened_utc": stamp,
                    "reused": bool(entries), "config_hash": config_hash, "commit": commit}
            entries.append(mine)
            atomic_write(p, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        owner = entries[0]
    return Opening(block=block, sha256=sha256, reused=owner["sha256"] != sha256,
                   owner=dict(owner), entry=dict(mine))


def opened_blocks(path: str | Path) -> dict[int, list[dict[str, Any]]]:
    """Every opened block and its entries (owner first)."""
    return {int(k): v for k, v in read_ledger(path)["blocks"].items()}
