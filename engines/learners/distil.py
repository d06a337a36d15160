"""Distillation of a teacher search into the network leaf: label training roots, fit, freeze.

Three steps, each a file or directory of ``out`` written whole or not at all:

1. **Labels** (``labels.json``): the ``player`` plays ``games`` whole games of the seed bank's
   training role (games ``first_game ..``, never a held-out block), and the state before every
   ``every``-th decision is a root (:func:`engines.play.panel.game_roots`); the ``teacher``
   search gives the root's value of every legal column (:func:`engines.play.panel.ranker_rows`,
   the panel's own code).  Games are labelled in ``workers`` processes, each game's rows put
   back in game order, so the labels do not depend on the workers.
2. **Fit** (``epoch-NNNN/``, with the held-out top-1 of every ``probe_every``-th epoch when
   asked, a diagnostic outside the config): roots split by whole game (game ``k`` is held out when
   ``k % holdout == holdout - 1``: a game's roots sit on one side only), the network fitted to
   the teacher's value of the root (the best column's, in rises) by the Huber loss and Adam
   from :func:`engines.leaves.nnue_weights.random_network` (:mod:`engines.learners.nnue_fit`).
   Epoch ``e`` visits the training roots in the order of a generator seeded by ``(seed, e)``;
   each epoch's checkpoint holds the parameters and Adam's state, so a fit resumed from its
   newest epoch is bit for bit an uninterrupted one.  Before the first epoch the backward pass
   is checked against finite differences (a wrong gradient stops the fit).
3. **Freeze** (``network/``, ``distil.json``): the last epoch's parameters as float32 network
   weights (:func:`engines.leaves.nnue_weights.save_nnue`; its SHA-256 is the pin), and the
   held-out diagnostic: at each held-out root the network inside a ``probe`` search chooses a
   column, and top-1 is the share of roots where the teacher rates that column best (a tie for
   best counts); the random start network is probed on the same roots beside it.
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from contracts.atomic import atomic_dir
from contracts.hashing import canonical_sha256
from contracts.json_file import load_json, write_json
from contracts.panel_table import VALUE_COLUMNS
from engines.drop7 import core
from engines.learners.nnue_fit import (
    Adam,
    forward,
    gradient_error,
    huber,
    loss_and_gradient,
    segments,
)
from engines.learners.weight_search import check_config, policy_of
from engines.leaves.nnue_class import Sizes, check_sizes
from engines.leaves.nnue_ref import active_features
from engines.leaves.nnue_weights import random_network, save_nnue

CONFIG, LABELS, EPOCH, STATE, NETWORK, START, SUMMARY = (
    "config.json", "labels.json", "epoch-{e:04d}", "state.npz", "network", "start-network",
    "distil.json")
#: the network of the epoch last probed (``probe_every``), replaced at each probe
PROBE = "probe-network"
#: the largest relative gradient error a fit accepts (central differences in float64 agree to
#: about 1e-7; a wrong sign or mask is off by order one)
GRADIENT_TOLERANCE = 1e-4
#: what the network is fitted to: every column's successors (sibling-complete) or the root
TARGETS = ("columns", "root")
#: coordinates the gradient check probes (spread over every tensor)
GRADIENT_PROBES = 24


@dataclass(frozen=True)
class DistilConfig:
    """Everything that decides a distillation's network (the epochs budget aside: a longer fit
    goes on from a shorter one's checkpoints)."""

    teacher: str
    player: str
    games: int
    every: int
    seed_start: int
    seed_count: int
    first_game: int
    holdout: int
    hidden: int
    mid: int
    batch: int
    rate: float
    seed: int
    probe_depth: int
    probe_strata: int
    target: str = "columns"

    @property
    def sizes(self) -> Sizes:
        return check_sizes(self.hidden, self.mid)

    def describe(self) -> dict[str, Any]:
        return asdict(self)

    def sha256(self) -> str:
        return canonical_sha256(self.describe())

    def seeds(self) -> list[int]:
        """The training role's seeds of the labelled games, in order."""
        return [self.seed_start + (self.first_game + k) % self.seed_count
                for k in range(self.games)]

    def held_out(self, game: int) -> bool:
        """Whether the ``game``-th labelled game (0, 1, ...) is on the held-out side."""
        return game % self.holdout == self.holdout - 1

    def probe(self, path: Path, sha256: str) -> str:
        """The policy that plays the network at ``path`` in the probe search."""
        return (f"search:leaf=nnue-file:{sha256}:{path},d={self.probe_depth},"
                f"s={self.probe_strata}")


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- labels ----------------------------------------------------------------------------------


