"""``drop7 panel roots|rank|label|merge``: a ranking panel's roots, its rows in shards, its table.

Roots (the states before every ``E``-th decision of a policy's games; with
``--games``, every game replayed must be that seed's game in the table)::

    drop7 panel roots --policy search:leaf=linear,d=3,s=7 --seeds 90:32 --every 4 \\
        --limit 1024 --games games.csv --out roots.json

A ranker's or an outcome labeller's rows (a reference or an outcome ranker), shard k of K
(roots k-1, k-1+K, ...)::

    drop7 panel rank --ranker d2=search:leaf=linear,d=2,s=7 --roots roots.json \\
        --shard 1/4 --out shards/d2/shard-1-of-4.csv
    drop7 panel label --name outcome-reference --policy direct:leaf=linear \\
        --continuations 8 --horizon 40 --target lifetime --seed 20261203 \\
        --roots roots.json --shard 1/4 --out shards/outcome-reference/shard-1-of-4.csv

The table (rows by game, root, then the order of ``--rankers``; the same
bytes for any shard count)::

    drop7 panel merge --rankers d4,d1,d2 --roots roots.json --out panel.csv shards/*/*.csv

Every refusal is one line naming the file and the key or row; every output
is written atomically (docs/panels.md, "Commands and files").
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from contracts.cli_numbers import int_option, parse_seed_block, seed_option
from contracts.errors import InputError
from contracts.games_table import read_rows as read_games
from contracts.hashing import file_sha256
from contracts.panel_roots import STATE_FIELDS, read_roots, roots_doc, write_roots
from contracts.panel_table import read_rows, write_rows
from contracts.trajectory import trajectory_checksum
from engines.play.labeller import MAX_CONTINUATIONS, MAX_HORIZON, TARGETS
from engines.play.panel import WORK, PanelRoot, game_roots, outcome_rows, ranker_rows
from engines.play.policy import load_policy
from engines.play.policy_grammar import ARM_NAME, parse_arm, parse_policy
from engines.play.runner import parse_shard


def root_entry(root: PanelRoot) -> dict[str, Any]:
    """A root as the roots file holds it (:mod:`contracts.panel_roots`)."""
    if root.state.shape != (len(STATE_FIELDS),):
        raise ValueError(f"a root's state has {root.state.shape} fields, the roots file "
                         f"{len(STATE_FIELDS)}")
    return {"game": int(root.game), "root": int(root.root),
            "cols": [int(w) for w in root.cols],
            "state": {name: int(root.state[i]) for i, name in enumerate(STATE_FIELDS)}}


def panel_root(entry: dict[str, Any]) -> PanelRoot:
    """The :class:`PanelRoot` of a roots file's entry."""
    return PanelRoot(entry["game"], entry["root"], np.array(entry["cols"], dtype=np.int64),
                     np.array([entry["state"][name] for name in STATE_FIELDS],
                              dtype=np.int64))


def load_roots(path: str) -> list[PanelRoot]:
    """The roots of a roots file (refused in one line naming the file and the key)."""
    return [panel_root(entry) for entry in read_roots(path)["roots"]]


def games_check(path: str, policy: str) -> Callable[[int, list[int], list[int]], None]:
    """A check of each replayed game against its seed's row of ``policy`` in the games table
    at ``path``: the same score, moves and trajectory checksum, else one line naming the file
    and the seed."""
    rows = [r for r in read_games(path) if r["policy"] == policy]
    if not rows:
        raise InputError(f"{path}: no row of policy {policy!r}")
    by_seed: dict[int, list[dict[str, str]]] = {}
    for row in rows:
        by_seed.setdefault(int(row["seed"]), []).append(row)

    def check(seed: int, columns: list[int], scores: list[int]) -> None:
        if seed not in by_seed:
            raise InputError(f"{path}: seed {seed}: no row of policy {policy!r}")
        score = scores[-1] if scores else 0
        trajectory = trajectory_checksum(seed, columns, scores)
        for row in by_seed[seed]:
            if (row["score"], row["moves"], row["trajectory"]) != (str(score), str(len(columns)),
                                                                   trajectory):
                raise InputError(f"{path}: seed {seed}: the replayed game scores {score} in "
                                 f"{len(columns)} moves (trajectory {trajectory[:12]}), the "
                                 f"table's arm {row['arm']!r} {row['score']} in {row['moves']} "
                                 f"(trajectory {row['trajectory'][:12]})")
    return check


