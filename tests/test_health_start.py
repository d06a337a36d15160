"""The untrained start of training health plays as the weights a learner starts from."""

from __future__ import annotations

import numpy as np

from engines.drop7 import core
from engines.ntuple.storage import fresh_tables
from engines.seedbank import load_bank
from engines.train import greedy
from engines.train.evaluate import UNSEEN_GAME, play_untrained


def test_the_ntuple_start_plays_as_fresh_tables() -> None:
    """Every entry at ``INITIAL_VALUE / N``: one ply plays exactly the null layout's games."""
    seeds = load_bank().training(UNSEEN_GAME, 12)
    tables, layout = fresh_tables("T1")
    fresh = np.zeros((len(seeds), core.ST_LEN), dtype=np.int64)
    none = np.zeros(0)
    greedy.play_greedy(tables, 0.0, layout.spec, seeds, fresh, none, none,
                       np.zeros(0, dtype=np.int64))
    start = np.zeros_like(fresh)
    play_untrained("ntuple", seeds, start)
    assert np.array_equal(start, fresh)
    linear = np.zeros_like(fresh)
    play_untrained("linear", seeds, linear)
    assert fresh[:, core.ST_SCORE].mean() > 50_000 and linear[:, core.ST_SCORE].mean() > 50_000
