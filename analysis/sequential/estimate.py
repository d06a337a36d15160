"""The mean delta after a group-sequential screen stopped: median-unbiased estimate and interval.

Stopping early when the statistic is high biases the plain mean upward.  The
stage-wise ordering ranks an outcome ``(k, z)`` (stopped at look ``k`` with
z statistic ``z``) above every path stopped for efficacy at an earlier look,
below every path stopped for futility at an earlier look, and by ``z`` within
look ``k``.  With ``theta`` the mean delta in per-game sd units,

    p(theta) = sum_{j<k} P_theta(stop for efficacy at j) + P_theta(reach k, Z_k >= z)

increases in ``theta`` and is computed by the recursion of
:mod:`analysis.sequential.design`.  The median-unbiased estimate solves
``p(theta) = 1/2``; the two-sided ``level`` interval solves
``p = (1 - level)/2`` (lower) and ``(1 + level)/2`` (upper).  The estimate and
interval read the observed t as the standardised mean (the paired sd at the
stopping look taken as known, ``z = t``; ``theta`` is turned into points with
that sd), so with one look they are the mean and ``mean +- z se``.  The
stage-wise one-sided p-value ``p(0)`` reads the observed t through the bounds'
tail-matching conversion, so (without a futility bound) it is at most the
spent alpha exactly when the design stopped for efficacy.  The default level
is ``1 - 2 alpha`` (90% for alpha 0.05): its lower limit is the one-sided
``1 - alpha`` bound of the screen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from analysis.sequential.design import (
    CONTINUE,
    STOP_FUTILITY,
    SequentialDesign,
    check_deltas,
    decide,
    t_to_z,
)
from analysis.sequential.recursion import Walk


@dataclass(frozen=True)
class SequentialEstimate:
    """The mean delta at the stopping look: naive, median-unbiased, interval, p-value."""

    look: int
    n: int
    decision: str
    naive_mean: float
    median_unbiased: float
    lower: float
    upper: float
    level: float
    p_value: float
    futility_followed: bool


def stagewise_p(design: SequentialDesign, look: int, z: float, theta: float,
                futility_followed: bool = True) -> float:
    """P_theta(an outcome at or above (look, z) in the stage-wise ordering); ``look`` 1-based."""
    b = design.boundaries
    lower = b.futility if futility_followed else (-math.inf,) * len(b.looks)
    walk, p = Walk(theta), 0.0
    for j in range(look - 1):
        n = design.looks[j]
        p += walk.above(n, b.efficacy[j])
        walk.advance(n, lower[j], b.efficacy[j])
    return p + walk.above(design.looks[look - 1], z)


def _root(f, target: float, start: float, step: float) -> float:
    lo, hi = start - step, start + step
    while f(lo) > target:
        lo -= step
        step *= 2
    while f(hi) < target:
        hi += step
        step *= 2
    return float(optimize.brentq(lambda x: f(x) - target, lo, hi, xtol=1e-9))


def estimate(deltas: np.ndarray, design: SequentialDesign, *, level: float | None = None,
             futility_followed: bool = True) -> SequentialEstimate:
    """The estimate at the look where the paired deltas (seed order) stopped the design.

    ``len(deltas)`` must be a look; no earlier look may have stopped, and the
    last one must (or be the final look).  ``futility_followed=False`` treats the
    non-binding futility bound as ignored (only efficacy stops the screen).
    """
    d = check_deltas(deltas)
    if d.size not in design.looks:
        raise ValueError(f"deltas: {d.size} games is not a look of the design (looks "
                         f"{', '.join(map(str, design.looks))})")
    level = 1.0 - 2.0 * design.alpha if level is None else level
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level: {level!r} is not in (0, 1)")
    look = design.looks.index(d.size) + 1
    for j in range(1, look + 1):
        got = decide(d[: design.looks[j - 1]], j, design)
        stopped = got.decision != CONTINUE and (futility_followed
                                                 or got.decision != STOP_FUTILITY)
        if j < look and stopped:
            raise ValueError(f"deltas: the design stopped at look {j} ({got.n} games, "
                             f"{got.decision}); estimate there")
        if j == look and not stopped and look < len(design.looks):
            raise ValueError(f"deltas: look {look} ({d.size} games) continues; the estimate "
                             "is made where the design stops")
    if got.sd_delta <= 0:
        raise ValueError(f"deltas: the paired sd is 0 at look {look}; no estimate")
    z, sd = got.statistic, got.sd_delta

    def p(theta: float, z: float = z) -> float:
        return stagewise_p(design, look, z, theta, futility_followed)

    start, step = z / math.sqrt(got.n), 2.0 / math.sqrt(design.looks[0])
    theta = {q: _root(p, q, start, step) for q in (0.5, (1 - level) / 2, (1 + level) / 2)}
    p_value = p(0.0, float(t_to_z(got.statistic, got.n - 1)))
    return SequentialEstimate(
        look=look, n=got.n, decision=got.decision, naive_mean=got.mean_delta,
        median_unbiased=theta[0.5] * sd, lower=theta[(1 - level) / 2] * sd,
        upper=theta[(1 + level) / 2] * sd, level=float(level), p_value=p_value,
        futility_followed=futility_followed)
