"""Paired contrasts over games matched by seed: a difference ``a - b`` or an interaction.

Formulas (docs/statistics.md has the full text), with per-game deltas ``d_i``
in seed order (``a_i - b_i`` for a difference, ``(a_i - b_i) - (c_i - d_i)``
for an interaction) of the contrast's metric (the final score by default, the
game's length in moves, or a per-move rate: :data:`analysis.metrics.METRICS`):

* mean delta ``dbar``, paired sd ``s`` (ddof 1);
* percentile bootstrap (:mod:`analysis.bootstrap`): lower bound = 0.05
  quantile, upper bound = 0.95 quantile of 20,000 resampled means;
* Student-t lower bound ``dbar - t_0.95(n-1) * s / sqrt(n)``;
* detection floor ``1.645 * s / sqrt(n)`` (reported, not a criterion);
* halves: mean of ``d`` over games ``0..n//2-1`` and ``n//2..n-1``;
* lower-quartile regression (differences only): ``Q25(a) < Q25(b)`` (linear
  interpolation);
* wins / ties / losses: ``d > 0`` / ``d == 0`` / ``d < 0``.

Pass criteria (names as reported in ``failed``): ``bootstrap_lb`` (> 0),
``t_lb`` (> 0), ``halves`` (both > 0), ``lower_quartile`` (no regression;
not evaluated for an interaction), ``decisions`` (0 illegal and 0 unfinished
decisions over every arm; evaluated when the table has those columns) and
``weights_hash`` (every screened artefact's SHA-256 equals its frozen one;
evaluated when the caller passes hashes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis.bootstrap import ALPHA, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_bounds
from analysis.games_table import DEFAULT_METRIC, MIN_PAIRS, PairedGames, pair_arms
from analysis.sequential.screen import SequentialSection

#: criterion names, in report order
CRITERIA = ("bootstrap_lb", "t_lb", "halves", "lower_quartile", "decisions", "weights_hash")
#: the statistical part of the screen (what the operating characteristic simulates)
SCREEN_CRITERIA = CRITERIA[:4]
PASS, FAIL, NOT_EVALUATED = "pass", "fail", "not-evaluated"
#: z_0.95 of the detection floor (spec: 1.645)
Z_DETECTION = 1.645


@dataclass
class Contrast:
    """Everything the report shows about one paired contrast (see module docstring).

    For an interaction ``(a - b) - (c - d)``, ``candidate`` and ``baseline``
    name the two differences, ``mean_candidate`` / ``mean_baseline`` are their
    means, and the per-arm quartiles are None.  Every statistic is in the units
    of ``metric`` (points for ``score``, moves for ``moves``, a rate's own).
    """

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
    q25_candidate: float | None
    q25_baseline: float | None
    median_candidate: float | None
    median_baseline: float | None
    q75_candidate: float | None
    q75_baseline: float | None
    quartile_regression: bool | None
    wins: int
    ties: int
    losses: int
    passed: bool
    failed: list[str]
    criteria: dict[str, str]
    n_bootstrap: int
    bootstrap_seed: int
    kind: str = "difference"
    arms: list[str] = field(default_factory=list)
    metric: str = DEFAULT_METRIC
    mean_moves_candidate: float | None = None
    mean_moves_baseline: float | None = None
    censored_candidate: int | None = None
    censored_baseline: int | None = None
    illegal: int | None = None
    unfinished: int | None = None
    seed_first: int | None = None
    seed_last: int | None = None
    #: each arm's root filter over the paired games (:func:`filter_summary`; None: the arm has
    #: no root filter)
    filter_candidate: dict[str, Any] | None = None
    filter_baseline: dict[str, Any] | None = None
    #: a screened contrast's operating characteristic (``OperatingCharacteristic.to_dict``)
    oc: dict[str, Any] | None = None
    #: the sequential screen's section of the contrast it stops on
    sequential: SequentialSection | None = None
    #: each arm's own figures on the contrast's seeds, as the contrast job computes them
    #: (:func:`analysis.arm_figures.arm_figures`)
    arm_figures: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (plain Python types; ``halves`` as a two-item list; ``oc``,
        ``sequential``, ``arm_figures`` and the filter summaries only when there are)."""
        out = asdict(self)
        out["halves"] = list(self.halves)
        for key in ("oc", "sequential", "arm_figures", "filter_candidate",
                    "filter_baseline"):
            if out[key] is None:
                del out[key]
        return out

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Contrast:
        """The contrast :meth:`to_dict` wrote (the contrast job's JSON)."""
        seq = doc.get("sequential")
        return cls(**{**doc, "halves": tuple(doc["halves"]),
                      "sequential": SequentialSection.from_json(seq) if seq else None})


def _q(x: np.ndarray, p: float) -> float:
    return float(np.quantile(x, p))


#: ``name -> (expected SHA-256, actual SHA-256)`` of every artefact a contrast's arms read
Hashes = Mapping[str, tuple[str | None, str | None]]


def _hash_status(hashes: Hashes | None) -> str:
    if not hashes:
        return NOT_EVALUATED
    for name, (expected, actual) in hashes.items():
        if expected is None or actual is None:
            raise ValueError(f"weights hash check of {name} needs both the expected and the "
                             "actual SHA-256")
    same = all(e.strip().lower() == a.strip().lower() for e, a in hashes.values())
    return PASS if same else FAIL


def _check(x: np.ndarray, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("scores must be finite numbers")
    return x


def _extras_total(extras: Sequence[Mapping[str, np.ndarray]], name: str) -> int | None:
    if not any(name in e for e in extras):
        return None
    return int(sum(float(np.sum(e[name])) for e in extras if name in e))


def filter_summary(extras: Mapping[str, np.ndarray]) -> dict[str, Any] | None:
    """An arm's root filter over its games: ``decisions``, ``applied`` (decisions at which it
    refused a column), ``changed`` (those at which the search without it would have played a
    refused column) and ``rate`` = changed / decisions (the register's coverage); None
    without a filter."""
    if "filter_changed" not in extras:
        return None
    decisions = int(np.sum(extras["decisions"]))
    applied, changed = int(np.sum(extras["filter_applied"])), int(np.sum(extras["filter_changed"]))
    return {"decisions": decisions, "applied": applied, "changed": changed,
            "rate": changed / decisions if decisions else 0.0}


def _contrast(d: np.ndarray, *, candidate: str, baseline: str, mean_candidate: float,
              mean_baseline: float, quartiles: dict[str, Any], extras: Sequence[Mapping[str,
              np.ndarray]], hashes: Hashes | None, n_resamples: int, seed: int, kind: str,
              arms: list[str]) -> Contrast:
    """The statistics and criteria of per-game deltas ``d`` (what both kinds share)."""
    n = int(d.size)
    if n < MIN_PAIRS:
        raise ValueError(f"too few pairs: {n}, need at least {MIN_PAIRS}")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    se = sd / np.sqrt(n)
    t_crit = float(stats.t.ppf(1.0 - ALPHA, n - 1))
    boot = bootstrap_bounds(d, n_resamples=n_resamples, seed=seed)
    h = n // 2
    halves = (float(d[:h].mean()), float(d[h:].mean()))
    illegal, unfinished = _extras_total(extras, "illegal"), _extras_total(extras, "unfinished")
    if illegal is None and unfinished is None:
        decisions = NOT_EVALUATED
    else:
        decisions = PASS if not (illegal or unfinished) else FAIL
    regression = quartiles["quartile_regression"]
    criteria = {
        "bootstrap_lb": PASS if boot.lower > 0 else FAIL,
        "t_lb": PASS if mean - t_crit * se > 0 else FAIL,
        "halves": PASS if min(halves) > 0 else FAIL,
        "lower_quartile": NOT_EVALUATED if regression is None else (FAIL if regression else PASS),
        "decisions": decisions,
        "weights_hash": _hash_status(hashes),
    }
    failed = [k for k in CRITERIA if criteria[k] == FAIL]
    return Contrast(
        candidate=candidate, baseline=baseline, n=n, mean_candidate=mean_candidate,
        mean_baseline=mean_baseline, mean_delta=mean, sd_delta=sd, bootstrap_lb=boot.lower,
        bootstrap_ub=boot.upper, t_lb=float(mean - t_crit * se), t_critical=t_crit,
        detection_floor=float(Z_DETECTION * se), halves=halves, **quartiles,
        wins=int(np.count_nonzero(d > 0)), ties=int(np.count_nonzero(d == 0)),
        losses=int(np.count_nonzero(d < 0)), passed=not failed, failed=failed,
        criteria=criteria, n_bootstrap=boot.n_resamples, bootstrap_seed=boot.seed, kind=kind,
        arms=arms, illegal=illegal, unfinished=unfinished,
    )


def contrast_scores(
    candidate_scores: np.ndarray,
    baseline_scores: np.ndarray,
    *,
    candidate: str = "candidate",
    baseline: str = "baseline",
    extra_candidate: dict[str, np.ndarray] | None = None,
    extra_baseline: dict[str, np.ndarray] | None = None,
    hashes: Hashes | None = None,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Contrast:
    """The difference contrast of two score arrays already paired and in seed order.

    ``extra_*`` may hold per-game ``moves``, ``censored``, ``illegal`` and
    ``unfinished`` arrays; ``hashes`` enables the ``weights_hash`` criterion.
    """
    c, b = _check(candidate_scores, "candidate scores"), _check(baseline_scores, "baseline scores")
    if c.shape != b.shape:
        raise ValueError(f"score arrays must be equal length, got {c.shape} and {b.shape}")
    ec, eb = extra_candidate or {}, extra_baseline or {}
    if c.size < MIN_PAIRS:
        raise ValueError(f"too few pairs: {c.size}, need at least {MIN_PAIRS}")
    q25c, q25b = _q(c, 0.25), _q(b, 0.25)
    quartiles = {"q25_candidate": q25c, "q25_baseline": q25b,
                 "median_candidate": _q(c, 0.5), "median_baseline": _q(b, 0.5),
                 "q75_candidate": _q(c, 0.75), "q75_baseline": _q(b, 0.75),
                 "quartile_regression": bool(q25c < q25b)}
    out = _contrast(c - b, candidate=candidate, baseline=baseline,
                    mean_candidate=float(c.mean()), mean_baseline=float(b.mean()),
                    quartiles=quartiles, extras=(ec, eb), hashes=hashes,
                    n_resamples=n_resamples, seed=seed, kind="difference",
                    arms=[candidate, baseline])

    def mean_of(e: dict[str, np.ndarray], name: str) -> float | None:
        return float(np.mean(e[name])) if name in e else None

    def count_of(e: dict[str, np.ndarray], name: str) -> int | None:
        return int(np.count_nonzero(e[name])) if name in e else None

    out.mean_moves_candidate, out.mean_moves_baseline = mean_of(ec, "moves"), mean_of(eb, "moves")
    out.censored_candidate = count_of(ec, "censored")
    out.censored_baseline = count_of(eb, "censored")
    out.filter_candidate, out.filter_baseline = filter_summary(ec), filter_summary(eb)
    return out


def contrast_paired(paired: PairedGames, **kwargs: Any) -> Contrast:
    """Difference contrast of :class:`~analysis.games_table.PairedGames` (kwargs:
    :func:`contrast_scores`)."""
    result = contrast_scores(
        paired.candidate_scores,
        paired.baseline_scores,
        candidate=paired.candidate,
        baseline=paired.baseline,
        extra_candidate=paired.extra_candidate,
        extra_baseline=paired.extra_baseline,
        **kwargs,
    )
    result.metric = paired.metric
    result.seed_first = int(paired.seeds[0])
    result.seed_last = int(paired.seeds[-1])
    return result


def contrast_interaction(first: PairedGames, second: PairedGames, *, hashes: Hashes | None = None,
                         n_resamples: int = BOOTSTRAP_RESAMPLES,
                         seed: int = BOOTSTRAP_SEED) -> Contrast:
    """The interaction ``(a - b) - (c - d)`` of two paired differences on the same seeds."""
    if not np.array_equal(first.seeds, second.seeds):
        raise ValueError(f"interaction: ({first.candidate} - {first.baseline}) and "
                         f"({second.candidate} - {second.baseline}) are not on the same seeds")
    if first.metric != second.metric:
        raise ValueError(f"interaction: the differences compare {first.metric} and "
                         f"{second.metric}; both must compare one metric")
    ab = first.candidate_scores - first.baseline_scores
    cd = second.candidate_scores - second.baseline_scores
    arms = [first.candidate, first.baseline, second.candidate, second.baseline]
    if len(set(arms)) < 3:
        raise ValueError(f"interaction needs distinct differences, got arms {arms}")
    none = dict.fromkeys(("q25_candidate", "q25_baseline", "median_candidate",
                          "median_baseline", "q75_candidate", "q75_baseline",
                          "quartile_regression"))
    result = _contrast(ab - cd, candidate=f"({first.candidate} - {first.baseline})",
                       baseline=f"({second.candidate} - {second.baseline})",
                       mean_candidate=float(ab.mean()), mean_baseline=float(cd.mean()),
                       quartiles=none, hashes=hashes, n_resamples=n_resamples, seed=seed,
                       extras=(first.extra_candidate, first.extra_baseline,
                               second.extra_candidate, second.extra_baseline),
                       kind="interaction", arms=arms)
    result.seed_first, result.seed_last = int(first.seeds[0]), int(first.seeds[-1])
    result.metric = first.metric
    return result


def contrast_games(games: pd.DataFrame, candidate: str, baseline: str,
                   metric: str = DEFAULT_METRIC, **kwargs: Any) -> Contrast:
    """Pair two arms of a games table by seed on ``metric`` and contrast them (what
    ``drop7 stats`` runs)."""
    return contrast_paired(pair_arms(games, candidate, baseline, metric), **kwargs)