def label_game(player: str, teacher: str, seed: int, every: int) -> list[dict[str, Any]]:
    """The labelled roots of one game of ``player`` on ``seed``: the public state and the
    teacher's value of every column (None where illegal)."""
    from engines.play.panel import game_roots, ranker_rows

    roots = game_roots(policy_of(player), [seed], every)
    rows = ranker_rows("teacher", policy_of(teacher), roots,
                       log=lambda m: _log(f"teacher on seed {seed}: {m}"))
    out = []
    for root, row in zip(roots, rows, strict=True):
        values = [row[k] for k in VALUE_COLUMNS]
        if row["fault"] or all(v is None for v in values):
            raise RuntimeError(f"teacher {teacher} gave no values at seed {seed} root "
                               f"{root.root} ({row['fault'] or 'no legal column'})")
        out.append({"game": int(seed), "root": int(root.root),
                    "cols": [int(c) for c in root.cols], "state": [int(s) for s in root.state],
                    "values": values})
    return out


def label_all(config: DistilConfig, workers: int) -> list[list[dict[str, Any]]]:
    """Every game's labelled roots, in game order, labelled in ``workers`` processes."""
    seeds = config.seeds()
    args = ([config.player] * len(seeds), [config.teacher] * len(seeds), seeds,
            [config.every] * len(seeds))
    if workers <= 1 or len(seeds) <= 1:
        return [label_game(*a) for a in zip(*args, strict=True)]
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        return list(pool.map(label_game, *args, chunksize=1))


# -- the fit ---------------------------------------------------------------------------------


def grid_of(cols: np.ndarray) -> list[list[int]]:
    """The 7 x 7 grid (row 0 on top) of the search's column words, as the twin reads it."""
    return [[(int(cols[c]) >> (4 * (6 - r))) & 15 for c in range(7)] for r in range(7)]


def root_features(root: dict[str, Any]) -> list[int]:
    """A labelled root's 135 active features."""
    state = root["state"]
    return active_features(grid_of(np.array(root["cols"])), state[core.ST_MOVES_REMAINING],
                           state[core.ST_NEXT_DISC])


def root_target(root: dict[str, Any]) -> float:
    """The teacher's value of a root: its best column's, in rises."""
    from engines.leaves.nnue_class import VALUE_SCALE

    return max(v for v in root["values"] if v is not None) / VALUE_SCALE


def column_examples(root: dict[str, Any]) -> tuple[list[list[int]], list[float]]:
    """A root's sibling-complete examples: for every legal column and every chance sample of
    it on the canonical board (:func:`engines.drop7.chance.play_strata`, seven strata: the
    search's own samples and boards, so the probe search values what was fitted), the
    successor's features (its canonical board, as the network leaf reads it; its moves
    remaining; the sample's next disc) with target
    the teacher's value of the column less the sample's points, in rises; a sample that ends
    the game gives none (the leaf never sees it)."""
    from engines.drop7.chance import (
        RES_MR,
        RES_OVER,
        RES_POINTS,
        STRATA_SCRATCH_LEN,
        chance_key,
        mirror_precedes,
        play_strata,
        sample_disc,
    )
    from engines.drop7.core import OUT_LEN
    from engines.leaves.nnue_class import VALUE_SCALE

    cols = np.array(root["cols"], dtype=np.int64)
    values = list(root["values"])
    if mirror_precedes(cols):  # the search plays the canonical board (docs/search.md)
        cols, values = cols[::-1].copy(), values[::-1]
    disc, mr = root["state"][core.ST_NEXT_DISC], root["state"][core.ST_MOVES_REMAINING]
    boards, res = np.zeros((7, 7), dtype=np.int64), np.zeros((7, 5), dtype=np.int64)
    scratch, out = np.zeros(STRATA_SCRATCH_LEN, dtype=np.int64), np.zeros(OUT_LEN, np.int64)
    x, y = [], []
    for c, value in enumerate(values):
        if value is None:
            continue
        key = np.uint64(chance_key(cols, disc, mr, c))
        rows = play_strata(cols.copy(), c, disc, mr, key, 7, boards, res, 0, scratch, out)
        for s in range(7):
            row = s if rows > 1 else 0
            if res[row, RES_OVER]:
                continue
            child = boards[row][::-1] if mirror_precedes(boards[row]) else boards[row]
            x.append(active_features(grid_of(child), int(res[row, RES_MR]),
                                     int(sample_disc(key, 7, s))))
            y.append((value - float(res[row, RES_POINTS])) / VALUE_SCALE)
    return x, y


