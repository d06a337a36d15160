"""The ledger of opened screen blocks (``data/screen-ledger.json``): who read which block.

A held-out block is read by one claim, for one set of frozen weights.  An
*opener* is a claim with the SHA-256 of every frozen artefact its arms read
(none for a claim of hand-written leaves).  The first opener of a block owns
it.  The same opener may open it again: a rerun, or a run that crashed
during play, continues on the same block (the block is recorded when it is
opened, before any game, and marked ``complete`` when every game is in).
Any other opener is refused with :class:`LedgerError`, unless

* it is a claim whose declaration shares the block of the owner claim
  (``screen.block: {claim: ...}``), or is that owner's claim when a sharer
  came first, or
* the profile allows reuse (``allow_reuse``: smoke runs only);

the opening is then recorded with ``reused: true`` and the report flags it
(a reused block is not held out for the second opener).

File format (``drop7-screen-ledger-v3``; a ``v2`` file, without ``looks`` and
``unread``, reads as it is and is written as ``v3`` on its next update)::

    {"format": "drop7-screen-ledger-v3",
     "blocks": {"1": [{"claim": "ntuple-line-tuples", "profile": "pilot",
                       "hashes": {"ntuple-line-tuples/ntuple-A": "<sha256>"},
                       "seeds": [start, count], "opened_utc": "...", "reused": false,
                       "shares": null, "status": "opened" | "complete",
                       "games": n, "table_sha256": "...", "deciding_sha256": "...",
                       "completed_utc": "...",
                       "config_hash": "...", "commit": "...",
                       "protocol_sha256": "...", "declaration_sha256": "...",
                       "looks": [{"look": k, "seeds": [start, n], "statistic": t,
                                  "efficacy_bound": c, "futility_bound": a,
                                  "decision": "...", "utc": "..."}, ...],
                       "unread": [first seed, count] | null,
                       "replays": [{"table_sha256": "...", "deciding_sha256": "...",
                                    "utc": "...", "looks": [...]}, ...]}, ...]}}

``protocol_sha256`` is the preregistered experiment's hash of what decides the
verdict (:func:`protocol.records.ids.protocol_sha256`): an opener whose hash
differs from the one its entry kept is refused (the declaration was edited
after its block was opened); an entry without one (written before it was
kept) is accepted and flagged ``no_protocol_hash`` in the answer.

A sequential screen records every look when it is made (:func:`record_look`)
and, when it stops before its last look, the seeds of its block it never
read (``unread``, written when the block is closed).

What the first reading recorded (its looks and their times, its games table's
hash and the hash of its deciding columns, its completion time) is never
rewritten.  A block played again after it was complete with the same games
(``deciding_sha256``: scores, moves, trajectories; not wall times) and, for a
sequential screen, the same looks (not their times) is a *reproduction* and
leaves the ledger as it was; with other games it is a
*replay*: its looks and hashes are appended to the entry's ``replays`` (one item
per replay, in order; :func:`replays` reads them, and the single ``differs``
hash an older ledger kept, as one replay) and
:func:`protocol.ledger_readings.replay_errors` makes the
claim's verdict ``invalidated-by-methodological-error``, so a block can never be
read again until it passes.

Every read checks the file against ``protocol/schemas/ledger.schema.yaml``:
an entry with a missing field or a wrong type is one :class:`LedgerError`
line naming the ledger and the key.  Updates hold an exclusive lock on
``<ledger>.lock`` and replace the file atomically.

:data:`COMMITTED` is the committed ledger, the record of every pilot and
paper block.  :func:`check_ledger_file` refuses, before any job, a ledger
file that does not exist unless the profile starts a new one
(``ledger_new: true``, which a profile writing the committed ledger may not
set): a misspelt path never reads as an empty ledger.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contracts.hashing import canonical_json
from contracts.json_file import write_json
from protocol.ledger_readings import reading, replays
from protocol.schema import DeclarationError, check

FORMAT = "drop7-screen-ledger-v3"
#: formats that read (an older one is written as :data:`FORMAT` on the next update)
READABLE = ("drop7-screen-ledger-v2", FORMAT)
#: the committed ledger (relative to the repository and to the run's working directory)
COMMITTED = "data/screen-ledger.json"
OPENED, COMPLETE = "opened", "complete"


class LedgerError(ValueError):
    """A refused opening, or a ledger file that cannot be read."""


@dataclass(frozen=True)
class Opener:
    """Who reads a block: a claim and the SHA-256 of each frozen artefact it reads."""

    claim: str
    hashes: Mapping[str, str]
    shares: str | None = None  # the claim whose block this claim declares it shares

    def same(self, entry: Mapping[str, Any]) -> bool:
        """Whether a ledger entry is this opener."""
        return entry["claim"] == self.claim and dict(entry["hashes"]) == dict(self.hashes)

    def permitted(self, entry: Mapping[str, Any], allow_reuse: bool) -> bool:
        """Whether this opener may read a block that ``entry`` has read."""
        if self.same(entry) or allow_reuse:
            return True
        return entry["claim"] != self.claim and (
            self.shares == entry["claim"] or entry.get("shares") == self.claim)


def read_ledger(path: str | Path) -> dict[str, Any]:
    """The ledger's content (an empty ledger when the file does not exist)."""
    p = Path(path)
    if not p.exists():
        return {"format": FORMAT, "blocks": {}}
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LedgerError(f"{p}: unreadable ledger ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") not in READABLE or not isinstance(
            doc.get("blocks"), dict):
        raise LedgerError(f"{p}: not a {' or '.join(READABLE)} ledger")
    try:
        check(doc, "ledger", p)
    except DeclarationError as exc:
        raise LedgerError(str(exc)) from None
    return doc


