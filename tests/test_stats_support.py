"""Shared synthetic games tables for the statistics tests (helpers only, no tests here)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def score_like_pairs(
    n: int, seed: int, candidate_log_shift: float = 0.3, rho: float = 0.3, log_sd: float = 0.8
) -> tuple[np.ndarray, np.ndarray]:
    """Correlated lognormal, integer, Drop7-sized scores (candidate, baseline)."""
    rng = np.random.default_rng(seed)
    z1 = rng.standard_normal(n)
    z2 = rho * z1 + math.sqrt(1 - rho * rho) * rng.standard_normal(n)
    base = np.round(np.exp(12.0 + log_sd * z1))
    cand = np.round(np.exp(12.0 + candidate_log_shift + log_sd * z2))
    return cand, base


def games_frame(
    arms: dict[str, np.ndarray], seeds: np.ndarray | None = None, extra: bool = False
) -> pd.DataFrame:
    """A games table with one row per (arm, seed); ``extra`` adds the optional columns."""
    rows = []
    for arm, scores in arms.items():
        seq = np.arange(100, 100 + len(scores)) if seeds is None else seeds
        for game, (seed, score) in enumerate(zip(seq, scores, strict=True)):
            row = {"arm": arm, "seed": int(seed), "score": float(score)}
            if extra:
                row |= {"policy": "search:leaf=linear,d=3,s=7", "game": game,
                        "moves": int(score // 3000) + 1, "levels": 1, "clears": 0,
                        "censored": False, "popped": 0, "reveals": 0, "chain_max": 0,
                        "chain_mean": 0.0, "decisions": 10, "nodes": 900, "leaves": 700,
                        "filter_applied": "", "filter_changed": "", "illegal": 0,
                        "unfinished": 0, "wall_s": 0.5, "trajectory": "0" * 64}
            rows.append(row)
    return pd.DataFrame(rows)
