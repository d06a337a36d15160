"""``drop7 kf-train``: the Klein-Friedmann Q-learner's runs, checkpoints, curve and frozen weights.

    drop7 kf-train --games 50000 --every 5000 --schedule upstream --out DIR
    drop7 kf-train ... --resume          # go on from DIR's newest checkpoint
    drop7 kf-train ... --workers 2       # the checkpoints' games on two threads (same bits)

The learner is :mod:`engines.learners.kf_q`.  Training games are the seed
bank's training role from game ``--first-game`` (never a screen block), read
in order; a checkpoint falls every ``--every`` games and at the last one.
The output directory (:data:`CHECKPOINT`, :data:`CURVE`, :data:`WEIGHTS`):

* ``checkpoint-<games>.json``: the config and its SHA-256, the weights, the
  counters (the whole state: a resumed run reads nothing else), the learner's
  health over the games since the last checkpoint (mean |Q - target|, mean
  training lifetime, whether a weight is not finite) and the curve point:
  the greedy policy's mean lifetime on the validation games (the training
  role from game 10^12, as the trainers' health reads) beside uniform-random
  legal play on the same games, paired.  ``checkpoint-0`` is the start.
* ``curve.json``: every checkpoint's point and health, in order.
* ``weights.json``: the last checkpoint's weights in the KF weights file
  format (:func:`engines.filters.kf_weights.read_kf_file`), and ``frozen.json``,
  its record: its SHA-256 (also in the JSON line the command prints), the
  run's config and its start, final and random lifetimes
  (``kf:w=trained:DIR`` plays them, checked against that SHA-256).

Workers only spread a checkpoint's validation games (each game is independent
and the results are put back in seed order), so the bits do not depend on
them; Q-learning itself is one sequential stream.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from contracts.cli_numbers import int_option, seed_option
from contracts.errors import InputError
from contracts.hashing import canonical_sha256, file_sha256
from contracts.json_file import load_json, write_json
from engines.drop7 import baselines, core
from engines.filters.kf import N_FEATURES
from engines.filters.kf_weights import KF_TRAINED_RECORD, KF_TRAINED_WEIGHTS
from engines.learners import kf_q
from engines.learners.kf_q_kind import DEFAULT_EXPLORE_SEED, MAX_GAMES, VALIDATION_GAME

FORMAT = "drop7-kfq-checkpoint-v1"
CHECKPOINT = "checkpoint-{games}.json"
CURVE = "curve.json"
WEIGHTS = KF_TRAINED_WEIGHTS
RECORD = KF_TRAINED_RECORD


@dataclass(frozen=True)
class KfqConfig:
    """Everything the weights depend on (the checkpoint spacing and workers are not)."""

    schedule: str = "upstream"
    lam: float = 0.1
    gamma: float = 1.0
    explore_seed: int = DEFAULT_EXPLORE_SEED
    first_game: int = 0
    seed_start: int = 0
    seed_count: int = 1
    validation_games: int = 64

    def sha256(self) -> str:
        """The config's SHA-256 (canonical JSON)."""
        return canonical_sha256(asdict(self))

    def params(self, sign: float = 1.0) -> np.ndarray:
        """The kernel's ``params`` array."""
        p = np.zeros(kf_q.N_PARAMS)
        p[kf_q.P_SCHEDULE] = kf_q.SCHEDULES[self.schedule]
        p[kf_q.P_LAMBDA], p[kf_q.P_GAMMA], p[kf_q.P_SIGN] = self.lam, self.gamma, sign
        return p


def checkpoint_games(games: int, every: int) -> list[int]:
    """Checkpoints: 0 (the start), every multiple of ``every`` up to ``games``, and ``games``."""
    points = list(range(0, games + 1, every))
    return points if points[-1] == games else [*points, games]


def validation_seeds(cfg: KfqConfig) -> np.ndarray:
    """The fixed validation games (the training role from :data:`VALIDATION_GAME`)."""
    first = cfg.seed_start + VALIDATION_GAME % cfg.seed_count
    return np.array([first + i for i in range(cfg.validation_games)], dtype=np.uint64)


