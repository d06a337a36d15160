"""Training health: does a learner learn, checkpoint after checkpoint?

A verdict about trained weights is only honest when the training that made
them was sound.  The health of one trained weights is read from two things
the run already has:

* the training games: the mean score of the games each segment played (from
  the cumulative ``games_trained`` and ``mean_score_trained`` of consecutive
  checkpoint manifests);
* one ply at every checkpoint: the weights played greedily one ply (the
  training policy, frozen), the same learner's untrained weights one ply
  (``start``: what training began from) and random legal play, all on the
  same unseen training-role seeds (``drop7 evaluate --out``), one score per
  game and arm.

Findings raise the banner (and fail a ``training-health`` reading):

* *no lead*: a checkpoint's one ply is not significantly above its
  baseline, the better (higher mean) of the untrained start and random play
  on the same seeds: the lower end of the paired 95% interval of the lead
  (one ply minus baseline, game by game; normal, two-sided) is at or below
  zero.  Beating random is not enough: a learner that learned nothing
  already plays one ply far above random (it takes the move's points), so
  weights that learned something harmful can stay above random while
  playing worse than where training began.  A checkpoint at or below
  random's mean is reported as *worse than random*;
* *a fall*: from one checkpoint to the next the one-ply mean drops by more
  than its confidence interval: the upper bound of the paired change (same
  seeds, normal interval) is below zero.  The intervals are Bonferroni
  adjusted over the run's ``k - 1`` changes (level ``1 - ALPHA / (k - 1)``,
  two-sided), so a learner that never falls raises no fall banner with
  probability at least ``1 - ALPHA / 2``, however many checkpoints it has.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.stats import norm

#: family-wise two-sided error of the fall intervals over one run's changes
ALPHA = 0.05
#: the arms of a checkpoint's evaluation, as ``evaluate --out`` names them
ARMS = ("one_ply", "start", "random")
#: how a finding names each baseline
BASELINES = {"start": "the untrained start", "random": "random"}
#: how a finding names the start of a warm-started training (its manifests name an ``init``)
WARM_START = "the warm start"


@dataclass(frozen=True)
class HealthPoint:
    """One checkpoint's health: its one-ply, random and start means with their 95%
    half-widths, the lead over the better baseline with its interval, the change from the
    checkpoint before with its (Bonferroni) interval, the flags, and its training segment."""

    step: int
    games: int
    one_ply_mean: float
    one_ply_ci95: float
    random_mean: float
    random_ci95: float
    vs_random: float
    vs_random_ci95: float
    start_mean: float
    start_ci95: float
    baseline: str  # start | random
    lead: float
    lead_lb: float
    lead_ub: float
    no_lead: bool
    worse_than_random: bool
    change: float | None
    change_ub: float | None
    change_lb: float | None
    fell: bool
    train_games: int | None
    train_mean_score: float | None


@dataclass(frozen=True)
class TrainingHealth:
    """The health of one trained weights (:func:`training_health`'s JSON, read back)."""

    weights: str
    games: int
    first_seed: int | None
    alpha: float
    z_change: float
    points: list[HealthPoint]
    healthy: bool
    problems: list[str]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready, in :func:`training_health`'s key order."""
        return asdict(self)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> TrainingHealth:
        """The health :meth:`to_json` (or :func:`training_health`) wrote."""
        return cls(**{**doc, "points": [HealthPoint(**p) for p in doc["points"]]})


def _mean_ci(x: np.ndarray, z: float) -> tuple[float, float]:
    """Mean and the half-width of its normal interval at ``z``."""
    sd = float(x.std(ddof=1)) if len(x) > 1 else 0.0
    return float(x.mean()), z * sd / math.sqrt(len(x))


def segment_games(manifests: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, float]]:
    """``step -> {games, mean_score}`` of the training games each segment finished.

    Manifests hold cumulative counts; a segment's figures are the difference
    of consecutive checkpoints (the first segment starts from nothing).
    """
    out: dict[int, dict[str, float]] = {}
    games0, total0 = 0, 0.0
    for m in sorted(manifests, key=lambda m: int(m["moves_trained"])):
        games = int(m.get("games_trained") or 0)
        total = float(m.get("mean_score_trained") or 0.0) * games
        n = games - games0
        out[int(m["moves_trained"])] = {"games": n,
                                        "mean_score": (total - total0) / n if n > 0 else None}
        games0, total0 = games, total
    return out


