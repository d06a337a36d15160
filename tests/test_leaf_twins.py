"""The numba leaf equals its readable twin, bit for bit, on random legal boards."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.drop7 import core
from engines.drop7.board import pack, unpack
from engines.leaves import linear, linear_ref
from engines.leaves.kinds import N_TERMS

CODES = {
    "any": list(range(1, 10)),
    "low": [1, 1, 2, 2, 2, 3, 8, 9],  # many 1s and 2s: pairs of ones, runs of twos
    "numbered": list(range(1, 8)),
}


@st.composite
def packed_grids(draw) -> np.ndarray:
    """A bottom-packed 7x7 grid (row 0 on top) with random heights and codes."""
    alphabet = CODES[draw(st.sampled_from(sorted(CODES)))]
    grid = np.zeros((7, 7), dtype=np.int8)
    for c in range(7):
        column = draw(st.lists(st.sampled_from(alphabet), max_size=7))
        for k, code in enumerate(column):
            grid[6 - k, c] = code
    return grid


def game_state(seed: int, policy: int, moves: int) -> tuple[np.ndarray, int, int]:
    """The public state after up to ``moves`` moves of a baseline policy on game ``seed``."""
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    core.new_game(np.uint64(seed), state, cols)
    for _ in range(moves):
        before = cols.copy(), int(state[core.ST_MOVES_REMAINING]), int(state[core.ST_NEXT_DISC])
        column = core.baseline_choice(policy, np.uint64(seed), state, cols)
        core.advance(np.uint64(seed), column, state, cols, scratch, out)
        if core.finished(state):
            return before  # the leaf never scores a finished game
    return cols, int(state[core.ST_MOVES_REMAINING]), int(state[core.ST_NEXT_DISC])


def assert_twins_agree(cols: np.ndarray, moves_remaining: int, next_disc: int) -> list[float]:
    """Terms and values of both twins are identical (as float64 bit patterns)."""
    ref = linear_ref.linear_terms(unpack(cols).tolist(), moves_remaining, next_disc)
    fast = np.zeros(N_TERMS)
    linear.linear_terms(cols, moves_remaining, next_disc, fast)
    assert fast.tolist() == ref, (unpack(cols), moves_remaining, next_disc)
    w = linear.FAIR_WEIGHTS
    value = linear.linear_value(cols, moves_remaining, next_disc, w)
    assert value == linear_ref.linear_value(ref, w.tolist())
    split = (linear.linear_value_no_disc(cols, moves_remaining, w)
             + w[17] * linear.next_disc_term(cols, next_disc))
    assert split == value
    return ref


@settings(max_examples=300, deadline=None)
@given(packed_grids(), st.integers(1, 5), st.integers(1, 7))
def test_twins_agree_on_random_packed_grids(grid, moves_remaining, next_disc):
    assert_twins_agree(pack(grid), moves_remaining, next_disc)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**63 - 1), st.sampled_from([core.POLICY_RANDOM, core.POLICY_CENTRE_FIRST,
                                                   core.POLICY_LOWEST_COLUMN]),
       st.integers(0, 120))
def test_twins_agree_on_boards_from_real_games(seed, policy, moves):
    cols, mr, disc = game_state(seed, policy, moves)
    assert_twins_agree(cols, mr, disc)


@settings(max_examples=100, deadline=None)
@given(packed_grids(), st.integers(1, 5), st.integers(1, 7),
       st.lists(st.floats(-1e4, 1e4), min_size=N_TERMS, max_size=N_TERMS))
def test_value_is_the_weighted_sum_in_table_order(grid, moves_remaining, next_disc, weights):
    cols = pack(grid)
    w = np.array(weights)
    terms = np.zeros(N_TERMS)
    linear.linear_terms(cols, moves_remaining, next_disc, terms)
    expected = 0.0
    for wi, ti in zip(w.tolist(), terms.tolist(), strict=True):
        expected += wi * ti
    assert linear.linear_value(cols, moves_remaining, next_disc, w) == expected


def test_every_term_is_exercised():
    """The random boards above reach every term (so the property tests test them all)."""
    rng = np.random.default_rng(7)
    seen = np.zeros(N_TERMS, dtype=bool)
    for n in range(400):
        grid = np.zeros((7, 7), dtype=np.int8)
        alphabet = CODES[sorted(CODES)[n % 3]]
        for c in range(7):
            for k in range(rng.integers(0, 8)):
                grid[6 - k, c] = rng.choice(alphabet)
        terms = assert_twins_agree(pack(grid), int(rng.integers(1, 6)), int(rng.integers(1, 8)))
        seen |= np.array(terms) != 0
    assert seen.all(), [name for name, s in zip(linear.TERM_NAMES, seen, strict=True) if not s]


def test_batch_kernels_match_single_calls():
    states = [game_state(seed, core.POLICY_RANDOM, 25) for seed in range(1, 30)]
    boards = np.array([s[0] for s in states])
    mrs = np.array([s[1] for s in states], dtype=np.int64)
    discs = np.array([s[2] for s in states], dtype=np.int64)
    terms = np.zeros((len(states), N_TERMS))
    values = np.zeros(len(states))
    linear.linear_terms_many(boards, mrs, discs, terms)
    linear.linear_values_many(boards, mrs, discs, linear.FAIR_WEIGHTS, values)
    for n, (cols, mr, disc) in enumerate(states):
        one = np.zeros(N_TERMS)
        linear.linear_terms(cols, mr, disc, one)
        assert terms[n].tolist() == one.tolist()
        assert values[n] == linear.linear_value(cols, mr, disc, linear.FAIR_WEIGHTS)
