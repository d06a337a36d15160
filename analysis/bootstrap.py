"""Percentile bootstrap of a mean with counter-based resample indices.

Resample ``b`` (0-based) of ``n`` values draws index ``j`` (0..n-1) from
output number ``i = b * n + j`` of SplitMix64 seeded with ``seed``::

    z = seed + (i + 1) * 0x9E3779B97F4A7C15          (mod 2**64)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z =  z ^ (z >> 31)
    index = ((z >> 32) * n) >> 32                    (multiply-high, bias <= n / 2**32)

Every index is a pure function of ``(seed, b, j, n)``, so the resampled means
do not depend on how the resamples are chunked (or sharded) for memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: resamples of one contrast (spec: 20,000)
BOOTSTRAP_RESAMPLES = 20_000
#: the documented generator seed of every contrast's bootstrap (the claim's registration date)
BOOTSTRAP_SEED = 20_260_905
#: one-sided level: lower bound = ALPHA quantile, upper = 1 - ALPHA quantile
ALPHA = 0.05
#: resamples computed at once (memory only; results do not depend on it)
DEFAULT_CHUNK = 2_048

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_MASK64 = (1 << 64) - 1


def splitmix64(seed: int, counters: np.ndarray) -> np.ndarray:
    """Output number ``counters`` (0-based, uint64) of SplitMix64 seeded with ``seed``."""
    c = np.asarray(counters, dtype=np.uint64)
    z = np.uint64(seed & _MASK64) + (c + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def resample_indices(
    n: int, first: int, count: int, seed: int, draws: int | None = None
) -> np.ndarray:
    """Indices (count x draws, int64, values in 0..n-1) of resamples ``first..first+count-1``.

    ``draws`` defaults to ``n`` (a bootstrap resample); a different value draws
    ``draws`` items from ``n`` (used by the operating characteristic for other
    screen sizes).  Row ``b`` uses SplitMix64 outputs ``b*draws .. b*draws+draws-1``.
    """
    if n < 1 or n >= 2**32:
        raise ValueError(f"cannot resample from {n} items")
    m = n if draws is None else int(draws)
    rows = np.arange(first, first + count, dtype=np.uint64)[:, None] * np.uint64(m)
    counters = rows + np.arange(m, dtype=np.uint64)[None, :]
    z = splitmix64(seed, counters)
    return ((z >> np.uint64(32)) * np.uint64(n) >> np.uint64(32)).astype(np.int64)


def bootstrap_means(
    values: np.ndarray,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    chunk: int = DEFAULT_CHUNK,
) -> np.ndarray:
    """The ``n_resamples`` resampled means of ``values`` (float64), resample order."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    out = np.empty(n_resamples, dtype=np.float64)
    step = max(1, int(chunk))
    for start in range(0, n_resamples, step):
        count = min(step, n_resamples - start)
        idx = resample_indices(n, start, count, seed)
        out[start : start + count] = x[idx].sum(axis=1) / n
    return out


def resample_counts(n: int, first: int, count: int, seed: int) -> np.ndarray:
    """Times each of the ``n`` items occurs in resamples ``first..first+count-1`` (count x n)."""
    idx = resample_indices(n, first, count, seed)
    flat = idx + (np.arange(count, dtype=np.int64) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=count * n).reshape(count, n)


@dataclass(frozen=True)
class BootstrapBounds:
    """Percentile-bootstrap one-sided bounds of a mean."""

    lower: float
    upper: float
    n_resamples: int
    seed: int


def bootstrap_bounds(
    values: np.ndarray,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    alpha: float = ALPHA,
    chunk: int = DEFAULT_CHUNK,
) -> BootstrapBounds:
    """Lower = ``alpha`` quantile, upper = ``1 - alpha`` quantile of the resampled means.

    Quantiles use linear interpolation between order statistics (numpy's default).
    """
    means = bootstrap_means(values, n_resamples, seed, chunk)
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return BootstrapBounds(float(lo), float(hi), int(n_resamples), int(seed))


def bootstrap_bounds_rows(
    samples: np.ndarray,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    alpha: float = ALPHA,
    chunk: int = 256,
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) bounds of every row of ``samples`` (k x n) at once.

    Same resamples as :func:`bootstrap_bounds` on each row (the resampled
    mean is ``counts @ row / n``), so the bounds agree with it up to float
    rounding; used for coverage simulations and the OC's exact mode.
    """
    x = np.asarray(samples, dtype=np.float64)
    k, n = x.shape
    counts = np.concatenate([
        resample_counts(n, start, min(DEFAULT_CHUNK, n_resamples - start), seed)
        for start in range(0, n_resamples, DEFAULT_CHUNK)
    ]).astype(np.float64)
    lower, upper = np.empty(k), np.empty(k)
    for start in range(0, k, chunk):
        means = x[start : start + chunk] @ counts.T / n
        lower[start : start + chunk], upper[start : start + chunk] = np.quantile(
            means, [alpha, 1.0 - alpha], axis=1)
    return lower, upper
