"""A claim's replay of the register's published games (``recorded.replay``): its checks before
any job, ``drop7 register-replay`` on short published games and on a tampered copy, and the
page's "reproduced" / "not reproduced" line and section."""

from __future__ import annotations

import copy
import json
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from claims_support import REPO, claims_copy, shipped, write_claim

from cli.main import main
from contracts.hashing import file_sha256
from protocol.plan import load_plan
from protocol.records.ids import protocol_sha256
from protocol.schema import DeclarationError

CLAIM = "shallow-ordering"
GAMES = REPO / "data" / "register" / "fair-d3s7-nnue-evolution-d3-v2.json"
POLICY = "search:leaf=linear,d=3,s=7,sampling=register"


def _published() -> dict[str, Any]:
    return json.loads(GAMES.read_text(encoding="utf-8"))


def _short_games(path: Path, tamper: bool = False) -> Path:
    """The two shortest published games (40 and 45 moves) in a games file of their own;
    ``tamper``: the second's published score one point off."""
    doc = _published()
    doc["games"] = sorted(doc["games"], key=lambda g: g["moves"])[:2]
    if tamper:
        doc["games"][1]["score"] += 1
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _plan(tmp_path: Path, edit=None, profile: str = "smoke"):
    """The plan of the shipped claims with ``edit`` applied to shallow-ordering's declaration."""
    directory = claims_copy(tmp_path / "claims")
    if edit is not None:
        doc = copy.deepcopy(shipped(CLAIM))
        edit(doc)
        write_claim(directory, doc, CLAIM)
    return load_plan(REPO, {"profile": profile, "claims_dir": str(directory)})


def test_the_shipped_panel_declares_a_replay_of_its_d3s7_arm_capped_only_by_smoke(
        tmp_path) -> None:
    smoke = load_plan(REPO, {"profile": "smoke"}).claims[CLAIM]
    pilot = load_plan(REPO, {"profile": "pilot"}).claims[CLAIM]
    for p in (smoke, pilot):
        r = p.replay
        assert (r.arm, r.published, r.sha256) == ("fair-d3s7", 64, file_sha256(GAMES))
        # the declared search, not the profile's shrunk one (smoke plays the panel at d2s3)
        assert r.policy == POLICY
    assert smoke.panel.arms["fair-d3s7"].policy != POLICY
    assert (smoke.replay.limit, smoke.replay.games) == (2, 2)
    assert (pilot.replay.limit, pilot.replay.games) == (None, 64)


def test_the_replay_is_outside_the_protocol_hash(tmp_path) -> None:
    with_replay = _plan(tmp_path / "a", profile="pilot").claims[CLAIM].describe()
    without = _plan(tmp_path / "b", lambda d: d.pop("recorded"),
                    profile="pilot").claims[CLAIM].describe()
    assert protocol_sha256(with_replay) == protocol_sha256(without)


def _set(key: str, value: Any):
    def edit(doc: dict[str, Any]) -> None:
        doc["recorded"]["replay"][key] = value
    return edit


def _arm(**changes: Any):
    def edit(doc: dict[str, Any]) -> None:
        doc["arms"]["fair-d3s7"].update(changes)
    return edit


def _baseline_arm(doc: dict[str, Any]) -> None:
    doc["arms"]["centre"] = {"play": "centre-first"}
    doc["recorded"]["replay"]["arm"] = "centre"


@pytest.mark.parametrize("edit, key, words", [
    (_set("arm", "fair-d9s7"), "recorded.replay.arm", "'fair-d9s7' is not a declared arm"),
    (_baseline_arm, "recorded.replay.arm", "only a search or direct arm"),
    (_arm(reveals=2), "recorded.replay.arm", "declares reveals"),
    (_set("sha256", "0" * 63), "recorded.replay.sha256", "63 hex digits"),
    (_set("sha256", "0" * 64), "recorded.replay.sha256", "is not the pinned"),
    (_set("games", "data/register/no-such.json"), "recorded.replay.games", "no such file"),
    (_set("games", "/etc/hostname"), "recorded.replay.games", "outside the run's directory"),
    (_arm(depth=4), "recorded.replay.arm", "holds games of search:leaf=linear,d=3"),
])
def test_a_bad_replay_is_one_line_naming_the_file_and_key_before_any_job(
        tmp_path, edit, key, words) -> None:
    with pytest.raises(DeclarationError) as err:
        _plan(tmp_path, edit)
    message = str(err.value)
    assert "\n" not in message
    assert f"{CLAIM}.yaml: key {key}: " in message and words in message, message


def test_a_recorded_block_of_figures_still_names_its_source(tmp_path) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["recorded"] = {"replay": doc["recorded"]["replay"], "games": 64}
    with pytest.raises(DeclarationError, match="key recorded.source: missing"):
        _plan(tmp_path, edit)