def _roots_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy", required=True, help="the policy whose games give the roots")
    parser.add_argument("--seeds", required=True, metavar="START:COUNT",
                        help="its games: seeds START .. START+COUNT-1")
    parser.add_argument("--every", type=int_option(1), default=1, metavar="E",
                        help="keep the state before decisions 0, E, 2E, ... of each game")
    parser.add_argument("--limit", type=int_option(1), default=None, metavar="R",
                        help="at most R roots (the first, in seed then decision order)")
    parser.add_argument("--games", default=None, metavar="GAMES_CSV",
                        help="check every replayed game against its row of this games table")
    parser.add_argument("--out", required=True, help="the roots file (JSON, written atomically)")


def _roots(args: argparse.Namespace) -> int:
    spec = parse_policy(args.policy)
    start, count = parse_seed_block(args.seeds, "--seeds")
    check = games_check(args.games, spec.format()) if args.games else None
    policy = load_policy(spec)
    try:
        roots = game_roots(policy, range(start, start + count), args.every, args.limit, check)
    finally:
        policy.close()
    sha = file_sha256(args.games) if args.games else None
    write_roots(args.out, roots_doc(spec.format(), (start, count), args.every, args.limit,
                                    [root_entry(r) for r in roots], sha))
    return 0


def _shard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--roots", required=True, metavar="ROOTS_JSON", help="the roots file")
    parser.add_argument("--work", choices=WORK, default="nodes",
                        help="what the work column counts (default nodes)")
    parser.add_argument("--shard", default="1/1", metavar="k/K",
                        help="roots k-1, k-1+K, ... (default 1/1: every root)")
    parser.add_argument("--out", required=True, help="the shard's panel rows (CSV, atomic)")


def _rank_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ranker", required=True, metavar="NAME=POLICY",
                        help="the ranker's name in the table and its policy")
    _shard_arguments(parser)


def _rank(args: argparse.Namespace) -> int:
    arm = parse_arm(args.ranker)
    shard, shards = parse_shard(args.shard)
    roots = load_roots(args.roots)
    policy = load_policy(arm.spec)
    try:
        rows = ranker_rows(arm.name, policy, roots, args.work, shard, shards)
    finally:
        policy.close()
    write_rows(rows, args.out)
    return 0


def _label_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True,
                        help="the labeller's name in the table (outcome-reference, or an "
                             "outcome ranker's)")
    parser.add_argument("--policy", required=True, help="the continuation policy")
    parser.add_argument("--continuations", type=int_option(1, MAX_CONTINUATIONS), required=True,
                        metavar="K", help=f"continuations per column (1..{MAX_CONTINUATIONS})")
    parser.add_argument("--horizon", type=int_option(1, MAX_HORIZON), required=True,
                        metavar="H", help=f"moves from the root, root move included "
                        f"(1..{MAX_HORIZON})")
    parser.add_argument("--target", choices=TARGETS, required=True, help="the label")
    parser.add_argument("--seed", type=seed_option(), required=True,
                        help="the labelling seed (decimal or 0x hex)")
    _shard_arguments(parser)


def _label(args: argparse.Namespace) -> int:
    if not ARM_NAME.fullmatch(args.name):
        raise InputError(f"--name {args.name!r} must be letters, digits and ._+- (not "
                         "starting with ._+-)")
    spec = parse_policy(args.policy)
    shard, shards = parse_shard(args.shard)
    roots = load_roots(args.roots)
    policy = load_policy(spec)
    try:
        rows = outcome_rows(args.name, policy, roots, args.continuations, args.horizon,
                            args.seed, args.target, args.work, shard, shards)
    finally:
        policy.close()
    write_rows(rows, args.out)
    return 0


