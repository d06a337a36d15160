"""The shipped bench positions: where they come from, and that they redraw identically."""

from __future__ import annotations

import json

from engines.play.positions import draw_positions
from engines.search.positions import FORMAT, POSITIONS_FILE, load_positions
from engines.seedbank import load_bank


def test_the_shipped_set_is_early_middle_and_late_positions_of_probe_games() -> None:
    doc = json.loads(POSITIONS_FILE.read_text(encoding="utf-8"))
    assert doc["format"] == FORMAT and doc["policy"] == "search:leaf=linear,d=3,s=7"
    rows = doc["positions"]
    assert len(rows) == 3 * doc["games"] == len(load_positions())
    bank = load_bank()
    assert {bank.role_of(p["seed"]) for p in rows} == {"probe"}
    assert [p["phase"] for p in rows] == ["early", "middle", "late"] * doc["games"]
    for p in rows:
        assert 0 <= p["move"] < p["moves_in_game"]


def test_the_first_game_redraws_identically() -> None:
    shipped = json.loads(POSITIONS_FILE.read_text(encoding="utf-8"))["positions"][:3]
    assert draw_positions(games=1)["positions"] == shipped
