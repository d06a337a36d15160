"""A learner's figure against a threshold: the ``learner-at-least`` and ``learner-at-most``
readings.

The figures are named in :data:`contracts.learner_figures.FIGURES`; each is computed here from
the files a learner trained by one job writes (its curve and its frozen record), which the
workflow hands over as :func:`learner_sources` reads them: ``weights -> {"learner", "figures",
"curve", "record"}`` (``figures``: what the weights' declaration gives, ``curve`` None for a
learner without one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from contracts.json_file import load_json
from contracts.learner_figures import FIGURES, LAST


def learner_sources(described: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The curve and record of each trained weights, from the plan's descriptions of their
    training (``DirectTraining.describe()``: its ``learner``, ``figures``, ``curve`` and
    ``record`` paths)."""
    return {name: {"learner": d["learner"], "figures": list(d["figures"]),
                   "curve": load_json(d["curve"]) if d.get("curve") else None,
                   "record": load_json(d["record"])}
            for name, d in described.items()}


def _generations(curve: Mapping[str, Any], last: int) -> tuple[list[dict[str, Any]], str]:
    points = list(curve["curve"])[-last:]
    if not points:
        raise ValueError("the curve has no generations")
    first, end = points[0]["generation"], points[-1]["generation"]
    said = f"generations {first}-{end}" if first != end else f"generation {end}"
    if len(points) < last:
        said += f" (the curve has {len(points)}, fewer than the last {last})"
    return points, said


def _with_reference(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if any("reference" not in p for p in points):
        raise ValueError("the curve has no reference search's means (declare reference:)")
    return points


def _holdout_top1(curve: Mapping[str, Any], record: Mapping[str, Any],
                  last: int) -> tuple[float, str]:
    top1 = curve["top1"]
    return float(top1["network"]), (f"on {curve['roots']['held_out']:,} held-out roots (its "
                                    f"random start {top1['random_start']:.3f})")


def _best_gain(curve: Mapping[str, Any], record: Mapping[str, Any],
               last: int) -> tuple[float, str]:
    p = curve["curve"][-1]
    return float(p["best"] - p["control"]), (f"generation {p['generation']}: best "
                                             f"{p['best']:,.2f}, control {p['control']:,.2f}")


def _above_share(curve: Mapping[str, Any], record: Mapping[str, Any],
                 last: int) -> tuple[float, str]:
    points, said = _generations(curve, last)
    above = sum(p["mean"] > p["reference"] for p in _with_reference(points))
    return above / len(points), f"{above} of {len(points)}: {said}"


def _minus_reference(curve: Mapping[str, Any], record: Mapping[str, Any],
                     last: int) -> tuple[float, str]:
    points, said = _generations(curve, last)
    gaps = [p["mean"] - p["reference"] for p in _with_reference(points)]
    return sum(gaps) / len(gaps), said


def _final_moves(curve: Mapping[str, Any] | None, record: Mapping[str, Any],
                 last: int) -> tuple[float, str]:
    return float(record["final_moves"]), (f"after {record['games']:,} games (start "
                                          f"{record['start_moves']:.2f}, random "
                                          f"{record['random_moves']:.2f})")


#: each figure's computation: ``(curve, record, last) -> (value, what it was read on)``
COMPUTE: dict[str, Callable[..., tuple[float, str]]] = {
    "holdout_top1": _holdout_top1, "best_gain": _best_gain,
    "mean_above_reference_share": _above_share, "mean_minus_reference": _minus_reference,
    "final_moves": _final_moves}
if set(COMPUTE) != set(FIGURES):
    raise RuntimeError(f"learner figures without a computation: {set(FIGURES) ^ set(COMPUTE)}")


def _num(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def read_learner_threshold(at_least: bool, source: Mapping[str, Any], figure: str,
                           threshold: float, last: int | None
                           ) -> tuple[str, str, dict[str, Any]]:
    """A learner's figure against ``threshold`` (``at_least``: it must be at least, else at
    most); ``last`` generations for a figure over generations (None: :data:`LAST`)."""
    if figure not in source["figures"]:
        return "not-run", (f"{source['learner']} weights give no {figure} (they give "
                           f"{', '.join(source['figures']) or 'none'}): not run"), {}
    n = LAST if last is None else int(last)
    value, said = COMPUTE[figure](source["curve"], source["record"], n)
    held = value >= threshold if at_least else value <= threshold
    sign = (">=" if held else "<") if at_least else ("<=" if held else ">")
    numbers: dict[str, Any] = {"figure": figure, "value": value, "threshold": threshold}
    if FIGURES[figure].over_generations:
        numbers["last"] = n
    reason = f"{figure} {_num(value)} {sign} {_num(threshold)}: {said}"
    return ("pass" if held else "fail"), reason, numbers
