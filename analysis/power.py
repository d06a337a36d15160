"""Operating characteristic of the paired screen: P(pass | true mean delta, n).

Model: the observed pairs, with every candidate score shifted by
``mu - dbar`` so that the paired mean delta is the true value ``mu``, are the
population; a simulated screen draws ``n`` pairs from it with replacement and
applies the four statistical criteria of :mod:`analysis.contrast`
(bootstrap LB > 0, t LB > 0, both halves > 0, no lower-quartile regression).

Shifting is a translation of the candidate scores, and every statistic of the
screen is translation-equivariant (means, halves, Q25, the percentile
bootstrap's quantiles) or invariant (sd, skewness), so one set of simulated
samples serves every ``mu`` (common random numbers; curves are monotone).

The bootstrap inside each simulated screen is replaced by its Cornish-Fisher
expansion (``method="cornish-fisher"``): the ideal percentile bootstrap's
0.05 quantile of the mean of ``n`` draws from the sample is

    M + (sigma_hat / sqrt(n)) * (z + (z^2-1) g1/6 + (z^3-3z) g2/24 - (2z^3-5z) g1^2/36)

with ``z = -1.6449``, plug-in sd ``sigma_hat`` (ddof 0), ``g1 = skew/sqrt(n)``
and ``g2 = excess_kurtosis/n`` of the sample.  docs/statistics.md gives the
accuracy checked against 20,000-resample bootstraps; ``inner_resamples=B``
runs the real percentile bootstrap instead (slow, for checks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from analysis.bootstrap import ALPHA, BOOTSTRAP_SEED, bootstrap_bounds_rows, resample_indices
from analysis.contrast import SCREEN_CRITERIA
from analysis.games_table import MIN_PAIRS

#: generator seed of the simulated screens (SplitMix64 outputs, see analysis.bootstrap)
OC_SEED = 20_260_906
#: default simulated screens per curve
OC_SIMS = 20_000
#: default true-delta grid, in sigma units (true delta / (sd / sqrt(n)))
DEFAULT_SIGMAS = np.round(np.arange(-1.0, 5.0001, 0.125), 6)
#: curve names: the whole screen, then each criterion alone
CURVES = ("screen", *SCREEN_CRITERIA)
_Z = float(stats.norm.ppf(ALPHA))
_CHUNK = 1_024


def cornish_fisher_lower(samples: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Cornish-Fisher approximation of the percentile-bootstrap ``alpha`` quantile, per row.

    ``samples``: (k, n) array, one sample per row.  Returns the approximate
    ``alpha`` quantile of the bootstrap distribution of each row's mean.
    """
    x = np.asarray(samples, dtype=np.float64)
    n = x.shape[1]
    z = float(stats.norm.ppf(alpha))
    m = x.mean(axis=1)
    c = x - m[:, None]
    c2 = c * c
    m2 = c2.mean(axis=1)
    safe = np.where(m2 > 0, m2, 1.0)
    g1 = (c2 * c).mean(axis=1) / (safe * np.sqrt(safe)) / np.sqrt(n)
    g2 = ((c2 * c2).mean(axis=1) / (safe * safe) - 3.0) / n
    w = (z + (z * z - 1) * g1 / 6 + (z**3 - 3 * z) * g2 / 24 - (2 * z**3 - 5 * z) * g1 * g1 / 36)
    return m + np.sqrt(m2 / n) * np.where(m2 > 0, w, 0.0)


@dataclass
class ScreenSamples:
    """Per-simulated-screen statistics of the unshifted samples (length n_sims each)."""

    mean: np.ndarray
    t_lb: np.ndarray
    boot_lb: np.ndarray
    min_half: np.ndarray
    q25_gap: np.ndarray  # Q25(candidate) - Q25(baseline)


def simulate_screens(
    candidate_scores: np.ndarray,
    baseline_scores: np.ndarray,
    n: int,
    n_sims: int,
    seed: int = OC_SEED,
    inner_resamples: int | None = None,
) -> ScreenSamples:
    """Draw ``n_sims`` screens of ``n`` pairs (with replacement) and compute their statistics."""
    c = np.asarray(candidate_scores, dtype=np.float64)
    b = np.asarray(baseline_scores, dtype=np.float64)
    d = c - b
    t_crit = float(stats.t.ppf(1.0 - ALPHA, n - 1))
    h = n // 2
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ScreenSamples.__dataclass_fields__}
    for start in range(0, n_sims, _CHUNK):
        count = min(_CHUNK, n_sims - start)
        idx = resample_indices(d.size, start, count, seed, draws=n)
        dd, cc, bb = d[idx], c[idx], b[idx]
        mean = dd.mean(axis=1)
        sd = dd.std(axis=1, ddof=1)
        if inner_resamples is None:
            lb = cornish_fisher_lower(dd)
        else:
            lb = bootstrap_bounds_rows(dd, inner_resamples, BOOTSTRAP_SEED)[0]
        parts["mean"].append(mean)
        parts["t_lb"].append(mean - t_crit * sd / np.sqrt(n))
        parts["boot_lb"].append(lb)
        parts["min_half"].append(np.minimum(dd[:, :h].mean(axis=1), dd[:, h:].mean(axis=1)))
        parts["q25_gap"].append(np.quantile(cc, 0.25, axis=1) - np.quantile(bb, 0.25, axis=1))
    return ScreenSamples(**{k: np.concatenate(v) for k, v in parts.items()})