def _merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rankers", required=True, metavar="NAME,NAME,...",
                        help="the table's rankers, in its row order (the reference first)")
    parser.add_argument("--roots", default=None, metavar="ROOTS_JSON",
                        help="also refuse a root of this file no ranker ranks, or a row at "
                             "a root it lacks")
    parser.add_argument("--out", required=True, help="the panel table (CSV, atomic)")
    parser.add_argument("shards", nargs="+", metavar="SHARD_CSV", help="the shards' rows")


def merge_rows(paths: Sequence[str], rankers: Sequence[str],
               roots: Sequence[tuple[int, int]] | None = None,
               roots_file: str = "the roots file") -> list[dict[str, str]]:
    """The panel table of the shards' rows: by game, root, then ``rankers`` order.

    Refused in one line: a row of a ranker not in ``rankers`` or given twice (naming its
    file and line), a root one ranker has and another lacks, and with ``roots`` (the
    ``(game, root)`` of ``roots_file``) a root no ranker ranks or a row at a root not in it.
    """
    if not rankers or len(set(rankers)) != len(rankers) or not all(rankers):
        raise InputError(f"--rankers {','.join(rankers)!r} must name distinct rankers")
    place = {name: i for i, name in enumerate(rankers)}
    rows: dict[tuple[int, int, int], tuple[dict[str, str], str]] = {}
    for path in paths:
        for line, row in enumerate(read_rows(path), start=2):
            where = f"{path}: line {line}"
            if row["ranker"] not in place:
                raise InputError(f"{where}: ranker {row['ranker']!r} is not one of --rankers")
            key = (int(row["game"]), int(row["root"]), place[row["ranker"]])
            if key in rows:
                raise InputError(f"{where}: game {key[0]} root {key[1]} ranker "
                                 f"{row['ranker']} is given twice (first in {rows[key][1]})")
            rows[key] = (row, where)
    if not rows:
        raise InputError(f"{paths[0]}: no rows in the shards")
    keys = sorted({(g, r) for g, r, _ in rows})
    for name, i in place.items():
        missing = [k for k in keys if (*k, i) not in rows]
        if missing:
            raise InputError(f"ranker {name}: no row at game {missing[0][0]} root "
                             f"{missing[0][1]} ({len(missing)} of {len(keys)} roots missing)")
    if roots is not None:
        wanted = list(roots)
        lost = sorted(set(wanted) - set(keys))
        if lost:
            raise InputError(f"{roots_file}: game {lost[0][0]} root {lost[0][1]}: no ranker "
                             f"ranks it ({len(lost)} roots missing)")
        extra = sorted(set(keys) - set(wanted))
        if extra:
            raise InputError(f"{roots_file}: game {extra[0][0]} root {extra[0][1]}: ranked, "
                             "but not a root of this file")
    return [rows[key][0] for key in sorted(rows)]


def _merge(args: argparse.Namespace) -> int:
    rankers = args.rankers.split(",")
    roots = None
    if args.roots:
        roots = [(e["game"], e["root"]) for e in read_roots(args.roots)["roots"]]
    write_rows(merge_rows(args.shards, rankers, roots, args.roots), args.out)
    return 0


#: action -> (its help, its arguments, its run)
ACTIONS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                         Callable[[argparse.Namespace], int]]] = {
    "roots": ("the roots: states of a policy's games on seeds, as a roots file",
              _roots_arguments, _roots),
    "rank": ("one ranker's rows at one shard of the roots", _rank_arguments, _rank),
    "label": ("an outcome labeller's rows (a reference or an outcome ranker) at one shard of "
              "the roots", _label_arguments,
              _label),
    "merge": ("the panel table of the shards' rows", _merge_arguments, _merge),
}
