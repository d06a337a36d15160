"""The ridge fit of the one-ply Q: label training roots with a reference search, solve, freeze.

The register's recipe (theory ``oneply-linear-q-prune-prior``, its
approach's ``analysis/fit_q.py``), in four steps:

1. **Roots** (:func:`training_roots`): the public state before every
   ``every``-th decision of a roots policy's games (the register: fair d4s7)
   on *training-role* seeds (:meth:`engines.seedbank.SeedBank.training`), so
   no screen, validation or probe game is ever read;
2. **Labels** (:func:`label_rows`): at each root, the reference search's
   value of every legal column (:meth:`engines.search.searcher.Searcher.choose_values`,
   the panel's ranker values) beside the column's one-ply features
   (:func:`engines.filters.oneply_q.oneply_features`); a root is labelled as the
   first decision of a new game (:func:`engines.play.panel.ranker_rows`), so its
   rows depend on the root alone and shard ``i`` of ``n`` (every ``n``-th root)
   gives each root the floats one process gives it;
3. **Fit** (:func:`fit_weights`): ridge regression of the labels on the
   features, each feature standardised over the training rows (a constant
   one, as the bias, is left out and the intercept comes from the mean),
   minimising ``(1/n) |y - X w|^2 + lambda |w|^2``; the target is the raw
   value (``raw``) or the value less its root's mean, the features likewise
   (``centred``: only the order of a root's columns is fitted, so the bias is
   0).  The Gram matrix is summed row by row in root order (no BLAS), so the
   weights are the same floats for any number of shards;
4. **Report** (:func:`agreement`): the fraction of roots where the Q's choice
   is a column of the reference's best value (top-1), in sample, and split in
   half by game (fit on one half, read on the other, both ways).

The weights are frozen by :mod:`engines.filters.oneply_q_weights` with the
report in their manifest.  ``drop7 fit-q`` runs the four steps.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from engines.drop7 import core
from engines.filters.oneply_q import FEATURE_NAMES, N_FEATURES, oneply_features, q_values, q_work
from engines.filters.oneply_q_weights import save_q
from engines.learners.ridge_q import DEFAULT_LAMBDA, TARGETS
from engines.play.arm_specs import PolicyError, SearchSpec
from engines.play.labeller import shard_roots
from engines.play.panel import PanelRoot, game_roots
from engines.play.players import Policy, SearchPolicy
from engines.play.policy import load_policy
from engines.play.rankers import rank
from engines.seedbank import load_bank


@dataclass(frozen=True)
class Labels:
    """Labelled rows: one per legal column of each root, in root order then column order.
    ``root`` indexes the roots, ``game`` is the root's game seed."""

    features: np.ndarray  # float64 (rows, N_FEATURES)
    values: np.ndarray  # float64 (rows,): the reference's value of the column
    column: np.ndarray  # int64 (rows,)
    root: np.ndarray  # int64 (rows,)
    game: np.ndarray  # uint64 (rows,)

    @staticmethod
    def join(parts: list[Labels]) -> Labels:
        """The rows of several shards, in root order (whatever the shards' order)."""
        cat = {k: np.concatenate([getattr(p, k) for p in parts]) for k in
               ("features", "values", "column", "root", "game")}
        order = np.lexsort((cat["column"], cat["root"]))
        return Labels(**{k: v[order] for k, v in cat.items()})


def training_roots(policy: Policy, first_game: int, games: int, every: int = 1,
                   limit: int | None = None) -> list[PanelRoot]:
    """The roots of ``policy``'s games on training seeds ``first_game ..`` (``games`` games)."""
    seeds = load_bank().training(first_game, games)
    return game_roots(policy, [int(s) for s in seeds], every, limit)