def training_health(weights: str, evaluations: Sequence[Mapping[str, Any]],
                    manifests: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The health of one trained weights.

    ``evaluations``: one ``evaluate --out`` object per checkpoint (its
    ``moves_trained``, ``seeds`` and per-game ``scores``), all on the same
    seeds; ``manifests``: the checkpoints' manifests (training games per
    segment).  Raises ``ValueError`` when the checkpoints were not played on
    the same seeds (the changes would not be paired).
    """
    if not evaluations:
        raise ValueError(f"{weights}: no checkpoint was evaluated")
    evals = sorted(evaluations, key=lambda e: int(e["moves_trained"]))
    seeds = list(evals[0]["seeds"])
    for e in evals:
        if list(e["seeds"]) != seeds:
            raise ValueError(f"{weights}: checkpoint {e['moves_trained']} was played on other "
                             "seeds than the first; its changes would not be paired")
        missing = [a for a in ARMS if a not in e["scores"]]
        if missing:
            raise ValueError(f"{weights}: checkpoint {e['moves_trained']} has no "
                             f"{', '.join(missing)} scores (evaluated by an older harness: "
                             "run its health point again)")
    z95 = float(norm.ppf(0.975))
    changes = max(len(evals) - 1, 1)
    z_fall = float(norm.ppf(1 - ALPHA / (2 * changes)))
    segments = segment_games(manifests)
    names = dict(BASELINES)
    if any(m.get("init") for m in manifests):
        names["start"] = WARM_START
    points, problems = [], []
    prev: np.ndarray | None = None
    prev_step = 0
    for e in evals:
        step = int(e["moves_trained"])
        one, start, rnd = (np.asarray(e["scores"][a], dtype=np.float64) for a in ARMS)
        mean, ci = _mean_ci(one, z95)
        rmean, rci = _mean_ci(rnd, z95)
        smean, sci = _mean_ci(start, z95)
        vs, vs_ci = _mean_ci(one - rnd, z95)
        baseline, base = ("start", start) if smean >= rmean else ("random", rnd)
        lead, lead_ci = _mean_ci(one - base, z95)
        point: dict[str, Any] = {
            "step": step, "games": len(one), "one_ply_mean": mean, "one_ply_ci95": ci,
            "random_mean": rmean, "random_ci95": rci, "vs_random": vs, "vs_random_ci95": vs_ci,
            "start_mean": smean, "start_ci95": sci, "baseline": baseline, "lead": lead,
            "lead_lb": lead - lead_ci, "lead_ub": lead + lead_ci,
            "no_lead": bool(lead - lead_ci <= 0), "worse_than_random": bool(mean <= rmean),
            "change": None, "change_ub": None, "change_lb": None, "fell": False,
            "train_games": None, "train_mean_score": None}
        seg = segments.get(step)
        if seg is not None:
            point["train_games"], point["train_mean_score"] = seg["games"], seg["mean_score"]
        if point["no_lead"]:
            what = ("worse than random" if point["worse_than_random"] else
                    f"not significantly above {names[baseline]}")
            problems.append(f"at {step:,} moves one ply plays {what} ({mean:,.0f}; "
                            f"{names['start']} {smean:,.0f}, random {rmean:,.0f} on the same "
                            f"{len(one)} seeds; lead over {names[baseline]} {lead:+,.0f}, "
                            f"95% interval {lead - lead_ci:+,.0f} to {lead + lead_ci:+,.0f})")
        if prev is not None:
            change, half = _mean_ci(one - prev, z_fall)
            point.update(change=change, change_lb=change - half, change_ub=change + half)
            if change + half < 0:
                point["fell"] = True
                problems.append(f"from {prev_step:,} to {step:,} moves the one-ply mean fell by "
                                f"{-change:,.0f} (paired interval {change - half:+,.0f} to "
                                f"{change + half:+,.0f})")
        points.append(point)
        prev, prev_step = one, step
    return {"weights": weights, "games": len(seeds), "first_seed": seeds[0] if seeds else None,
            "alpha": ALPHA, "z_change": z_fall, "points": points, "healthy": not problems,
            "problems": problems}
