"""A panel end to end: roots from games, rankers and references as rows, the table, readings."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.panel_readings import panel_roots, read_ranker
from contracts.panel_table import read_rows, write_rows
from engines.drop7 import core
from engines.drop7.game_loop import play_out
from engines.play.panel import game_roots, outcome_rows, ranker_rows
from engines.play.policy import load_policy

PLAYER = Path(__file__).with_name("referee_player.py")
R = 300
SEEDS = [11, 12, 13, 14]


def test_roots_are_the_states_before_every_kth_decision() -> None:
    policy = load_policy("lowest-column")
    roots = game_roots(policy, [5, 6], every=3)
    assert [r.game for r in roots] == sorted(r.game for r in roots)
    for game in (5, 6):
        mine = [r for r in roots if r.game == game]
        moves = int(play_out(game, lambda s, c: policy.choose(s, c))[core.ST_MOVES_PLAYED])
        assert [r.root for r in mine] == list(range(0, moves, 3))
        assert all(int(r.state[core.ST_MOVES_PLAYED]) == r.root for r in mine)
    assert len(game_roots(policy, [5, 6], every=3, limit=4)) == 4
    with pytest.raises(ValueError, match="every must be at least 1"):
        game_roots(policy, [5], every=0)


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> list[dict[str, str]]:
    roots = game_roots(load_policy("direct:leaf=linear"), SEEDS, every=8)
    rows = ranker_rows("d2", load_policy("search:leaf=linear,d=2,s=7"), roots)
    rows += ranker_rows("d1", load_policy("search:leaf=linear,d=1,s=7"), roots)
    # the direct player in three shards, each with its own player
    for shard in (1, 2, 3):
        rows += ranker_rows("direct", load_policy("direct:leaf=linear"), roots, shard=shard,
                            shards=3)
    rows += ranker_rows("lowest", load_policy("lowest-column"), roots)
    program = load_policy(f"external:{sys.executable} {PLAYER} --values yes")
    try:
        rows += ranker_rows("program", program, roots)
    finally:
        program.close()
    rows += outcome_rows("h10", load_policy("direct:leaf=linear"), roots, 2, 10, 7)
    path = tmp_path_factory.mktemp("panel") / "panel.csv"
    write_rows(rows, path)
    return read_rows(path)


def test_a_panel_reads_end_to_end(panel) -> None:
    figs = {name: read_ranker(panel_roots(panel, "d2", name), n_resamples=R)
            for name in ("d2", "d1", "direct", "lowest", "program")}
    assert figs["d2"]["top1"].estimate == 1 and figs["d2"]["tau"].estimate == 1
    assert figs["d2"]["regret"].upper == 0 and figs["d2"]["work_ratio"].estimate == 1
    # d1 and direct are one search: the same figures, whatever the shards
    for name in ("top1", "regret", "tau", "pairwise", "recall@2", "work_ratio"):
        assert figs["d1"][name] == figs["direct"][name], name
    assert 0 < figs["d1"]["work_ratio"].estimate < 0.5
    assert figs["d1"]["top1"].estimate > figs["lowest"]["top1"].estimate
    assert figs["lowest"]["tau"].estimate is None and figs["lowest"]["work"].estimate == 0
    assert figs["program"]["tau"].roots > 0 and figs["program"]["work"].estimate is None
    assert figs["d2"]["top1"].games == len(SEEDS)


def test_an_outcome_reference_is_the_same_in_shards_and_reads(panel) -> None:
    roots = game_roots(load_policy("direct:leaf=linear"), SEEDS, every=8)
    one = outcome_rows("h10", load_policy("direct:leaf=linear"), roots, 2, 10, 7)
    parts = [r for k in (1, 2) for r in outcome_rows("h10", load_policy("direct:leaf=linear"),
                                                     roots, 2, 10, 7, shard=k, shards=2)]
    key = lambda r: (r["game"], r["root"])  # noqa: E731
    assert sorted(parts, key=key) == sorted(one, key=key)
    d2 = read_ranker(panel_roots(panel, "h10", "d2"), n_resamples=R)
    assert d2["tau"].roots > 0 and np.isfinite(d2["top1"].estimate)
    itself = read_ranker(panel_roots(panel, "h10", "h10"), n_resamples=R)
    assert itself["top1"].estimate == 1