def label_rows(reference: SearchPolicy, roots: list[PanelRoot], strata: int = 7,
               reveals: int = 1, shard: int = 1, shards: int = 1) -> Labels:
    """The labelled rows of the roots of one shard (every ``shards``-th root)."""
    if not isinstance(reference, SearchPolicy) or reference.spec.filter is not None:
        raise PolicyError(f"{reference.name}: the reference must be a search without a root "
                          "filter (it values every legal column)")
    work = q_work(strata, reveals)
    feats = np.zeros((7, N_FEATURES))
    rows: dict[str, list] = {k: [] for k in ("features", "values", "column", "root", "game")}
    for i in shard_roots(len(roots), shard, shards):
        root = roots[i]
        reference.new_game(int(root.game))
        values = rank(reference, root.state, root.cols).values
        disc, mr = int(root.state[core.ST_NEXT_DISC]), int(root.state[core.ST_MOVES_REMAINING])
        legal = oneply_features(root.cols, disc, mr, strata, reveals, feats, work)
        for c in range(7):
            if (legal >> c) & 1 and values is not None and np.isfinite(values[c]):
                rows["features"].append(feats[c].copy())
                rows["values"].append(values[c])
                rows["column"].append(c)
                rows["root"].append(i)
                rows["game"].append(root.game)
    return Labels(np.array(rows["features"], dtype=np.float64).reshape(-1, N_FEATURES),
                  np.array(rows["values"], dtype=np.float64),
                  np.array(rows["column"], dtype=np.int64),
                  np.array(rows["root"], dtype=np.int64),
                  np.array(rows["game"], dtype=np.uint64))


def _root_means(x: np.ndarray, root: np.ndarray) -> np.ndarray:
    """Each row's root mean of ``x`` (rows of a root are adjacent)."""
    out = np.empty_like(x)
    starts = np.flatnonzero(np.r_[True, root[1:] != root[:-1]])
    for a, b in zip(starts, np.r_[starts[1:], len(root)], strict=True):
        out[a:b] = x[a:b].sum(axis=0) / (b - a)
    return out


def _gram(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(X^T X, X^T y)`` summed row by row in order (the same floats whatever BLAS does)."""
    g = np.zeros((x.shape[1], x.shape[1]))
    b = np.zeros(x.shape[1])
    for row, target in zip(x, y, strict=True):
        g += np.multiply.outer(row, row)
        b += row * target
    return g, b


def fit_weights(labels: Labels, lam: float = DEFAULT_LAMBDA, target: str = "raw") -> np.ndarray:
    """The ridge weights in the features' raw units (see the module's step 3)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    if not lam >= 0:
        raise ValueError(f"lambda must be >= 0, got {lam}")
    x, y = labels.features, labels.values
    n = x.shape[0]
    if n == 0:
        raise ValueError("no labelled rows to fit")
    mean = x.sum(axis=0) / n
    sd = np.sqrt(((x - mean) ** 2).sum(axis=0) / n)
    active = np.flatnonzero(sd > 0)
    xs = (x[:, active] - mean[active]) / sd[active]
    if target == "centred":
        xs = xs - _root_means(xs, labels.root)
        yc = y - _root_means(y, labels.root)
    else:
        yc = y - y.sum() / n
    g, b = _gram(xs, yc)
    w_std = np.linalg.solve(g / n + lam * np.eye(len(active)), b / n)
    w = np.zeros(N_FEATURES)
    w[active] = w_std / sd[active]
    bias = FEATURE_NAMES.index("bias")
    w[bias] = 0.0 if target == "centred" else y.sum() / n - float(w[active] @ mean[active])
    return w


def agreement(weights: np.ndarray, labels: Labels, roots: list[PanelRoot],
              strata: int = 7, reveals: int = 1, among: np.ndarray | None = None) -> float:
    """The fraction of roots (of ``among``, root indices; default every labelled root) where
    the Q's choice is a column of the reference's best value."""
    work, out = q_work(strata, reveals), np.zeros(7)
    chosen = set(np.unique(labels.root) if among is None else among)
    hits = total = 0
    for i in sorted(chosen):
        rows = labels.root == i
        best = labels.values[rows].max()
        tops = set(labels.column[rows][labels.values[rows] == best])
        root = roots[i]
        c = q_values(root.cols, int(root.state[core.ST_NEXT_DISC]),
                     int(root.state[core.ST_MOVES_REMAINING]), strata, reveals, weights, out,
                     work)
        hits += int(c) in tops
        total += 1
    return hits / total if total else float("nan")


