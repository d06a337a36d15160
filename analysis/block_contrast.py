"""One declared contrast over its seeds of a screen block, as the ``contrast`` job computes it
and as ``drop7 records rebuild`` computes it again from a bundle's per-game rows.

A difference contrast pairs its two arms; an interaction pairs two pairs on the same seeds.
Every arm's own figures on those seeds go with it (:mod:`analysis.arm_figures`).
A screened contrast gets its operating characteristic (``oc_sims`` > 0); the contrast a
sequential screen stops on gets its looks, corrected estimate and simulated error rates
(:func:`analysis.sequential.screen.screen_section`) and reads the seeds up to its stopping
look.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from analysis.arm_figures import arm_figures
from analysis.contrast import Hashes, contrast_interaction, contrast_paired
from analysis.games_table import DEFAULT_METRIC, pair_arms, select_block
from analysis.power import operating_characteristic
from analysis.sequential.design import SequentialDesign
from analysis.sequential.screen import screen_section


def block_contrast(table: pd.DataFrame, *, kind: str, arms: Sequence[str], start: int,
                   count: int, hashes: Hashes | None, resamples: int, oc_sims: int,
                   looks: Mapping[str, Any] | None = None, stops_on: bool = False,
                   effect: tuple[float | None, str] | None = None,
                   metric: str = DEFAULT_METRIC,
                   design: SequentialDesign | None = None) -> dict[str, Any]:
    """The contrast's JSON on ``metric`` (``looks``: a sequential screen's looks summary, whose
    stop bounds the seeds read; ``stops_on``: this is the contrast the screen stops on, and
    ``design`` its design, as planned; ``effect``: the effect its simulated power is read at
    and its source)."""
    if looks is not None:
        count = min(count, looks["stop"]["n"])
    games = select_block(table, arms, start, count)
    pairs = [pair_arms(games, a, b, metric)
             for a, b in zip(arms[::2], arms[1::2], strict=True)]
    if kind == "difference":
        result = contrast_paired(pairs[0], hashes=hashes, n_resamples=resamples).to_dict()
    else:
        result = contrast_interaction(*pairs, hashes=hashes, n_resamples=resamples).to_dict()
    result["arm_figures"] = arm_figures(games, arms, resamples)
    if oc_sims:
        oc = operating_characteristic(pairs[0].candidate_scores, pairs[0].baseline_scores,
                                      n_sims=oc_sims)
        result["oc"] = oc.to_dict()
    if looks is not None and stops_on:
        if design is None:
            raise ValueError("the contrast a sequential screen stops on needs its design")
        d = pairs[0].candidate_scores - pairs[0].baseline_scores
        value, source = effect or (None, "observed")
        result["sequential"] = screen_section(
            d, result, design, looks["looks"], effect=value,
            effect_source=source, n_sims=oc_sims, n_resamples=resamples)
    return result
