"""One paired contrast: candidate arm vs comparator arm over n games matched by seed.

Formulas (docs/statistics.md has the full text), with ``d_i = cand_i - base_i``
in seed order:

* mean delta ``dbar``, paired sd ``s`` (ddof 1);
* percentile bootstrap (:mod:`analysis.bootstrap`): lower bound = 0.05
  quantile, upper bound = 0.95 quantile of 20,000 resampled means;
* Student-t lower bound ``dbar - t_0.95(n-1) * s / sqrt(n)``;
* detection floor ``1.645 * s / sqrt(n)`` (reported, not a criterion);
* halves: mean of ``d`` over games ``0..n//2-1`` and ``n//2..n-1``;
* lower-quartile regression: ``Q25(cand) < Q25(base)`` (linear interpolation);
* wins / ties / losses: ``d > 0`` / ``d == 0`` / ``d < 0``.

Pass criteria (names as reported in ``failed``): ``bootstrap_lb`` (> 0),
``t_lb`` (> 0), ``halves`` (both > 0), ``lower_quartile`` (no regression),
``decisions`` (0 illegal and 0 unfinished decisions over both arms; evaluated
when the table has those columns) and ``weights_hash`` (the screened weights'
SHA-256 equals the frozen one; evaluated when the caller passes both).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis.bootstrap import ALPHA, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_bounds
from analysis.games_table import MIN_PAIRS, PairedGames, pair_arms

#: criterion names, in report order
CRITERIA = ("bootstrap_lb", "t_lb", "halves", "lower_quartile", "decisions", "weights_hash")
#: the statistical part of the screen (what the operating characteristic simulates)
SCREEN_CRITERIA = CRITERIA[:4]
PASS, FAIL, NOT_EVALUATED = "pass", "fail", "not-evaluated"
#: z_0.95 of the detection floor (spec: 1.645)
Z_DETECTION = 1.645


@dataclass
class Contrast:
    """Everything the report shows about one paired contrast (see module docstring)."""

    candidate: str
    baseline: str
    n: int
    mean_candidate: float
    mean_baseline: float
    mean_delta: float
    sd_delta: float
    bootstrap_lb: float
    bootstrap_ub: float
    t_lb: float
    t_critical: float
    detection_floor: float
    halves: tuple[float, float]
    q25_candidate: float
    q25_baseline: float
    median_candidate: float
    median_baseline: float
    q75_candidate: float
    q75_baseline: float
    quartile_regression: bool
    wins: int
    ties: int
    losses: int
    passed: bool
    failed: list[str]
    criteria: dict[str, str]
    n_bootstrap: int
    bootstrap_seed: int
    mean_moves_candidate: float | None = None
    mean_moves_baseline: float | None = None
    censored_candidate: int | None = None
    censored_baseline: int | None = None
    illegal: int | None = None
    unfinished: int | None = None
    seed_first: int | None = None
    seed_last: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (plain Python types; ``halves`` as a two-item list)."""
        out = asdict(self)
        out["halves"] = list(self.halves)
        return out


def _q(x: np.ndarray, p: float) -> float:
    return float(np.quantile(x, p))


def _hash_status(expected: str | None, actual: str | None) -> str:
    if expected is None and actual is None:
        return NOT_EVALUATED
    if expected is None or actual is None:
        raise ValueError("weights hash check needs both the expected and the actual SHA-256")
    return PASS if expected.strip().lower() == actual.strip().lower() else FAIL


