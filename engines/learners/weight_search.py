"""A weight search: CMA-ES or the cross-entropy method over a declared vector, scored by games.

Each generation the optimizer (:mod:`engines.learners.optimizers`) asks a
population of vectors in scaled coordinates (:mod:`engines.learners.vectors`);
every candidate, and the start vector as a control, plays the same ``games``
whole games (common random numbers) on the generation's own block of the
training role: games ``first_game + (g - 1) * games ..`` of generation ``g``,
so no game is read twice and no block is held out.  A candidate's score is
its games' mean fitness, the declared ``fitness``: ``score`` (the final
score, the default) or ``moves`` (the game's length, the register's lifetime
objective); the optimizer is told the means.  A config records its fitness
only when it is not the default, so a score search's config and hash are
those it had before the key existed.

A start the same claim trained (``--start trained:DIR``) is checked against its record and
its SHA-256 recorded (``start_sha256``) in the config, the frozen record and the curve.

Checkpoint per generation: ``gen-NNNN/`` (written whole or not at all)
holds ``generation.json`` (the candidates with their SHA-256 and per-game
scores, the control's, best and mean, the distribution's centre, the vector
this checkpoint would freeze and its one-ply health) and ``state.pkl`` (the
optimizer after its tell).  A resumed search loads the newest whole
generation's state and goes on: its draws, and so its generations, are
those of an uninterrupted run.  Games are played in ``workers`` processes,
each score put back in its place, so the bits do not depend on the workers.

The frozen vector of a checkpoint follows the declared rule: ``mean`` (the
distribution's centre, as the register froze its CMA-ES mean) or ``best``
(the candidate with the best mean score of that generation).  Health, the
project's learner rule: at every checkpoint the frozen vector played one ply,
beside the start vector one ply and random play, on the training health's
unseen games (:data:`engines.train.evaluate.UNSEEN_GAME`), written as
``drop7 evaluate --out`` writes a checkpoint's (:mod:`analysis.health` reads
both).
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from contracts.atomic import atomic_dir, atomic_write
from contracts.hashing import canonical_sha256
from contracts.json_file import load_json, write_json
from engines.learners.optimizers import dump, load, make_optimizer
from engines.learners.vectors import TARGETS, Target, write_vector

#: the search's directory: its config, a checkpoint per generation, the candidates' files
CONFIG, GENERATION, STATE, CANDIDATES, CURVE, FROZEN = (
    "config.json", "gen-{g:04d}", "state.pkl", "candidates", "curve.json", "frozen.json")
#: the frozen weights as an arm reads them (:func:`write_frozen`): a linear weights directory
#: (a leaf target's) or a KF weights file with its record (``kf``); a network for nnue-evolve
FROZEN_DIR = "frozen"
#: the freeze rules
FREEZE = ("mean", "best")
#: the optimizer kinds
KINDS = ("cmaes", "cem")
#: what a candidate's games are scored by (the first: the default): a games-table column
FITNESS = ("score", "moves")


@dataclass(frozen=True)
class SearchConfig:
    """Everything that decides a search's vectors (the generations budget aside: a longer
    budget goes on from a shorter one's checkpoints)."""

    kind: str
    target: str
    population: int
    sigma: float
    games: int
    depth: int
    strata: int
    seed_start: int
    seed_count: int
    first_game: int
    seed: int
    start: tuple[float, ...]
    freeze: str = "mean"
    elite: float = 0.25
    health_games: int = 0
    fitness: str = FITNESS[0]
    #: the SHA-256 of the frozen weights the start was read from, checked against their record
    #: (a start the same claim trained; "": a named or pinned start)
    start_sha256: str = ""

    @property
    def spec(self) -> Target:
        return TARGETS[self.target]

    def describe(self) -> dict[str, Any]:
        """The config as ``config.json`` records it (``fitness`` only when not the default,
        ``start_sha256`` only for a trained start: a config of neither hashes as before)."""
        out = {**asdict(self), "start": list(self.start)}
        if self.fitness == FITNESS[0]:
            del out["fitness"]
        if not self.start_sha256:
            del out["start_sha256"]
        return out

    def sha256(self) -> str:
        return canonical_sha256(self.describe())

    def seed_of(self, game: int) -> int:
        """The seed of the training role's game ``game``."""
        return self.seed_start + game % self.seed_count

    def block(self, generation: int) -> list[int]:
        """The seeds every candidate of ``generation`` (1, 2, ...) plays."""
        first = self.first_game + (generation - 1) * self.games
        return [self.seed_of(first + k) for k in range(self.games)]

    def overlaps_health(self, generations: int) -> bool:
        """Whether ``generations`` generations would read a game of the one-ply health (both
        wrap at the role's end)."""
        from engines.train.evaluate import UNSEEN_GAME

        def spans(first: int, n: int) -> list[tuple[int, int]]:
            lo, n = first % self.seed_count, min(n, self.seed_count)
            return [(lo, min(lo + n, self.seed_count)), (0, max(0, lo + n - self.seed_count))]

        reads = spans(self.first_game, generations * self.games)
        health = spans(UNSEEN_GAME, self.health_games)
        return any(a < d and c < b for a, b in reads for c, d in health if a < b and c < d)

    def health_seeds(self) -> list[int]:
        """The seeds of the one-ply health: the training health's unseen games."""
        from engines.train.evaluate import UNSEEN_GAME

        return [self.seed_of(UNSEEN_GAME + k) for k in range(self.health_games)]


