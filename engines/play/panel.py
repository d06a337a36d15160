"""A ranking panel's rows: roots from a policy's games, each ranker's answer, outcome labels.

The pieces docs/panels.md declares, as functions of data: :func:`game_roots`
takes the roots (the public state before every ``every``-th decision of a
policy's games on given seeds), :func:`ranker_rows` asks a player for its
:class:`~engines.play.rankers.Ranking` at each root, and :func:`outcome_rows`
gives each root the Monte Carlo outcome labels of
:mod:`engines.play.labeller`.  Each returns rows of the panel table
(:mod:`contracts.panel_table`); the readings (:mod:`analysis.panel_readings`)
read them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from contracts.panel_table import FAULT, TIE_ORDER, VALUE_COLUMNS, WORK
from engines.drop7 import core
from engines.drop7.game_loop import play_out
from engines.play.games import centre_first
from engines.play.labeller import label_root, shard_roots
from engines.play.players import Policy
from engines.play.rankers import rank

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

__all__ = ["WORK", "PanelRoot", "game_roots", "outcome_rows", "ranker_rows"]


@dataclass(frozen=True)
class PanelRoot:
    """A root: the game's seed, the decision's index in it, the board and the public state
    (``ST_*``: next disc, moves remaining, level, score, moves played)."""

    game: int
    root: int
    cols: np.ndarray
    state: np.ndarray


#: ``on_game(seed, columns, scores)``: a game's columns played and its score after each move
GameSeen = Callable[[int, list[int], list[int]], None]


def game_roots(policy: Policy, seeds: Iterable[int], every: int = 1,
               limit: int | None = None, on_game: GameSeen | None = None) -> list[PanelRoot]:
    """The roots of ``policy``'s games on ``seeds``: the state before decisions 0, every,
    2 every, ... of each game, in seed order then move order, at most ``limit`` (no game is
    played once ``limit`` roots are taken).  An illegal column from the player is replaced
    by the centre-most legal one, as the games driver does (:mod:`engines.play.games`), so
    the games are the ones ``drop7 run-arms`` plays.  ``on_game`` is told each game played, when it
    ends (its trajectory, to check it against a games table)."""
    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    roots: list[PanelRoot] = []
    for seed in seeds:
        if limit is not None and len(roots) >= limit:
            break
        columns: list[int] = []
        scores: list[int] = []

        def choose(state: np.ndarray, cols: np.ndarray, seed: int = int(seed),
                   columns: list[int] = columns, scores: list[int] = scores) -> int:
            decision = len(columns)
            if decision % every == 0:
                roots.append(PanelRoot(seed, decision, cols.copy(), state.copy()))
            if decision:
                scores.append(int(state[core.ST_SCORE]))
            column = int(policy.choose(state, cols))
            if not (0 <= column <= 6 and core.is_legal(cols, column)):
                column = centre_first(cols)  # as the games driver plays an illegal answer
            columns.append(column)
            return column

        policy.new_game(int(seed))
        final = play_out(int(seed), choose)
        if columns:
            scores.append(int(final[core.ST_SCORE]))
        if on_game is not None:
            on_game(int(seed), columns, scores)
    return roots[:limit]


def _row(root: PanelRoot, ranker: str, choice: int, work: int | None,
         values: np.ndarray | None, fault: str | None = None) -> dict:
    row = {"game": root.game, "root": root.root, "ranker": ranker, "choice": choice,
           "work": work, FAULT: fault or ""}
    for c, key in enumerate(VALUE_COLUMNS):
        row[key] = None if values is None or np.isnan(values[c]) else float(values[c])
    return row


def ranker_rows(name: str, policy: Policy, roots: list[PanelRoot], work: str = "nodes",
                shard: int = 1, shards: int = 1, log: Log = _stderr) -> list[dict]:
    """The panel rows of one ranker at the roots of one shard (every ``shards``-th root).

    A fault of the ranker at a root (:func:`~engines.play.rankers.rank`) is its row's
    ``fault``, with the centre-first choice and no values; the shard goes on, and ``log``
    is told of it, naming the game and the root.

    Each root is ranked as the first decision of a new game of its seed (the player is
    told ``new_game(root.game)``), so a row depends on its root alone, not on the roots
    ranked before it in the shard: a search's node table places its entries by the
    decision's number since the game began, so its node and leaf counts would otherwise
    change with the shard count (its values and choice never do)."""
    if work not in WORK:
        raise ValueError(f"work must be one of {', '.join(WORK)}, got {work!r}")
    rows = []
    for i in shard_roots(len(roots), shard, shards):
        root = roots[i]
        policy.new_game(int(root.game))
        r = rank(policy, root.state, root.cols,
                 lambda text, root=root: log(f"game {root.game} root {root.root}: {text}"))
        if r.fault is not None:
            log(f"game {root.game} root {root.root}: ranker {name}: {r.fault} (counted in the "
                "table's fault column)")
        rows.append(_row(root, name, r.choice, getattr(r, work), r.values, r.fault))
    return rows


def outcome_rows(name: str, policy: Policy, roots: list[PanelRoot], continuations: int,
                 horizon: int, seed: int, target: str = "lifetime", work: str = "nodes",
                 shard: int = 1, shards: int = 1) -> list[dict]:
    """The panel rows of an outcome labeller (a reference or an outcome ranker): each root's
    labels of ``target``; its choice the column of the best label, ties in
    :data:`~contracts.panel_table.TIE_ORDER`."""
    if work not in WORK:
        raise ValueError(f"work must be one of {', '.join(WORK)}, got {work!r}")
    rows = []
    for i in shard_roots(len(roots), shard, shards):
        root = roots[i]
        labels = label_root(policy, root.cols, int(root.state[core.ST_NEXT_DISC]),
                            int(root.state[core.ST_MOVES_REMAINING]), continuations, horizon,
                            seed)
        values = labels.target(target)
        best = np.nanmax(values)
        choice = next(c for c in TIE_ORDER if values[c] == best)
        rows.append(_row(root, name, choice, getattr(labels, work), values))
    return rows
