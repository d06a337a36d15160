"""The operating-characteristic figure: P(pass) vs the true mean delta (matplotlib Agg)."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from analysis.games_table import DEFAULT_METRIC, METRICS  # noqa: E402
from analysis.metrics import figure_text  # noqa: E402
from analysis.power import OperatingCharacteristic  # noqa: E402
from contracts.atomic import atomic_write  # noqa: E402

LABELS = {
    "screen": "whole screen (all four)",
    "bootstrap_lb": "bootstrap LB > 0",
    "t_lb": "Student-t LB > 0",
    "halves": "both halves > 0",
    "lower_quartile": "no lower-quartile regression",
}
STYLES = {
    "screen": {"color": "black", "linewidth": 2.4},
    "bootstrap_lb": {"color": "tab:blue", "linestyle": "-"},
    "t_lb": {"color": "tab:cyan", "linestyle": "--"},
    "halves": {"color": "tab:orange", "linestyle": "-"},
    "lower_quartile": {"color": "tab:green", "linestyle": "-."},
}


def oc_figure_png(oc: OperatingCharacteristic, title: str | None = None, dpi: int = 110,
                  metric: str = DEFAULT_METRIC) -> bytes:
    """PNG bytes of the OC figure (embed base64 in the report); the deltas are of ``metric``
    (:data:`analysis.games_table.METRICS`)."""
    fig, ax = plt.subplots(figsize=(7.2, 4.4), dpi=dpi)
    try:
        for key, probs in oc.pass_probability.items():
            ax.plot(oc.true_delta, probs, label=LABELS.get(key, key), **STYLES.get(key, {}))
        ax.axvline(0.0, color="grey", linewidth=0.9)
        ax.axvline(oc.observed_delta, color="tab:red", linewidth=1.2, linestyle=":",
                   label=f"observed delta {figure_text(oc.observed_delta, metric, True)}")
        ax.axhline(0.05, color="grey", linewidth=0.6, linestyle=":")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(f"true mean {metric} delta ({METRICS[metric].unit})")
        ax.set_ylabel("probability of passing")
        ax.grid(alpha=0.3)
        se = oc.se
        if se > 0:
            top = ax.secondary_xaxis("top", functions=(lambda x: x / se, lambda s: s * se))
            top.set_xlabel("true delta in sigma units (sd / sqrt(n))")
        ax.set_title(title or f"Screen operating characteristic (n = {oc.n} pairs, "
                     f"{oc.n_sims:,} simulated screens)", fontsize=10)
        ax.legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


def save_oc_figure(oc: OperatingCharacteristic, path: str | Path, title: str | None = None) -> Path:
    """Write the OC figure to ``path`` atomically (temporary file, then rename)."""
    return atomic_write(path, oc_figure_png(oc, title))
