"""An arm's figure against a threshold (``arm-at-most`` / ``arm-at-least``): declared, checked in
one line, read on the arm's bootstrap bound, estimate or halves, and shown on the page."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from claims_support import REPO, own_claim, write_claim
from test_panel_declaration import one_line
from test_report_render import provenance, synthetic_games

from analysis.block_contrast import block_contrast
from analysis.bootstrap import bootstrap_bounds
from analysis.readings import evaluate, evaluate_all
from analysis.report.model import ClaimDescription, Verdict
from analysis.report.page import ClaimRun, render_claim
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.records.ids import RecordError
from protocol.records.rebuild import _check_readings
from protocol.schema import DeclarationError
from protocol.verdict import decide

RESAMPLES = 2_000


def _mine(tmp_path, reading: dict) -> tuple:
    doc = own_claim()
    doc["readings"]["cap"] = reading
    doc["verdict"]["rules"].insert(0, {"when": {"cap": "fail"},
                                       "then": "not-supported-as-tested"})
    directory = tmp_path / "mine"
    directory.mkdir(exist_ok=True)
    return directory, write_claim(directory, doc)


def _contrasts(p, games) -> dict:
    return {name: block_contrast(games, kind=c.kind, arms=list(c.arms), start=p.seeds[0],
                                 count=c.games, hashes=None, resamples=RESAMPLES, oc_sims=0)
            for name, c in p.contrasts.items()}


def test_a_bad_arm_reading_is_one_line_naming_the_file_and_key(tmp_path) -> None:
    cases = [
        ({"kind": "arm-at-most", "arm": "fair-d1s3", "figure": "mean"}, "threshold",
         "missing: a arm-at-most reading needs arm, figure, threshold"),
        ({"kind": "arm-at-most", "arm": "fair-d9", "figure": "mean", "threshold": 1},
         "arm", "no arm 'fair-d9' (arms: fair-d1s3, random)"),
        ({"kind": "arm-at-least", "arm": "random", "figure": "top", "threshold": 1},
         "figure", "unknown figure 'top' (an arm's figures: mean, median, q25, q75, moves)"),
        ({"kind": "arm-at-least", "arm": "random", "figure": "q25", "threshold": 1},
         "over", "q25 has no bootstrap bound (only mean, moves): read it on estimate or halves"),
        ({"kind": "arm-at-most", "arm": "random", "figure": "mean", "threshold": float("inf")},
         "threshold = inf:", "not a finite number"),
    ]
    for reading, key, message in cases:
        directory, path = _mine(tmp_path, reading)
        with pytest.raises(DeclarationError) as err:
            load_claims(directory)
        one_line(err, f"{path}: key readings.cap.{key}{'' if '=' in key else ':'} {message}")


def test_an_arm_in_no_contrast_is_refused(tmp_path) -> None:
    doc = own_claim()
    doc["arms"]["fair-d1s2"] = {"play": "search", "depth": 1, "strata": 2, "leaf": "linear"}
    doc["readings"]["cap"] = {"kind": "arm-at-most", "arm": "fair-d1s2", "figure": "mean",
                              "threshold": 5}
    write_claim(tmp_path, doc)
    with pytest.raises(DeclarationError) as err:
        load_claims(tmp_path)
    one_line(err, f"{tmp_path / 'my-first-claim.yaml'}: key readings.cap.arm: 'fair-d1s2' is "
             "in no contrast: an arm's figures are computed on a contrast's games (contrasts: "
             "ply)")


def test_an_arm_threshold_is_read_on_its_bound_its_estimate_or_its_halves(tmp_path) -> None:
    directory, _ = _mine(tmp_path, {"kind": "arm-at-most", "arm": "fair-d1s3",
                                    "figure": "mean", "threshold": 1})
    p = load_plan(REPO, {"profile": "pilot", "claims_dir": str(directory)}).claims[
        "my-first-claim"]
    assert p.readings["cap"]["on"] == "bound"  # the default, filled in at load time
    games = synthetic_games(p)
    contrasts = _contrasts(p, games)
    x = games[games.arm == "fair-d1s3"].sort_values("seed")["score"].to_numpy(float)
    upper = bootstrap_bounds(x, n_resamples=RESAMPLES).upper
    lower = bootstrap_bounds(x, n_resamples=RESAMPLES).lower
    mean, h = float(x.mean()), x.size // 2
    assert lower < mean < upper

    def read(kind: str, threshold: float, on: str = "bound", figure: str = "mean"):
        spec = {"kind": kind, "arm": "fair-d1s3", "figure": figure, "threshold": threshold,
                "on": on}
        return evaluate("cap", spec, contrasts, {})

    between = (mean + upper) / 2  # the estimate is below it, the upper bound is not
    assert read("arm-at-most", between).outcome == "fail"
    assert read("arm-at-most", between, "estimate").outcome == "pass"
    assert read("arm-at-most", upper + 1).outcome == "pass"
    assert read("arm-at-least", (mean + lower) / 2).outcome == "fail"
    assert read("arm-at-least", (mean + lower) / 2, "estimate").outcome == "pass"
    halves = sorted([x[:h].mean(), x[h:].mean()])
    assert read("arm-at-least", halves[0] + 1, "halves").outcome == "fail"
    assert read("arm-at-least", halves[0], "halves").outcome == "pass"
    median = read("arm-at-most", float(np.median(x)), "estimate", "median")
    assert median.outcome == "pass" and median.numbers["estimate"] == np.median(x)
    got = read("arm-at-most", between)
    assert got.reason.startswith(f"fair-d1s3 mean: the 95% bootstrap upper bound {upper:,.0f} "
                                 f"not <= {between:,.0f} points (estimate {mean:,.0f}")
    assert got.numbers["contrast"] == "ply" and got.numbers["n"] == x.size
    moves = games[games.arm == "fair-d1s3"].sort_values("seed")["moves"].to_numpy(float)
    lives = read("arm-at-least", float(moves.mean()), "estimate", "moves")
    assert lives.outcome == "pass" and f"{moves.mean():,.2f} >= " in lives.reason
    # without the contrast, there are no figures of the arm: not run
    assert evaluate("cap", {"kind": "arm-at-most", "arm": "fair-d1s3", "figure": "mean",
                            "threshold": 1, "on": "bound"}, {}, {}).outcome == "not-run"


def test_an_arm_reading_is_decided_and_shown_on_the_page(tmp_path) -> None:
    directory, _ = _mine(tmp_path, {"kind": "arm-at-most", "arm": "random", "figure": "mean",
                                    "threshold": 1, "title": "random play stays below 1"})
    p = load_plan(REPO, {"profile": "pilot", "claims_dir": str(directory)}).claims[
        "my-first-claim"]
    games = synthetic_games(p)
    contrasts = _contrasts(p, games)
    readings = evaluate_all(p.readings, contrasts, {})
    cap = next(r for r in readings if r.name == "cap")
    assert cap.outcome == "fail"  # synthetic scores are in the hundreds of thousands
    verdict = decide(p.claim.doc["verdict"], readings, [], p.tier)
    assert verdict["verdict"] == "not-supported-as-tested"
    gate = {"claim": p.id, "passed": True, "enforced": False, "opens_screen": True,
            "gates": [], "reason": "no gates"}
    run = ClaimRun(plan=ClaimDescription.from_json(p.describe()),
                   profile={"profile": "pilot", "note": ""}, gate=gate,
                   verdict=Verdict.from_json(verdict), provenance=provenance(), games=games,
                   closed={"games": len(games), "table_sha256": "9" * 64, "entries": {}})
    html = render_claim(run)
    assert "random play stays below 1" in html and "random mean: the 95% bootstrap upper" in html
    # drop7 records rebuild decides it again from the contrasts the games give
    _check_readings(p, contrasts, verdict)
    tampered = copy.deepcopy(verdict)
    next(r for r in tampered["readings"] if r["name"] == "cap")["outcome"] = "pass"
    with pytest.raises(RecordError, match="reading cap: the games give fail"):
        _check_readings(p, contrasts, tampered)
