"""A panel figure over held-out roots, with intervals that resample games, not roots.

The roots of one game are correlated, so a figure's bounds come from resampling
**games**: resample ``b`` draws games with :func:`analysis.bootstrap.resample_counts`
(the screens' generator, seed and 20,000 resamples) and the figure is the mean over the
roots of the drawn games, ``sum(counts * S_g) / sum(counts * N_g)`` with ``S_g`` the sum
and ``N_g`` the number of the game's defined roots (or a ratio of two sums, as the work
ratio is); games where a figure is defined nowhere are left out of it, so no resample
divides by zero.  The halves are :func:`analysis.panel_conventions.first_half`'s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from analysis.bootstrap import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    DEFAULT_CHUNK,
    resample_counts,
)
from analysis.panel_conventions import DEFAULT, first_half


@dataclass(frozen=True)
class Figure:
    """One figure over the panel: the mean over defined roots, its game-bootstrap bounds and
    halves."""

    estimate: float | None
    lower: float | None
    upper: float | None
    halves: tuple[float | None, float | None]
    roots: int
    games: int
    n_resamples: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def _game_sums(games: np.ndarray, x: np.ndarray, weights: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Games (seed order) where ``x`` is defined, with the sum of ``x`` and the count (or the
    sum of ``weights``) over each one's defined roots."""
    ok = ~np.isnan(x)
    if weights is not None:
        ok &= ~np.isnan(weights)
    ids, inverse = np.unique(games[ok], return_inverse=True)
    sums = np.bincount(inverse, weights=x[ok], minlength=ids.size)
    w = np.ones(int(ok.sum())) if weights is None else weights[ok]
    counts = np.bincount(inverse, weights=w, minlength=ids.size)
    return ids, sums, counts


def game_bootstrap(sums: np.ndarray, counts: np.ndarray, n_resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """The ``n_resamples`` resampled ratios ``sum(c * sums) / sum(c * counts)`` where ``c``
    counts how often each game is drawn (resample order; chunking changes nothing)."""
    g = sums.size
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, DEFAULT_CHUNK):
        count = min(DEFAULT_CHUNK, n_resamples - start)
        c = resample_counts(g, start, count, seed).astype(np.float64)
        out[start:start + count] = (c @ sums) / (c @ counts)
    return out


def figure(games: np.ndarray, x: np.ndarray, weights: np.ndarray | None = None,
           n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
           alpha: float = ALPHA, conventions: str = DEFAULT) -> Figure:
    """The mean of the per-root ``x`` over its defined roots (or ``sum(x) / sum(weights)``),
    with bounds from resampling games and the two halves of the games
    (:func:`analysis.panel_conventions.first_half` under ``conventions``)."""
    ids, sums, counts = _game_sums(games, x, weights)
    if ids.size == 0:
        return Figure(None, None, None, (None, None), 0, 0, n_resamples, seed)
    roots = int((~np.isnan(x) if weights is None else ~np.isnan(x) & ~np.isnan(weights)).sum())
    estimate = float(sums.sum() / counts.sum())
    first = first_half(ids, conventions)
    halves = tuple(float(s.sum() / c.sum()) if c.sum() > 0 else None
                   for s, c in ((sums[first], counts[first]), (sums[~first], counts[~first])))
    means = game_bootstrap(sums, counts, n_resamples, seed)
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return Figure(estimate, float(lo), float(hi), halves, roots, int(ids.size), n_resamples,
                  seed)
