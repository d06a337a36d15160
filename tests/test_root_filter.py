"""The survival root filter: its kernel against its readable twin, the fallback, the search over
the columns it leaves, the grammar's ``f=`` and the games table's counts."""

from __future__ import annotations

import numpy as np
import pytest

from engines.drop7 import core
from engines.drop7.board import rows_to_cols, unpack
from engines.drop7.nibbles import legal_mask
from engines.filters.root import refusals
from engines.filters.survival import survival_refused
from engines.filters.survival_ref import refused_columns
from engines.play.arm_specs import PolicyError, SearchSpec
from engines.play.games import play_game
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_policy
from engines.play.positions import game_states
from engines.play.rankers import rank
from engines.search.leaf import load_leaf
from engines.search.searcher import Searcher
from engines.search.stats import STAT_LEN


def _random_board(rng: np.random.Generator) -> np.ndarray:
    """A bottom-packed board of random heights 0..7 and cells 1..9 (numbered and grey)."""
    grid = np.zeros((7, 7), dtype=np.int64)
    for c in range(7):
        h = int(rng.integers(0, 8))
        for k in range(h):
            grid[6 - k, c] = int(rng.integers(1, 10))
    rows = ["".join(str(v) for v in row) for row in grid]
    return rows_to_cols(rows)


def _mask(columns: list[int]) -> int:
    return sum(1 << c for c in columns)


def _twin(cols: np.ndarray, disc: int) -> int:
    return _mask(refused_columns([list(map(int, r)) for r in unpack(cols)], disc))


def test_kernel_equals_twin_on_random_boards() -> None:
    rng = np.random.default_rng(20261206)
    refused_some = 0
    for _ in range(3000):
        cols = _random_board(rng)
        for disc in range(1, 8):
            got = int(survival_refused(cols, disc))
            assert got == _twin(cols, disc), (unpack(cols).tolist(), disc)
            refused_some += got != 0
    assert refused_some > 500  # the rule bites on these boards: the check is not vacuous


def test_kernel_equals_twin_on_game_positions() -> None:
    policy = load_policy("lowest-column")
    states = [s for seed in range(1, 6) for s in game_states(seed, policy)]
    assert len(states) > 50
    assert any(survival_refused(cols, disc) for cols, disc, _ in states)
    for cols, disc, _ in states:
        assert int(survival_refused(cols, disc)) == _twin(cols, disc)


def test_the_strict_rule_by_hand() -> None:
    # columns 0-2 are 4 high, column 3 is 3 high: a 3 lands there 4th (vertically dead) on a
    # row run of 4 > 3: refused; on columns 0-2 it lands 5th but alone in its row: kept; a 4
    # lands 4th in column 3, not above its height: kept
    rows = ["0000000", "0000000", "0000000", "1110000", "1111000", "8888000", "8888888"]
    cols = rows_to_cols(rows)
    assert int(survival_refused(cols, 3)) == _mask([3])
    assert int(survival_refused(cols, 4)) == 0
    assert int(survival_refused(cols, 2)) == 0  # values 1 and 2 are never refused


def test_every_column_refused_stands_aside() -> None:
    # every column full but column 3, 4 high: a 3 lands 5th there on a row run of 7
    rows = ["8880888"] * 3 + ["8888888"] * 4
    cols = rows_to_cols(rows)
    assert int(survival_refused(cols, 3)) == int(legal_mask(cols)) == 0b1000
    assert refusals("survival", cols, 3) == 0  # the root is never left without a move
    some = rows_to_cols(["0000000", "0000000", "0000000", "1110000", "1111000", "8888000",
                         "8888888"])
    assert refusals("survival", some, 3) == int(survival_refused(some, 3)) == 0b1000


@pytest.mark.parametrize("depth", [1, 2])
def test_the_search_ranks_only_the_columns_left(depth: int) -> None:
    leaf = load_leaf("linear")
    free_search, filtered, values = (Searcher(leaf, depth, 3) for _ in range(3))
    rng = np.random.default_rng(7)
    changed = 0
    for _ in range(120):
        cols = _random_board(rng)
        if not legal_mask(cols):
            continue
        disc, left = int(rng.integers(3, 8)), int(rng.integers(1, 6))
        refused = refusals("survival", cols, disc)
        chosen, free = filtered.choose_among(cols, disc, left, refused)
        assert free == free_search.choose(cols, disc, left)
        row = values.column_values(cols, disc, left)
        allowed = [c for c in range(7) if np.isfinite(row[c]) and not refused >> c & 1]
        assert chosen in allowed
        assert row[chosen] == max(row[c] for c in allowed)
        if not refused >> free & 1:
            assert chosen == free
        changed += chosen != free
    assert changed > 0


def test_nothing_refused_is_the_search_bit_for_bit() -> None:
    leaf = load_leaf("linear")
    plain, among = Searcher(leaf, 2, 3), Searcher(leaf, 2, 3)
    rng = np.random.default_rng(11)
    for _ in range(60):
        cols, disc = _random_board(rng), int(rng.integers(1, 8))
        assert among.choose_among(cols, disc, 3, 0) == (plain.choose(cols, disc, 3),) * 2
    assert plain.stats.shape == (STAT_LEN,) and (plain.stats == among.stats).all()


def test_the_grammar_names_the_filter_last_and_only_when_given() -> None:
    spec = parse_policy("search:f=survival,s=5,leaf=linear,d=4")
    assert isinstance(spec, SearchSpec) and spec.filter == "survival"
    assert spec.format() == "search:leaf=linear,d=4,s=5,f=survival"
    assert parse_policy("direct:leaf=linear,r=2,f=survival").format() == (
        "direct:leaf=linear,r=2,f=survival")
    assert parse_policy("search:leaf=linear,d=4,s=5").filter is None
    assert parse_policy("search:leaf=linear,d=4,s=5").format() == "search:leaf=linear,d=4,s=5"
    with pytest.raises(PolicyError, match="unknown root filter f='entomb'"):
        parse_policy("search:leaf=linear,f=entomb")


def test_games_count_what_the_filter_did() -> None:
    plain = load_policy("direct:leaf=linear,s=3")
    filtered = load_policy("direct:leaf=linear,s=3,f=survival")
    seen_change = False
    for seed in (3, 4, 5):
        a, b = play_game(plain, seed), play_game(filtered, seed)
        assert a["filter_applied"] == a["filter_changed"] == ""
        assert 0 <= b["filter_changed"] <= b["filter_applied"] <= b["decisions"]
        if b["filter_changed"] == 0:  # never overridden: the very same game
            assert b["trajectory"] == a["trajectory"]
        seen_change |= b["filter_changed"] > 0
    assert seen_change
    assert play_game(load_policy("lowest-column"), 3)["filter_applied"] == ""


def test_a_ranker_refuses_a_filtered_policy() -> None:
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    with pytest.raises(PolicyError, match="a ranker values every legal column"):
        rank(load_policy("direct:leaf=linear,s=3,f=survival"), state,
             rows_to_cols(["0000000"] * 6 + ["8888888"]))
