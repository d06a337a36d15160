"""The fast core against the readable rules: property tests and a bulk cross-check."""

from __future__ import annotations

import numpy as np
from engine_cases import assert_twins_agree, random_grid
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.drop7 import baselines, core, rules


@st.composite
def positions(draw):
    """A random bottom-packed board, a legal column, a disc and reveal values."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    grid = random_grid(rng, grey_share=draw(st.floats(0.0, 0.9)),
                       max_height=draw(st.integers(0, 7)))
    legal = [c for c in range(7) if grid[0][c] == 0]
    if not legal:
        grid[0][0] = 0
        grid = [row[:] for row in grid]
        for r in range(6, -1, -1):  # make column 0 legal by emptying its top
            if grid[r][0] == 0:
                break
        legal = [0]
    column = draw(st.sampled_from(legal))
    disc = draw(st.integers(1, 7))
    mr = draw(st.integers(1, 5))
    reveals = np.array(draw(st.lists(st.integers(1, 7), min_size=60, max_size=60)),
                       dtype=np.int64)
    return grid, mr, column, disc, reveals


@settings(max_examples=400, deadline=None)
@given(positions())
def test_one_move_agrees(case):
    grid, mr, column, disc, reveals = case
    assert_twins_agree(grid, mr, column, disc, reveals)


def _play_bulk(seed: int, target_moves: int) -> dict:
    """Random games from random and opening positions, both twins move by move."""
    rng = np.random.default_rng(seed)
    events = dict(moves=0, clears=0, rises=0, rise_cascades=0, double_hits=0, reveals=0,
                  game_overs=0, deep_chains=0)
    while events["moves"] < target_moves:
        if rng.random() < 0.5:
            grid = random_grid(rng, grey_share=float(rng.random() * 0.6),
                               max_height=int(rng.integers(1, 6)))
        else:
            grid = rules.Position().grid
        mr = int(rng.integers(1, 6))
        for _ in range(200):
            legal = [c for c in range(7) if grid[0][c] == 0]
            if not legal:
                break
            column = int(rng.choice(legal))
            disc = int(rng.integers(1, 8))
            reveals = rng.integers(1, 8, size=100).astype(np.int64)
            position = rules.Position(grid=[row[:] for row in grid], moves_remaining=mr)
            result = assert_twins_agree(grid, mr, column, disc, reveals)
            rules.play(position, column, disc, iter(reveals.tolist()).__next__)
            events["moves"] += 1
            events["clears"] += result.cleared
            events["rises"] += result.rose
            events["rise_cascades"] += result.rise_waves > 0
            events["double_hits"] += result.double_hits
            events["reveals"] += result.revealed
            events["deep_chains"] += result.waves >= 4
            if result.game_over:
                events["game_overs"] += 1
                break
            grid, mr = position.grid, position.moves_remaining
    return events


def test_bulk_random_moves_agree():
    """At least 100,000 random moves, covering every rare event."""
    events = _play_bulk(seed=20261130, target_moves=100_000)
    assert events["moves"] >= 100_000
    for name in ("clears", "rises", "rise_cascades", "double_hits", "reveals", "game_overs",
                 "deep_chains"):
        assert events[name] > 0, f"no {name} in {events}"


def _run(grid, mr, column, disc, reveals=(1,) * 20):
    return assert_twins_agree(grid, mr, column, disc, np.array(reveals, dtype=np.int64))


def _grid(rows):
    return [[int(ch) for ch in row] for row in rows]


def test_board_clear_pays_70000():
    grid = _grid(["0000000"] * 7)
    result = _run(grid, 3, 3, 1)  # a lone 1 pops: run 1, height 1
    assert result.cleared and result.points == 7 + 70_000


def test_double_hit_reveals_solid_grey():
    # A 2 dropped right of a solid grey: both 2s pop (column height 2), the grey
    # between them takes two hits and is revealed; the greys below crack.
    grid = _grid(["0000000"] * 5 + ["0280000", "8888888"])
    result = _run(grid, 3, 3, 2, reveals=(4,))
    assert result.double_hits == 1 and result.revealed == 1


def test_rise_cascade_continues_chain_depth():
    # A 7 in a column of height 6: the rise makes the column 7 tall and it pops at depth 1.
    grid = _grid(["0000000", "7000000", "8000000", "8000000", "8000000", "8000000",
                  "8000000"])
    result = _run(grid, 1, 6, 3)  # drop elsewhere (no pop), countdown hits 0
    assert result.rose and result.rise_waves >= 1
    assert result.points >= 17_000 + 7


def test_game_over_when_rise_meets_full_top_row():
    grid = _grid(["0000008", "0000008", "0000008", "0000008", "0000008", "0000008",
                  "0000008"])
    result = _run(grid, 1, 0, 5)
    assert result.game_over and not result.rose and result.points == 0


def test_censoring_after_2000_moves():
    seed = np.uint64(7)
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    core.new_game(seed, state, cols)
    state[core.ST_MOVES_PLAYED] = 1998
    for _ in range(2):
        assert not core.finished(state)
        column = baselines.baseline_choice(baselines.POLICY_CENTRE_FIRST, seed, state, cols)
        core.advance(seed, column, state, cols, scratch, out)
    assert state[core.ST_CENSORED] == 1 and state[core.ST_GAME_OVER] == 0
    assert state[core.ST_MOVES_PLAYED] == 2000 and core.finished(state)


def test_seeded_games_agree_with_readable_rules():
    """Whole seeded games (the settled-board fast path) against the readable rules."""
    from engines.drop7 import rng
    from engines.drop7.board import unpack

    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    moves = 0
    for policy in (baselines.POLICY_RANDOM, baselines.POLICY_CENTRE_FIRST,
                   baselines.POLICY_LOWEST_COLUMN):
        for seed in np.arange(1, 301, dtype=np.uint64):
            core.new_game(seed, state, cols)
            position = rules.Position()
            while not core.finished(state):
                m = int(state[core.ST_MOVES_PLAYED])
                key = np.uint64(rng.reveal_key(seed, m))
                draws = iter(range(100))
                column = int(baselines.baseline_choice(policy, seed, state, cols))
                result = rules.play(position, column, int(state[core.ST_NEXT_DISC]),
                                    lambda d=draws, k=key: int(rng.reveal_value(k, next(d))))
                core.advance(seed, column, state, cols, scratch, out)
                moves += 1
                assert unpack(cols).tolist() == position.grid
                assert state[core.ST_SCORE] == position.score
                assert out[core.OUT_WAVES] == result.waves
                assert bool(state[core.ST_GAME_OVER]) == position.game_over
            assert state[core.ST_LEVEL] == position.level
    assert moves > 10_000
