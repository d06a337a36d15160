"""Reading, validating and pairing games tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_stats_support import games_frame

from analysis.games_table import pair_arms, read_games, validate_games
from contracts.games_table import GAMES_COLUMNS


def test_full_table_round_trip_and_optional_columns(tmp_path):
    frame = games_frame({"a": np.arange(10.0), "b": np.arange(10.0) + 3}, extra=True)
    assert set(frame.columns) == set(GAMES_COLUMNS)
    path = tmp_path / "g.csv"
    frame.to_csv(path, index=False)
    games = read_games(path)
    assert games["seed"].dtype == np.uint64 and games["censored"].dtype == np.float64
    paired = pair_arms(games, "a", "b")
    assert paired.n == 10 and set(paired.extra_candidate) == {"moves", "censored", "illegal",
                                                              "unfinished"}


def test_sixty_four_bit_seeds_sort_numerically(tmp_path):
    seeds = np.array([2**64 - 1, 5, 2**63 + 7, 10**12], dtype=np.uint64)
    frame = games_frame({"a": [1.0, 2, 3, 4], "b": [0.0, 0, 0, 0]}, seeds=seeds)
    frame["seed"] = [str(int(s)) for s in frame["seed"].astype(object)]
    path = tmp_path / "g.csv"
    frame.to_csv(path, index=False)
    paired = pair_arms(read_games(path), "a", "b")
    assert [int(s) for s in paired.seeds] == sorted(int(s) for s in seeds)
    assert paired.candidate_scores.tolist() == [2.0, 4.0, 3.0, 1.0]


def test_censored_as_text_booleans():
    frame = games_frame({"a": [1.0] * 4, "b": [2.0] * 4}, extra=True)
    frame["censored"] = ["True", "false", "1", "0"] * 2
    assert validate_games(frame)["censored"].tolist() == [1, 0, 1, 0] * 2


@pytest.mark.parametrize("column", ["moves", "illegal"])
def test_used_optional_columns_must_be_numeric(column):
    frame = games_frame({"a": [1.0] * 4, "b": [2.0] * 4}, extra=True)
    frame[column] = frame[column].astype(object)
    frame.loc[5, column] = ""
    with pytest.raises(ValueError, match=f"column '{column}'"):
        validate_games(frame)


def test_unpaired_seeds_are_named():
    frame = games_frame({"a": [1.0] * 6, "b": [2.0] * 6})
    frame = pd.concat([frame, pd.DataFrame([{"arm": "a", "seed": 999, "score": 5.0}])])
    with pytest.raises(ValueError, match=r"1 only in 'a' \(e.g. seed 999\)"):
        pair_arms(frame, "a", "b")


def test_empty_arm_name():
    frame = games_frame({"a": [1.0] * 4, "b": [2.0] * 4})
    frame.loc[0, "arm"] = " "
    with pytest.raises(ValueError, match="empty arm"):
        validate_games(frame)