def play_split(weights: np.ndarray, seeds: np.ndarray, workers: int) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Moves and scores of the greedy policy on ``seeds``, the games spread over ``workers``
    threads (the kernel releases the GIL); the same arrays for any ``workers``."""
    moves = np.zeros(len(seeds), dtype=np.int64)
    scores = np.zeros(len(seeds), dtype=np.int64)
    bounds = np.linspace(0, len(seeds), workers + 1).astype(int)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda i: kf_q.play_greedy(
            weights, seeds[bounds[i]:bounds[i + 1]], moves[bounds[i]:bounds[i + 1]],
            scores[bounds[i]:bounds[i + 1]]), range(workers)))
    return moves, scores


def random_moves(seeds: np.ndarray) -> np.ndarray:
    """Moves of uniform-random legal play (the ``random`` baseline) on ``seeds``."""
    results = np.zeros((len(seeds), core.ST_LEN), dtype=np.int64)
    baselines.play_baseline_games(seeds, baselines.POLICY_RANDOM, results)
    return results[:, core.ST_MOVES_PLAYED].copy()


def curve_point(moves: np.ndarray, scores: np.ndarray, rand: np.ndarray) -> dict[str, Any]:
    """One checkpoint's curve point: the greedy policy against random play, paired in moves."""
    delta = moves - rand
    n = len(delta)
    sd = float(delta.std(ddof=1)) if n > 1 else 0.0
    return {"validation_games": n, "greedy_moves": float(moves.mean()),
            "greedy_score": float(scores.mean()),
            "random_moves": float(rand.mean()), "delta_moves": float(delta.mean()),
            "delta_se": sd / n ** 0.5,
            "wins_ties_losses": [int((delta > 0).sum()), int((delta == 0).sum()),
                                 int((delta < 0).sum())]}


