"""Operating characteristics of a group-sequential screen by resampling real paired deltas.

The population is the observed deltas centred to mean 0 and shifted by
``shift`` (so ``shift = 0`` is the null).  A simulated screen draws
``n_K`` deltas with replacement (counter-based SplitMix64 indices of
:func:`analysis.bootstrap.resample_indices`, seed :data:`SEQUENTIAL_SEED`),
reads them in order, and applies the design's t bounds at each look
(:func:`analysis.sequential.design.decide`'s rule, vectorised).  The same draws give
the fixed screen: one look at ``n_K`` with the t LB criterion at the design's
alpha (the screen's ``t_lb`` when alpha = 0.05).  Only the t criterion is
simulated; the other screen criteria are the caller's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from analysis.bootstrap import resample_indices
from analysis.games_table import MIN_PAIRS
from analysis.sequential.design import SequentialDesign, check_deltas

#: generator seed of the simulated sequential screens
SEQUENTIAL_SEED = 20_260_907
#: default simulated screens
SEQUENTIAL_SIMS = 20_000
#: one-sided confidence of :func:`rate_lower_bound`, the "beyond Monte Carlo error" test
EXCESS_CONFIDENCE = 0.95
_CHUNK = 1_024


@dataclass(frozen=True)
class SimulationResult:
    """Rejection rate (type I error at shift 0, power otherwise) and games used."""

    shift: float
    n_sims: int
    seed: int
    futility_followed: bool
    rejection_rate: float
    mc_se: float
    expected_games: float
    expected_games_se: float
    futility_rate: float
    stop_fraction: tuple[float, ...]  # fraction of screens stopping at each look
    fixed_rejection_rate: float
    fixed_mc_se: float
    fixed_games: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out = asdict(self)
        out["stop_fraction"] = list(self.stop_fraction)
        return out


def _t_at_looks(x: np.ndarray, looks: np.ndarray, shift: float) -> np.ndarray:
    """Paired t statistics (rows x looks) of mean-0 draws ``x`` shifted by ``shift``."""
    s1 = np.cumsum(x, axis=1)[:, looks - 1]
    s2 = np.cumsum(x * x, axis=1)[:, looks - 1]
    n = looks.astype(np.float64)[None, :]
    m = s1 / n
    var = np.maximum(s2 - n * m * m, 0.0) / (n - 1)
    mean = m + shift
    se = np.sqrt(var / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    return np.where(se > 0, t, np.sign(mean) * np.inf)


def simulate(deltas: np.ndarray, design: SequentialDesign, shift: float = 0.0,
             n_sims: int = SEQUENTIAL_SIMS, seed: int = SEQUENTIAL_SEED, *,
             futility_followed: bool = True) -> SimulationResult:
    """Simulate ``n_sims`` sequential screens (and the fixed screen) on resampled deltas."""
    d = check_deltas(deltas)
    if d.size < MIN_PAIRS:
        raise ValueError(f"deltas: {d.size} values, need at least {MIN_PAIRS}")
    if not math.isfinite(float(shift)):
        raise ValueError(f"shift: {shift!r} is not a finite number")
    if isinstance(n_sims, bool) or not isinstance(n_sims, int | np.integer) or n_sims < 1:
        raise ValueError(f"n_sims: {n_sims!r} is not a positive integer")
    pop = d - d.mean()
    looks = np.asarray(design.looks, dtype=np.int64)
    n_last = int(looks[-1])
    eff_t, fut_t = design.boundaries.t_bounds()
    if not (futility_followed and design.has_futility):
        fut_t = np.full_like(fut_t, -np.inf)
    fixed_crit = float(stats.t.ppf(1.0 - design.alpha, n_last - 1))
    rejected = futile = fixed = 0
    games = games_sq = 0.0
    stops = np.zeros(looks.size, dtype=np.int64)
    for start in range(0, n_sims, _CHUNK):
        count = min(_CHUNK, n_sims - start)
        x = pop[resample_indices(d.size, start, count, seed, draws=n_last)]
        t = _t_at_looks(x, looks, float(shift))
        eff = t > eff_t[None, :]
        fut = t < fut_t[None, :]
        stop = eff | fut
        stop[:, -1] = True
        first = np.argmax(stop, axis=1)
        rows = np.arange(count)
        rej = eff[rows, first]
        used = looks[first].astype(np.float64)
        rejected += int(rej.sum())
        futile += int((fut[rows, first] & ~rej).sum())
        fixed += int((t[:, -1] > fixed_crit).sum())
        games += float(used.sum())
        games_sq += float((used * used).sum())
        stops += np.bincount(first, minlength=looks.size)
    rate, fixed_rate = rejected / n_sims, fixed / n_sims
    mean_games = games / n_sims
    var_games = max(games_sq / n_sims - mean_games**2, 0.0)
    return SimulationResult(
        shift=float(shift), n_sims=int(n_sims), seed=int(seed),
        futility_followed=bool(futility_followed and design.has_futility),
        rejection_rate=rate, mc_se=math.sqrt(rate * (1 - rate) / n_sims),
        expected_games=mean_games, expected_games_se=math.sqrt(var_games / n_sims),
        futility_rate=futile / n_sims, stop_fraction=tuple(float(s) / n_sims for s in stops),
        fixed_rejection_rate=fixed_rate,
        fixed_mc_se=math.sqrt(fixed_rate * (1 - fixed_rate) / n_sims), fixed_games=n_last)


def rate_lower_bound(rate: float, n_sims: int, confidence: float = EXCESS_CONFIDENCE) -> float:
    """The exact one-sided (Clopper-Pearson) lower bound of a rate simulated as ``rate`` over
    ``n_sims`` screens: a simulated error rate exceeds a declared one beyond Monte Carlo
    error when this bound is above it."""
    if isinstance(n_sims, bool) or not isinstance(n_sims, int | np.integer) or n_sims < 1:
        raise ValueError(f"n_sims: {n_sims!r} is not a positive integer")
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate: {rate!r} is not in [0, 1]")
    k = int(round(rate * n_sims))
    return 0.0 if k == 0 else float(stats.beta.ppf(1.0 - confidence, k, n_sims - k + 1))
