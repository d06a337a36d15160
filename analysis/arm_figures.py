"""An arm's own figures on a contrast's games, which the ``arm-at-most`` / ``arm-at-least``
readings compare with a threshold.

Each contrast job computes, for every arm it pairs, on the seeds it reads (seed order): the
arm's mean score, median, lower and upper quartiles and mean moves, each with its value on
each half of the seeds; the two means (``mean``, ``moves``) also with their one-sided 95%
percentile-bootstrap bounds (:mod:`analysis.bootstrap`, the contrasts' resamples and seed).
A claim about where an arm's mean lies is read on its bound: the point value of a mean
crosses a threshold by chance about half the time when the true mean sits on it, the bound
only about 5% of the time (docs/statistics.md, "An arm against a threshold").  The quartiles
have no bound here (a percentile bootstrap of a sample quantile is coarse on a few hundred
games); they are read at their value or in both halves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from analysis.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_bounds
from analysis.games_table import metric_values

#: what an arm reading may compare: figure -> (the metric whose units it is in, its statistic
#: of the arm's games, whether it has a bootstrap bound)
ARM_FIGURES: dict[str, tuple[str, Callable[[np.ndarray], float], bool]] = {
    "mean": ("score", lambda x: float(np.mean(x)), True),
    "median": ("score", lambda x: float(np.quantile(x, 0.5)), False),
    "q25": ("score", lambda x: float(np.quantile(x, 0.25)), False),
    "q75": ("score", lambda x: float(np.quantile(x, 0.75)), False),
    "moves": ("moves", lambda x: float(np.mean(x)), True),
}


def figure_problem(figure: Any) -> str | None:
    """Why ``figure`` is not an arm's figure (None when it is one of :data:`ARM_FIGURES`)."""
    if figure in ARM_FIGURES:
        return None
    return f"unknown figure {figure!r} (an arm's figures: {', '.join(ARM_FIGURES)})"


def arm_figures(games: pd.DataFrame, arms: Sequence[str], resamples: int = BOOTSTRAP_RESAMPLES,
                seed: int = BOOTSTRAP_SEED) -> dict[str, dict[str, Any]]:
    """Every arm's figures on ``games`` (validated rows of the contrast's seeds): ``n`` and,
    per figure, ``estimate``, ``halves`` and, for a mean, ``lower`` and ``upper``."""
    out: dict[str, dict[str, Any]] = {}
    for arm in dict.fromkeys(arms):
        rows = games[games["arm"] == arm].sort_values("seed")
        figs: dict[str, Any] = {"n": len(rows)}
        for name, (metric, stat, bounded) in ARM_FIGURES.items():
            if metric not in rows.columns:
                continue
            x = metric_values(rows, metric, f"arm {arm!r}")
            h = x.size // 2
            fig = {"estimate": stat(x), "halves": [stat(x[:h]), stat(x[h:])]}
            if bounded:
                b = bootstrap_bounds(x, n_resamples=resamples, seed=seed)
                fig.update(lower=b.lower, upper=b.upper)
            figs[name] = fig
        out[arm] = figs
    return out


def figures_of_arms(contrasts: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each arm's figures from the contrasts that carry them: the contrast reading it on the
    most games (the first declared on a tie), named as ``contrast``, the arm as ``arm``."""
    out: dict[str, dict[str, Any]] = {}
    for name, c in contrasts.items():
        for arm, figs in (c.get("arm_figures") or {}).items():
            if arm not in out or figs["n"] > out[arm]["n"]:
                out[arm] = {**figs, "contrast": name, "arm": arm}
    return out
