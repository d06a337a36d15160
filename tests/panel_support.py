"""Synthetic panel tables for the panel tests."""

from __future__ import annotations

import math

import numpy as np

from analysis.panel_readings import ranking_order
from contracts.panel_table import VALUE_COLUMNS


def make_rows(games=12, roots=8, seed=3, noise=1.0, ties=False, legal_p=0.8):
    """A synthetic panel: reference values, a noisy ranker, a random ranker, a choice-only
    ranker (its choice is the noisy one's) and the reference itself as a ranker."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        game = 1000 + 7 * g
        for r in range(roots):
            legal = rng.random(7) < legal_p
            legal[rng.integers(7)] = True
            ref = rng.normal(0, 1000, 7)
            if ties:
                ref = np.round(ref / 1000) * 1000
            ref[~legal] = np.nan
            noisy = ref + rng.normal(0, 1000 * noise, 7)
            rand = np.where(legal, rng.random(7), np.nan)
            for name, v, work in (("ref", ref, 5000), ("noisy", noisy, 100),
                                  ("random", rand, 0)):
                order = ranking_order(v)
                rows.append(row(game, r, name, order[0], work, v))
            rows.append(row(game, r, "choice-only", ranking_order(noisy)[0], "", None))
    return rows


def row(game, root, ranker, choice, work, values):
    out = {"game": str(game), "root": str(root), "ranker": ranker, "choice": str(choice),
           "work": str(work)}
    for c, key in enumerate(VALUE_COLUMNS):
        out[key] = "" if values is None or math.isnan(values[c]) else repr(float(values[c]))
    return out
