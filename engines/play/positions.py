"""Drawing the bench positions (:mod:`engines.search.positions`) from real games.

* games of the fair ``search:leaf=linear,d=3,s=7`` policy on the first
  ``GAMES`` seeds of the seed bank's ``probe`` role (correctness and speed
  checks only; never screen or validation seeds);
* from a game of ``L`` moves, the decisions at moves ``L // 6``, ``L // 2``
  and ``5 L // 6``: one early, one middle and one late position each.

``python -m engines.play.positions`` redraws the shipped set.
"""

from __future__ import annotations

import json
from pathlib import Path

from contracts.atomic import atomic_write
from engines.drop7 import core
from engines.drop7.board import cols_to_rows
from engines.play.games import play_policy
from engines.play.players import Policy
from engines.play.policy import load_policy
from engines.search.positions import FORMAT, POSITIONS_FILE, Position
from engines.seedbank import load_bank

POLICY = "search:leaf=linear,d=3,s=7"
GAMES = 20
PHASES = (("early", 1, 6), ("middle", 1, 2), ("late", 5, 6))  # move = L * num // den


def game_states(seed: int, policy: Policy) -> list[Position]:
    """Every decision state ``(cols, disc, moves_remaining)`` of one game of ``policy``."""
    states: list[Position] = []

    def record(state, cols) -> int:
        states.append((cols.copy(), int(state[core.ST_NEXT_DISC]),
                       int(state[core.ST_MOVES_REMAINING])))
        return policy.choose(state, cols)

    play_policy(policy, seed, record)
    return states


def draw_positions(games: int = GAMES) -> dict:
    """The position set as JSON-ready data (the first ``games`` probe seeds)."""
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


def write_positions(path: str | Path = POSITIONS_FILE, games: int = GAMES) -> None:
    """Draw the set and write it (one position a line, so diffs stay readable)."""
    doc = draw_positions(games)
    body = ",\n".join("  " + json.dumps(p) for p in doc.pop("positions"))
    head = json.dumps(doc)[:-1]
    atomic_write(path, f'{head}, "positions": [\n{body}\n]}}\n')


if __name__ == "__main__":
    write_positions()
