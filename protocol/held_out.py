"""What keeps a held-out screen block held out: the blocks reserved for throwaway ledgers, and
the ledger's consistency.

The screen role's blocks :data:`THROWAWAY_BLOCKS` (4000-4095) are the only
ones a profile with a ledger of its own (a throwaway ledger: smoke, a test)
may read, and the only ones the committed ledger never records: a block
read outside it is known to the committed ledger, so no run can read a
never-read block without the committed ledger knowing (:func:`block_refusal`).

:func:`check_consistency` checks what the schema cannot: that the entries of
a ledger agree with each other, with the seed bank and with the games tables
recorded for them.  A hand-edited ledger whose every field is well formed is
refused when it does not hold together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from protocol.ledger_readings import replays
from protocol.paths import Paths, screen_label

#: screen blocks reserved for throwaway ledgers (profiles whose ledger is not the committed one)
THROWAWAY_BLOCKS = range(4000, 4096)
#: a look's decisions that end a sequential screen before its last look
EARLY_STOPS = ("stop-efficacy", "stop-futility")


def reserved_text() -> str:
    """``4000-4095``: the reserved blocks as docs and messages write them."""
    return f"{THROWAWAY_BLOCKS.start}-{THROWAWAY_BLOCKS.stop - 1}"


def block_refusal(block: int, committed: bool) -> str | None:
    """Why a profile writing the committed ledger (``committed``) or a throwaway one may not
    read screen ``block`` (None when it may)."""
    inside = block in THROWAWAY_BLOCKS
    if committed and inside:
        return (f"screen block {block} is reserved for throwaway ledgers (blocks "
                f"{reserved_text()}); a profile writing the committed ledger reads blocks "
                "outside that range")
    if not committed and not inside:
        return (f"screen block {block} is outside the blocks {reserved_text()} reserved for "
                "throwaway ledgers; a profile with a ledger of its own reads only those, so a "
                "held-out block is never read without the committed ledger knowing")
    return None


def _table_hashes(entry: Mapping[str, Any], first_block: int, start: int) -> list[tuple[str, str]]:
    """``(file, sha256)`` of every games table recorded for an entry's opening: the block's
    ``closed.json`` in the results (its deciding hash when it has one) and the seed lease of
    the committed records."""
    paths = Paths(entry["profile"])
    out = []
    closed = Path(paths.path("closed", claim=entry["claim"], block=screen_label(first_block)))
    leases = sorted(Path(paths.path("records", claim=entry["claim"])).glob("seed-lease-*.json"))
    for path, key in [(closed, "table_sha256"), *((p, "cohortManifestSha256") for p in leases)]:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and "deciding_sha256" in doc:
            key = "deciding_sha256"  # a reproduction's table differs in its wall times alone
        if not isinstance(doc, dict) or not isinstance(doc.get(key), str):
            continue
        if key == "cohortManifestSha256" and doc.get("rangeStartHex") != hex(start):
            continue
        out.append((str(path), doc[key]))
    return out


def check_consistency(doc: Mapping[str, Any], path: str | Path, *, committed: bool,
                      screen: Mapping[str, int], fail: Callable[[str], Exception]) -> None:
    """Raise ``fail(message)`` for the first entry of a schema-valid ledger ``doc`` that does
    not hold together: a block outside the screen role or on the wrong side of
    :data:`THROWAWAY_BLOCKS`, seeds that are not the block's, an opener recorded twice in a
    block, a ``reused`` flag that contradicts the entry's place, a status that contradicts
    the fields, looks that contradict each other or the unread seeds, or a games table hash
    that none of the tables recorded for it has.  ``screen``: the seed bank's screen role
    (``start``, ``block_size``, ``blocks``)."""
    first, size, count = screen["start"], screen["block_size"], screen["blocks"]
    for key in sorted(doc["blocks"], key=int):
        block = int(key)
        for i, e in enumerate(doc["blocks"][key]):
            where = f"{path}: block {key} entry {i + 1} (claim {e['claim']})"

            def refuse(why: str, where: str = where) -> None:
                raise fail(f"{where}: {why}")

            if block >= count:
                refuse(f"block {block} is outside the screen role's blocks 0..{count - 1}")
            why = block_refusal(block, committed)
            if why:
                refuse(why)
            start, n = e["seeds"]
            offset = start - first
            lo = offset // size if offset >= 0 else -1
            if (offset < 0 or offset % size or n < 1 or not lo <= block
                    or offset + n <= block * size or offset + n > count * size):
                refuse(f"seeds [{start}, {n}] are not the block's (block {block} is seeds "
                       f"{first + block * size} to {first + (block + 1) * size - 1}, read from "
                       "the first seed of its opening's first block)")
            for other in doc["blocks"][key][:i]:
                if other["claim"] == e["claim"] and other["hashes"] == e["hashes"]:
                    refuse("the same opener (claim and frozen hashes) is recorded twice in "
                           "this block")
            if e["reused"] != (i > 0):
                refuse(f"reused: {str(e['reused']).lower()} contradicts its place (only the "
                       "block's first entry is not reused)")
            done = [k for k in ("games", "table_sha256", "completed_utc", "differs", "unread",
                                "replays") if e.get(k)]
            if e["status"] == "opened" and done:
                refuse(f"status opened with {done[0]} (only a complete entry has it)")
            if e["status"] == "complete" and e["completed_utc"] < e["opened_utc"]:
                refuse(f"completed_utc {e['completed_utc']} is before opened_utc "
                       f"{e['opened_utc']}")
            _check_looks(e, refuse)
            if e["status"] == "complete":
                kept = {r[k] for r in [e, *replays(e)] for k in ("table_sha256",
                                                                 "deciding_sha256") if k in r}
                for file, sha in _table_hashes(e, lo, start):
                    if sha not in kept:
                        refuse(f"table_sha256 {e['table_sha256'][:12]} matches no games table "
                               f"recorded for it ({file} has {sha[:12]})")


def _check_looks(e: Mapping[str, Any], refuse: Callable[[str], None]) -> None:
    """A sequential screen's looks: numbered 1, 2, ..., on the entry's seeds in growing
    counts, every look but the last continuing, the last stopping where the unread seeds
    begin."""
    looks: Sequence[Mapping[str, Any]] = e.get("looks") or []
    start, n = e["seeds"]
    before = 0
    for j, look in enumerate(looks):
        at = f"looks[{j}]"
        if look["look"] != j + 1:
            refuse(f"{at}: look {look['look']} where look {j + 1} belongs")
        if look["seeds"][0] != start or not before < look["seeds"][1] <= n:
            refuse(f"{at}: seeds {look['seeds']} are not the first {before + 1} to {n} seeds "
                   f"of the entry's [{start}, {n}]")
        before = look["seeds"][1]
        if j < len(looks) - 1 and look["decision"] != "continue":
            refuse(f"{at}: decision {look['decision']} but look {j + 2} was made after it")
        if look["utc"] < e["opened_utc"] or (j and look["utc"] < looks[j - 1]["utc"]):
            refuse(f"{at}: utc {look['utc']} is before the opening or the look before it")
    last = looks[-1] if looks else None
    if last is not None and last["decision"] == "stop" and last["seeds"][1] != n:
        refuse(f"looks[{len(looks) - 1}]: decision stop (the last look) after "
               f"{last['seeds'][1]} of the entry's {n} seeds")
    unread = e.get("unread")
    if unread is not None:
        if last is None or last["decision"] not in EARLY_STOPS:
            refuse(f"unread {unread} without a look that stopped early")
        if list(unread) != [start + last["seeds"][1], n - last["seeds"][1]]:
            refuse(f"unread {unread} is not the seeds after the last look's "
                   f"{last['seeds'][1]} ([{start + last['seeds'][1]}, "
                   f"{n - last['seeds'][1]}])")