def contrast_scores(
    candidate_scores: np.ndarray,
    baseline_scores: np.ndarray,
    *,
    candidate: str = "candidate",
    baseline: str = "baseline",
    extra_candidate: dict[str, np.ndarray] | None = None,
    extra_baseline: dict[str, np.ndarray] | None = None,
    expected_hash: str | None = None,
    actual_hash: str | None = None,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Contrast:
    """Contrast two score arrays already paired and in seed order.

    ``extra_*`` may hold per-game ``moves``, ``censored``, ``illegal`` and
    ``unfinished`` arrays; ``expected_hash`` / ``actual_hash`` (both or neither)
    enable the ``weights_hash`` criterion.
    """
    c = np.asarray(candidate_scores, dtype=np.float64)
    b = np.asarray(baseline_scores, dtype=np.float64)
    if c.shape != b.shape or c.ndim != 1:
        raise ValueError(f"score arrays must be 1-D and equal length, got {c.shape} and {b.shape}")
    if not (np.isfinite(c).all() and np.isfinite(b).all()):
        raise ValueError("scores must be finite numbers")
    n = int(c.size)
    if n < MIN_PAIRS:
        raise ValueError(f"too few pairs: {n}, need at least {MIN_PAIRS}")
    ec, eb = extra_candidate or {}, extra_baseline or {}
    d = c - b
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    se = sd / np.sqrt(n)
    t_crit = float(stats.t.ppf(1.0 - ALPHA, n - 1))
    boot = bootstrap_bounds(d, n_resamples=n_resamples, seed=seed)
    h = n // 2
    halves = (float(d[:h].mean()), float(d[h:].mean()))
    q25c, q25b = _q(c, 0.25), _q(b, 0.25)
    regression = bool(q25c < q25b)

    def total(name: str) -> int | None:
        if name not in ec and name not in eb:
            return None
        return int(sum(float(np.sum(e[name])) for e in (ec, eb) if name in e))

    illegal, unfinished = total("illegal"), total("unfinished")
    if illegal is None and unfinished is None:
        decisions = NOT_EVALUATED
    else:
        decisions = PASS if not (illegal or unfinished) else FAIL
    criteria = {
        "bootstrap_lb": PASS if boot.lower > 0 else FAIL,
        "t_lb": PASS if mean - t_crit * se > 0 else FAIL,
        "halves": PASS if min(halves) > 0 else FAIL,
        "lower_quartile": FAIL if regression else PASS,
        "decisions": decisions,
        "weights_hash": _hash_status(expected_hash, actual_hash),
    }
    failed = [k for k in CRITERIA if criteria[k] == FAIL]

    def mean_of(e: dict[str, np.ndarray], name: str) -> float | None:
        return float(np.mean(e[name])) if name in e else None

    def count_of(e: dict[str, np.ndarray], name: str) -> int | None:
        return int(np.count_nonzero(e[name])) if name in e else None

    return Contrast(
        candidate=candidate,
        baseline=baseline,
        n=n,
        mean_candidate=float(c.mean()),
        mean_baseline=float(b.mean()),
        mean_delta=mean,
        sd_delta=sd,
        bootstrap_lb=boot.lower,
        bootstrap_ub=boot.upper,
        t_lb=float(mean - t_crit * se),
        t_critical=t_crit,
        detection_floor=float(Z_DETECTION * se),
        halves=halves,
        q25_candidate=q25c,
        q25_baseline=q25b,
        median_candidate=_q(c, 0.5),
        median_baseline=_q(b, 0.5),
        q75_candidate=_q(c, 0.75),
        q75_baseline=_q(b, 0.75),
        quartile_regression=regression,
        wins=int(np.count_nonzero(d > 0)),
        ties=int(np.count_nonzero(d == 0)),
        losses=int(np.count_nonzero(d < 0)),
        passed=not failed,
        failed=failed,
        criteria=criteria,
        n_bootstrap=boot.n_resamples,
        bootstrap_seed=boot.seed,
        mean_moves_candidate=mean_of(ec, "moves"),
        mean_moves_baseline=mean_of(eb, "moves"),
        censored_candidate=count_of(ec, "censored"),
        censored_baseline=count_of(eb, "censored"),
        illegal=illegal,
        unfinished=unfinished,
    )


def contrast_paired(paired: PairedGames, **kwargs: Any) -> Contrast:
    """Contrast of :class:`~analysis.games_table.PairedGames` (kwargs: :func:`contrast_scores`)."""
    result = contrast_scores(
        paired.candidate_scores,
        paired.baseline_scores,
        candidate=paired.candidate,
        baseline=paired.baseline,
        extra_candidate=paired.extra_candidate,
        extra_baseline=paired.extra_baseline,
        **kwargs,
    )
    result.seed_first = int(paired.seeds[0])
    result.seed_last = int(paired.seeds[-1])
    return result


def contrast_games(games: pd.DataFrame, candidate: str, baseline: str, **kwargs: Any) -> Contrast:
    """Pair two arms of a games table by seed and contrast them (what ``drop7 stats`` runs)."""
    return contrast_paired(pair_arms(games, candidate, baseline), **kwargs)