def pass_matrix(samples: ScreenSamples, shifts: np.ndarray) -> dict[str, np.ndarray]:
    """Pass indicators (n_sims x len(shifts)) per curve, for candidate shifts ``mu - dbar``."""
    s = np.asarray(shifts, dtype=np.float64)[None, :]
    crit = {
        "bootstrap_lb": samples.boot_lb[:, None] + s > 0,
        "t_lb": samples.t_lb[:, None] + s > 0,
        "halves": samples.min_half[:, None] + s > 0,
        "lower_quartile": samples.q25_gap[:, None] + s >= 0,
    }
    screen = np.logical_and.reduce([crit[k] for k in SCREEN_CRITERIA])
    return {"screen": screen, **crit}


@dataclass
class OperatingCharacteristic:
    """Pass probabilities of the screen and of each criterion alone over a true-delta grid."""

    n: int
    n_observed: int
    n_sims: int
    seed: int
    method: str
    observed_delta: float
    sd_delta: float
    se: float
    true_delta: np.ndarray
    sigma: np.ndarray
    pass_probability: dict[str, np.ndarray]
    at_observed: dict[str, float]

    def mc_se(self, p: float | np.ndarray) -> float | np.ndarray:
        """Monte Carlo standard error of a pass probability estimate."""
        return np.sqrt(np.asarray(p) * (1 - np.asarray(p)) / self.n_sims)

    def at(self, true_delta: float) -> dict[str, float]:
        """Pass probabilities at one true delta, linearly interpolated on the grid."""
        return {k: float(np.interp(true_delta, self.true_delta, v))
                for k, v in self.pass_probability.items()}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (arrays as lists; sigma is null when the paired sd is 0)."""
        return {
            "n": self.n, "n_observed": self.n_observed, "n_sims": self.n_sims,
            "seed": self.seed, "method": self.method,
            "observed_delta": self.observed_delta, "sd_delta": self.sd_delta, "se": self.se,
            "true_delta": self.true_delta.tolist(),
            "sigma": [None if np.isnan(x) else float(x) for x in self.sigma],
            "pass_probability": {k: v.tolist() for k, v in self.pass_probability.items()},
            "at_observed": dict(self.at_observed),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OperatingCharacteristic:
        """Rebuild from :meth:`to_dict` output (e.g. a stats JSON read by the report)."""
        return cls(
            n=int(d["n"]), n_observed=int(d["n_observed"]), n_sims=int(d["n_sims"]),
            seed=int(d["seed"]), method=str(d["method"]),
            observed_delta=float(d["observed_delta"]), sd_delta=float(d["sd_delta"]),
            se=float(d["se"]), true_delta=np.asarray(d["true_delta"], dtype=np.float64),
            sigma=np.array([np.nan if x is None else x for x in d["sigma"]], dtype=np.float64),
            pass_probability={k: np.asarray(v, dtype=np.float64)
                              for k, v in d["pass_probability"].items()},
            at_observed={k: float(v) for k, v in d["at_observed"].items()},
        )


def operating_characteristic(
    candidate_scores: np.ndarray,
    baseline_scores: np.ndarray,
    *,
    n: int | None = None,
    true_deltas: Sequence[float] | None = None,
    sigmas: Sequence[float] | None = None,
    n_sims: int = OC_SIMS,
    seed: int = OC_SEED,
    inner_resamples: int | None = None,
) -> OperatingCharacteristic:
    """P(screen passes) and P(each criterion passes) vs the true mean delta.

    ``candidate_scores`` / ``baseline_scores``: the observed pairs (seed order).
    ``n``: simulated screen size (default: the observed number of pairs).
    The grid is ``true_deltas`` (points) or ``sigmas`` (units of
    ``sd / sqrt(n)``, default -1..5 step 0.125).  ``inner_resamples`` = B runs a
    real B-resample bootstrap in every simulated screen instead of the
    Cornish-Fisher quantile.
    """
    c = np.asarray(candidate_scores, dtype=np.float64)
    b = np.asarray(baseline_scores, dtype=np.float64)
    if c.shape != b.shape or c.ndim != 1 or c.size < MIN_PAIRS:
        raise ValueError(f"need two equal-length score arrays of at least {MIN_PAIRS} pairs")
    m = int(c.size if n is None else n)
    if m < MIN_PAIRS:
        raise ValueError(f"screen size {m} is below {MIN_PAIRS}")
    if n_sims < 1:
        raise ValueError("n_sims must be positive")
    d = c - b
    dbar, sd = float(d.mean()), float(d.std(ddof=1))
    se = sd / np.sqrt(m)
    if true_deltas is not None and sigmas is not None:
        raise ValueError("give true_deltas or sigmas, not both")
    if true_deltas is not None:
        mu = np.asarray(true_deltas, dtype=np.float64)
    else:
        mu = np.asarray(DEFAULT_SIGMAS if sigmas is None else sigmas, dtype=np.float64) * se
    samples = simulate_screens(c, b, m, n_sims, seed, inner_resamples)
    shifts = np.append(mu, dbar) - dbar
    probs = {k: v.mean(axis=0) for k, v in pass_matrix(samples, shifts).items()}
    return OperatingCharacteristic(
        n=m,
        n_observed=int(c.size),
        n_sims=int(n_sims),
        seed=int(seed),
        method="cornish-fisher" if inner_resamples is None else f"bootstrap-{inner_resamples}",
        observed_delta=dbar,
        sd_delta=sd,
        se=float(se),
        true_delta=mu,
        sigma=mu / se if se > 0 else np.full_like(mu, np.nan),
        pass_probability={k: v[:-1] for k, v in probs.items()},
        at_observed={k: float(v[-1]) for k, v in probs.items()},
    )
