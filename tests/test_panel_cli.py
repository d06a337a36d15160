"""``drop7 panel roots|rank|label|merge``: roots are the games' own states, checked against the
games table; shards merge to the same bytes for any count; bad input is one line, exit 2."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from contracts.errors import InputError
from contracts.games_table import read_rows as read_games
from contracts.games_table import write_rows as write_games
from contracts.hashing import file_sha256
from contracts.panel_roots import (
    STATE_FIELDS,
    RootsError,
    board_rows,
    check_roots,
    read_roots,
)
from contracts.panel_table import OUTCOME_REFERENCE, read_rows
from engines.drop7 import core
from engines.drop7.board import cols_to_rows
from engines.play.panel import game_roots
from engines.play.panel_cli import load_roots, merge_rows
from engines.play.policy import load_policy

POLICY = "search:leaf=linear,d=1,s=3"
SEEDS = (5, 3)
EVERY = 7
PLAYER = Path(__file__).with_name("referee_player.py")


def drop7(*argv: str) -> int:
    return main(["panel", *map(str, argv)])


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """Roots of three short games of a cheap search, and those games' table."""
    d = tmp_path_factory.mktemp("panel-cli")
    assert main(["play", "--policy", POLICY, "--seeds", f"{SEEDS[0]}:{SEEDS[1]}", "--out",
                 str(d / "games.csv"), "--progress-s", "-1"]) == 0
    assert drop7("roots", "--policy", POLICY, "--seeds", f"{SEEDS[0]}:{SEEDS[1]}", "--every",
                 EVERY, "--games", d / "games.csv", "--out", d / "roots.json") == 0
    return d


def test_the_state_fields_are_the_engines() -> None:
    assert len(STATE_FIELDS) == core.ST_LEN
    for i, name in enumerate(STATE_FIELDS):
        assert getattr(core, f"ST_{name.upper()}") == i, name


def test_roots_are_game_roots_and_checked_against_the_games(work) -> None:
    doc = read_roots(work / "roots.json")
    assert (doc["policy"], doc["seeds"], doc["every"], doc["limit"]) == (POLICY, list(SEEDS),
                                                                          EVERY, None)
    assert doc["games_sha256"] == file_sha256(work / "games.csv")
    mine = load_roots(str(work / "roots.json"))
    theirs = game_roots(load_policy(POLICY), range(SEEDS[0], sum(SEEDS)), EVERY)
    assert len(mine) == len(theirs) > SEEDS[1]
    for a, b in zip(mine, theirs, strict=True):
        assert (a.game, a.root) == (b.game, b.root)
        assert np.array_equal(a.cols, b.cols) and np.array_equal(a.state, b.state)
        assert a.cols.dtype == b.cols.dtype and a.state.dtype == b.state.dtype
    # --limit keeps the first roots and plays no game past them
    out = work / "limited.json"
    assert drop7("roots", "--policy", POLICY, "--seeds", "5:3", "--every", EVERY, "--limit", 4,
                 "--out", out) == 0
    limited = read_roots(out)
    assert limited["limit"] == 4 and limited["roots"] == doc["roots"][:4]


def test_board_rows_are_the_engines_board(work) -> None:
    drawn = {".": "0", "#": "8", "+": "9", **{str(v): str(v) for v in range(1, 8)}}
    seen = set()
    for entry in read_roots(work / "roots.json")["roots"]:
        rows = board_rows(entry["cols"])
        engine = cols_to_rows(np.array(entry["cols"], dtype=np.int64))
        assert ["".join(drawn[ch] for ch in row) for row in rows] == engine
        seen |= set("".join(rows))
    assert {".", "#"} <= seen and seen & set("1234567")  # real boards: numbers, greys, space


def _tamper(src: Path, dst: Path, seed: int, key: str, value: str) -> None:
    rows = read_games(src)
    for row in rows:
        if int(row["seed"]) == seed:
            row[key] = value
    write_games(rows, dst)