# -- games, in this process or in workers ----------------------------------------------------

_POLICIES: dict[str, Any] = {}


def policy_of(policy: str) -> Any:
    """The player ``policy``, loaded and warmed up once per process (the learners' workers
    share it)."""
    from engines.play.games import warm_up_driver
    from engines.play.policy import load_policy

    if policy not in _POLICIES:
        if not _POLICIES:
            warm_up_driver()
        _POLICIES[policy] = load_policy(policy)
        _POLICIES[policy].warm_up()
    return _POLICIES[policy]


def _outcome(policy: str, seed: int, fitness: str = FITNESS[0]) -> int:
    """One game of ``policy`` (loaded once per process): its final score, or its length in
    moves (``fitness``)."""
    from engines.play.games import play_game

    row = play_game(policy_of(policy), seed)
    if row["illegal"] or row["unfinished"]:
        raise RuntimeError(f"{policy} on seed {seed}: {row['illegal']} illegal and "
                           f"{row['unfinished']} unfinished decisions")
    return int(row[fitness])


def play_all(tasks: list[tuple[str, int]], workers: int,
             fitness: str = FITNESS[0]) -> list[int]:
    """Every ``(policy, seed)``'s final score (or length, ``fitness``), in task order, in
    ``workers`` processes."""
    if fitness not in FITNESS:
        raise ValueError(f"fitness {fitness!r}: one of {', '.join(FITNESS)}")
    if workers <= 1 or len(tasks) <= 1:
        return [_outcome(p, s, fitness) for p, s in tasks]
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        policies, seeds = zip(*tasks, strict=True)
        return list(pool.map(_outcome, policies, seeds, [fitness] * len(tasks), chunksize=1))


def check_config(path: Path, config: dict[str, Any]) -> None:
    """Write a learner's ``config`` to ``path``, or refuse (``ValueError`` naming the keys that
    differ) when another config is there already: a resumed run goes on only from its own."""
    if path.exists():
        have = load_json(path)
        if have != config:
            diff = sorted(k for k in {*have, *config} if have.get(k) != config.get(k))
            raise ValueError(f"{path}: a run of another config is there (differs in "
                             f"{', '.join(diff) or 'its keys'}); remove it or resume "
                             "with the same config")
    else:
        write_json(path, config)


# -- the search ------------------------------------------------------------------------------