def _subset(labels: Labels, keep: np.ndarray) -> Labels:
    return Labels(labels.features[keep], labels.values[keep], labels.column[keep],
                  labels.root[keep], labels.game[keep])


def fit_report(labels: Labels, roots: list[PanelRoot], lam: float, target: str,
               strata: int = 7, reveals: int = 1) -> tuple[np.ndarray, dict]:
    """The weights fitted on every row and the report: roots, rows, in-sample top-1 and the
    split-half top-1 (games in seed order, first half against second, both ways)."""
    weights = fit_weights(labels, lam, target)
    games = np.unique(labels.game)
    first = np.isin(labels.game, games[:len(games) // 2])
    halves = []
    if 0 < len(games) // 2 < len(games):
        for fit_on in (first, ~first):
            w = fit_weights(_subset(labels, fit_on), lam, target)
            halves.append(agreement(w, labels, roots, strata, reveals,
                                    np.unique(labels.root[~fit_on])))
    report = {"roots": int(len(np.unique(labels.root))), "rows": int(len(labels.values)),
              "games": int(len(games)), "lambda": lam, "target": target,
              "top1_in_sample": agreement(weights, labels, roots, strata, reveals),
              "top1_split_half": halves}
    return weights, report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 fit-q``."""
    parser.add_argument("--roots-policy", required=True,
                        help="the policy whose games give the roots (the register: "
                             "search:leaf=linear,d=4,s=7)")
    parser.add_argument("--reference", required=True,
                        help="the search that labels every column (search:... or direct:...)")
    parser.add_argument("--first-game", type=int, default=0,
                        help="first training-role game (the seed bank's training role)")
    parser.add_argument("--games", type=int, required=True, help="training games played")
    parser.add_argument("--every", type=int, default=1, help="a root every N decisions")
    parser.add_argument("--max-roots", type=int, default=None, help="at most N roots")
    parser.add_argument("--lambda", dest="lam", type=float, default=DEFAULT_LAMBDA,
                        help=f"ridge penalty on standardised features (default {DEFAULT_LAMBDA})")
    parser.add_argument("--target", choices=TARGETS, default="raw")
    parser.add_argument("--strata", type=int, default=7, help="the features' chance strata")
    parser.add_argument("--reveals", type=int, default=1,
                        help="the features' reveal samples per stratum")
    parser.add_argument("--shards", type=int, default=1,
                        help="label in N shards (the weights do not depend on it)")
    parser.add_argument("--out", required=True, help="the weights directory to write")
    parser.add_argument("--replace", action="store_true", help="replace an existing --out")


def run(args: argparse.Namespace) -> int:
    """Play the roots, label them shard by shard, fit, write the frozen weights."""
    for name in ("games", "every", "strata", "reveals", "shards"):
        if getattr(args, name) < 1:
            raise SystemExit(f"drop7 fit-q: error: --{name} must be at least 1")
    if args.first_game < 0 or not args.lam >= 0:
        raise SystemExit("drop7 fit-q: error: --first-game and --lambda must be >= 0")
    roots_policy = load_policy(args.roots_policy)
    reference = load_policy(args.reference)
    if not isinstance(reference.spec, SearchSpec):
        raise SystemExit(f"drop7 fit-q: error: --reference {args.reference}: not a search")
    roots = training_roots(roots_policy, args.first_game, args.games, args.every,
                           args.max_roots)
    labels = Labels.join([label_rows(reference, roots, args.strata, args.reveals, k,
                                     args.shards) for k in range(1, args.shards + 1)])
    weights, report = fit_report(labels, roots, args.lam, args.target, args.strata,
                                 args.reveals)
    fit = {**report, "reference": reference.name, "roots_policy": roots_policy.name,
           "seed_role": "training", "first_game": args.first_game, "games_played": args.games,
           "every": args.every, "strata": args.strata, "reveals": args.reveals}
    manifest = save_q(args.out, weights, fit, replace=args.replace)
    print(f"fit-q: {report['roots']} roots, {report['rows']} rows; top-1 in sample "
          f"{report['top1_in_sample']:.3f}, split half "
          f"{', '.join(f'{h:.3f}' for h in report['top1_split_half'])}; "
          f"sha256 {manifest['sha256']}")
    return 0
