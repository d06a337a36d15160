"""The report's figures as PNG bytes (matplotlib Agg), embedded as base64 in the page.

Every function takes plain data (dicts from the run's JSON files, a games
DataFrame) and returns PNG bytes; :func:`placeholder` draws a labelled empty
panel for a figure whose data does not exist (the screen was not opened).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from analysis.contrast import Contrast  # noqa: E402
from analysis.games_table import DEFAULT_METRIC, METRICS, metric_values  # noqa: E402
from analysis.health import TrainingHealth  # noqa: E402
from analysis.metrics import figure_text  # noqa: E402
from analysis.power import OperatingCharacteristic  # noqa: E402

DPI = 100
COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    try:
        fig.tight_layout()
        fig.savefig(buf, format="png", dpi=DPI)
    finally:
        plt.close(fig)
    return buf.getvalue()


def _points(ax: Any) -> None:
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))


def _ticks(axis: Any, metric: str) -> None:
    """Tick labels of ``axis`` at ``metric``'s precision."""
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: figure_text(v, metric)))


def _finest(contrasts: Mapping[str, Contrast]) -> str:
    """The metric of these contrasts printed at the most decimals (their shared axis')."""
    return max((c.metric for c in contrasts.values()), key=lambda m: METRICS[m].decimals)


def _moves(v: float, _: Any = None) -> str:
    """Compact move counts for an axis: 500k, 2.5M, 1G."""
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:g}{unit}"
    return f"{v:g}"


def _training_axes(ax: Any, ylabel: str, title: str, legend: int = 8) -> None:
    """Moves trained on x (500k, 2.5M), points on y, grid and legend: a training figure."""
    ax.set_xlabel("moves trained")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_moves))
    _points(ax)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=legend)


def placeholder(title: str, message: str) -> bytes:
    """An empty panel saying why the figure has no data."""
    fig, ax = plt.subplots(figsize=(7.2, 2.0))
    ax.set_axis_off()
    ax.set_title(title, fontsize=10)
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, fontsize=10,
            color="dimgrey", transform=ax.transAxes)
    return _png(fig)


def validation_curve(curves: Mapping[str, Mapping[str, Any]], *,
                     frozen: Mapping[str, int]) -> bytes:
    """Paired validation margin (checkpoint in search minus comparator) vs moves trained.

    Bars span the one-sided 95% bootstrap bounds (LB, UB) of each point; the frozen
    point of each frozen weights (``frozen``: weights -> step) is starred.
    """
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for i, (name, curve) in enumerate(curves.items()):
        pts = curve["points"]
        x = np.array([p["step"] for p in pts], dtype=float)
        y = np.array([p["margin"] for p in pts])
        lo = np.clip(y - np.array([p["bootstrap_lb"] for p in pts]), 0, None)
        hi = np.clip(np.array([p["bootstrap_ub"] for p in pts]) - y, 0, None)
        width = 2.2 if name in frozen else 1.3
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, linewidth=width,
                    color=COLOURS[i % len(COLOURS)], label=name)
        if name in frozen:
            best = next((p for p in pts if p["step"] == frozen[name]), None)
            if best is not None:
                ax.plot([best["step"]], [best["margin"]], marker="*", markersize=16,
                        color="gold", markeredgecolor="black", linestyle="none",
                        label=f"frozen {name} ({best['step']:,} moves)")
    ax.axhline(0.0, color="grey", linewidth=0.9)
    ax.set_xlabel("moves trained")
    ax.set_ylabel("paired margin vs the comparator (points)")
    ax.set_title("Validation margin per checkpoint (bars: one-sided 95% bootstrap bounds)",
                 fontsize=10)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_moves))
    _points(ax)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _png(fig)


def training_health(health: Mapping[str, TrainingHealth]) -> bytes:
    """One-ply mean per checkpoint (bars: 95% intervals), random play (dashed) and the
    untrained start (dash-dotted) on the same seeds and the training games' mean score per
    segment (dotted), per trained weights;
    a red ring marks a checkpoint the health check flags (:mod:`analysis.health`)."""
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for i, (name, h) in enumerate(health.items()):
        pts, colour = h.points, COLOURS[i % len(COLOURS)]
        x = np.array([p.step for p in pts], dtype=float)
        ax.errorbar(x, [p.one_ply_mean for p in pts], yerr=[p.one_ply_ci95 for p in pts],
                    marker="o", capsize=3, color=colour, label=f"{name}: one ply")
        ax.plot(x, [p.random_mean for p in pts], linestyle="--", color=colour, alpha=0.6,
                label=f"{name}: random, same seeds")
        ax.plot(x, [p.start_mean for p in pts], linestyle="-.", color=colour, alpha=0.6,
                label=f"{name}: untrained start, same seeds")
        seg = [(p.step, p.train_mean_score) for p in pts if p.train_mean_score]
        if seg:
            ax.plot(*zip(*seg, strict=True), linestyle=":", marker=".", color=colour,
                    alpha=0.8, label=f"{name}: training games (segment mean)")
        bad = [p for p in pts if p.no_lead or p.fell]
        if bad:
            ax.plot([p.step for p in bad], [p.one_ply_mean for p in bad], "o",
                    markersize=14, markerfacecolor="none", markeredgecolor="red",
                    markeredgewidth=2, label=f"{name}: flagged")
    _training_axes(ax, "mean score (points)",
                   "Training health: one ply per checkpoint against its start and random", legend=7)
    return _png(fig)