@pytest.mark.parametrize("key,value", [("score", "1"), ("moves", "3"),
                                       ("trajectory", "0" * 64)])
def test_roots_refuse_a_game_the_table_does_not_hold(work, capsys, key, value) -> None:
    bad, out = work / f"tampered-{key}.csv", work / f"never-{key}.json"
    _tamper(work / "games.csv", bad, 6, key, value)
    assert drop7("roots", "--policy", POLICY, "--seeds", "5:3", "--every", EVERY, "--games", bad,
                 "--out", out) == 2
    err = one_error(capsys)
    assert f"{bad}: seed 6: the replayed game" in err
    assert not out.exists()


def test_roots_refuse_a_table_without_the_policy_or_the_seed(work, capsys) -> None:
    out = work / "never.json"
    assert drop7("roots", "--policy", "search:leaf=linear,d=2,s=3", "--seeds", "5:3", "--games",
                 work / "games.csv", "--out", out) == 2
    assert "no row of policy 'search:leaf=linear,d=2,s=3'" in one_error(capsys)
    assert drop7("roots", "--policy", POLICY, "--seeds", "5:4", "--every", EVERY, "--games",
                 work / "games.csv", "--out", out) == 2
    assert f"{work / 'games.csv'}: seed 8: no row of policy" in one_error(capsys)
    assert not out.exists()


def _merged(work: Path, name: str, action: list[str], shards: int, tag: str) -> bytes:
    parts = []
    for k in range(1, shards + 1):
        part = work / tag / f"shard-{k}-of-{shards}.csv"
        assert drop7(*action, "--roots", work / "roots.json", "--shard", f"{k}/{shards}",
                     "--out", part) == 0
        parts.append(part)
    out = work / tag / f"panel-{shards}.csv"
    assert drop7("merge", "--rankers", name, "--roots", work / "roots.json", "--out", out,
                 *parts) == 0
    return out.read_bytes()


RANK = ["rank", "--ranker", "d2=search:leaf=linear,d=2,s=3"]
LABEL = ["label", "--name", OUTCOME_REFERENCE, "--policy", "direct:leaf=linear",
         "--continuations", "2", "--horizon", "4", "--target", "points", "--seed", "0x7"]


@pytest.mark.parametrize("name,action", [("d2", RANK), (OUTCOME_REFERENCE, LABEL)],
                         ids=["rank", "label"])
def test_shards_merge_to_the_same_bytes(work, name, action) -> None:
    tables = {k: _merged(work, name, action, k, f"{name}-{k}") for k in (1, 2, 3)}
    assert tables[1] == tables[2] == tables[3]
    rows = read_rows(work / f"{name}-1" / "panel-1.csv")
    roots = read_roots(work / "roots.json")["roots"]
    assert [(int(r["game"]), int(r["root"])) for r in rows] == [(e["game"], e["root"])
                                                                for e in roots]
    assert all(r["ranker"] == name and r["v3"] for r in rows[:1])