@dataclass
class Split:
    """The training and held-out roots, their features and targets."""

    train: list[dict[str, Any]]
    held: list[dict[str, Any]]

    def arrays(self, side: str, target: str) -> tuple[np.ndarray, np.ndarray]:
        """The side's examples: each root's own value (``root``, the register's) or its
        columns' (``columns``, :func:`column_examples`)."""
        roots = self.train if side == "train" else self.held
        if target == "root":
            x = [root_features(r) for r in roots]
            y = [root_target(r) for r in roots]
        else:
            x, y = [], []
            for r in roots:
                rx, ry = column_examples(r)
                x += rx
                y += ry
        return (np.array(x, dtype=np.int64).reshape(-1, 135), np.array(y, dtype=np.float64))


def split(config: DistilConfig, games: list[list[dict[str, Any]]]) -> Split:
    """Whole-game split of the labelled roots (:meth:`DistilConfig.held_out`)."""
    out = Split([], [])
    for k, roots in enumerate(games):
        (out.held if config.held_out(k) else out.train).extend(roots)
    return out


def _grad_probe(sizes: Sizes, seed: int) -> np.ndarray:
    """Coordinates the gradient check probes: some of every tensor's (a seeded draw)."""
    rng = np.random.default_rng([seed, 0x6AD])
    per = GRADIENT_PROBES // 6
    return np.concatenate([rng.integers(a, b, per) for a, b in segments(sizes)])


def check_gradient(params: np.ndarray, sizes: Sizes, x: np.ndarray, y: np.ndarray,
                   seed: int) -> float:
    """The backward pass against finite differences on a small batch whose features are its
    own (so the first layer's probed rows are live); ``ValueError`` past the tolerance."""
    probe = _grad_probe(sizes, seed)
    rows = probe[probe < sizes.ft_bias] // sizes.hidden
    xb = x[:8].copy()
    n = min(len(rows), len(xb))
    xb[:n, 0] = rows[:n]  # put the probed first-layer rows in the batch
    worst = gradient_error(params, sizes, xb, y[:8], probe)
    if not worst <= GRADIENT_TOLERANCE:
        raise ValueError(f"the network's backward pass disagrees with finite differences "
                         f"(relative error {worst:.3g} > {GRADIENT_TOLERANCE}): a wrong gradient")
    return worst


