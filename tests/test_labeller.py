"""Monte Carlo outcome labels: seeded, aligned across siblings, the same for any shard count."""

from __future__ import annotations

import numpy as np
import pytest

from engines.drop7 import core
from engines.drop7.board import rows_to_cols
from engines.drop7.rng import DOMAIN_DISC, counter_word, stream_key, u7
from engines.play.labeller import label_root, label_roots, scenario_seeds, shard_roots
from engines.play.policy import Policy, load_policy
from engines.search.positions import load_positions

ROOTS = [(cols, disc, mr) for cols, disc, mr in load_positions()[:7]]
#: column 0 holds six discs and one move is left before the rise: a 3 there ends the game
DOOMED = rows_to_cols(["0000000", "2000000", "5000000", "4000000", "3000000", "2000000",
                       "8888888"])


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
               for f in ("points", "lifetime", "ended")) and (a.nodes, a.leaves) == (
                   b.nodes, b.leaves)


@pytest.mark.parametrize("policy", ["lowest-column", "random", "direct:leaf=linear"])
def test_labels_are_bit_identical_for_any_shard_count(policy: str) -> None:
    one = dict(label_roots(load_policy(policy), ROOTS, 3, 12, seed=11))
    for shards in (2, 3):
        parts = {}
        for shard in range(1, shards + 1):
            # a fresh player per shard, as a separate process would have
            parts.update(label_roots(load_policy(policy), ROOTS, 3, 12, 11, shard, shards))
        assert sorted(parts) == sorted(one) == list(range(len(ROOTS)))
        assert all(_same(parts[i], one[i]) for i in one)
    # and a root's labels do not depend on the roots labelled before it by the same player
    again = label_root(load_policy(policy), *ROOTS[4], 3, 12, 11)
    assert _same(again, one[4])


def test_shards_cover_every_root_once() -> None:
    covered = sorted(i for k in range(1, 5) for i in shard_roots(10, k, 4))
    assert covered == list(range(10))
    with pytest.raises(ValueError, match="shard must be 1..4"):
        shard_roots(10, 5, 4)


def test_the_seed_and_the_root_choose_the_scenarios() -> None:
    cols, disc, mr = ROOTS[0]
    a = scenario_seeds(1, cols, disc, mr, 8)
    assert len(set(a.tolist())) == 8
    assert np.array_equal(a[:3], scenario_seeds(1, cols, disc, mr, 3))  # a prefix
    assert not set(a.tolist()) & set(scenario_seeds(2, cols, disc, mr, 8).tolist())
    assert not set(a.tolist()) & set(scenario_seeds(1, cols, disc % 7 + 1, mr, 8).tolist())
    lowest = load_policy("lowest-column")
    x, y = label_root(lowest, cols, disc, mr, 4, 30, 1), label_root(lowest, cols, disc, mr, 4,
                                                                     30, 2)
    assert not np.array_equal(x.points, y.points, equal_nan=True)


class _Watcher(Policy):
    """Lowest-column, recording the discs it is shown in each continuation."""

    def __init__(self) -> None:
        self.inner = load_policy("lowest-column")
        self.spec = self.inner.spec
        self.discs: list[list[int]] = []

    def new_game(self, seed: int) -> None:
        self.inner.new_game(seed)
        self.discs.append([])

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        self.discs[-1].append(int(state[core.ST_NEXT_DISC]))
        return self.inner.choose(state, cols)


def test_siblings_share_each_continuations_discs() -> None:
    """Common random numbers: continuation k of every column is shown the same discs, those of
    scenario seed s_k read from move 1 on."""
    cols, disc, mr = ROOTS[2]
    watcher = _Watcher()
    labels = label_root(watcher, cols, disc, mr, 3, 6, 5)
    legal = [c for c in range(7) if core.is_legal(cols, c)]
    seeds = scenario_seeds(5, cols, disc, mr, 3)
    assert len(watcher.discs) == 3 * len(legal)
    for j, s in enumerate(seeds):
        key = np.uint64(stream_key(s, DOMAIN_DISC))
        want = [int(u7(np.uint64(counter_word(key, m)))) for m in range(1, 6)]
        for i in range(len(legal)):
            shown = watcher.discs[i * 3 + j]
            assert shown == want[:len(shown)]
    assert np.isfinite(labels.points[legal]).all()


def test_a_column_that_ends_the_game_lives_one_move() -> None:
    labels = label_root(load_policy("direct:leaf=linear"), DOOMED, 3, 1, 4, 40, 9)
    assert labels.lifetime[0] == 1 and labels.ended[0] == 1
    assert (labels.lifetime[1:] > 1).all() and (labels.ended[1:] < 1).any()
    # a continuation alive at the horizon counts 40 moves, one that ended at least 1
    assert (labels.lifetime <= 40).all()
    assert (labels.lifetime >= 40 * (1 - labels.ended) + labels.ended).all()
    assert labels.target("lifetime") is labels.lifetime
    with pytest.raises(ValueError, match="unknown label target"):
        labels.target("score")


def test_an_illegal_full_column_has_no_label_and_the_work_is_counted() -> None:
    cols = rows_to_cols(["0000002", "0000003", "1000004", "2000005", "3000006", "4000004",
                         "8888888"])
    labels = label_root(load_policy("direct:leaf=zero"), cols, 3, 4, 2, 5, 1)
    assert np.isnan(labels.points[6]) and np.isnan(labels.lifetime[6])
    assert np.isfinite(labels.points[:6]).all()
    assert labels.nodes > 0 and labels.leaves > 0


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="continuations must be"):
        label_root(load_policy("lowest-column"), *ROOTS[0], 0, 10, 1)
    with pytest.raises(ValueError, match="horizon must be"):
        label_roots(load_policy("lowest-column"), ROOTS, 2, 0, 1)