def _throughput_series(manifests: Sequence[Mapping[str, Any]]) -> tuple[list, list]:
    """(moves trained, moves/s) per checkpoint segment from cumulative manifests."""
    pts = sorted((m for m in manifests if m.get("moves_trained")),
                 key=lambda m: m["moves_trained"])
    xs, ys = [], []
    prev_moves, prev_wall = 0, 0.0
    for m in pts:
        moves, wall = m["moves_trained"], m.get("wall_s")
        if wall is not None and wall > prev_wall and moves > prev_moves:
            rate = (moves - prev_moves) / (wall - prev_wall)
        else:
            rate = m.get("moves_per_s")
        if rate:
            xs.append(moves)
            ys.append(rate)
        prev_moves, prev_wall = moves, wall if wall is not None else prev_wall
    return xs, ys


def training_throughput(manifests: Mapping[str, Sequence[Mapping[str, Any]]]) -> bytes:
    """Training speed (moves/s over each checkpoint segment) vs moves trained, per arm."""
    fig, ax = plt.subplots(figsize=(7.2, 3.6))
    drawn = False
    for i, (name, ms) in enumerate(manifests.items()):
        xs, ys = _throughput_series(ms)
        if xs:
            drawn = True
            ax.plot(xs, ys, marker="o", color=COLOURS[i % len(COLOURS)], label=name)
    if not drawn:
        plt.close(fig)
        return placeholder("Training throughput", "no wall times in the weights manifests")
    ax.set_ylim(bottom=0)
    _training_axes(ax, "training moves per second", "Training throughput per checkpoint segment")
    return _png(fig)


def metric_of(contrast: Contrast) -> tuple[str, str]:
    """``(metric, unit)`` of a contrast's statistics (the final score in points by default)."""
    return contrast.metric, METRICS[contrast.metric].unit


def _units(contrasts: Mapping[str, Contrast]) -> str:
    """The one unit of every contrast, or both named when they differ."""
    return " or ".join(dict.fromkeys(metric_of(c)[1] for c in contrasts.values()))


def deltas(games: pd.DataFrame, contrast: Contrast) -> np.ndarray:
    """A contrast's per-game deltas of its metric in seed order, on its own seeds (a prefix,
    maybe)."""
    lo, hi = np.uint64(contrast.seed_first), np.uint64(contrast.seed_last)
    inside = games[(games["seed"] >= lo) & (games["seed"] <= hi)]
    def scores(arm: str) -> np.ndarray:
        return metric_values(inside[inside["arm"] == arm].sort_values("seed"),
                             contrast.metric, f"arm {arm!r}")

    a = contrast.arms
    d = scores(a[0]) - scores(a[1])
    return d - (scores(a[2]) - scores(a[3])) if contrast.kind == "interaction" else d


