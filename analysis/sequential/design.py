"""Group-sequential screens: the design, its boundaries, and the decision at a look.

A design looks at the paired deltas after ``n_1 < ... < n_K`` games (the last
look is the block's last game) and spends a one-sided type I error ``alpha``
over the looks with a Lan-DeMets spending function of the information
fraction ``t = n_k / n_K``:

* ``obrien-fleming``: ``A(t) = 2 * (1 - Phi(z_{1-alpha/2} / sqrt(t)))``;
* ``pocock``: ``A(t) = alpha * ln(1 + (e - 1) * t)``;
* or a custom tuple of cumulative alphas, one per look, ending at ``alpha``.

The efficacy bounds ``c_k`` (z scale) make the probability, under mean delta
0, of first crossing at look ``k`` equal ``A(t_k) - A(t_{k-1})`` for the
canonical joint law of the sequential z statistics (``corr(Z_i, Z_j) =
sqrt(n_i / n_j)``), computed by the Armitage-McPherson-Rowe recursion on a
Simpson grid (:mod:`analysis.sequential.recursion`).  Efficacy bounds ignore futility
(the futility bound is non-binding).

An optional futility bound (``delta_min`` > 0 in points, with a planning sd
``sd_plan``) spends type II error at ``theta_1 = delta_min / sd_plan`` with
the same family: ``a_k`` makes the probability, under ``theta_1``, of stopping
for futility at look ``k`` equal ``B(t_k) - B(t_{k-1})``, the recursion
carrying both bounds.  The total ``beta`` is the design's own type II error
at ``theta_1`` with the bounds in place (the fixed point), so the two bounds
meet at the last look.  A bound that would exceed ``c_k`` is set to ``c_k``.

The screen's statistic is the paired t with ``n_k - 1`` df: a z bound is
used for t by matching tail probabilities at each look
(:func:`z_to_t`), so a t crossing has the probability the z recursion spent.
docs/statistics.md ("Sequential screens") has the full text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import optimize, stats

from analysis.bootstrap import ALPHA
from analysis.games_table import MIN_PAIRS
from analysis.sequential.recursion import Walk, stage_probabilities

#: the named spending functions
SPENDING = ("obrien-fleming", "pocock")
#: decisions at a look
CONTINUE, STOP_EFFICACY, STOP_FUTILITY, STOP = "continue", "stop-efficacy", "stop-futility", "stop"
_BOUND_MAX = 40.0


def spending(name: str, alpha: float, t: np.ndarray | float) -> np.ndarray:
    """Cumulative alpha spent by information fraction ``t`` (0 at t = 0, ``alpha`` at t = 1)."""
    tt = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0)
    if name == "obrien-fleming":
        with np.errstate(divide="ignore"):
            out = 2.0 * stats.norm.sf(stats.norm.isf(alpha / 2.0) / np.sqrt(tt))
        return np.where(tt > 0, out, 0.0)
    if name == "pocock":
        return alpha * np.log1p((math.e - 1.0) * tt)
    raise ValueError(f"spending: unknown {name!r} (known: {', '.join(SPENDING)})")


def _is_int(x: object) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)


def _is_real(x: object) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_) and math.isfinite(float(x))


@dataclass(frozen=True)
class SequentialDesign:
    """Looks (game counts), one-sided ``alpha``, spending, optional futility (validated)."""

    looks: tuple[int, ...]
    games: int
    alpha: float = ALPHA
    spending: str | tuple[float, ...] = "obrien-fleming"
    delta_min: float | None = None
    sd_plan: float | None = None
    futility_spending: str | None = None

    def __post_init__(self) -> None:
        if not _is_int(self.games) or self.games < MIN_PAIRS:
            raise ValueError(f"games: {self.games!r} is not an integer >= {MIN_PAIRS}")
        looks = self.looks
        if isinstance(looks, str | bytes) or not isinstance(looks, Sequence | np.ndarray) \
                or len(looks) == 0:
            raise ValueError(f"looks: {looks!r} is not a non-empty list of game counts")
        for x in looks:
            if not _is_int(x) or x < 1:
                raise ValueError(f"looks: {x!r} is not a positive integer")
        looks = tuple(int(x) for x in looks)
        for a, b in zip(looks, looks[1:], strict=False):
            if b <= a:
                raise ValueError(f"looks: not strictly increasing ({a} then {b})")
        if looks[0] < MIN_PAIRS:
            raise ValueError(f"looks: the first look ({looks[0]}) has fewer than {MIN_PAIRS} games")
        if looks[-1] > self.games:
            raise ValueError(f"looks: look {looks[-1]} is after the block's last game "
                             f"({self.games})")
        if looks[-1] != self.games:
            raise ValueError(f"looks: the last look ({looks[-1]}) is not the block's last game "
                             f"({self.games})")
        object.__setattr__(self, "looks", looks)
        object.__setattr__(self, "games", int(self.games))
        if not _is_real(self.alpha) or not 0.0 < float(self.alpha) < 0.5:
            raise ValueError(f"alpha: {self.alpha!r} is not in (0, 0.5)")
        object.__setattr__(self, "alpha", float(self.alpha))
        object.__setattr__(self, "spending", self._checked_spending())
        self._check_futility()

    def _checked_spending(self) -> str | tuple[float, ...]:
        sp = self.spending
        if isinstance(sp, str):
            if sp not in SPENDING:
                raise ValueError(f"spending: unknown {sp!r} (known: {', '.join(SPENDING)})")
            return sp
        if not isinstance(sp, Sequence | np.ndarray) or len(sp) != len(self.looks):
            raise ValueError(f"spending: {sp!r} is neither a name ({', '.join(SPENDING)}) nor "
                             f"{len(self.looks)} cumulative alphas, one per look")
        values = []
        for k, v in enumerate(sp, start=1):
            if not _is_real(v) or float(v) < 0:
                raise ValueError(f"spending: {v!r} at look {k} is not a number >= 0")
            if float(v) > self.alpha + 1e-12:
                raise ValueError(f"spending: cumulative alpha {v} at look {k} is above alpha "
                                 f"{self.alpha}")
            if values and float(v) < values[-1]:
                raise ValueError(f"spending: cumulative alpha decreases at look {k}")
            values.append(float(v))
        if abs(values[-1] - self.alpha) > 1e-12:
            raise ValueError(f"spending: cumulative alpha at the last look ({values[-1]}) is not "
                             f"alpha ({self.alpha})")
        return tuple(values)

    def _check_futility(self) -> None:
        if self.delta_min is None:
            for key in ("sd_plan", "futility_spending"):
                if getattr(self, key) is not None:
                    raise ValueError(f"{key}: given without delta_min (the futility bound "
                                     "needs delta_min and sd_plan)")
            return
        if not _is_real(self.delta_min) or float(self.delta_min) <= 0:
            raise ValueError(f"delta_min: {self.delta_min!r} is not a number > 0")
        if self.sd_plan is None or not _is_real(self.sd_plan) or float(self.sd_plan) <= 0:
            raise ValueError(f"sd_plan: {self.sd_plan!r} is not a number > 0 (the futility "
                             "bound needs a planning sd)")
        fs = self.futility_spending
        if fs is None and not isinstance(self.spending, str):
            raise ValueError("futility_spending: needed when the alpha spending is custom")
        if fs is not None and fs not in SPENDING:
            raise ValueError(f"futility_spending: unknown {fs!r} (known: {', '.join(SPENDING)})")
        object.__setattr__(self, "delta_min", float(self.delta_min))
        object.__setattr__(self, "sd_plan", float(self.sd_plan))

    @property
    def fractions(self) -> np.ndarray:
        """Information fractions ``n_k / n_K``."""
        return np.asarray(self.looks, dtype=np.float64) / self.looks[-1]

    @property
    def alpha_spent(self) -> np.ndarray:
        """Cumulative alpha spent by each look."""
        if isinstance(self.spending, str):
            out = spending(self.spending, self.alpha, self.fractions)
            out[-1] = self.alpha
            return out
        return np.asarray(self.spending, dtype=np.float64)

    @property
    def has_futility(self) -> bool:
        return self.delta_min is not None

    @property
    def boundaries(self) -> Boundaries:
        """The z-scale bounds (computed once per design)."""
        return compute_boundaries(self)


def equally_spaced(games: int, k: int, **kwargs: object) -> SequentialDesign:
    """A design with ``k`` looks at ``round(games * j / k)`` games (kwargs: the design's)."""
    if not _is_int(k) or k < 1:
        raise ValueError(f"looks: {k!r} is not a positive number of looks")
    looks = tuple(int(round(games * j / k)) for j in range(1, k + 1))
    return SequentialDesign(looks=looks, games=games, **kwargs)  # type: ignore[arg-type]


# --- boundaries --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Boundaries:
    """z-scale bounds of a design; ``futility`` holds -inf where there is none."""

    looks: tuple[int, ...]
    alpha_spent: tuple[float, ...]
    efficacy: tuple[float, ...]
    futility: tuple[float, ...]
    beta: float | None
    power_at_delta_min: float | None

    def t_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(efficacy, futility) on the paired-t scale, df ``n_k - 1`` at each look."""
        df = np.asarray(self.looks, dtype=np.float64) - 1
        return z_to_t(np.asarray(self.efficacy), df), z_to_t(np.asarray(self.futility), df)


def z_to_t(z: np.ndarray | float, df: np.ndarray | float) -> np.ndarray:
    """The t quantile (``df`` degrees of freedom) with the tail probability of ``z``."""
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        hi = stats.t.isf(stats.norm.sf(z), df)
        lo = stats.t.ppf(stats.norm.cdf(z), df)
    return np.where(z >= 0, hi, lo)


def t_to_z(t: np.ndarray | float, df: np.ndarray | float) -> np.ndarray:
    """The z value with the tail probability of ``t`` (inverse of :func:`z_to_t`)."""
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        hi = stats.norm.isf(stats.t.sf(t, df))
        lo = stats.norm.ppf(stats.t.cdf(t, df))
    return np.where(t >= 0, hi, lo)


def _solve(f, target: float, lo: float, hi: float) -> float:
    """x in [lo, hi] with monotone f(x) = target (clipped to the ends)."""
    flo, fhi = f(lo) - target, f(hi) - target
    if flo * fhi > 0:
        return lo if abs(flo) < abs(fhi) else hi
    return float(optimize.brentq(lambda x: f(x) - target, lo, hi, xtol=1e-10, rtol=1e-12))


def _efficacy_bounds(looks: tuple[int, ...], spent: np.ndarray) -> tuple[float, ...]:
    walk, out = Walk(0.0), []
    prev = 0.0
    for k, n in enumerate(looks):
        inc = float(spent[k] - prev)
        prev = float(spent[k])
        if inc <= 0.0:
            c = math.inf
        elif k == 0:
            c = float(stats.norm.isf(inc))
        else:
            c = _solve(lambda x, n=n: walk.above(n, x), inc, -_BOUND_MAX, _BOUND_MAX)
        out.append(c)
        walk.advance(n, -math.inf, c)
    return tuple(out)


def _futility_pass(looks: tuple[int, ...], eff: tuple[float, ...], theta: float,
                   spent: np.ndarray) -> tuple[tuple[float, ...], float]:
    """Futility bounds spending ``spent`` (cumulative) under ``theta``; and the type II error."""
    walk, out, prev, miss = Walk(theta), [], 0.0, 0.0
    for k, n in enumerate(looks):
        if k == len(looks) - 1:
            miss += walk.below(n, eff[k])
            out.append(eff[k])
            break
        inc = float(spent[k] - prev)
        prev = float(spent[k])
        hi = min(eff[k], _BOUND_MAX)
        if inc <= 0.0:
            a = -math.inf
        elif walk.below(n, hi) <= inc:
            a = eff[k]
        else:
            a = _solve(lambda x, n=n: walk.below(n, x), inc, -_BOUND_MAX, hi)
        out.append(a)
        miss += walk.below(n, a)
        walk.advance(n, a, eff[k])
    return tuple(out), miss


@lru_cache(maxsize=64)
def compute_boundaries(design: SequentialDesign) -> Boundaries:
    """Efficacy bounds from the alpha spending; futility bounds from beta spending at delta_min."""
    spent = design.alpha_spent
    eff = _efficacy_bounds(design.looks, spent)
    k = len(design.looks)
    if not design.has_futility:
        return Boundaries(design.looks, tuple(float(x) for x in spent), eff, (-math.inf,) * k,
                          None, None)
    theta = design.delta_min / design.sd_plan  # type: ignore[operator]
    family = design.futility_spending or str(design.spending)
    frac = design.fractions

    def gap(beta: float) -> float:
        return _futility_pass(design.looks, eff, theta, spending(family, beta, frac))[1] - beta

    up, _ = stage_probabilities(design.looks, eff, [-math.inf] * k, theta)
    beta0 = max(1.0 - float(up.sum()), 1e-12)
    beta = beta0 if gap(beta0) <= 1e-12 else float(
        optimize.brentq(gap, beta0, 1.0 - 1e-12, xtol=1e-12))
    fut, miss = _futility_pass(design.looks, eff, theta, spending(family, beta, frac))
    fut = (*fut[:-1], -math.inf)
    return Boundaries(design.looks, tuple(float(x) for x in spent), eff, fut, beta, 1.0 - miss)


# --- the decision at a look ----------------------------------------------------------------------

@dataclass(frozen=True)
class LookDecision:
    """What the design says at one look (bounds on the paired-t scale; ``look`` is 1-based)."""

    look: int
    n: int
    mean_delta: float
    sd_delta: float
    statistic: float
    efficacy_bound: float
    futility_bound: float | None
    decision: str


def check_deltas(deltas: np.ndarray, key: str = "deltas") -> np.ndarray:
    """A 1-D array of finite paired deltas, or a one-line ValueError."""
    d = np.asarray(deltas, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError(f"{key}: must be 1-D, got shape {d.shape}")
    if not np.isfinite(d).all():
        raise ValueError(f"{key}: must be finite numbers")
    return d


def t_statistic(d: np.ndarray) -> tuple[float, float, float]:
    """(mean, sd, t) of paired deltas; t is +-inf (or 0) when the sd is 0."""
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd > 0:
        return mean, sd, mean / (sd / math.sqrt(d.size))
    return mean, sd, math.copysign(math.inf, mean) if mean != 0 else 0.0


def decide(deltas: np.ndarray, look: int, design: SequentialDesign) -> LookDecision:
    """The decision at ``look`` (1-based) from the paired deltas so far (seed order).

    ``stop-efficacy`` when t > the efficacy bound; ``stop-futility`` when t < the
    futility bound (not at the last look); ``continue`` otherwise; at the last look
    ``stop`` when the bound is not crossed.  The caller adds the other screen
    criteria at a ``stop-efficacy``.
    """
    d = check_deltas(deltas)
    k = len(design.looks)
    if not _is_int(look) or not 1 <= look <= k:
        raise ValueError(f"look: {look!r} is not a look of the design (1..{k})")
    n = design.looks[look - 1]
    if d.size != n:
        raise ValueError(f"deltas: {d.size} games at look {look}, the design looks at {n}")
    eff_t, fut_t = design.boundaries.t_bounds()
    mean, sd, t = t_statistic(d)
    c = float(eff_t[look - 1])
    a = float(fut_t[look - 1]) if design.has_futility and look < k else None
    if t > c:
        decision = STOP_EFFICACY
    elif look == k:
        decision = STOP
    elif a is not None and t < a:
        decision = STOP_FUTILITY
    else:
        decision = CONTINUE
    return LookDecision(look=look, n=n, mean_delta=mean, sd_delta=sd, statistic=t,
                        efficacy_bound=c, futility_bound=a, decision=decision)
