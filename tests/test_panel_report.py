"""The panel's readings file: every figure and reading as the reading functions give them, the
reference read against itself, rankers without values, and its JSON round trip."""

from __future__ import annotations

import json
import math

import pytest
from panel_support import make_rows

from analysis.panel_criteria import read_beats, read_non_inferior, read_threshold
from analysis.panel_readings import (
    PanelError,
    choice_agreement,
    difference,
    figure_names,
    panel_roots,
    read_ranker,
)
from analysis.panel_report import READINGS_FORMAT, SHOWN, check_declaration, read_panel
from cli.main import main
from contracts.hashing import file_sha256
from contracts.json_file import json_text
from contracts.panel_roots import check_roots, roots_doc, write_roots
from contracts.panel_table import write_rows

R = 300  # resamples in the tests

DECLARATION = {
    "reference": "ref", "rankers": ["noisy", "random", "choice-only"], "recall": [2, 3],
    "work": "nodes",
    "readings": {
        "noisy-top1": {"kind": "figure-at-least", "ranker": "noisy", "figure": "top1",
                       "threshold": 0.3, "on": "halves"},
        "noisy-regret": {"kind": "figure-at-most", "ranker": "noisy", "figure": "regret_frac",
                         "threshold": 0.2, "title": "noisy loses little"},
        "choice-tau": {"kind": "figure-at-least", "ranker": "choice-only", "figure": "tau",
                       "threshold": 0.5, "on": "estimate"},
        "noisy-over-random": {"kind": "ranker-beats", "ranker": "noisy", "other": "random",
                              "figure": "tau"},
        "noisy-work": {"kind": "ranker-beats", "ranker": "noisy", "other": "ref",
                       "figure": "work_ratio"},
        "choice-over-random": {"kind": "ranker-beats", "ranker": "choice-only",
                               "other": "random", "figure": "pairwise"},
    },
}


def synthetic_roots(rows) -> dict:
    """A roots file for the synthetic panel: every root of every game, each an opening-like
    board with a few numbers (the readings only draw them)."""
    keys = sorted({(int(r["game"]), int(r["root"])) for r in rows})
    entries = []
    for game, root in keys:
        cols = [8] * 7
        cols[root % 7] = 8 | (1 + root % 7) << 4  # one number on the grey row
        state = dict.fromkeys(("score", "level", "moves_remaining", "moves_played",
                               "game_over", "censored", "clears", "next_disc", "popped",
                               "waves"), 0)
        state.update(moves_played=root, level=1, moves_remaining=5, next_disc=3, score=root)
        entries.append({"game": game, "root": root, "cols": cols, "state": state})
    games = [g for g, _ in keys]
    doc = roots_doc("search:leaf=linear,d=1,s=3", (min(games), max(games) - min(games) + 1), 1,
                    None, entries)
    return check_roots(doc, "synthetic")


@pytest.fixture(scope="module")
def panel():
    rows = make_rows(games=10, roots=6)
    doc = synthetic_roots(rows)
    return rows, doc, read_panel(rows, doc, DECLARATION, R)


def test_figure_names_are_what_read_ranker_gives() -> None:
    rows = make_rows(games=4, roots=3)
    for recall in ((2, 3), (1, 4, 6)):
        got = read_ranker(panel_roots(rows, "ref", "noisy"), recall, n_resamples=20)
        assert figure_names(recall) == tuple(got)
    assert "recall@5" not in figure_names()


def test_the_readings_file_holds_every_figure(panel) -> None:
    rows, doc, out = panel
    assert out["format"] == READINGS_FORMAT
    assert (out["reference"], out["rankers"]) == ("ref", DECLARATION["rankers"])
    assert out["values"] == {"ref": True, "noisy": True, "random": True, "choice-only": False}
    assert out["roots"] == {"policy": doc["policy"], "seeds": doc["seeds"], "every": 1,
                            "limit": None, "count": 60, "games": 10}
    for name in DECLARATION["rankers"]:
        expected = read_ranker(panel_roots(rows, "ref", name), (2, 3), n_resamples=R)
        assert list(out["figures"][name]) == list(figure_names((2, 3)))
        assert out["figures"][name] == json.loads(json_text(
            {k: f.to_dict() for k, f in expected.items()}))
    itself = out["reference_figures"]
    assert itself["top1"]["estimate"] == 1 and itself["regret"]["estimate"] == 0
    assert itself["regret"]["upper"] == 0 and itself["tau"]["estimate"] == 1
    assert itself["work_ratio"]["estimate"] == 1


