"""A held-out block is read once: playing it again with the same games is a reproduction that
changes nothing; with other games, the verdict is invalidated (issue 42, item 1)."""

from __future__ import annotations

import json

from claims_support import REPO

from analysis.report.page import refresh_page
from contracts.games_table import GAMES_COLUMNS, deciding_sha256
from protocol.ledger import COMMITTED
from protocol.ledger_readings import replay_errors
from protocol.records.rebuild import table_rows
from protocol.verdict import INVALIDATED, decide, methodological_errors


def _rows() -> list[dict[str, str]]:
    row = dict.fromkeys(GAMES_COLUMNS, "0")
    return [{**row, "arm": arm, "seed": str(seed), "score": str(100 * seed + len(arm)),
             "moves": "40", "trajectory": f"{seed:064x}", "wall_s": "1.25"}
            for arm in ("a", "b") for seed in (7, 8)]


def test_the_deciding_hash_ignores_wall_times_and_order_and_sees_a_score() -> None:
    rows = _rows()
    first = deciding_sha256(rows)
    slower = [{**r, "wall_s": "9.5", "nodes": "123"} for r in reversed(rows)]
    assert deciding_sha256(slower) == first
    other = [dict(r) for r in rows]
    other[2]["score"] = str(int(other[2]["score"]) + 1)
    assert deciding_sha256(other) != first
    other = [dict(r) for r in rows]
    other[0]["trajectory"] = "f" * 64
    assert deciding_sha256(other) != first


def test_the_committed_first_readings_keep_the_deciding_hash_of_their_committed_rows() -> None:
    ledger = json.loads((REPO / COMMITTED).read_text(encoding="utf-8"))
    checked = 0
    for entries in ledger["blocks"].values():
        for e in entries:
            if "deciding_sha256" not in e:
                continue
            games = REPO / "reports" / e["profile"] / "records" / e["claim"] / "games.jsonl"
            assert deciding_sha256(table_rows(games)) == e["deciding_sha256"], games
            checked += 1
    assert checked >= 10


def test_a_replay_with_other_games_invalidates_the_verdict() -> None:
    entry = {"table_sha256": "c" * 64, "deciding_sha256": "1" * 64,
             "replays": [{"table_sha256": "d" * 64, "deciding_sha256": "2" * 64}]}
    errors = methodological_errors(integrity=[], gate=None, screened=True, reused=False,
                                   replayed=replay_errors({"5": entry}))
    rule = {"rules": [{"when": {"r": "pass"}, "then": "supported-as-tested"}],
            "otherwise": "not-supported-as-tested"}
    verdict = decide(rule, [], errors, "pilot")
    assert verdict["verdict"] == INVALIDATED
    assert "block 5 was played again (replay 1) and its games differ" in verdict["reason"]


def _page(closed: dict) -> str:
    html = ('<h2>Register records</h2>\n<p>x</p>\n'
            '<span class="completion">Complete: 4 games.</span>')
    return refresh_page(html, [{"name": "r.json", "path": "a/r.json", "href": None}], closed)


def test_the_page_says_a_reproduction_and_flags_a_replay_that_differs() -> None:
    first = {"table_sha256": "c" * 64, "deciding_sha256": "1" * 64}
    same = _page({"games": 4, "table_sha256": "d" * 64, "deciding_sha256": "1" * 64,
                  "entries": {"5": first}})
    assert "a reproduction" in same and "invalidated" not in same
    differs = _page({"games": 4, "table_sha256": "e" * 64, "deciding_sha256": "2" * 64,
                     "entries": {"5": {**first, "replays": [
                         {"table_sha256": "e" * 64, "deciding_sha256": "2" * 64}]}}})
    assert "differ from the first reading" in differs and "a reproduction" not in differs
    # a page of before (no deciding hashes) reads as it did
    old = _page({"games": 4, "table_sha256": "c" * 64, "entries": {"5": dict(first)}})
    assert "reproduction" not in old and "differ" not in old
