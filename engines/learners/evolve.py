"""Evolution of the network leaf: the mutation-only GA over its weights, scored by whole games.

A :class:`~engines.learners.weight_search.WeightSearch` whose optimizer is the genetic
algorithm :class:`~engines.learners.optimizers.Ga` and whose vectors are networks: every
candidate of generation ``g`` and the start network (the control) play the same ``games``
whole games of the training role inside the declared search (common random numbers; a fresh
block each generation), the scores put back in place whatever the workers, a checkpoint per
generation and a resume equal to an uninterrupted run, all as the weight search does.

What differs: a candidate is a network weights directory (:func:`save_nnue`, played as
``nnue-file`` by its SHA-256) rather than a JSON vector, a generation's record names its
candidates by their SHA-256 (not their 572k values), the GA's state is its float32
population, and only the newest generation's candidates stay on disk (with every
generation's frozen best). A declared ``reference`` (a fair-leaf search) plays each
generation's games too, on the same seeds; the optimizer is not told its scores, and its
mean is the curve's ``reference`` beside best, mean and control (the register's training-
signal check compares the population's mean with it). Before freezing, the ``finalists``
best of the last generation play ``select_games`` fresh games (the block after the last
generation's) and the best mean among them is the frozen network (``frozen/``, its SHA-256
in ``curve.json``), the register's guard against a lucky champion.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from contracts.json_file import load_json, write_json
from engines.learners.nnue_fit import segments
from engines.learners.optimizers import Ga
from engines.learners.registry import fair_search
from engines.learners.weight_search import (
    CANDIDATES,
    CURVE,
    FROZEN_DIR,
    GENERATION,
    SearchConfig,
    WeightSearch,
    play_all,
)
from engines.leaves.nnue_weights import load_nnue, save_nnue

#: the frozen network's directory in the run's (the weight search's frozen directory)
FROZEN_NETWORK = FROZEN_DIR
#: the reference search's key in a generation's record and a curve point
REFERENCE = "reference"


@dataclass(frozen=True)
class EvolveConfig(SearchConfig):
    """A weight search's config (``kind`` ``ga``, ``target`` ``nnue``, ``start`` empty) with the
    start network's pin and the GA's and the re-selection's sizes."""

    start_network: str = ""
    start_sha256: str = ""
    elites: int = 4
    tournament: int = 3
    finalists: int = 8
    select_games: int = 128
    #: the fair-leaf search that plays each generation's games too, ``(depth, strata)``
    #: (None: none; then the config is recorded as before the key existed)
    reference: tuple[int, int] | None = None

    def describe(self) -> dict[str, Any]:
        """The config as ``config.json`` records it (``reference`` only when declared)."""
        out = SearchConfig.describe(self)
        if self.reference is None:
            del out["reference"]
        else:
            out["reference"] = list(self.reference)
        return out

    def reference_policy(self) -> str | None:
        """The reference search, the fair leaf's (None: no reference)."""
        if self.reference is None:
            return None
        return fair_search(*self.reference)

    def overlaps_health(self, generations: int) -> bool:
        """The weight search's guard, with the re-selection's block read after the last
        generation (counted as whole generations: a superset)."""
        extra = -(-self.select_games // self.games)
        return SearchConfig.overlaps_health(self, generations + extra)

    def select_seeds(self, generations: int) -> list[int]:
        """The re-selection's fresh block: the games after the last generation's."""
        first = self.first_game + generations * self.games
        return [self.seed_of(first + k) for k in range(self.select_games)]


class NetworkEvolution(WeightSearch):
    """The GA over a network into ``out`` (see the module docstring)."""

    def __init__(self, config: EvolveConfig, out: Path, workers: int = 1, **kw) -> None:
        self.config, self.out, self.workers = config, Path(out), workers
        self.log = kw.get("log", self._stderr)
        params, self.sizes, _ = load_nnue(Path(config.start_network))
        manifest = load_json(Path(config.start_network) / "manifest.json")
        if manifest.get("sha256") != config.start_sha256:
            raise ValueError(f"{config.start_network}: SHA-256 {manifest.get('sha256')}, the "
                             f"config pins {config.start_sha256}")
        self.start = np.array(params, dtype=np.float32)
        self.scale = np.float32(1.0)

    @staticmethod
    def _stderr(message: str) -> None:
        import sys

        print(message, file=sys.stderr, flush=True)

    def _new_optimizer(self) -> Ga:
        c = self.config
        return Ga(self.start, c.sigma, c.population, c.seed, c.elites, c.tournament,
                  segments(self.sizes))

    def _side_policies(self) -> dict[str, str]:
        """The reference search on the generation's games (common random numbers), when
        declared: its mean is the curve's ``reference``."""
        policy = self.config.reference_policy()
        return {} if policy is None else {REFERENCE: policy}

    def _file(self, name: str, vector: np.ndarray) -> tuple[str, str]:
        path = self.out / CANDIDATES / name.removesuffix(".json")
        if (path / "manifest.json").exists():  # the same name is the same network
            return str(path), load_json(path / "manifest.json")["sha256"]
        return str(path), save_nnue(path, vector, self.sizes, replace=True)["sha256"]

    def _policy(self, name: str, vector: np.ndarray, one_ply: bool = False) -> str:
        path, sha = self._file(name, vector)
        depth = 1 if one_ply else self.config.depth
        return f"search:leaf=nnue-file:{sha}:{path},d={depth},s={self.config.strata}"

    def _record(self, g: int, vectors: np.ndarray, flat: np.ndarray, means: np.ndarray,
                centre: np.ndarray, seeds: list[int]) -> dict[str, Any]:
        best = int(np.argmax(means))  # the first of equal means
        path, sha = self._file(f"gen-{g:04d}-frozen", vectors[best])
        names = [f"gen-{g:04d}-c{i:03d}" for i in range(len(vectors))]
        record: dict[str, Any] = {
            "generation": g, "seeds": seeds,
            "candidates": [{"file": n, "sha256": load_json(
                self.out / CANDIDATES / n / "manifest.json")["sha256"],
                "scores": [int(s) for s in row], "mean": float(m)}
                for n, row, m in zip(names, flat[:-1], means, strict=True)],
            "control": {"file": "start", "sha256": load_json(
                self.out / CANDIDATES / "start" / "manifest.json")["sha256"],
                        "scores": [int(s) for s in flat[-1]], "mean": float(flat[-1].mean())},
            "best": float(means[best]), "best_index": best, "mean": float(means.mean()),
            "frozen": {"rule": "best", "file": Path(path).name, "sha256": sha}}
        record["health"] = self._health(g, vectors[best])
        # two generations back: no longer needed (the last whole generation's stay, for the
        # re-selection, even when this one is cut short)
        for old in (self.out / CANDIDATES).glob(f"gen-{g - 2:04d}-c[0-9][0-9][0-9]"):
            shutil.rmtree(old)
        return record

    def finish(self) -> dict[str, Any]:
        """Re-select among the last generation's best on a fresh block, freeze the winner
        (``frozen/``) and write the curve."""
        c, last = self.config, self.generations_done()
        record = load_json(self.out / GENERATION.format(g=last) / "generation.json")
        ranked = sorted(range(len(record["candidates"])),
                        key=lambda i: -record["candidates"][i]["mean"])[:c.finalists]
        seeds = c.select_seeds(last)
        policies = []
        for i in ranked:
            cand = record["candidates"][i]
            path = self.out / CANDIDATES / cand["file"]
            policies.append(f"search:leaf=nnue-file:{cand['sha256']}:{path},d={c.depth},"
                            f"s={c.strata}")
        scores = np.array(play_all([(p, s) for p in policies for s in seeds], self.workers),
                          dtype=np.int64).reshape(len(policies), len(seeds))
        means = scores.mean(axis=1)
        win = int(np.argmax(means))
        chosen = record["candidates"][ranked[win]]
        params, _, _ = load_nnue(self.out / CANDIDATES / chosen["file"])
        frozen = save_nnue(self.out / FROZEN_NETWORK, params, self.sizes,
                           {"learner": "nnue-evolve", "config_sha256": c.sha256()},
                           replace=True)
        selection = {"seeds": seeds, "finalists": [record["candidates"][i]["file"]
                                                    for i in ranked],
                     "means": [float(m) for m in means], "winner": chosen["file"],
                     "winner_sha256": chosen["sha256"]}
        summary = {"config_sha256": c.sha256(), "generations": last,
                   "frozen": {"file": FROZEN_NETWORK, "sha256": frozen["sha256"],
                              "rule": "re-selected"},
                   "selection": selection, "curve": self.curve()}
        write_json(self.out / CURVE, summary)
        self.log(f"nnue-evolve: froze {chosen['file']} (mean {means[win]:,.0f} on "
                 f"{len(seeds)} fresh games)")
        return summary
