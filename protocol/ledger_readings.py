"""What a ledger entry's readings say: the replays of a block read again, and whether they
are one reading (:mod:`protocol.ledger` writes them; the verdict, records and held-out
checks read them here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def replays(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The replays of a ledger entry, in order (``replays``; an older entry's single
    ``differs`` hash reads as one replay without a time)."""
    if "replays" in entry:
        return [dict(r) for r in entry["replays"]]
    if entry.get("differs"):
        return [{"table_sha256": entry["differs"]}]
    return []


def reading(record: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """What decides a reading (the first, or a replay): its deciding hash and panel table."""
    return record.get("deciding_sha256"), record.get("panel_sha256")


def replay_errors(entries: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Why the readings of a claim's blocks are not one reading (empty when they are): a
    replay whose games (deciding columns) or panel table differ from the first reading's, or
    a replay of a first reading that kept no deciding hash, so that no replay can be
    checked.  A block's verdict is its first reading's; a player that gives other games on
    the same seeds is not reproducible, and none of its readings is evidence."""
    errors = []
    for block, e in sorted(entries.items(), key=lambda kv: int(kv[0])):
        checked = [r for r in replays(e) if "deciding_sha256" in r]
        if checked and e.get("deciding_sha256") is None:
            errors.append(f"screen block {block} was played again, but its first reading "
                          "kept no hash of its deciding columns: the replay cannot be checked")
            continue
        for i, r in enumerate(replays(e), start=1):
            if "deciding_sha256" in r and reading(r) != reading(e):
                what = ("games" if r["deciding_sha256"] != e["deciding_sha256"]
                        else "panel table")
                errors.append(f"screen block {block} was played again (replay {i}) and its "
                              f"{what} differ from the first reading's: the arms do not "
                              "reproduce their games on the same seeds")
    return errors
