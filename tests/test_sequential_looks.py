"""Which looks of a sequential screen exist or are still to make (protocol/looks.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from claims_support import REPO

from analysis.sequential.design import CONTINUE, STOP_EFFICACY
from protocol import looks
from protocol.plan import load_plan


@pytest.fixture(scope="module")
def plan():
    return load_plan(REPO, {"profile": "paper"})


def test_the_looks_made_stop_at_the_first_that_does_not_continue(plan) -> None:
    p = plan.claims["fourth-ply"]
    asked: list[int] = []

    def decision(k: int) -> str:
        asked.append(k)
        return STOP_EFFICACY if k == 2 else CONTINUE

    assert looks.played_looks(p, decision) == [1, 2] and asked == [1, 2]
    assert looks.played_looks(p, lambda k: CONTINUE) == [1, 2, 3, 4]
    games = looks.screen_games(p, plan.paths, decision, ["fair-d4s7"])
    assert games == [plan.paths.path("games", claim=p.id, block=p.look_label(k),
                                     arm="fair-d4s7") for k in (1, 2)]
    looks.check_continued(p, 1, CONTINUE)
    with pytest.raises(ValueError, match="look 2 decided stop"):
        looks.check_continued(p, 2, STOP_EFFICACY)


def test_a_fixed_screen_has_one_games_file_per_arm(plan) -> None:
    p = next(c for c in plan.claims.values() if c.sequential is None)

    def never(k: int) -> str:
        raise AssertionError("a fixed screen asks no look")

    assert looks.screen_games(p, plan.paths, never) == [
        plan.paths.path("games", claim=p.id, block=p.label, arm=a) for a in p.arms]


def test_a_decision_on_disk_counts_only_when_newer_than_what_it_read(plan, tmp_path,
                                                                   monkeypatch) -> None:
    p = plan.claims["fourth-ply"]
    monkeypatch.chdir(tmp_path)
    assert looks.decision_on_disk(p, plan.paths, 1) is None  # not made
    made = Path(looks.look_file(p, plan.paths, 1))
    made.parent.mkdir(parents=True)
    made.write_text(json.dumps({"decision": CONTINUE}))
    assert looks.decision_on_disk(p, plan.paths, 1) is None  # its games are missing
    read = [Path(g) for g in looks.look_games(p, plan.paths, 1)]
    assert len(read) == len(p.arms)
    for g in read:
        g.parent.mkdir(parents=True, exist_ok=True)
        g.write_text("")
        os.utime(g, (1, 1))
    assert looks.decision_on_disk(p, plan.paths, 1) == CONTINUE
    os.utime(read[0], None)  # played again after the look: the look is made again
    os.utime(made, (2, 2))
    assert looks.decision_on_disk(p, plan.paths, 1) is None
