"""Every sibling valued: searches expose their root values without changing a decision, and the
referee protocol's ``values`` feature asks a program for them (plain Python and ``drop7 serve``)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

from engines.drop7 import core
from engines.drop7.board import rows_to_cols
from engines.play import referee_messages as msg
from engines.play.arm_specs import ExternalSpec
from engines.play.external_policy import ExternalPolicy
from engines.play.games import play_game
from engines.play.players import Policy
from engines.play.policy import load_policy
from engines.play.rankers import offers_values, rank
from engines.play.serve import serve
from engines.search.leaf import load_leaf
from engines.search.positions import load_positions
from engines.search.searcher import Searcher

POSITIONS = load_positions()
PLAYER = Path(__file__).with_name("referee_player.py")
PLAIN = f"{sys.executable} {PLAYER}"
#: a settled board whose column 6 is full
ROWS = ["0000002", "0000003", "1000004", "2000005", "3000006", "4000004", "8888888"]


def _state(disc: int, mr: int) -> np.ndarray:
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING], state[core.ST_LEVEL] = disc, mr, 1
    return state


@pytest.mark.parametrize(("leaf", "depth"), [("linear", 1), ("linear", 2), ("zero", 2)])
def test_choose_values_is_choose_with_the_roots_values(leaf: str, depth: int) -> None:
    """One searcher choosing, one choosing with values, over the same sequence of decisions:
    the same columns, the same node, leaf and hit counts after each; the values are those
    :meth:`column_values` computes, and the choice is a best one."""
    plain, valued = Searcher(load_leaf(leaf), depth, 7), Searcher(load_leaf(leaf), depth, 7)
    fresh = Searcher(load_leaf(leaf), depth, 7)
    mirrored = 0
    for cols, disc, mr in POSITIONS[:: 1 if depth == 1 else 3]:
        choice, values = valued.choose_values(cols, disc, mr)
        assert choice == plain.choose(cols, disc, mr)
        assert np.array_equal(valued.stats, plain.stats)
        assert np.array_equal(values, fresh.column_values(cols, disc, mr))
        assert values[choice] == values.max()
        assert all(np.isneginf(values[c]) != bool(core.is_legal(cols, c)) for c in range(7))
        # the mirror image: the values reversed bit for bit, the choice mirrored
        mirror, mirror_values = valued.choose_values(cols[::-1].copy(), disc, mr)
        assert mirror == plain.choose(cols[::-1].copy(), disc, mr)
        assert np.array_equal(mirror_values, values[::-1])
        if not np.array_equal(cols, cols[::-1]):
            mirrored += 1
            assert mirror == 6 - choice
    assert mirrored >= 3


class _Ranked(Policy):
    """A player that plays through :func:`rank` (the panel's call)."""

    def __init__(self, inner: Policy) -> None:
        self.spec, self.inner = inner.spec, inner

    def new_game(self, seed: int) -> None:
        self.inner.new_game(seed)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return rank(self.inner, state, cols).choice

    def work(self):
        return self.inner.work()


@pytest.mark.parametrize("policy", ["search:leaf=linear,d=2,s=7", "direct:leaf=linear"])
def test_a_game_played_through_rank_is_the_same_game(policy: str) -> None:
    a = play_game(load_policy(policy), 3)
    b = play_game(_Ranked(load_policy(policy)), 3)
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b and a["moves"] > 5


def test_rank_gives_values_work_or_the_choice_alone() -> None:
    cols = rows_to_cols(ROWS)  # column 6 full: illegal
    state = _state(2, 3)
    direct = load_policy("direct:leaf=linear")
    r = rank(direct, state, cols)
    assert offers_values(direct) and np.isnan(r.values[6]) and np.isfinite(r.values[:6]).all()
    assert r.values[r.choice] == np.nanmax(r.values)
    assert r.nodes > 0 and r.leaves > 0
    again = rank(direct, state, cols)
    assert np.array_equal(again.values, r.values, equal_nan=True) and again.nodes == r.nodes
    base = rank(load_policy("lowest-column"), state, cols)
    assert not offers_values(load_policy("lowest-column"))
    assert base.values is None and (base.nodes, base.leaves) == (0, 0) and base.choice == 3


def test_values_lines_round_trip_and_refuse_what_is_not_one() -> None:
    values = np.array([np.nan, -1e6 + 35.0, 0.1 + 0.2, 12.0, -np.inf, 1e300, 7.5])
    line = msg.values_answer(9, values)
    assert line == "values id 9 - -999965.0 0.30000000000000004 12.0 - 1e+300 7.5"
    n, got = msg.parse_values_answer(line)
    assert n == 9 and got == [None, -999965.0, 0.1 + 0.2, 12.0, None, 1e300, 7.5]
    assert msg.parse_values_answer("values id 3 1 2 3 4 5 6 7") == (3, [1.0 * i for i in
                                                                        range(1, 8)])
    for bad in ("values id 3 1 2 3 4 5 6", "values id 3 1 2 3 4 5 6 7 8", "values 3 1 2 3 4 5 6 7",
                "values id 3 nan 2 3 4 5 6 7", "values id 3 inf 2 3 4 5 6 7",
                "values id 3 1_0 2 3 4 5 6 7", "values id -3 1 2 3 4 5 6 7", "move 3 id 3"):
        assert msg.parse_values_answer(bad) is None, bad
    assert msg.parse_values_request(msg.values_request(12)) == 12
    with pytest.raises(msg.MessageError):
        msg.parse_values_request("values 12")


def test_a_plain_python_program_gives_values_when_it_offers_them() -> None:
    """The test player (no project import) values a column by its empty cells plus 0.5."""
    cols = rows_to_cols(ROWS)
    assert not core.is_legal(cols, 6)
    state = _state(3, 4)
    valued = load_policy(f"external:{PLAIN} --values yes")
    plain = load_policy(f"external:{PLAIN}")
    try:
        assert offers_values(valued) and not offers_values(plain)
        r = rank(valued, state, cols)
        assert r.choice == 0 and (r.nodes, r.leaves) == (None, None)
        assert np.array_equal(r.values, [2.5, 6.5, 6.5, 6.5, 6.5, 6.5, np.nan], equal_nan=True)
        alone = rank(plain, state, cols)
        assert alone.choice == 0 and alone.values is None
        assert valued.value_faults == 0
    finally:
        valued.close()
        plain.close()


@pytest.mark.parametrize(("answer", "values"), [
    ("values id 1 1 2 3 4 5 6", None),  # six values
    ("values id 7 1 2 3 4 5 6 -", None),  # another request's number
    ("values id 1 1 2 3 4 5 6 7", None),  # a value for the full column 6
    ("values id 1 1 2 3 4 5 - -", None),  # no value for the legal column 5
    ("move 0 id 1", None),
    ("values id 1 1 2 3 4 5 6.25 -", [1, 2, 3, 4, 5, 6.25, np.nan]),
])
def test_a_bad_values_answer_is_logged_counted_and_gives_no_values(answer, values) -> None:
    log: list[str] = []
    ext = ExternalSpec((sys.executable, str(PLAYER), "--values", "yes", "--values-answer",
                        answer))
    policy = ExternalPolicy(ext, log=log.append)
    try:
        got = policy.column_values(_state(3, 4), rows_to_cols(ROWS))
    finally:
        policy.close()
    if values is None:
        assert got is None and policy.value_faults == 1 and len(log) == 1
        assert f"answered {answer!r} to values 1" in log[0] and "no values at this root" in log[0]
    else:
        assert np.array_equal(got, values, equal_nan=True) and not log


def test_a_surplus_line_around_values_is_a_fault_and_the_next_request_is_in_step() -> None:
    """A second answer to a ``go`` read while ``values`` is pending (and the other way round)
    is a surplus line: the request during which it was read gets no values (is illegal), and
    the next one reads its own answer."""
    cols, state = rows_to_cols(ROWS), _state(3, 4)
    want = np.array([2.5, 6.5, 6.5, 6.5, 6.5, 6.5, np.nan])
    log: list[str] = []
    ext = ExternalSpec((sys.executable, str(PLAYER), "--values", "yes", "--extra-move-at", "1"))
    policy = ExternalPolicy(ext, log=log.append)
    try:
        assert policy.choose(state, cols) == 0  # go id 1, answered twice
        assert policy.column_values(state, cols) is None  # values id 2: the surplus first
        assert (policy.value_faults, policy.surplus) == (1, 1)
        assert "wrote 'move 0 id 1' while values 2 was pending" in log[0]
        assert np.array_equal(policy.column_values(state, cols), want, equal_nan=True)
        assert policy.choose(state, cols) == 0
    finally:
        policy.close()
    log.clear()
    ext = ExternalSpec((sys.executable, str(PLAYER), "--values", "yes", "--extra-values-at",
                        "1"))
    policy = ExternalPolicy(ext, log=log.append)
    try:
        assert np.array_equal(policy.column_values(state, cols), want, equal_nan=True)
        assert policy.choose(state, cols) == -1  # go id 2: the second values answer first
        assert policy.surplus == 1 and "while go 2 was pending: a surplus line" in log[0]
        assert np.array_equal(policy.column_values(state, cols), want, equal_nan=True)
        assert policy.choose(state, cols) == 0
    finally:
        policy.close()


def _serve_lines(policy: str, lines: list[str]) -> tuple[int, list[str]]:
    out = io.StringIO()
    rc = serve(load_policy(policy), io.StringIO("\n".join(lines) + "\n"), out)
    return rc, out.getvalue().splitlines()


OPENING = "0000000/0000000/0000000/0000000/0000000/0000000/8888888"


def test_drop7_serve_answers_values_from_the_search_that_chose() -> None:
    position = f"position board {OPENING} disc 4 remaining 5 level 1 score 0"
    lines = [msg.hello_line(), msg.NEWGAME, position, "go id 1", "values id 2", "values id 3",
             msg.QUIT]
    rc, out = _serve_lines("direct:leaf=linear", lines)
    assert rc == 0 and out[:3] == ["name direct:leaf=linear", "feature values 1", "ready"]
    cols = rows_to_cols(OPENING.split("/"))
    choice, values = Searcher(load_leaf("linear"), 1, 7).choose_values(cols, 4, 5)
    assert out[3] == f"move {choice} id 1"
    assert out[4] == msg.values_answer(2, values) and out[5] == msg.values_answer(3, values)


def test_drop7_serve_of_a_baseline_offers_no_values() -> None:
    position = f"position board {OPENING} disc 4 remaining 5 level 1 score 0"
    rc, out = _serve_lines("lowest-column", [msg.hello_line(), msg.NEWGAME, position,
                                             "values id 1"])
    assert rc == 2 and out[:2] == ["name lowest-column", "ready"]
    assert out[2].startswith("error unknown message 'values id 1'")


def test_served_values_equal_the_internal_ones_exactly() -> None:
    """Through the protocol (``drop7 serve`` as a program), the values read back bit for bit."""
    served = load_policy(f"external:{sys.executable} -m cli serve --policy "
                         "direct:leaf=linear")
    internal = load_policy("direct:leaf=linear")
    try:
        assert offers_values(served)
        for cols, disc, mr in POSITIONS[:6]:
            a, b = rank(internal, _state(disc, mr), cols), rank(served, _state(disc, mr), cols)
            assert a.choice == b.choice
            assert np.array_equal(a.values, b.values, equal_nan=True)
    finally:
        served.close()