def paired_deltas(games: pd.DataFrame, contrasts: Mapping[str, Contrast],
                  primary: str) -> bytes:
    """Left: the ``primary`` contrast's per-game deltas with its bounds; right: every contrast."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 4.0),
                                 gridspec_kw={"width_ratios": [1.4, 1]})
    p = contrasts[primary]
    d = deltas(games, p)
    ax.hist(d, bins=min(40, max(8, d.size // 6)), color="lightsteelblue", edgecolor="white")
    def f(x: float) -> str:
        return figure_text(x, p.metric, signed=True)

    for x, style, label in (
        (0.0, {"color": "grey"}, "0"),
        (p.mean_delta, {"color": "black", "linewidth": 2}, f"mean {f(p.mean_delta)}"),
        (p.bootstrap_lb, {"color": "tab:blue", "linestyle": "--"},
         f"bootstrap LB {f(p.bootstrap_lb)}"),
        (p.t_lb, {"color": "tab:cyan", "linestyle": ":"}, f"t LB {f(p.t_lb)}"),
    ):
        ax.axvline(x, label=label, **style)
    metric, unit = metric_of(p)
    ax.set_xlabel(f"{metric} delta per game, {unit} ({p.candidate} - {p.baseline})")
    ax.set_ylabel("games")
    ax.set_title(f"Paired deltas, {primary} contrast (n = {p.n})", fontsize=10)
    _ticks(ax.xaxis, p.metric)
    ax.legend(fontsize=7)
    names = list(contrasts)
    ys = np.arange(len(names))[::-1]
    for y, name in zip(ys, names, strict=True):
        c = contrasts[name]
        ok = c.passed
        bx.plot([c.bootstrap_lb, c.bootstrap_ub], [y, y], color="tab:blue", linewidth=3,
                solid_capstyle="butt")
        bx.plot([c.mean_delta], [y], marker="o", color="black")
        bx.plot([c.t_lb], [y], marker="|", markersize=14, color="tab:cyan")
        bx.text(c.bootstrap_ub, y + 0.18, " pass" if ok else " fail", fontsize=8,
                color="tab:green" if ok else "tab:red")
    bx.axvline(0.0, color="grey")
    bx.set_yticks(ys, names)
    bx.set_ylim(-0.7, len(names) - 0.3)
    bx.set_xlabel(f"mean delta ({_units(contrasts)}); bar: bootstrap LB to UB; |: t LB")
    bx.set_title("Every contrast", fontsize=10)
    _ticks(bx.xaxis, _finest(contrasts))
    bx.grid(alpha=0.3, axis="x")
    return _png(fig)


def score_distributions(games: pd.DataFrame, metric: str = DEFAULT_METRIC) -> bytes:
    """Empirical CDF of ``metric`` (final scores by default, or games' lengths) per arm, lower
    quartile marked."""
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for i, arm in enumerate(dict.fromkeys(games["arm"])):
        s = np.sort(metric_values(games.loc[games["arm"] == arm], metric, f"arm {arm!r}"))
        colour = COLOURS[i % len(COLOURS)]
        ax.step(s, np.arange(1, s.size + 1) / s.size, where="post", color=colour,
                label=f"{arm} (mean {figure_text(s.mean(), metric)})")
        ax.plot([np.quantile(s, 0.25)], [0.25], marker="v", color=colour)
    ax.axhline(0.25, color="grey", linewidth=0.7, linestyle=":")
    what = "final score" if metric == DEFAULT_METRIC else f"{metric} ({METRICS[metric].unit})"
    ax.set_xlabel(what)
    ax.set_ylabel(f"fraction of games with {metric} <= x")
    ax.set_title(f"{metric.capitalize()} distribution per arm (triangles: Q25)", fontsize=10)
    _ticks(ax.xaxis, metric)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return _png(fig)


def halves(contrasts: Mapping[str, Contrast]) -> bytes:
    """Mean delta of each half of the games (seed order), per contrast."""
    fig, ax = plt.subplots(figsize=(7.2, 3.6))
    names = list(contrasts)
    x = np.arange(len(names))
    first = [contrasts[n].halves[0] for n in names]
    second = [contrasts[n].halves[1] for n in names]
    ax.bar(x - 0.18, first, width=0.36, label="games 0 .. n/2-1", color="tab:blue")
    ax.bar(x + 0.18, second, width=0.36, label="games n/2 .. n-1", color="tab:orange")
    ax.axhline(0.0, color="grey")
    ax.set_xticks(x, names)
    ax.set_ylabel(f"mean delta ({_units(contrasts)})")
    ax.set_title("Split halves: both must be positive", fontsize=10)
    _ticks(ax.yaxis, _finest(contrasts))
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return _png(fig)


def oc_from_dict(d: Mapping[str, Any]) -> OperatingCharacteristic:
    """Rebuild an :class:`OperatingCharacteristic` from its ``to_dict`` form."""
    return OperatingCharacteristic(
        n=d["n"], n_observed=d["n_observed"], n_sims=d["n_sims"], seed=d["seed"],
        method=d["method"], observed_delta=d["observed_delta"], sd_delta=d["sd_delta"],
        se=d["se"], true_delta=np.asarray(d["true_delta"], dtype=float),
        sigma=np.asarray(d["sigma"], dtype=float),
        pass_probability={k: np.asarray(v, dtype=float)
                          for k, v in d["pass_probability"].items()},
        at_observed=dict(d["at_observed"]))


def operating_characteristic(oc: Mapping[str, Any], title: str,
                             metric: str = DEFAULT_METRIC) -> bytes:
    """The screen's operating characteristic (analysis.oc_plot) from its dict form, on the
    contrast's ``metric``."""
    from analysis.oc_plot import oc_figure_png

    return oc_figure_png(oc_from_dict(oc), title, dpi=DPI, metric=metric)