class Distillation:
    """A distillation into ``out`` (see the module docstring)."""

    def __init__(self, config: DistilConfig, out: Path, workers: int = 1, log=_log,
                 probe_every: int = 0) -> None:
        self.config, self.out, self.workers, self.log = config, Path(out), workers, log
        #: probe the held-out top-1 every this many epochs (0: the frozen network's alone): a
        #: diagnostic of the curve, not a part of what decides the network
        self.probe_every = probe_every

    def labels(self) -> list[list[dict[str, Any]]]:
        """The labelled games (labelled now unless ``labels.json`` holds them)."""
        path = self.out / LABELS
        if path.exists():
            return load_json(path)["games"]
        games = label_all(self.config, self.workers)
        write_json(path, {"teacher": self.config.teacher, "player": self.config.player,
                          "games": games})
        self.log(f"nnue-distil: labelled {sum(map(len, games))} roots of {len(games)} games")
        return games

    def epochs_done(self) -> int:
        done = sorted(p.name for p in self.out.glob("epoch-[0-9][0-9][0-9][0-9]")
                      if (p / STATE).exists())
        return int(done[-1][6:]) if done else 0

    def run(self, epochs: int) -> dict[str, Any]:
        """Label, fit until ``epochs`` are done (resuming the newest whole one), freeze."""
        c = self.config
        self.out.mkdir(parents=True, exist_ok=True)
        check_config(self.out / CONFIG, c.describe())
        data = split(c, self.labels())
        if not data.train or not data.held:
            raise ValueError(f"{len(data.train)} training and {len(data.held)} held-out roots: "
                             f"label more games (holdout {c.holdout})")
        x, y = data.arrays("train", c.target)
        xh, yh = data.arrays("held", c.target)
        sizes = c.sizes
        done = self.epochs_done()
        if done:
            with np.load(self.out / EPOCH.format(e=done) / STATE) as z:
                params = z["params"].copy()
                adam = Adam(z["m"].copy(), z["v"].copy(), int(z["step"]), c.rate)
            self.log(f"nnue-distil: resumed after epoch {done}")
        else:
            params = random_network(c.seed, sizes).astype(np.float64)
            adam = Adam.start(sizes.parameters, c.rate)
            check_gradient(params, sizes, x, y, c.seed)
        for e in range(done + 1, epochs + 1):
            order = np.random.default_rng([c.seed, e]).permutation(len(y))
            total = 0.0
            for a in range(0, len(order), c.batch):
                idx = order[a:a + c.batch]
                loss, grad = loss_and_gradient(params, sizes, x[idx], y[idx])
                total += loss * len(idx)
                adam.apply(params, grad)
            record = {"epoch": e, "train_loss": total / len(y),
                      "heldout_loss": float(huber(forward(params, sizes, xh) - yh)[0].mean())}
            if self.probe_every and (e % self.probe_every == 0 or e == epochs):
                probe = save_nnue(self.out / PROBE, params.astype(np.float32), sizes,
                                  replace=True)
                record["heldout_top1"] = self.top1(data.held, self.out / PROBE, probe["sha256"])
            with atomic_dir(self.out / EPOCH.format(e=e), replace=True) as tmp:
                write_json(tmp / "epoch.json", record)
                np.savez(tmp / STATE, params=params, m=adam.m, v=adam.v, step=adam.step)
            self.log(f"nnue-distil: epoch {e}/{epochs}: train {record['train_loss']:.5f}, "
                     f"held out {record['heldout_loss']:.5f}")
        return self.finish(data, params)

    def top1(self, held: list[dict[str, Any]], network: Path, sha256: str) -> float:
        """The share of held-out roots where the network in the probe search chooses a column
        the teacher rates best."""
        from engines.play.rankers import rank

        policy = policy_of(self.config.probe(network, sha256))
        agree = 0
        for root in held:
            policy.new_game(int(root["game"]))
            choice = rank(policy, np.array(root["state"], dtype=np.int64),
                          np.array(root["cols"], dtype=np.int64)).choice
            best = max(v for v in root["values"] if v is not None)
            agree += root["values"][choice] == best
        return agree / len(held)

    def finish(self, data: Split, params: np.ndarray) -> dict[str, Any]:
        """Write the network and its start (float32), the held-out top-1 of each and the
        summary (``distil.json``)."""
        c, sizes = self.config, self.config.sizes
        net = save_nnue(self.out / NETWORK, params.astype(np.float32), sizes,
                        {"learner": "nnue-distil", "config_sha256": c.sha256()}, replace=True)
        start = save_nnue(self.out / START, random_network(c.seed, sizes), sizes,
                          {"init_seed": c.seed}, replace=True)
        curve = [load_json(self.out / EPOCH.format(e=e) / "epoch.json")
                 for e in range(1, self.epochs_done() + 1)]
        summary = {"config_sha256": c.sha256(), "epochs": len(curve), "curve": curve,
                   "roots": {"train": len(data.train), "held_out": len(data.held)},
                   "network": {"dir": NETWORK, "sha256": net["sha256"]},
                   "top1": {"network": self.top1(data.held, self.out / NETWORK, net["sha256"]),
                            "random_start": self.top1(data.held, self.out / START,
                                                      start["sha256"])}}
        write_json(self.out / SUMMARY, summary)
        self.log(f"nnue-distil: held-out top-1 {summary['top1']['network']:.3f} "
                 f"(random start {summary['top1']['random_start']:.3f})")
        return summary
