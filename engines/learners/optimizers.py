"""The weight search's optimizers: CMA-ES (the ``cmaes`` package) and the cross-entropy method.

Both maximise a score over vectors in the search's coordinates
(:mod:`engines.learners.vectors`) through one interface: :meth:`ask` a
generation's population (a ``population x dim`` array), :meth:`tell` it its
scores, :attr:`centre` the distribution's mean.  Every draw comes from the
optimizer's own seeded generator, and the whole optimizer pickles
(:func:`dump`, :func:`load`; CMA-ES's generator state beside it, which ``cmaes``
leaves out), so a search resumed from a generation's saved state draws exactly
what an uninterrupted one would.

CMA-ES is CyberAgent's ``cmaes`` (numpy only, ask/tell, seeded,
:class:`cmaes.CMA`), which minimises: it is told the negated scores.  The
cross-entropy method is a few lines and written here (no maintained package
offers it with a seeded, picklable ask/tell): sample a diagonal Gaussian,
refit its mean and spread to the elite fraction of the scored population.
"""

from __future__ import annotations

import math
import pickle
from typing import Protocol

import numpy as np


class Optimizer(Protocol):
    """Ask a population, tell its scores (higher is better), read the centre."""

    def ask(self) -> np.ndarray: ...

    def tell(self, population: np.ndarray, scores: np.ndarray) -> None: ...

    @property
    def centre(self) -> np.ndarray: ...


class Cmaes:
    """CMA-ES of ``population`` candidates a generation from ``start`` with step ``sigma``."""

    def __init__(self, start: np.ndarray, sigma: float, population: int, seed: int) -> None:
        from cmaes import CMA

        self.cma = CMA(mean=np.asarray(start, dtype=np.float64), sigma=float(sigma),
                       population_size=int(population), seed=int(seed) % 2**32)
        # its stopping rule's history starts as uninitialised memory (np.empty), which would
        # make two saved states of the same search differ; that rule is never asked
        self.cma._funhist_values[:] = 0.0

    def __getstate__(self) -> dict[str, object]:
        """The optimizer with its generator's state: ``cmaes.CMA`` leaves its generator out of
        a pickle and unpickles with a fresh, unseeded one, so a resumed search would draw
        other candidates than an uninterrupted one."""
        return {"cma": self.cma, "rng": self.cma._rng.get_state()}

    def __setstate__(self, state: dict[str, object]) -> None:
        if "rng" not in state:
            raise ValueError("a CMA-ES state saved without its generator (an older harness): "
                             "it cannot resume as an uninterrupted search; remove the run")
        self.cma = state["cma"]
        self.cma._rng.set_state(state["rng"])

    def ask(self) -> np.ndarray:
        return np.array([self.cma.ask() for _ in range(self.cma.population_size)])

    def tell(self, population: np.ndarray, scores: np.ndarray) -> None:
        self.cma.tell([(x, -float(s)) for x, s in zip(population, scores, strict=True)])

    @property
    def centre(self) -> np.ndarray:
        return np.array(self.cma.mean, dtype=np.float64)


class Cem:
    """The cross-entropy method: ``population`` draws of a diagonal Gaussian from ``start``
    with spread ``spread``; the ``elite`` fraction's mean and standard deviation (at least
    ``floor``) are the next generation's."""

    def __init__(self, start: np.ndarray, spread: float, population: int, seed: int,
                 elite: float, floor: float = 0.0) -> None:
        self.mean = np.array(start, dtype=np.float64)
        self.spread = np.full(self.mean.shape, float(spread))
        self.population = int(population)
        self.elites = max(1, math.ceil(elite * self.population))
        self.floor = float(floor)
        self.rng = np.random.Generator(np.random.PCG64(int(seed)))

    def ask(self) -> np.ndarray:
        noise = self.rng.standard_normal((self.population, self.mean.shape[0]))
        return self.mean + noise * self.spread

    def tell(self, population: np.ndarray, scores: np.ndarray) -> None:
        # a stable sort, best first: equal scores keep the order they were asked in
        order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
        elite = np.asarray(population)[order[:self.elites]]
        self.mean = elite.mean(axis=0)
        self.spread = np.maximum(elite.std(axis=0), self.floor)

    @property
    def centre(self) -> np.ndarray:
        return self.mean.copy()