def is_committed(path: str | Path, basedir: str | Path | None = None) -> bool:
    """Whether ``path`` names the committed ledger (as given, or resolved against the working
    directory or ``basedir``)."""
    given = Path(path)
    if not given.is_absolute() and given.as_posix() == COMMITTED:
        return True
    roots = [Path.cwd(), *([Path(basedir)] if basedir is not None else [])]
    return any(given.resolve() == (root / COMMITTED).resolve() for root in roots)


def check_ledger_file(path: str | Path, new: bool, source: str) -> None:
    """Refuse a ledger file that does not exist unless the profile (``source``) starts a new
    one (``ledger_new``); refuse one that exists but cannot be read as a ledger."""
    if not Path(path).exists():
        if not new:
            raise LedgerError(f"{source}: key ledger: {path} does not exist; a run never "
                              "starts an empty ledger by accident (a misspelt path): fix the "
                              "path, or set ledger_new: true for a new ledger of its own")
        return
    read_ledger(path)


@contextmanager
def _locked(path: Path) -> Iterator[dict[str, Any]]:
    """The ledger's content under an exclusive lock; written back (atomically) on exit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            doc = read_ledger(path)
            before = canonical_json(doc)
            yield doc
            if canonical_json(doc) != before:
                doc["format"] = FORMAT
                write_json(path, doc, sort_keys=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _short(hashes: Mapping[str, str]) -> str:
    return ", ".join(f"{k} {v[:12]}" for k, v in hashes.items()) or "no frozen weights"


def _stamp(now: datetime | None) -> str:
    return (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def refusal(block: int, opener: Opener, entries: Sequence[Mapping[str, Any]],
            allow_reuse: bool) -> str | None:
    """Why ``opener`` may not read ``block`` (None when it may)."""
    for e in entries:
        if not opener.permitted(e, allow_reuse):
            other = "claim " + e["claim"] if e["claim"] != opener.claim else "this claim"
            return (f"screen block {block} was opened on {e['opened_utc']} by {other} "
                    f"(profile {e['profile']}, {_short(e['hashes'])}); refusing to read it "
                    f"for claim {opener.claim} ({_short(opener.hashes)}): choose an unopened "
                    "block (claims.<id>.block in the profile)"
                    + (", or declare screen.block: {claim: " + e["claim"] + "} to share it"
                       if e["claim"] != opener.claim else ""))
    return None


def protocol_refusal(block: int, opener: Opener, entries: Sequence[Mapping[str, Any]],
                     protocol: str | None) -> str | None:
    """Why ``opener`` may not read ``block`` again: its deciding parts changed (None if not)."""
    mine = next((e for e in entries if opener.same(e)), None)
    kept = (mine or {}).get("protocol_sha256")
    if protocol is None or kept is None or kept == protocol:
        return None
    return (f"claim {opener.claim}: screen block {block}: the declaration's deciding parts "
            f"changed after the block was opened on {mine['opened_utc']} (protocol hash "
            f"{kept[:12]}, now {protocol[:12]}); refusing to read it again: restore the "
            "declaration or declare a new claim on an unopened block")


def open_blocks(path: str | Path, blocks: Sequence[int], opener: Opener, *, profile: str,
                seeds: Sequence[int], allow_reuse: bool = False, config_hash: str | None = None,
                commit: str | None = None, now: datetime | None = None,
                protocol_sha256: str | None = None,
                declaration_sha256: str | None = None) -> dict[str, Any]:
    """Record that ``opener`` reads ``blocks``, or refuse (:class:`LedgerError`).

    Returns the ledger's answer: every block with its owner and this opener's
    entry, and ``reused`` when any block had been read by another opener.
    ``protocol_sha256`` is kept in a new entry and checked against an existing
    one (:func:`protocol_refusal`); ``declaration_sha256``
    (:func:`protocol.disclosure.declaration_sha256`) is kept in a new entry, for the page
    to say when the declaration was edited since.
    """
    for sha in opener.hashes.values():
        if len(sha) != 64 or any(ch not in "0123456789abcdef" for ch in sha):
            raise LedgerError(f"not a SHA-256 hex digest: {sha!r}")
    with _locked(Path(path)) as doc:
        for block in blocks:
            entries = doc["blocks"].get(str(block), [])
            why = (refusal(block, opener, entries, allow_reuse)
                   or protocol_refusal(block, opener, entries, protocol_sha256))
            if why:
                raise LedgerError(why)
        answer = {"blocks": {}, "reused": False}
        for block in blocks:
            entries = doc["blocks"].setdefault(str(block), [])
            mine = next((e for e in entries if opener.same(e)), None)
            if mine is None:
                mine = {"claim": opener.claim, "hashes": dict(opener.hashes),
                        "shares": opener.shares, "profile": profile,
                        "seeds": [int(s) for s in seeds], "opened_utc": _stamp(now),
                        "reused": bool(entries), "status": OPENED,
                        "config_hash": config_hash, "commit": commit}
                if protocol_sha256 is not None:
                    mine["protocol_sha256"] = protocol_sha256
                if declaration_sha256 is not None:
                    mine["declaration_sha256"] = declaration_sha256
                entries.append(mine)
            reused = any(not opener.same(e) for e in entries[:entries.index(mine)])
            answer["blocks"][str(block)] = {"owner": dict(entries[0]), "entry": dict(mine),
                                            "reused": reused,
                                            "no_protocol_hash": "protocol_sha256" not in mine}
            answer["reused"] = answer["reused"] or reused
    return answer


def _entry(doc: Mapping[str, Any], block: int, opener: Opener, what: str) -> dict[str, Any]:
    mine = next((e for e in doc["blocks"].get(str(block), []) if opener.same(e)), None)
    if mine is None:
        raise LedgerError(f"screen block {block} has no opening for claim {opener.claim} "
                          f"({_short(opener.hashes)}) to {what}")
    return mine


def _open_replay(mine: dict[str, Any]) -> dict[str, Any]:
    """The replay under way of a complete entry (appended when none is): the last one that
    has no games table yet."""
    mine["replays"] = replays(mine)
    mine.pop("differs", None)
    if not mine["replays"] or "table_sha256" in mine["replays"][-1]:
        mine["replays"].append({"looks": []})
    return mine["replays"][-1]


def record_look(path: str | Path, blocks: Sequence[int], opener: Opener,
                look: Mapping[str, Any], now: datetime | None = None) -> None:
    """Record a sequential screen's look (``look``, ``seeds``, ``statistic``, the bounds and the
    ``decision``) in ``opener``'s entries of ``blocks``; a look made again before the block is
    complete (a rerun after a crash) replaces the one of the same number; a look of a block
    already complete belongs to a replay and is appended to it (the first reading's looks are
    kept as they were)."""
    keys = ("look", "seeds", "statistic", "efficacy_bound", "futility_bound", "decision")
    record = {**{k: look[k] for k in keys}, "utc": _stamp(now)}
    with _locked(Path(path)) as doc:
        for block in blocks:
            mine = _entry(doc, block, opener, "record a look in")
            target = _open_replay(mine) if mine.get("status") == COMPLETE else mine
            looks = [x for x in target.get("looks", []) if x["look"] != record["look"]]
            target["looks"] = sorted([*looks, record], key=lambda x: x["look"])


def close_blocks(path: str | Path, blocks: Sequence[int], opener: Opener, *, games: int,
                 table_sha256: str, deciding_sha256: str, unread: Sequence[int] | None = None,
                 panel_sha256: str | None = None,
                 now: datetime | None = None) -> dict[str, Any]:
    """Mark ``opener``'s entries of ``blocks`` complete: every game played, the table's hash,
    the hash of its deciding columns (:func:`contracts.games_table.deciding_sha256`),
    (a sequential screen that stopped early) ``unread``, ``[first seed, count]`` of the
    seeds never read, and (a ranking panel) ``panel_sha256``, its table's hash: the labels
    and rankings computed on the block.

    A block completed before keeps what its first reading recorded.  Playing it
    again with the same deciding columns (and panel table) and, for a sequential
    screen, the same looks (their statistics, bounds and decisions; not their
    times) is a reproduction: nothing is recorded, whatever the wall times.
    Anything else (other games, or other looks) is a replay, appended to the
    entry's ``replays`` with its hashes and time;
    :func:`~protocol.ledger_readings.replay_errors` turns a replay whose games differ into a
    methodological error of the verdict.
    """
    with _locked(Path(path)) as doc:
        out = {}
        for block in blocks:
            mine = _entry(doc, block, opener, "complete")
            if mine.get("status") != COMPLETE and unread is not None:
                mine["unread"] = [int(x) for x in unread]
            if mine.get("status") == COMPLETE:
                again = replays(mine)
                seen = [reading(mine), *map(reading, again)]
                under_way = bool(again) and "table_sha256" not in again[-1]
                if under_way and (deciding_sha256, panel_sha256) in seen and _same_looks(
                        again[-1].get("looks", []), mine.get("looks", [])):
                    _drop_replay_under_way(mine, again)  # the looks made again: the same
                elif under_way or (deciding_sha256, panel_sha256) not in seen:
                    replay = _open_replay(mine)
                    replay.update(table_sha256=table_sha256, deciding_sha256=deciding_sha256,
                                  utc=_stamp(now))
                    if panel_sha256 is not None:
                        replay["panel_sha256"] = panel_sha256
                    if not replay.get("looks"):
                        replay.pop("looks", None)
            else:
                mine.update(status=COMPLETE, games=int(games), table_sha256=table_sha256,
                            deciding_sha256=deciding_sha256, completed_utc=_stamp(now))
                if panel_sha256 is not None:
                    mine["panel_sha256"] = panel_sha256
            out[str(block)] = dict(mine)
    return out


def _same_looks(again: Sequence[Mapping[str, Any]], first: Sequence[Mapping[str, Any]]) -> bool:
    """Whether looks made again are the first reading's: every field but the time."""
    def bare(looks: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in x.items() if k != "utc"} for x in looks]
    return bare(again) == bare(first)


def _drop_replay_under_way(mine: dict[str, Any], again: list[dict[str, Any]]) -> None:
    """Forget the replay under way of a complete entry (a reproduction after all)."""
    if len(again) > 1:
        mine["replays"] = again[:-1]
    else:
        mine.pop("replays", None)


def opened_blocks(path: str | Path) -> dict[int, list[dict[str, Any]]]:
    """Every opened block and its entries (owner first)."""
    return {int(k): v for k, v in read_ledger(path)["blocks"].items()}


def entries_now(closed: Mapping[str, Any], path: str | Path, claim: str) -> dict[str, Any]:
    """``closed`` (a block's answer at its closing: ``entries`` by block) with each entry as
    the ledger at ``path`` holds it now (the same claim, profile and frozen hashes): what
    quotes a block's replays (the records, the page) counts those appended since it closed,
    such as a later run's replay."""
    blocks = read_ledger(path)["blocks"]
    now = {}
    for b, old in closed.get("entries", {}).items():
        mine = [e for e in blocks.get(str(b), []) if e["claim"] == claim
                and e.get("profile") == old.get("profile")
                and e.get("hashes") == old.get("hashes")]
        now[b] = mine[0] if len(mine) == 1 else old
    return {**closed, "entries": now}