def test_a_ranker_without_values_has_no_value_figures(panel) -> None:
    _, _, out = panel
    mine = out["figures"]["choice-only"]
    for name in ("pairwise", "tau", "recall@2", "recall@3"):
        assert mine[name]["estimate"] is None and mine[name]["roots"] == 0, name
    assert mine["top1"]["estimate"] == out["figures"]["noisy"]["top1"]["estimate"]
    assert out["readings"]["choice-tau"]["outcome"] == "not-run"
    assert out["readings"]["choice-over-random"]["outcome"] == "not-run"
    assert out["differences"]["choice-over-random"]["estimate"] is None


def test_readings_are_what_the_reading_functions_give(panel) -> None:
    rows, _, out = panel
    assert list(out["readings"]) == list(DECLARATION["readings"])
    assert list(out["differences"]) == ["noisy-over-random", "noisy-work", "choice-over-random"]
    figs = {name: read_ranker(panel_roots(rows, "ref", name), (2, 3), n_resamples=R)
            for name in ("noisy", "choice-only")}
    for name in ("noisy-top1", "noisy-regret", "choice-tau"):
        spec = DECLARATION["readings"][name]
        want = read_threshold(name, spec["kind"], spec["ranker"], spec["figure"],
                              figs[spec["ranker"]][spec["figure"]], spec["threshold"],
                              spec.get("on", "bound"), spec.get("title"))
        assert out["readings"][name] == json.loads(json_text(want.to_dict())), name
    assert out["readings"]["noisy-regret"]["title"] == "noisy loses little"
    assert {out["readings"][n]["outcome"] for n in ("noisy-top1", "noisy-regret")} <= {"pass",
                                                                                       "fail"}
    diff = difference(panel_roots(rows, "ref", "noisy"), panel_roots(rows, "ref", "random"),
                      "tau", (2, 3), R)
    assert out["differences"]["noisy-over-random"] == json.loads(json_text(diff.to_dict()))
    want = read_beats("noisy-over-random", "noisy", "random", "tau", diff)
    assert out["readings"]["noisy-over-random"] == json.loads(json_text(want.to_dict()))
    assert out["readings"]["noisy-over-random"]["outcome"] == "pass"


def test_a_non_inferiority_reading_reads_its_paired_difference_under_both_conventions(
        ) -> None:
    """``ranker-non-inferior`` gets its paired difference in ``differences`` (and the side's),
    and its reading is what the reading function gives on it, under each convention."""
    rows = make_rows(games=10, roots=6)
    declaration = json.loads(json.dumps(DECLARATION))
    declaration["readings"]["random-no-worse"] = {
        "kind": "ranker-non-inferior", "ranker": "random", "other": "noisy",
        "figure": "regret_frac", "margin": 0.05, "on": "halves"}
    out = read_panel(rows, synthetic_roots(rows), declaration, R)
    for conventions, part in (("harness", out), ("register", out["side"])):
        diff = difference(panel_roots(rows, "ref", "random"), panel_roots(rows, "ref", "noisy"),
                          "regret_frac", (2, 3), R, conventions=conventions)
        assert part["differences"]["random-no-worse"] == json.loads(json_text(diff.to_dict()))
        want = read_non_inferior("random-no-worse", "random", "noisy", "regret_frac", diff,
                                 0.05, "halves")
        assert part["readings"]["random-no-worse"] == json.loads(json_text(want.to_dict()))
    # a random ranker loses far more than 0.05 of the spread to a good one in each half
    assert out["readings"]["random-no-worse"]["outcome"] == "fail"
    assert min(out["differences"]["random-no-worse"]["halves"]) > 0.05


def test_a_work_ratio_difference_is_the_difference_of_the_ratios(panel) -> None:
    _, _, out = panel
    got = out["differences"]["noisy-work"]["estimate"]
    ratios = out["figures"]["noisy"]["work_ratio"]["estimate"] - 1.0  # the reference's is 1
    assert math.isclose(got, ratios, rel_tol=1e-12)
    assert out["readings"]["noisy-work"]["outcome"] == "pass"  # 100 nodes against 5,000


def test_agreement_shown_roots_and_table_hash(panel, tmp_path) -> None:
    rows, doc, out = panel
    names = ["ref", *DECLARATION["rankers"]]
    assert out["agreement"] == {"names": names,
                                "matrix": choice_agreement(rows, names).tolist()}
    shown = out["shown"]
    assert len(shown) == SHOWN and len({s["game"] for s in shown}) == SHOWN
    assert [s["game"] for s in shown] == sorted(s["game"] for s in shown)
    for s in shown:
        entry = next(e for e in doc["roots"] if (e["game"], e["root"]) == (s["game"], s["root"]))
        assert len(s["board"]) == 7 and s["board"][6] == "#" * 7
        assert s["board"][5][s["root"] % 7] == str(1 + s["root"] % 7)
        assert (s["next"], s["moves_remaining"], s["level"], s["score"]) == (
            3, 5, 1, entry["state"]["score"])
        assert set(s["choices"]) == set(names) and len(s["reference"]) == 7
    write_rows(rows, tmp_path / "panel.csv")
    assert out["table_sha256"] == file_sha256(tmp_path / "panel.csv")


