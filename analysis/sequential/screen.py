"""A claim's sequential screen: its design from the declaration, each look, and the reading.

The declaration (``screen.looks``, ``screen.spending``, ``screen.futility``)
becomes a :class:`~analysis.sequential.design.SequentialDesign` at the screen's
one-sided :data:`~analysis.bootstrap.ALPHA` (:func:`design_of`), once, by
the protocol, which hands the design object to every job that reads it.  At each look
the workflow records :func:`look_record` (the decision of
:func:`analysis.sequential.design.decide` and the seeds read).  At the stopping look
:func:`screen_section` gives what the ``screen`` reading and the report read:

* the criteria at the look's level: the efficacy bound crossed (the paired t
  above the look's bound, i.e. the t lower bound at the look's nominal level
  above 0), the bootstrap lower bound at that nominal level above 0, both
  halves above 0, no lower-quartile regression;
* the naive mean and the median-unbiased estimate with its interval
  (:mod:`analysis.sequential.estimate`);
* the operating characteristic of the design on the claim's own deltas
  (:mod:`analysis.sequential.sim`): type I error at 0, power and expected
  games at the effect and at half of it, beside the fixed screen's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from analysis.bootstrap import ALPHA, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_bounds
from analysis.games_table import MIN_PAIRS
from analysis.sequential.design import STOP_EFFICACY, SequentialDesign, decide
from analysis.sequential.estimate import estimate
from analysis.sequential.sim import EXCESS_CONFIDENCE, SEQUENTIAL_SEED, rate_lower_bound, simulate

#: the criteria of a sequential screen at its stopping look, in report order
SEQUENTIAL_CRITERIA = ("efficacy", "bootstrap_lb", "halves", "lower_quartile")
#: the declaration's keys of a design, and the design's own names for them
DESIGN_KEYS = {"looks": "looks", "spending": "spending", "delta_min": "futility.delta_min",
               "sd_plan": "futility.sd_plan", "futility_spending": "futility.spending",
               "games": "games"}


def design_of(screen: Mapping[str, Any], games: int,
              looks: Sequence[int] | None = None) -> SequentialDesign:
    """The design a ``screen`` declaration gives at ``games`` (``looks``: this profile's).

    A bad design is a ValueError whose message starts with the design's key
    (:data:`DESIGN_KEYS` maps it to the declaration's).
    """
    fut = screen.get("futility") or {}
    spend = screen.get("spending", "obrien-fleming")
    return SequentialDesign(
        looks=tuple(screen["looks"] if looks is None else looks), games=games, alpha=ALPHA,
        spending=spend if isinstance(spend, str) else tuple(spend),
        delta_min=fut.get("delta_min"), sd_plan=fut.get("sd_plan"),
        futility_spending=fut.get("spending"))


def design_key(error: ValueError) -> str:
    """The declaration's key (under ``screen.``) a design's ValueError names."""
    head = str(error).split(":", 1)[0]
    return DESIGN_KEYS.get(head, "looks")


def _scaled(looks: Sequence[int], declared: int, games: int) -> list[tuple[int, int]]:
    """``(index of the declared look, scaled look)`` of every look :func:`scale_looks` keeps."""
    out: list[tuple[int, int]] = []
    for i, n in enumerate(looks[:-1]):
        m = int(round(n * games / declared))
        if MIN_PAIRS <= m < games and (not out or m > out[-1][1]):
            out.append((i, m))
    return [*out, (len(looks) - 1, games)]


def scale_looks(looks: Sequence[int], declared: int, games: int) -> tuple[int, ...]:
    """Declared looks scaled to a screen shrunk from ``declared`` to ``games`` games: each look
    at the same fraction, rounded, dropped when below :data:`MIN_PAIRS` or not after the one
    before, the last at ``games``."""
    return tuple(m for _, m in _scaled(looks, declared, games))


def scale_screen(screen: Mapping[str, Any], games: int) -> dict[str, Any]:
    """A sequential screen's declaration shrunk to ``games`` games: its looks scaled
    (:func:`scale_looks`) and, when it spends alpha as a list, the cumulative alpha it
    declares at each look kept (a dropped look's alpha is spent at the next look kept, the
    last look spends the whole alpha), so the design keeps its error rate."""
    kept = _scaled(screen["looks"], screen["games"], games)
    out = {**screen, "games": games, "looks": [m for _, m in kept]}
    if isinstance(screen.get("spending"), list | tuple):
        out["spending"] = [screen["spending"][i] for i, _ in kept]
    return out


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass(frozen=True)
class Look:
    """One look of a sequential screen: the seeds read (``[start, n]``), n, mean, sd, the
    paired t (None when the sd is 0), both bounds (t scale; None where there is none), the
    decision."""

    look: int
    seeds: list[int]
    n: int
    mean_delta: float
    sd_delta: float
    statistic: float | None
    efficacy_bound: float | None
    futility_bound: float | None
    decision: str


def look_record(deltas: np.ndarray, look: int, design: SequentialDesign,
                start: int) -> dict[str, Any]:
    """One look (:class:`Look`) as JSON-ready data."""
    got = decide(deltas, look, design)
    return asdict(Look(
        look=look, seeds=[int(start), got.n], n=got.n, mean_delta=got.mean_delta,
        sd_delta=got.sd_delta, statistic=_finite(got.statistic),
        efficacy_bound=_finite(got.efficacy_bound), futility_bound=_finite(got.futility_bound),
        decision=got.decision))


@dataclass(frozen=True)
class SequentialSection:
    """A sequential screen at its stop (:func:`screen_section`'s JSON, read back): the
    design, every look and the stopping one, the nominal level and bootstrap bound there,
    the criteria, the corrected estimate (or its ``error``), the effect the simulated error
    rates are read at and its source, and those rates (``operating``)."""

    design: dict[str, Any]
    looks: list[Look]
    stop: Look
    level: float
    bootstrap_lb: float
    criteria: dict[str, str]
    failed: list[str]
    estimate: dict[str, Any]
    effect: float
    effect_source: str
    operating: list[dict[str, Any]]

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> SequentialSection:
        """The section :func:`screen_section` wrote."""
        return cls(**{**doc, "looks": [Look(**x) for x in doc["looks"]],
                      "stop": Look(**doc["stop"])})


def nominal_level(design: SequentialDesign, look: int) -> float:
    """The one-sided level of the efficacy bound at ``look`` (1-based) taken alone."""
    return float(stats.norm.sf(design.boundaries.efficacy[look - 1]))


def _operating(deltas: np.ndarray, design: SequentialDesign, effect: float,
               n_sims: int) -> list[dict[str, Any]]:
    rows = []
    for label, shift in (("null", 0.0), ("half the effect", effect / 2), ("effect", effect)):
        r = simulate(deltas, design, shift, n_sims, SEQUENTIAL_SEED)
        rows.append({"at": label, **r.to_dict()})
    return rows


def exceeded_error(contrast: str, alpha: float,
                   operating: Sequence[Mapping[str, Any]]) -> str | None:
    """What the simulated type I error of a sequential screen says when it exceeds the
    declared ``alpha`` beyond Monte Carlo error (its :func:`rate_lower_bound` above alpha),
    else None (``operating``: the section's rows; none simulated: None)."""
    null = next((r for r in operating if r["at"] == "null"), None)
    if null is None:
        return None
    rate, n = float(null["rejection_rate"]), int(null["n_sims"])
    low = rate_lower_bound(rate, n)
    if low <= alpha:
        return None
    return (f"contrast {contrast}: the design's simulated type I error {rate:.4f} (one-sided "
            f"{EXCESS_CONFIDENCE:.0%} lower bound {low:.4f} over {n:,} simulated screens) "
            f"exceeds the declared alpha {alpha:g} (the fixed screen's on the same draws: "
            f"{float(null['fixed_rejection_rate']):.4f}), so a pass is weaker evidence than "
            "its alpha says")


def exceeded_errors(contrasts: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """:func:`exceeded_error` of every contrast JSON that carries a sequential section."""
    out = []
    for name, c in contrasts.items():
        seq = c.get("sequential")
        said = seq and exceeded_error(name, seq["design"]["alpha"], seq["operating"])
        if said:
            out.append(said)
    return out


def screen_section(deltas: np.ndarray, contrast: Mapping[str, Any], design: SequentialDesign,
                   looks: Sequence[Mapping[str, Any]], *, effect: float | None = None,
                   effect_source: str = "observed", n_sims: int = 0,
                   n_resamples: int = BOOTSTRAP_RESAMPLES) -> dict[str, Any]:
    """What the screen reading and the report read of a sequential screen at its stop.

    ``deltas``: the paired deltas read (seed order, the stopping look's n);
    ``contrast``: the contrast's JSON on them; ``looks``: every look's
    :func:`look_record`; ``effect``: the shift of the power rows (the observed
    mean when None); ``n_sims`` 0 skips the simulation.
    """
    d = np.asarray(deltas, dtype=np.float64)
    stop = looks[-1]
    k = int(stop["look"])
    if d.size != stop["n"]:
        raise ValueError(f"deltas: {d.size} games, the stopping look read {stop['n']}")
    level = nominal_level(design, k)
    boot = bootstrap_bounds(d, n_resamples=n_resamples, seed=BOOTSTRAP_SEED, alpha=level)
    crit = contrast["criteria"]
    criteria = {"efficacy": "pass" if stop["decision"] == STOP_EFFICACY else "fail",
                "bootstrap_lb": "pass" if boot.lower > 0 else "fail",
                "halves": crit["halves"], "lower_quartile": crit["lower_quartile"]}
    try:
        est: dict[str, Any] = asdict(estimate(d, design))
    except ValueError as exc:
        est = {"error": str(exc)}
    if effect is None:
        effect, effect_source = float(d.mean()), "observed"
    b = design.boundaries
    return {
        "design": {"looks": list(design.looks), "alpha": design.alpha,
                   "spending": design.spending if isinstance(design.spending, str)
                   else list(design.spending),
                   "alpha_spent": list(b.alpha_spent), "delta_min": design.delta_min,
                   "sd_plan": design.sd_plan},
        "looks": [dict(x) for x in looks], "stop": dict(stop), "level": level,
        "bootstrap_lb": boot.lower, "criteria": criteria,
        "failed": [c for c in SEQUENTIAL_CRITERIA if criteria[c] == "fail"],
        "estimate": est, "effect": float(effect), "effect_source": effect_source,
        "operating": _operating(d, design, float(effect), n_sims) if n_sims else [],
    }
