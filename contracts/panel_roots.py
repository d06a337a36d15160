"""The roots file of a ranking panel: the positions every ranker and the reference are asked about.

``drop7 panel roots`` writes it (JSON, format :data:`ROOTS_FORMAT`), the
ranking and labelling commands rebuild the roots from it, and the panel
readings (:mod:`analysis.panel_report`) read it for the page's boards::

    {"format": "drop7-panel-roots-v1",
     "policy": "search:leaf=linear,d=3,s=7",   # the policy whose games gave the roots
     "seeds": [START, COUNT],                  # the games played, seeds START..START+COUNT-1
     "every": 4,                               # decisions 0, every, 2 every, ... of each game
     "limit": 1024,                            # at most this many roots (null: no cap)
     "games_sha256": "<hex>" | null,           # the games table every game was checked against
     "roots": [{"game": SEED, "root": DECISION,
                "cols": [w0, .., w6],          # the engine's seven column words
                "state": {"score": .., "level": .., ...}}]}   # every STATE_FIELDS name

A root's ``state`` holds the engine's whole game state before the decision
by name (:data:`STATE_FIELDS`, the engine's ``ST_*`` order, which a test
checks), so a ranker sees exactly what it would see in the game.  A column
word holds one cell per 4 bits, the bottom cell in the low bits; a cell is 0
(empty), 1..7 (a number), 8 (a grey disc) or 9 (a cracked grey), the codes
of ``engines.drop7.board``; :func:`board_rows` draws a board from them.

:func:`read_roots` refuses, in one line naming the file and the key, a file
that is not this format or a root that breaks it: a game outside the seeds,
a decision that is not a multiple of ``every``, roots out of seed then
decision order or given twice, more roots than the limit, a column word that
is not a board column.  :func:`write_roots` checks the same before it writes
(atomically).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from contracts.cli_numbers import INT64_MAX, SEED_SPACE
from contracts.errors import clip
from contracts.input_file import decode_utf8, read_input_bytes
from contracts.json_file import write_json

#: the ``format`` of a roots file
ROOTS_FORMAT = "drop7-panel-roots-v1"
#: the engine's game state, by name, in its ``ST_*`` order (``engines.drop7.core``)
STATE_FIELDS = ("score", "level", "moves_remaining", "moves_played", "game_over", "censored",
                "clears", "next_disc", "popped", "waves")
#: the keys of a roots file, and of each root
ROOTS_KEYS = ("format", "policy", "seeds", "every", "limit", "games_sha256", "roots")
ROOT_KEYS = ("game", "root", "cols", "state")
#: a board's size, and a cell's code: empty, the numbers 1..7, a grey disc, a cracked grey
SIZE = 7
EMPTY, SOLID, CRACKED = 0, 8, 9
#: how :func:`board_rows` draws each cell code
CELL_CHARS = ".1234567#+"


class RootsError(ValueError):
    """A file that is not a panel roots file, or a root that breaks its layout."""


def _int(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def column_cells(word: int) -> list[int]:
    """The seven cells of a column word, bottom first."""
    return [(word >> (4 * k)) & 0xF for k in range(SIZE)]


def column_problem(word: Any) -> str | None:
    """Why ``word`` is not a board column (None when it is): 28 bits of cell codes 0..9,
    bottom-packed (no empty cell under a filled one)."""
    if not _int(word, 0, (1 << (4 * SIZE)) - 1):
        return f"{clip(repr(word))} is not a column word (an integer in 0..2**28-1)"
    cells = column_cells(word)
    if max(cells) > CRACKED:
        return f"{word} holds a cell code above {CRACKED}"
    height = sum(1 for c in cells if c != EMPTY)
    if any(c == EMPTY for c in cells[:height]):
        return f"{word} has an empty cell under a disc"
    return None


def board_rows(cols: Sequence[int]) -> list[str]:
    """Seven row strings, top row first, of a board's seven column words: ``.`` empty,
    ``1``..``7`` a number, ``#`` a grey disc, ``+`` a cracked grey."""
    cells = [column_cells(int(w)) for w in cols]
    return ["".join(CELL_CHARS[cells[c][SIZE - 1 - r]] for c in range(SIZE))
            for r in range(SIZE)]