class KfqRun:
    """One training run in ``out``: resume, train to checkpoints, evaluate, write."""

    def __init__(self, cfg: KfqConfig, out: str | Path, workers: int = 1,
                 sign: float = 1.0) -> None:
        self.cfg, self.out, self.workers = cfg, Path(out), workers
        self.params = cfg.params(sign)
        self.weights = np.zeros(N_FEATURES)
        self.counters = np.zeros(kf_q.N_COUNTERS, dtype=np.int64)
        self.seeds = validation_seeds(cfg)
        self.rand = random_moves(self.seeds)

    def checkpoint_path(self, games: int) -> Path:
        """A checkpoint's file."""
        return self.out / CHECKPOINT.format(games=games)

    def resume(self) -> int:
        """Load the newest checkpoint of ``out`` (games trained; 0 when there is none); one
        line naming the file when its config is not this run's."""
        found = sorted((int(p.stem.split("-")[1]), p) for p in self.out.glob("checkpoint-*.json")
                       if p.stem.split("-")[1].isdigit())
        if not found:
            return 0
        games, path = found[-1]
        doc = load_json(path)
        if doc.get("config_sha256") != self.cfg.sha256():
            raise InputError(f"{path}: key config: another run's checkpoint (config "
                             f"{doc.get('config')}); remove it or use another --out")
        self.weights[:] = [np.nan if w is None else w for w in doc["weights"]]
        self.counters[:] = doc["counters"]
        return games

    def _write(self, games: int, stats: np.ndarray, trained: int, wall: float) -> dict:
        moves, scores = play_split(self.weights, self.seeds, self.workers)
        doc = {"format": FORMAT, "config": asdict(self.cfg), "config_sha256": self.cfg.sha256(),
               "games": games, "counters": [int(c) for c in self.counters],
               "weights": [float(w) for w in self.weights],
               "health": {"games": trained,
                          "mean_abs_error": float(stats[kf_q.S_ABS_ERROR] / max(
                              stats[kf_q.S_MOVES], 1)) if trained else None,
                          "mean_moves": float(stats[kf_q.S_MOVES] / trained) if trained else None,
                          "finite": bool(np.isfinite(self.weights).all()),
                          "wall_s": wall},
               "validation": curve_point(moves, scores, self.rand)}
        self.out.mkdir(parents=True, exist_ok=True)
        write_json(self.checkpoint_path(games), doc)
        return doc

    def run(self, games: int, every: int, resume: bool = False,
            stop_after: int | None = None) -> dict[str, Any]:
        """Train to ``games`` games with a checkpoint every ``every``; ``stop_after`` ends the
        run after that checkpoint (a stand-in for a kill, for tests).  Returns the summary."""
        done = self.resume() if resume else 0
        if not resume and any(self.out.glob("checkpoint-*.json")):
            raise InputError(f"{self.out} already holds checkpoints; pass --resume or remove it")
        if done > games:
            raise InputError(f"{self.checkpoint_path(done)}: key games: {done:,} games trained, "
                             f"more than --games {games:,}")
        if done == 0 and not self.checkpoint_path(0).exists():
            self._write(0, np.zeros(kf_q.N_STATS), 0, 0.0)
        for point in checkpoint_games(games, every):
            if point <= done:
                continue
            stats = np.zeros(kf_q.N_STATS)
            began = time.perf_counter()
            kf_q.train_games(self.weights, self.counters, self.params,
                             np.uint64(self.cfg.explore_seed), np.uint64(self.cfg.seed_start),
                             np.uint64(self.cfg.seed_count), np.uint64(self.cfg.first_game),
                             point - done, stats)
            self._write(point, stats, point - done, time.perf_counter() - began)
            done = point
            if stop_after is not None and point >= stop_after:
                return {"games": done, "stopped": True}
        return self.finish(games, every)

    def finish(self, games: int, every: int) -> dict[str, Any]:
        """Write the curve and the frozen weights; the summary."""
        points = [load_json(self.checkpoint_path(g)) for g in checkpoint_games(games, every)]
        write_json(self.out / CURVE, {"format": "drop7-kfq-curve-v1",
                                      "config": asdict(self.cfg),
                                      "points": [{"games": p["games"], "moves": p["counters"][0],
                                                  **p["validation"], "health": p["health"]}
                                                 for p in points]})
        last = points[-1]
        if not last["health"]["finite"]:
            raise InputError(f"{self.checkpoint_path(games)}: key weights: the learner "
                             "diverged (a weight is not finite); nothing to freeze")
        write_json(self.out / WEIGHTS, last["weights"], indent=None)
        facts = {"games": games, "moves": last["counters"][0], "weights": last["weights"],
                 "sha256": file_sha256(self.out / WEIGHTS),
                 "start_moves": points[0]["validation"]["greedy_moves"],
                 "final_moves": last["validation"]["greedy_moves"],
                 "random_moves": last["validation"]["random_moves"]}
        write_json(self.out / RECORD, {"format": "drop7-kfq-frozen-v1", **facts,
                                       "config": asdict(self.cfg),
                                       "config_sha256": self.cfg.sha256()})
        return facts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``drop7 kf-train``."""
    parser.add_argument("--games", type=int_option(1, MAX_GAMES), required=True,
                        help="training games")
    parser.add_argument("--every", type=int_option(1, MAX_GAMES), default=None,
                        help="a checkpoint every this many games (default: only at the end)")
    parser.add_argument("--schedule", choices=list(kf_q.SCHEDULES), default="upstream",
                        help="the step size: upstream 1/t (t per move), per-game 1/g, harmonic "
                             "1/(1 + t/50000), constant 1e-3")
    parser.add_argument("--first-game", type=int_option(0, VALIDATION_GAME - MAX_GAMES),
                        default=0, help="first game of the seed bank's training role")
    parser.add_argument("--explore-seed", type=seed_option(), default=DEFAULT_EXPLORE_SEED,
                        help="the exploration stream's seed")
    parser.add_argument("--validation-games", type=int_option(2, 100_000), default=64,
                        help="validation games at every checkpoint (default 64)")
    parser.add_argument("--workers", type=int_option(1, 64), default=1,
                        help="threads for the checkpoints' games (the bits do not depend on it)")
    parser.add_argument("--bank", default=None, help="seed bank file (default data/seeds.yaml)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--resume", action="store_true",
                        help="go on from OUT's newest checkpoint")


def run(args: argparse.Namespace) -> int:
    """Train; print the summary as one JSON line."""
    from engines.seedbank import DEFAULT_BANK, load_bank

    role = load_bank(args.bank or DEFAULT_BANK).roles["training"]
    cfg = KfqConfig(schedule=args.schedule, explore_seed=args.explore_seed,
                    first_game=args.first_game, seed_start=int(role["start"]),
                    seed_count=int(role["count"]), validation_games=args.validation_games)
    facts = KfqRun(cfg, args.out, args.workers).run(args.games, args.every or args.games,
                                                    resume=args.resume)
    print(json.dumps(facts))
    return 0
