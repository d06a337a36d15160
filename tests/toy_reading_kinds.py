"""Two toy reading kinds, each one entry of the registry (docs/claims.md, "A new reading kind").

``mean-above`` reads a screen contrast: it passes when the mean difference is above a declared
``threshold``.  ``ranker-matches`` reads a ranking panel: it passes when the paired difference
of ``ranker`` and ``other`` on a ``figure`` has its 90% interval around 0 (the two order the
moves alike as far as the panel can tell).  Both reuse keys the claim schema has already.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.readers import threshold_problem
from analysis.reading_kinds import (
    CONTRAST,
    PANEL,
    READING_KINDS,
    Parameter,
    ReadingKind,
    register_reading,
)
from analysis.reading_result import Reading


def read_mean_above(c: Mapping[str, Any], threshold: float) -> tuple[str, str, dict[str, Any]]:
    """Pass when the contrast's mean difference is above ``threshold``."""
    ok = c["mean_delta"] > threshold
    return ("pass" if ok else "fail",
            f"toy: mean delta {c['mean_delta']:+,.0f} {'>' if ok else '<='} {threshold:+,.0f}",
            {"mean_delta": c["mean_delta"], "threshold": threshold})


def read_matches(name: str, spec: Mapping[str, Any], diff: Any) -> Reading:
    """Pass when the paired difference's interval holds 0."""
    title = spec.get("title") or f"{name} (ranker-matches)"
    if diff.estimate is None:
        return Reading(name, "ranker-matches", title, "not-run", "toy: no figure")
    ok = diff.lower <= 0 <= diff.upper
    return Reading(name, "ranker-matches", title, "pass" if ok else "fail",
                   f"toy: {spec['ranker']} - {spec['other']} {spec['figure']} from "
                   f"{diff.lower:+.3f} to {diff.upper:+.3f}", {"estimate": diff.estimate})


TOYS = (
    ReadingKind("mean-above", ("pass", "fail"),
                (Parameter("contrast", "contrast"),
                 Parameter("threshold", "value", problem=threshold_problem)),
                CONTRAST, read_mean_above),
    ReadingKind("ranker-matches", ("pass", "fail"),
                (Parameter("ranker", "ranker"), Parameter("other", "ranker"),
                 Parameter("figure", "figure")),
                PANEL, read_matches, paired=True),
)


def register() -> None:
    """Add the toy kinds to the registry."""
    for kind in TOYS:
        register_reading(kind)


def unregister() -> None:
    """Take them out again."""
    for kind in TOYS:
        READING_KINDS.pop(kind.name, None)