def test_the_readings_file_round_trips_through_json(panel, tmp_path) -> None:
    rows, doc, out = panel
    assert json.loads(json.dumps(out)) == out
    write_rows(rows, tmp_path / "panel.csv")
    write_roots(tmp_path / "roots.json", doc)
    (tmp_path / "panel.json").write_text(json.dumps(DECLARATION), encoding="utf-8")
    assert main(["panel", "read", "--table", str(tmp_path / "panel.csv"), "--roots",
                 str(tmp_path / "roots.json"), "--declaration", str(tmp_path / "panel.json"),
                 "--resamples", str(R), "--out", str(tmp_path / "readings.json")]) == 0
    with open(tmp_path / "readings.json", encoding="utf-8") as fh:
        assert json.load(fh) == out


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(rankers=["noisy", "ref"]), r"^rankers: must be distinct and not the "),
    (lambda d: d.update(recall=[2, 7]), r"^recall: must be distinct whole numbers 1\.\.6"),
    (lambda d: d["readings"]["noisy-top1"].update(figure="recall@5"),
     r"^readings\.noisy-top1\.figure: 'recall@5' is not a figure of the panel"),
    (lambda d: d["readings"]["noisy-top1"].update(ranker="nobody"),
     r"^readings\.noisy-top1\.ranker: 'nobody' is not a ranker"),
    (lambda d: d["readings"]["noisy-top1"].update(threshold=math.inf),
     r"^readings\.noisy-top1\.threshold: inf is not a finite number"),
    (lambda d: d["readings"]["noisy-top1"].update(on="median"),
     r"^readings\.noisy-top1\.on: unknown 'median' \(one of estimate, bound, halves\)"),
    (lambda d: d["readings"]["noisy-top1"].update(kind="screen"),
     r"^readings\.noisy-top1\.kind: 'screen' is not a panel reading kind"),
    (lambda d: d["readings"]["noisy-over-random"].update(other="noisy"),
     r"^readings\.noisy-over-random\.other: a ranker cannot be read against itself"),
    (lambda d: d["readings"].update(x={"kind": "ranker-non-inferior", "ranker": "random",
                                       "other": "noisy", "figure": "top1", "margin": 0}),
     r"^readings\.x\.margin: 0 is not above 0"),
    (lambda d: d["readings"].update(x={"kind": "ranker-non-inferior", "ranker": "random",
                                       "other": "noisy", "figure": "top1"}),
     r"^readings\.x\.margin: None is not a number"),
])
def test_a_bad_declaration_is_one_line_naming_the_key(change, message) -> None:
    declaration = json.loads(json.dumps(DECLARATION))
    check_declaration(declaration)
    change(declaration)
    with pytest.raises(PanelError, match=message):
        check_declaration(declaration)


def test_read_refuses_a_table_of_other_roots_in_one_line(panel, tmp_path, capsys) -> None:
    rows, doc, _ = panel
    fewer = {**doc, "roots": doc["roots"][1:]}
    with pytest.raises(PanelError, match=r"^game 1000 root 0: the roots file lacks it"):
        read_panel(rows, fewer, DECLARATION, R)
    fewer_rankers = {**DECLARATION, "rankers": ["noisy", "random"], "readings": {}}
    with pytest.raises(PanelError, match=r"^ranker 'choice-only' is in the table but not in "):
        read_panel(rows, doc, fewer_rankers, R)
    with pytest.raises(PanelError, match=r"the reference ref has no row there"):
        read_panel([r for r in rows if (r["game"], r["root"]) != ("1000", "0")
                    or r["ranker"] != "ref"], doc, DECLARATION, R)
    write_rows(rows, tmp_path / "panel.csv")
    write_roots(tmp_path / "roots.json", fewer)
    (tmp_path / "panel.json").write_text(json.dumps(DECLARATION), encoding="utf-8")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    base = ["panel", "read", "--table", str(tmp_path / "panel.csv"), "--roots",
            str(tmp_path / "roots.json"), "--out", str(tmp_path / "never.json")]
    assert main([*base, "--declaration", str(tmp_path / "panel.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'panel.csv'}: game 1000 root 0" in err
    assert main([*base, "--declaration", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'bad.json'}: not JSON" in err
    assert not (tmp_path / "never.json").exists()
