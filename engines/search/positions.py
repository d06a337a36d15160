"""The fixed positions of ``drop7 bench search``: public states from real games.

The set is shipped as ``engines/search/positions.json`` so every bench run
and every test times and checks the same decisions.  :func:`draw_positions`
drew it and redraws it identically:

* games of the fair ``search:leaf=linear,d=3,s=7`` policy on the first
  ``GAMES`` seeds of the seed bank's ``probe`` role (correctness and speed
  checks only; never screen or validation seeds);
* from a game of ``L`` moves, the decisions at moves ``L // 6``, ``L // 2``
  and ``5 L // 6``: one early, one middle and one late position each.

A position is a decision state: the board (row strings, top row first), the
next disc and the moves remaining; its seed and move say where it came from.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engines.drop7 import core
from engines.drop7.board import cols_to_rows, rows_to_cols

POSITIONS_FILE = Path(__file__).with_name("positions.json")
FORMAT = "drop7-positions-v1"
POLICY = "search:leaf=linear,d=3,s=7"
GAMES = 20
PHASES = (("early", 1, 6), ("middle", 1, 2), ("late", 5, 6))  # move = L * num // den

Position = tuple[np.ndarray, int, int]


def game_states(seed: int, policy) -> list[Position]:
    """Every decision state ``(cols, disc, moves_remaining)`` of one game of ``policy``."""
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    core.new_game(np.uint64(seed), state, cols)
    policy.new_game(seed)
    states = []
    while not core.finished(state):
        states.append((cols.copy(), int(state[core.ST_NEXT_DISC]),
                       int(state[core.ST_MOVES_REMAINING])))
        core.advance(np.uint64(seed), policy.choose(state, cols), state, cols, scratch, out)
    return states


def draw_positions(games: int = GAMES) -> dict:
    """The position set as JSON-ready data (the first ``games`` probe seeds)."""
    from engines.play.policy import load_policy
    from engines.seedbank import load_bank

    policy = load_policy(POLICY)
    seeds = [int(s) for s in load_bank().probe(games)]
    rows = []
    for seed in seeds:
        states = game_states(seed, policy)
        for phase, num, den in PHASES:
            move = len(states) * num // den
            cols, disc, mr = states[move]
            rows.append({"phase": phase, "seed": seed, "move": move,
                         "moves_in_game": len(states), "board": cols_to_rows(cols),
                         "disc": disc, "moves_remaining": mr})
    return {"format": FORMAT, "policy": POLICY, "seed_role": "probe", "games": games,
            "rule": "moves L // 6, L // 2 and 5 L // 6 of a game of L moves",
            "positions": rows}


def load_positions(path: str | Path = POSITIONS_FILE) -> list[Position]:
    """The positions of a position file as ``(cols, disc, moves_remaining)``."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    return [(rows_to_cols(p["board"]), int(p["disc"]), int(p["moves_remaining"]))
            for p in doc["positions"]]


def write_positions(path: str | Path = POSITIONS_FILE, games: int = GAMES) -> None:
    """Draw the set and write it (one position a line, so diffs stay readable)."""
    doc = draw_positions(games)
    body = ",\n".join("  " + json.dumps(p) for p in doc.pop("positions"))
    head = json.dumps(doc)[:-1]
    Path(path).write_text(f'{head}, "positions": [\n{body}\n]}}\n', encoding="utf-8")


if __name__ == "__main__":
    write_positions()
