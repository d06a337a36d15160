"""The figures of a claim page's panel section, as PNG bytes (matplotlib Agg).

One figure per reading: each ranker's estimate with its game-resampled 90%
interval (the one-sided 95% bounds), the reference's own value as a dotted
line and a declared threshold as a dashed one, so "does d2 order the moves
like d4?" is read at a glance; and the agreement of the rankers' choices
with one another.  A ranker without the figure (it gives no values) is
shown by name with "no values".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from analysis.report.figures import _png, placeholder, plt

#: each figure's axis label and, for the ones with a natural range, its limits
LABELS: dict[str, tuple[str, tuple[float, float] | None]] = {
    "top1": ("top-1 agreement with the reference", (0.0, 1.0)),
    "pairwise": ("pairwise order accuracy", (0.0, 1.0)),
    "tau": ("Kendall tau (mean over roots)", (-1.0, 1.0)),
    "regret": ("regret (reference points)", None),
    "regret_frac": ("regret (fraction of the root's spread)", (0.0, 1.0)),
    "work": ("work per root", None),
    "work_ratio": ("work over the reference's", None),
}
#: what each figure is when the ranker is the reference itself
PERFECT = {"top1": 1.0, "pairwise": 1.0, "tau": 1.0, "regret": 0.0, "regret_frac": 0.0,
           "work_ratio": 1.0}


def _label(name: str) -> tuple[str, tuple[float, float] | None]:
    if name.startswith("recall@"):
        return f"recall@{name[7:]} (the reference's best in the top {name[7:]})", (0.0, 1.0)
    return LABELS.get(name, (name, None))


def ranker_figure(name: str, figures: Mapping[str, Mapping[str, Any]],
                  threshold: float | None = None, reference: str = "reference") -> bytes:
    """One reading over the rankers: ``figures`` maps a ranker to its
    :class:`~analysis.panel_bootstrap.Figure` dict for ``name``."""
    if not figures:
        return placeholder(name, "no ranker was read on this panel")
    label, limits = _label(name)
    rankers = list(figures)
    fig, ax = plt.subplots(figsize=(7.2, 0.9 + 0.45 * len(rankers)))
    y = np.arange(len(rankers))[::-1]
    for yi, ranker in zip(y, rankers, strict=True):
        f = figures[ranker]
        if f.get("estimate") is None:
            ax.text(0.02, yi, "no values (ranked by its choice alone)", va="center",
                    fontsize=8, color="dimgrey", transform=ax.get_yaxis_transform())
            continue
        ax.errorbar(f["estimate"], yi, xerr=[[f["estimate"] - f["lower"]],
                                             [f["upper"] - f["estimate"]]],
                    fmt="o", color="tab:blue", capsize=3)
        ax.annotate(f"{f['estimate']:.3g}", (f["estimate"], yi), textcoords="offset points",
                    xytext=(0, 6), ha="center", fontsize=8)
    if name in PERFECT:
        ax.axvline(PERFECT[name], color="grey", linestyle=":", label=f"{reference} itself")
    if threshold is not None:
        ax.axvline(threshold, color="tab:red", linestyle="--", label=f"threshold {threshold:g}")
    if limits is not None:
        ax.set_xlim(limits[0] - 0.02, limits[1] + 0.02)
    ax.set_yticks(y, rankers)
    ax.set_ylim(-0.7, len(rankers) - 0.3)
    ax.set_xlabel(f"{label}; 90% interval, games resampled")
    ax.set_title(f"{label} against {reference}", fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    if name in PERFECT or threshold is not None:
        ax.legend(fontsize=8, loc="best")
    return _png(fig)


def agreement_figure(rankers: Sequence[str], matrix: np.ndarray) -> bytes:
    """How often each pair of rankers chooses the same column (diagonal 1)."""
    n = len(rankers)
    fig, ax = plt.subplots(figsize=(1.6 + 0.9 * n, 1.2 + 0.8 * n))
    image = ax.imshow(matrix, vmin=0.0, vmax=1.0, cmap="Blues")
    for i in range(n):
        for j in range(n):
            ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if matrix[i, j] > 0.6 else "black")
    ax.set_xticks(range(n), rankers, rotation=30, ha="right")
    ax.set_yticks(range(n), rankers)
    ax.set_title("same choice at a root (fraction of roots)", fontsize=10)
    fig.colorbar(image, ax=ax, fraction=0.046)
    return _png(fig)