def test_merge_orders_rankers_and_refuses_missing_duplicate_and_unknown(work, capsys) -> None:
    d = work / "merge"
    for name, policy in (("d1", POLICY), ("low", "lowest-column")):
        for k in (1, 2):
            assert drop7("rank", "--ranker", f"{name}={policy}", "--roots", work / "roots.json",
                         "--shard", f"{k}/2", "--out", d / f"{name}-{k}.csv") == 0
    parts = [d / "low-2.csv", d / "d1-1.csv", d / "low-1.csv", d / "d1-2.csv"]
    assert drop7("merge", "--rankers", "low,d1", "--out", d / "panel.csv", *parts) == 0
    rows = read_rows(d / "panel.csv")
    keys = [(int(r["game"]), int(r["root"])) for r in rows]
    assert keys == sorted(keys) and [r["ranker"] for r in rows[:4]] == ["low", "d1"] * 2
    out = d / "never.csv"
    assert drop7("merge", "--rankers", "low,d1", "--out", out, *parts[:3]) == 2
    assert "ranker d1: no row at game" in one_error(capsys)
    assert drop7("merge", "--rankers", "low,d1", "--out", out, *parts, parts[1]) == 2
    assert f"{parts[1]}: line 2: game" in (err := one_error(capsys)) and "given twice" in err
    assert drop7("merge", "--rankers", "d1", "--out", out, *parts) == 2
    assert "ranker 'low' is not one of --rankers" in one_error(capsys)
    assert not out.exists()
    roots = [(e["game"], e["root"]) for e in read_roots(work / "roots.json")["roots"]]
    with pytest.raises(InputError, match=r"^r\.json: game 99 root 0: no ranker ranks it"):
        merge_rows([str(p) for p in parts], ["low", "d1"], [*roots, (99, 0)], "r.json")
    with pytest.raises(InputError, match=r"^r\.json: game 5 root 0: ranked, but not a root"):
        merge_rows([str(p) for p in parts], ["low", "d1"], roots[1:], "r.json")


def _broken(doc: dict, change) -> dict:
    doc = json.loads(json.dumps(doc))
    change(doc)
    return doc


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(format="x"), r"format: expected"),
    (lambda d: d.pop("every"), r"every: missing key"),
    (lambda d: d.update(seeds=[5, 0]), r"seeds: must be"),
    (lambda d: d.update(limit=1), r"roots: \d+ roots, above the limit 1"),
    (lambda d: d["roots"][1].update(game=99), r"roots\[1\]\.game: 99 is not one of the seeds"),
    (lambda d: d["roots"][1].update(root=3), r"roots\[1\]\.root: 3 is not a decision index"),
    (lambda d: d["roots"][1]["cols"].__setitem__(2, 0xA), r"roots\[1\]\.cols\[2\]: 10 holds"),
    (lambda d: d["roots"][1]["cols"].__setitem__(2, 0x80), r"roots\[1\]\.cols\[2\]: 128 has an "
     r"empty cell under a disc"),
    (lambda d: d["roots"][1]["state"].pop("level"), r"roots\[1\]\.state: must have exactly"),
    (lambda d: d["roots"][1]["state"].update(score=-1), r"roots\[1\]\.state\.score: -1"),
    (lambda d: d["roots"][1]["state"].update(moves_played=0), r"roots\[1\]\.state\.moves_played"),
    (lambda d: d["roots"].insert(0, d["roots"][1]), r"roots\[1\]: game 5 root 0 is out of"),
])
def test_a_bad_roots_file_is_one_line_naming_the_key(work, change, message) -> None:
    doc = read_roots(work / "roots.json")
    assert check_roots(_broken(doc, lambda d: None), "roots.json") == doc
    with pytest.raises(RootsError, match=r"^roots\.json: " + message):
        check_roots(_broken(doc, change), "roots.json")


def test_rank_and_label_refuse_bad_input_in_one_line(work, capsys) -> None:
    bad = work / "bad-roots.json"
    bad.write_text("{", encoding="utf-8")
    out = work / "never.csv"
    assert drop7("rank", "--ranker", "d1=" + POLICY, "--roots", bad, "--out", out) == 2
    assert f"{bad}: not JSON" in one_error(capsys)
    assert drop7("rank", "--ranker", "d1=" + POLICY, "--roots", work / "roots.json", "--shard",
                 "4/3", "--out", out) == 2
    assert "shard k (of 3)" in one_error(capsys)
    assert drop7(*LABEL[:-2], "--seed", "-1", "--roots", work / "roots.json", "--out", out) == 2
    assert "argument --seed" in one_error(capsys)
    assert drop7(*LABEL[:5], "--continuations", "0", *LABEL[7:], "--roots",
                 work / "roots.json", "--out", out) == 2
    assert "argument --continuations" in one_error(capsys)
    assert not out.exists()