def check_roots(doc: Any, source: str) -> dict[str, Any]:
    """``doc`` when it is a roots file; else :class:`RootsError` naming ``source`` and the
    key (see the module's docstring)."""
    if not isinstance(doc, dict):
        raise RootsError(f"{source}: not a JSON object")
    if doc.get("format") != ROOTS_FORMAT:
        raise RootsError(f"{source}: format: expected {ROOTS_FORMAT!r}, got "
                         f"{clip(repr(doc.get('format')))}")
    keys = set(doc)
    if keys != set(ROOTS_KEYS):
        odd = sorted(keys - set(ROOTS_KEYS)) or sorted(set(ROOTS_KEYS) - keys)
        what = "unknown key" if keys - set(ROOTS_KEYS) else "missing key"
        raise RootsError(f"{source}: {odd[0]}: {what} (a roots file has "
                         f"{', '.join(ROOTS_KEYS)})")
    if not isinstance(doc["policy"], str) or not doc["policy"]:
        raise RootsError(f"{source}: policy: must be a policy string")
    seeds = doc["seeds"]
    if not (isinstance(seeds, list) and len(seeds) == 2 and _int(seeds[0], 0, SEED_SPACE - 1)
            and _int(seeds[1], 1, INT64_MAX) and seeds[0] + seeds[1] <= SEED_SPACE):
        raise RootsError(f"{source}: seeds: must be [START, COUNT], COUNT >= 1, within 64 bits")
    if not _int(doc["every"], 1, INT64_MAX):
        raise RootsError(f"{source}: every: must be a whole number >= 1")
    limit = doc["limit"]
    if limit is not None and not _int(limit, 1, INT64_MAX):
        raise RootsError(f"{source}: limit: must be a whole number >= 1 or null")
    sha = doc["games_sha256"]
    if sha is not None and not (isinstance(sha, str) and len(sha) == 64
                                and all(c in "0123456789abcdef" for c in sha)):
        raise RootsError(f"{source}: games_sha256: must be a lowercase SHA-256 hex or null")
    roots = doc["roots"]
    if not isinstance(roots, list) or not roots:
        raise RootsError(f"{source}: roots: must be a non-empty list")
    if limit is not None and len(roots) > limit:
        raise RootsError(f"{source}: roots: {len(roots)} roots, above the limit {limit}")
    start, count = seeds
    last: tuple[int, int] | None = None
    for i, root in enumerate(roots):
        _check_root(root, f"{source}: roots[{i}]", start, count, doc["every"])
        key = (root["game"], root["root"])
        if last is not None and key <= last:
            raise RootsError(f"{source}: roots[{i}]: game {key[0]} root {key[1]} is out of "
                             "seed then decision order, or given twice")
        last = key
    return doc


def _check_root(root: Any, where: str, start: int, count: int, every: int) -> None:
    if not isinstance(root, dict) or set(root) != set(ROOT_KEYS):
        raise RootsError(f"{where}: must be an object with keys {', '.join(ROOT_KEYS)}")
    if not _int(root["game"], start, start + count - 1):
        raise RootsError(f"{where}.game: {clip(repr(root['game']))} is not one of the seeds "
                         f"{start}..{start + count - 1}")
    if not _int(root["root"], 0, INT64_MAX) or root["root"] % every:
        raise RootsError(f"{where}.root: {clip(repr(root['root']))} is not a decision index "
                         f"that is a multiple of every ({every})")
    cols = root["cols"]
    if not isinstance(cols, list) or len(cols) != SIZE:
        raise RootsError(f"{where}.cols: must be {SIZE} column words")
    for c, word in enumerate(cols):
        if problem := column_problem(word):
            raise RootsError(f"{where}.cols[{c}]: {problem}")
    state = root["state"]
    if not isinstance(state, dict) or set(state) != set(STATE_FIELDS):
        raise RootsError(f"{where}.state: must have exactly the keys {', '.join(STATE_FIELDS)}")
    for name in STATE_FIELDS:
        if not _int(state[name], 0, INT64_MAX):
            raise RootsError(f"{where}.state.{name}: {clip(repr(state[name]))} is not a whole "
                             "number")
    if state["moves_played"] != root["root"]:
        raise RootsError(f"{where}.state.moves_played: {state['moves_played']} is not the "
                         f"decision index {root['root']}")


def roots_doc(policy: str, seeds: tuple[int, int], every: int, limit: int | None,
              roots: Sequence[Mapping[str, Any]], games_sha256: str | None = None
              ) -> dict[str, Any]:
    """A roots file's content (not yet checked: :func:`write_roots` checks it)."""
    return {"format": ROOTS_FORMAT, "policy": policy, "seeds": [int(seeds[0]), int(seeds[1])],
            "every": int(every), "limit": None if limit is None else int(limit),
            "games_sha256": games_sha256, "roots": [dict(r) for r in roots]}


def write_roots(path: str | os.PathLike, doc: dict[str, Any]) -> None:
    """Check ``doc`` (:func:`check_roots`) and write it atomically."""
    check_roots(doc, str(path))
    write_json(path, doc, indent=None)


def read_roots(path: str | os.PathLike) -> dict[str, Any]:
    """A roots file's content, checked (:func:`check_roots`); one line naming the file when
    it is missing, unreadable, not UTF-8 or not JSON."""
    source = str(path)
    text = decode_utf8(read_input_bytes(path, source, RootsError), source, RootsError)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RootsError(f"{source}: not JSON (line {exc.lineno}: {exc.msg})") from None
    return check_roots(doc, source)