def make_optimizer(kind: str, start: np.ndarray, population: int, seed: int, sigma: float,
                   elite: float = 0.25) -> Optimizer:
    """The optimizer ``kind`` (``cmaes`` or ``cem``) from ``start``; ``sigma`` is CMA-ES's step
    or CEM's initial spread, ``elite`` CEM's elite fraction."""
    if kind == "cmaes":
        return Cmaes(start, sigma, population, seed)
    if kind == "cem":
        return Cem(start, sigma, population, seed, elite)
    raise ValueError(f"unknown optimizer {kind!r} (cmaes, cem)")


def dump(optimizer: Optimizer) -> bytes:
    """The optimizer's whole state (its generator's included)."""
    return pickle.dumps(optimizer, protocol=4)


def load(data: bytes) -> Optimizer:
    """An optimizer from :func:`dump` (a state this search wrote itself)."""
    return pickle.loads(data)  # noqa: S301 - our own checkpoint, checked by its hash


class Ga:
    """The register's mutation-only genetic algorithm over a flat parameter vector
    (keshavsaharia/drop7-bench, ``approaches/lifetime-objective/nnue-evolution``, stage C).

    The first population is ``start`` itself and ``population - 1`` mutants of it at twice the
    step; after each generation's scores the ``elites`` best (ties: the earlier) are kept as
    they are and every other slot is a mutant of a tournament's winner (``tournament`` draws
    with replacement, the best score winning, ties to the first drawn).  A mutant adds to each
    segment (a tensor: ``segments`` are its bounds) Gaussian noise of ``sigma`` times that
    segment's standard deviation in the parent (at least ``floor``).  Generation ``g``'s draws
    come from a generator seeded by ``(seed, g)``, so the state is the population alone and a
    resumed run draws what an uninterrupted one would.  The population is float32, as the leaf
    plays it; :attr:`centre` is the last scored generation's best."""

    def __init__(self, start: np.ndarray, sigma: float, population: int, seed: int,
                 elites: int, tournament: int, segments: list[tuple[int, int]],
                 floor: float = 1e-4) -> None:
        self.sigma, self.seed, self.elites, self.tournament = float(sigma), int(seed), \
            int(elites), int(tournament)
        self.segments, self.floor, self.generation = list(segments), float(floor), 0
        first = np.asarray(start, dtype=np.float32)
        rng = self._rng()
        self.population = np.stack(
            [first] + [self._mutant(first, 2 * self.sigma, rng) for _ in range(population - 1)])
        self.best = first.copy()

    def _rng(self) -> np.random.Generator:
        return np.random.default_rng([self.seed, self.generation])

    def _mutant(self, parent: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
        child = parent.copy()
        for a, b in self.segments:
            spread = max(float(np.std(parent[a:b], dtype=np.float64)) * sigma, self.floor)
            child[a:b] += (spread * rng.standard_normal(b - a)).astype(np.float32)
        return child

    def ask(self) -> np.ndarray:
        return self.population.copy()

    def tell(self, population: np.ndarray, scores: np.ndarray) -> None:
        scores = np.asarray(scores, dtype=np.float64)
        order = np.argsort(-scores, kind="stable")
        self.best = np.asarray(population[order[0]], dtype=np.float32).copy()
        self.generation += 1
        rng = self._rng()
        nxt = [np.asarray(population[i], dtype=np.float32).copy()
               for i in order[:self.elites]]
        n = len(population)
        while len(nxt) < n:
            winner = int(rng.integers(n))
            for _ in range(1, self.tournament):
                challenger = int(rng.integers(n))
                if scores[challenger] > scores[winner]:
                    winner = challenger
            nxt.append(self._mutant(np.asarray(population[winner], dtype=np.float32),
                                    self.sigma, rng))
        self.population = np.stack(nxt)

    @property
    def centre(self) -> np.ndarray:
        return self.best.copy()