def test_the_games_check_reads_every_arm_of_the_policy(work) -> None:
    """Two arms of the same policy both hold the seed's game; both are checked."""
    rows = read_games(work / "games.csv")
    twin = [{**r, "arm": "twin"} for r in rows]
    write_games(rows + twin, work / "two-arms.csv")
    assert drop7("roots", "--policy", POLICY, "--seeds", "5:3", "--every", EVERY, "--games",
                 work / "two-arms.csv", "--out", work / "two.json") == 0
    with open(work / "two-arms.csv", newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    table[-1]["score"] = "0"
    write_games(table, work / "two-arms-bad.csv")
    assert drop7("roots", "--policy", POLICY, "--seeds", "5:3", "--every", EVERY, "--games",
                 work / "two-arms-bad.csv", "--out", work / "two-bad.json") == 2


def test_a_panel_from_roots_to_readings(work) -> None:
    """The commands end to end: a d2 reference, d1 and the random baseline (no values)."""
    d = work / "end-to-end"
    rankers = {"d2": "search:leaf=linear,d=2,s=3", "d1": POLICY, "rand": "random"}
    parts = []
    for name, policy in rankers.items():
        parts.append(d / f"{name}.csv")
        assert drop7("rank", "--ranker", f"{name}={policy}", "--roots", work / "roots.json",
                     "--out", parts[-1]) == 0
    assert drop7("merge", "--rankers", "d2,d1,rand", "--roots", work / "roots.json", "--out",
                 d / "panel.csv", *parts) == 0
    declaration = {"reference": "d2", "rankers": ["d1", "rand"], "recall": [2, 3],
                   "work": "nodes", "readings": {
                       "rand-tau": {"kind": "figure-at-least", "ranker": "rand",
                                    "figure": "tau", "threshold": 0.1},
                       "d1-over-rand": {"kind": "ranker-beats", "ranker": "d1",
                                        "other": "rand", "figure": "regret"}}}
    (d / "panel.json").write_text(json.dumps(declaration), encoding="utf-8")
    assert drop7("read", "--table", d / "panel.csv", "--roots", work / "roots.json",
                 "--declaration", d / "panel.json", "--resamples", 200, "--out",
                 d / "readings.json") == 0
    out = json.loads((d / "readings.json").read_text(encoding="utf-8"))
    assert out["values"] == {"d2": True, "d1": True, "rand": False}
    assert out["reference_figures"]["top1"]["estimate"] == 1
    assert out["reference_figures"]["tau"]["estimate"] == 1
    for name in ("pairwise", "tau"):
        assert out["figures"]["rand"][name]["estimate"] is None
    assert out["readings"]["rand-tau"]["outcome"] == "not-run"
    assert out["readings"]["d1-over-rand"]["outcome"] in ("pass", "fail")
    assert out["roots"]["count"] == len(read_roots(work / "roots.json")["roots"])
    assert out["table_sha256"] == file_sha256(d / "panel.csv")
    assert 1 <= len(out["shown"]) <= 3


def test_roots_play_an_illegal_answer_as_the_games_driver_does(tmp_path) -> None:
    """A program that always answers column 3 is played centre-first once 3 is full, as in
    ``drop7 play``: the roots' games are the table's, illegal answers included."""
    policy = f"external:{sys.executable} {PLAYER} --column 3"
    games = tmp_path / "games.csv"
    assert main(["play", "--policy", policy, "--seeds", "3:2", "--out", str(games),
                 "--progress-s", "-1"]) == 0
    assert sum(int(r["illegal"]) for r in read_games(games)) > 0
    assert drop7("roots", "--policy", policy, "--seeds", "3:2", "--every", 5, "--games", games,
                 "--out", tmp_path / "roots.json") == 0
    assert read_roots(tmp_path / "roots.json")["games_sha256"] == file_sha256(games)