def test_the_command_refuses_another_players_games_and_another_file(tmp_path, capsys) -> None:
    games = _short_games(tmp_path / "two.json")
    out = tmp_path / "replay.json"
    assert main(["register-replay", "--policy", POLICY.replace("d=3", "d=2"), "--games",
                 str(games), "--out", str(out)]) == 2
    assert "key policy: its games are of " + POLICY in capsys.readouterr().err
    assert main(["register-replay", "--policy", POLICY, "--games", str(games), "--sha256",
                 "a" * 64, "--out", str(out)]) == 2
    assert "key sha256" in capsys.readouterr().err
    assert main(["register-replay", "--policy", POLICY.replace(",sampling=register", ""),
                 "--games", str(games), "--out", str(out)]) == 2
    assert not out.exists()


@pytest.mark.slow
def test_short_published_games_replay_equal_and_a_tampered_copy_names_its_seed(
        tmp_path) -> None:
    from analysis.report.replay_model import ReplaySection

    declared = shipped(CLAIM)["recorded"]["replay"]
    docs = {}
    for tamper in (False, True):
        games = _short_games(tmp_path / f"games-{tamper}.json", tamper)
        out = tmp_path / f"replay-{tamper}.json"
        assert main(["register-replay", "--policy", POLICY, "--games", str(games), "--sha256",
                     file_sha256(games), "--out", str(out)]) == 0
        docs[tamper] = json.loads(out.read_text())
    fair, tampered = docs[False], docs[True]
    assert fair["summary"] == {"games": 2, "equal": 2, "published": 2, "first_differing": None}
    assert [(r["score"], r["moves"]) for r in fair["rows"]] == [
        (r["published_score"], r["published_moves"]) for r in fair["rows"]]
    # the same games played again give the same rows; only the tampered figure differs
    assert [r["score"] for r in tampered["rows"]] == [r["score"] for r in fair["rows"]]
    second = tampered["rows"][1]
    assert tampered["summary"]["equal"] == 1
    assert tampered["summary"]["first_differing"] == second
    assert ReplaySection.from_json(fair, declared).headline == (
        "reproduced: 2 of 2 published games of the register's fair-d3s7 (result "
        "EX-20260902-nnue-evolution-d3-v2-49c18bc2), score and moves equal")
    assert ReplaySection.from_json(tampered, declared).headline == (
        f"not reproduced: seed {second['seed']} scored {second['score']:,} here, "
        f"{second['score'] + 1:,} in the register")


def _replay_doc(published: int, tamper_moves: bool = False) -> dict[str, Any]:
    """A replay document of the first two published games as equal rows (``tamper_moves``:
    the second ended a move later here)."""
    from contracts.register_games import replay_row, replay_summary

    games = _published()["games"][:2]
    rows = [replay_row(g, g["score"], g["moves"]) for g in games]
    if tamper_moves:
        rows[1] = replay_row(games[1], games[1]["score"], games[1]["moves"] + 1)
    return {"format": "drop7-register-replay-v1", "policy": POLICY,
            "sha256": file_sha256(GAMES), "source": _published()["source"],
            "summary": replay_summary(rows, published), "rows": rows}


def test_the_panel_page_says_reproduced_near_its_top_and_shows_every_game() -> None:
    from panel_support import readings_doc
    from test_report_panel import panel_run
    from test_report_render import plan as claim_plan

    from analysis.report.page import render_claim
    from analysis.report.replay_model import ReplaySection

    doc = json.loads(json.dumps(readings_doc()))
    doc["roots"]["seeds"] = [claim_plan("fourth-ply").seeds[0], doc["roots"]["games"]]
    declared = shipped(CLAIM)["recorded"]["replay"]
    run = panel_run(doc, contrasts=False)
    html = render_claim(run)
    assert "reproduced" not in html and "Reproduced game for game" not in html

    run.replay = ReplaySection.from_json(_replay_doc(64), declared)
    html = unescape(render_claim(run))
    line = ("reproduced: 2 of 2 replayed games (the first 2 of 64 published; the profile caps "
            "the replay) of the register's fair-d3s7 (result "
            "EX-20260902-nnue-evolution-d3-v2-49c18bc2), score and moves equal")
    assert html.index(line) < html.index("<h2>")
    assert "Reproduced game for game" in html and html.count("<td class=\"l\">yes</td>") == 2

    run.replay = ReplaySection.from_json(_replay_doc(2, tamper_moves=True), declared)
    html = unescape(render_claim(run))
    seed = _published()["games"][1]["seed"]
    moves = _published()["games"][1]["moves"]
    assert html.index(f"not reproduced: seed {seed} ended after {moves + 1} moves here, "
                      f"{moves} in the register") < html.index("<h2>")
    assert "<b>no</b>" in html
