"""Whole games, the sharded runner and its merge: counts, shard invariance, atomic files."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from contracts.games_table import GAMES_COLUMNS, read_rows, write_rows
from engines.drop7 import core
from engines.play import games
from engines.play.games import play_game
from engines.play.players import Policy
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_arm, parse_policy
from engines.play.runner import (
    RunError,
    merge_shards,
    parse_seeds,
    parse_shard,
    run_shard,
    shard_games,
)

ARMS = [parse_arm("rand=random"), parse_arm("direct=direct:leaf=linear"),
        parse_arm("d2=search:leaf=zero,d=2,s=2")]
START, COUNT = 11, 5


def _strip(rows: list[dict]) -> list[tuple]:
    """Rows as text without wall time (the only field allowed to differ)."""
    return [tuple(str(r[k]) for k in GAMES_COLUMNS if k != "wall_s") for r in rows]


class _Scripted(Policy):
    """A test policy returning scripted columns, then raising, then centre-first."""

    def __init__(self, script: list) -> None:
        self.spec = parse_policy("centre-first")
        self.script = list(script)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, Exception):
                raise step
            return step
        return games.centre_first(cols)


def test_baseline_fast_path_equals_the_decision_loop() -> None:
    for name in ("random", "centre-first", "lowest-column"):
        fast = play_game(load_policy(name), 7)

        class Slow(Policy):
            def __init__(self, inner: Policy) -> None:
                self.spec, self.inner = inner.spec, inner

            def new_game(self, seed: int) -> None:
                self.inner.new_game(seed)

            def choose(self, state, cols) -> int:
                return self.inner.choose(state, cols)

        slow = play_game(Slow(load_policy(name)), 7)
        fast.pop("wall_s"), slow.pop("wall_s")
        # a baseline searches nothing (0); a player that reports no work leaves them empty
        assert (fast.pop("nodes"), fast.pop("leaves")) == (0, 0)
        assert (slow.pop("nodes"), slow.pop("leaves")) == ("", "")
        assert fast == slow
        assert fast["decisions"] == fast["moves"] > 0


def test_a_search_game_counts_its_own_nodes_and_leaves() -> None:
    text = "search:leaf=linear,d=2,s=3"
    shared = load_policy(text)
    shared.warm_up()
    together = [play_game(shared, seed) for seed in (3, 4)]
    alone = [play_game(load_policy(text), seed) for seed in (3, 4)]
    for a, b in zip(together, alone, strict=True):
        assert a["nodes"] == b["nodes"] > a["decisions"] > 0  # per game, not cumulative
        assert a["leaves"] == b["leaves"] > 0


def test_illegal_and_failed_decisions_are_counted_and_the_game_goes_on() -> None:
    messages: list[str] = []
    # the opening board is legal everywhere: 9 is off the board, -1 too; then an error
    row = play_game(_Scripted([9, -1, RuntimeError("boom"), 3]), 5, log=messages.append)
    reference = play_game(_Scripted([3, 3, 3, 3]), 5)
    assert row["illegal"] == 2 and row["unfinished"] == 1
    assert row["decisions"] == row["moves"]
    assert row["moves"] == reference["moves"] and row["score"] == reference["score"]
    assert any("boom" in m for m in messages)


class _Tallest(Policy):
    """Always the tallest column, full or not (a full column is illegal)."""

    spec = parse_policy("centre-first")

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return int(np.argmax([core.col_height(w) for w in cols]))


def test_a_full_column_is_illegal() -> None:
    rows = [play_game(_Tallest(), seed) for seed in range(1, 6)]
    assert sum(r["illegal"] for r in rows) >= 1
    assert all(r["decisions"] == r["moves"] and r["unfinished"] == 0 for r in rows)


def test_budget_overruns_count_as_unfinished_but_change_nothing() -> None:
    base = play_game(load_policy("direct:leaf=zero"), 4)
    tight = play_game(load_policy("direct:leaf=zero"), 4, budget_s=1e-12)
    assert tight["unfinished"] == tight["decisions"] > 0
    assert (tight["score"], tight["moves"]) == (base["score"], base["moves"])


def test_shards_merge_to_the_same_table_for_every_k(tmp_path) -> None:
    tables = {}
    for shards in (1, 2, 3):
        paths = []
        for k in range(1, shards + 1):
            rows = run_shard(ARMS, START, COUNT, k, shards, progress_s=-1)
            path = tmp_path / f"k{shards}-{k}.csv"
            write_rows(rows, path)
            paths.append(path)
        tables[shards] = merge_shards(paths[::-1], (START, COUNT))  # any file order
    assert _strip(tables[1]) == _strip(tables[2]) == _strip(tables[3])
    rows = tables[1]
    assert [r["arm"] for r in rows] == [a.name for a in ARMS for _ in range(COUNT)]
    assert [int(r["seed"]) for r in rows[:COUNT]] == list(range(START, START + COUNT))
    assert [int(r["game"]) for r in rows[:COUNT]] == list(range(COUNT))
    assert {r["policy"] for r in rows} == {a.policy for a in ARMS}
    assert all(int(r["decisions"]) == int(r["moves"]) for r in rows)


def test_workers_give_the_same_rows() -> None:
    one = run_shard(ARMS[:2], START, 3, progress_s=-1)
    two = run_shard(ARMS[:2], START, 3, workers=2, progress_s=-1)
    assert _strip(one) == _strip(two)


def test_paired_games_share_the_seed_stream() -> None:
    rows = run_shard([parse_arm("a=random"), parse_arm("b=random")], 1, 3, progress_s=-1)
    assert _strip(rows[:3]) == [("a",) + t[1:] for t in _strip(rows[3:])]


def test_merge_refuses_missing_duplicate_or_foreign_shards(tmp_path) -> None:
    arms = ARMS[:1]
    paths = []
    for k in (1, 2, 3):
        path = tmp_path / f"s{k}.csv"
        write_rows(run_shard(arms, START, COUNT, k, 3, progress_s=-1), path)
        paths.append(path)
    with pytest.raises(RunError, match="missing"):
        merge_shards(paths[:2], (START, COUNT))
    with pytest.raises(RunError, match="appears twice"):
        merge_shards([paths[0], paths[0], paths[1], paths[2]])
    with pytest.raises(RunError, match="seed block"):
        merge_shards(paths, (START + 1, COUNT))
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(RunError, match="not a games table"):
        merge_shards([bad])


def test_write_is_atomic_and_readable(tmp_path) -> None:
    path = tmp_path / "sub" / "games.csv"
    rows = run_shard([parse_arm("c=centre-first")], 1, 2, progress_s=-1)
    write_rows(rows, path)
    assert [p.name for p in path.parent.iterdir()] == ["games.csv"]  # no temporary left
    with open(path, newline="") as fh:
        assert tuple(next(csv.reader(fh))) == GAMES_COLUMNS
    assert len(read_rows(path)) == 2

    class Boom:
        def __iter__(self):
            yield rows[0]
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_rows(Boom(), path)
    assert len(read_rows(path)) == 2  # the old file is untouched
    assert [p.name for p in path.parent.iterdir()] == ["games.csv"]


@pytest.mark.parametrize(("text", "message"), [
    ("x", "NAME=POLICY"), ("=random", "arm name"), ("a b=random", "arm name"),
    ("a=nope", "unknown policy"),
])
def test_bad_arms(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_arm(text)


def test_seed_and_shard_parsing() -> None:
    assert parse_seeds("1:64") == (1, 64)
    assert parse_shard("2/3") == (2, 3)
    for bad in ("1", "1:0", "-1:3", "a:b", "1:2:3"):
        with pytest.raises(RunError):
            parse_seeds(bad)
    for bad in ("0/2", "3/2", "1", "a/b", "1/0"):
        with pytest.raises(RunError):
            parse_shard(bad)
    assert list(shard_games(7, 2, 3)) == [1, 4]
    assert sorted(g for k in (1, 2, 3) for g in shard_games(7, k, 3)) == list(range(7))


def test_duplicate_arm_names_are_refused() -> None:
    with pytest.raises(RunError, match="twice"):
        run_shard([parse_arm("a=random"), parse_arm("a=centre-first")], 1, 1, progress_s=-1)


def test_a_game_that_fails_outside_the_policy_keeps_its_row(monkeypatch) -> None:
    calls = {"n": 0}
    real = core.advance

    def flaky(*args):
        calls["n"] += 1
        if calls["n"] == 4:
            raise RuntimeError("engine hiccup")
        return real(*args)

    monkeypatch.setattr(games.core, "advance", flaky)
    messages: list[str] = []
    row = play_game(load_policy("direct:leaf=zero"), 9, log=messages.append)
    assert row["moves"] == 3 and row["unfinished"] == 1
    assert any("stopped early" in m for m in messages)