class WeightSearch:
    """A search into ``out`` (see the module docstring)."""

    def __init__(self, config: SearchConfig, out: Path, workers: int = 1,
                 log=lambda m: print(m, file=sys.stderr, flush=True)) -> None:
        self.config, self.out, self.workers, self.log = config, Path(out), workers, log
        self.scale = config.spec.scale()
        start = np.asarray(config.start, dtype=np.float64)
        if start.shape != (config.spec.length,):
            raise ValueError(f"target {config.target}: a start of {config.spec.length} "
                             f"values, got {start.shape[0]}")
        self.start = start

    # files
    def _file(self, name: str, vector: np.ndarray) -> tuple[str, str]:
        path = self.out / CANDIDATES / name
        return str(path), write_vector(vector, path)

    def _policy(self, name: str, vector: np.ndarray, one_ply: bool = False) -> str:
        """The policy that plays ``vector`` (written as ``name``): in the declared search, or
        one ply (the health's)."""
        path, sha = self._file(name, vector)
        depth = 1 if one_ply else self.config.depth
        return self.config.spec.policy(path, sha, depth, self.config.strata)

    def generations_done(self) -> int:
        """The newest whole generation in ``out`` (0: none)."""
        done = sorted(p.name for p in self.out.glob("gen-[0-9][0-9][0-9][0-9]")
                      if (p / STATE).exists())
        return int(done[-1][4:]) if done else 0

    def _check_config(self) -> None:
        check_config(self.out / CONFIG, self.config.describe())

    def _new_optimizer(self):
        """The optimizer of a search that starts (a subclass may search otherwise)."""
        c = self.config
        return make_optimizer(c.kind, self.start / self.scale, c.population, c.seed, c.sigma,
                              c.elite)

    def run(self, generations: int) -> dict[str, Any]:
        """Search until ``generations`` are done (resuming the newest whole one); the curve."""
        if self.config.overlaps_health(generations):
            raise ValueError(f"first game {self.config.first_game:,}: {generations} "
                             f"generations of {self.config.games} games would read the "
                             "one-ply health's unseen games: start the search elsewhere")
        self.out.mkdir(parents=True, exist_ok=True)
        self._check_config()
        done = self.generations_done()
        if done:
            optimizer = load((self.out / GENERATION.format(g=done) / STATE).read_bytes())
            self.log(f"weight search: resumed after generation {done}")
        else:
            optimizer = self._new_optimizer()
        control = self._policy("start.json", self.start)
        for g in range(done + 1, generations + 1):
            t0 = time.perf_counter()
            xs = optimizer.ask()
            vectors = xs * self.scale
            policies = [self._policy(f"gen-{g:04d}-c{i:03d}.json", v)
                        for i, v in enumerate(vectors)]
            seeds = self.config.block(g)
            side = self._side_policies()
            tasks = [(p, s) for p in [*policies, control, *side.values()] for s in seeds]
            flat = np.array(play_all(tasks, self.workers, self.config.fitness),
                            dtype=np.int64).reshape(
                len(policies) + 1 + len(side), len(seeds))
            played, flat = flat[len(policies) + 1:], flat[:len(policies) + 1]
            means = flat[:-1].mean(axis=1)
            optimizer.tell(xs, means)
            record = self._record(g, vectors, flat, means, optimizer.centre * self.scale, seeds)
            for (name, policy), row in zip(side.items(), played, strict=True):
                record[name] = {"policy": policy, "scores": [int(s) for s in row],
                                "mean": float(row.mean())}
            record["wall_s"] = time.perf_counter() - t0
            with atomic_dir(self.out / GENERATION.format(g=g), replace=True) as tmp:
                write_json(tmp / "generation.json", record)
                atomic_write(tmp / STATE, dump(optimizer))
            self.log(f"weight search: generation {g}/{generations}: best {record['best']:,.0f}, "
                     f"mean {record['mean']:,.0f}, control {record['control']['mean']:,.0f} "
                     f"({record['wall_s']:.1f} s)")
        return self.finish()

    def _side_policies(self) -> dict[str, str]:
        """Players beside the candidates and the control on each generation's games (the
        same seeds), which the optimizer is not told: ``record key -> policy`` (none here)."""
        return {}

    def _record(self, g: int, vectors: np.ndarray, flat: np.ndarray, means: np.ndarray,
                centre: np.ndarray, seeds: list[int]) -> dict[str, Any]:
        best = int(np.argmax(means))  # the first of equal means
        frozen = centre if self.config.freeze == "mean" else vectors[best]
        path, sha = self._file(f"gen-{g:04d}-frozen.json", frozen)
        games = "scores" if self.config.fitness == "score" else "moves"  # per game, by fitness
        record: dict[str, Any] = {
            "generation": g, "seeds": seeds,
            "candidates": [{"vector": [float(v) for v in vec], games: [int(s) for s in row],
                            "mean": float(m)}
                           for vec, row, m in zip(vectors, flat[:-1], means, strict=True)],
            "control": {"vector": [float(v) for v in self.start],
                        games: [int(s) for s in flat[-1]], "mean": float(flat[-1].mean())},
            "best": float(means[best]), "best_index": best, "mean": float(means.mean()),
            "centre": [float(v) for v in centre],
            "frozen": {"rule": self.config.freeze, "vector": [float(v) for v in frozen],
                       "file": Path(path).name, "sha256": sha}}
        record["health"] = self._health(g, frozen)
        return record

    def _health(self, g: int, frozen: np.ndarray) -> dict[str, Any] | None:
        """The frozen vector one ply, the start one ply and random play on the health seeds,
        as ``drop7 evaluate --out`` writes a checkpoint's (``moves_trained``: the
        generation)."""
        seeds = self.config.health_seeds()
        if not seeds:
            return None
        arms = {"one_ply": self._policy(f"gen-{g:04d}-frozen.json", frozen, one_ply=True),
                "start": self._policy("start.json", self.start, one_ply=True),
                "random": "random"}
        tasks = [(p, s) for p in arms.values() for s in seeds]
        flat = play_all(tasks, self.workers)
        n = len(seeds)
        return {"moves_trained": g, "seeds": seeds,
                "scores": {a: flat[i * n:(i + 1) * n] for i, a in enumerate(arms)}}

    def curve(self) -> list[dict[str, Any]]:
        """Best, mean and control fitness of every whole generation, in order, and its health's
        one-ply means."""
        out = []
        for g in range(1, self.generations_done() + 1):
            r = load_json(self.out / GENERATION.format(g=g) / "generation.json")
            point = {"generation": g, "best": r["best"], "mean": r["mean"],
                     "control": r["control"]["mean"], "frozen_sha256": r["frozen"]["sha256"]}
            point.update({name: r[name]["mean"] for name in self._side_policies()})
            if r["health"]:  # the one-ply means of the frozen vector, the start and random
                point.update({f"health_{arm}": float(np.mean(scores))
                              for arm, scores in r["health"]["scores"].items()})
            out.append(point)
        return out

    def finish(self) -> dict[str, Any]:
        """Write the curve and the last generation's frozen vector (``frozen.json``, with its
        SHA-256 in ``curve.json``)."""
        curve = self.curve()
        last = self.generations_done()
        record = load_json(self.out / GENERATION.format(g=last) / "generation.json")
        vector = np.array(record["frozen"]["vector"])
        sha = write_vector(vector, self.out / FROZEN)
        assert sha == record["frozen"]["sha256"]
        started = {"start_sha256": self.config.start_sha256} if self.config.start_sha256 else {}
        write_frozen(self.config.target, vector, self.out / FROZEN_DIR,
                     {"learner": self.config.kind, "config_sha256": self.config.sha256(),
                      **started})
        summary = {"config_sha256": self.config.sha256(), "generations": last,
                   "frozen": {"file": FROZEN, "sha256": sha, "rule": self.config.freeze},
                   **started, "curve": curve}
        if self.config.fitness != FITNESS[0]:  # the curve's best, mean and control are in it
            summary["fitness"] = self.config.fitness
        write_json(self.out / CURVE, summary)
        return summary


def write_frozen(target: str, vector: np.ndarray, directory: Path,
                 facts: dict[str, Any]) -> str:
    """The frozen vector as a claim's arm reads it, by the searched ``target``: a linear
    weights directory (a ``linear-trained`` leaf; its manifest the record) or, for ``kf``, a KF
    weights file beside its record (``kf:w=trained:DIR``); its SHA-256."""
    from engines.filters.kf_weights import KF_TRAINED_RECORD, KF_TRAINED_WEIGHTS
    from engines.weights_files import array_chunks, save_weights

    if target == "kf":
        directory.mkdir(parents=True, exist_ok=True)
        sha = write_vector(vector, directory / KF_TRAINED_WEIGHTS)
        write_json(directory / KF_TRAINED_RECORD, {"sha256": sha, **facts})
        return sha
    w = np.ascontiguousarray(vector, dtype=np.float64)
    return save_weights(directory, w.shape, w.dtype, array_chunks(w),
                        {"kind": "linear", "layout": "linear", **facts}, replace=True)["sha256"]
