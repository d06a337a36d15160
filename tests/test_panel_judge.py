"""A panel reading with a judge: the figures read against another ranker's values (at its
roots), the work ratio still over the reference's work; the declaration's refusals."""

from __future__ import annotations

import numpy as np
import pytest
from panel_support import make_rows
from test_panel_report import synthetic_roots

from analysis.panel_readings import PanelError, panel_roots, read_ranker
from analysis.panel_report import check_declaration, judged_roots, read_panel

R = 300
ROWS = make_rows(games=10, roots=6)


def _declaration(readings: dict) -> dict:
    return {"reference": "ref", "rankers": ["noisy", "random", "choice-only"],
            "recall": [2, 3], "work": "nodes", "readings": readings}


def test_judged_figures_read_the_judges_values_and_the_references_work() -> None:
    roots = judged_roots(ROWS, "ref", "noisy", "ref")
    direct = panel_roots(ROWS, "noisy", "ref")
    np.testing.assert_array_equal(roots.reference, direct.reference)  # the noisy values
    figs = read_ranker(roots, n_resamples=R)
    assert figs["top1"].estimate == read_ranker(direct, n_resamples=R)["top1"].estimate < 1.0
    assert figs["work_ratio"].estimate == 1.0  # ref's work over ref's, not over noisy's (50)
    assert read_ranker(direct, n_resamples=R)["work_ratio"].estimate == 50.0
    random = read_ranker(judged_roots(ROWS, "ref", "noisy", "random"), n_resamples=R)
    assert random["work_ratio"].estimate == 0.0


def test_a_reading_with_a_judge_reads_its_figures_and_says_so() -> None:
    readings = {
        "ref-top1-by-noisy": {"kind": "figure-at-least", "ranker": "ref", "figure": "top1",
                              "threshold": 0.99, "on": "estimate", "judge": "noisy"},
        "ref-top1": {"kind": "figure-at-least", "ranker": "ref", "figure": "top1",
                     "threshold": 0.99, "on": "estimate"},
        "ref-beats-random-by-noisy": {"kind": "ranker-beats", "ranker": "ref",
                                      "other": "random", "figure": "regret_frac",
                                      "judge": "noisy"},
        "random-beats-ref-by-noisy": {"kind": "ranker-beats", "ranker": "random",
                                      "other": "ref", "figure": "regret_frac",
                                      "judge": "noisy"},
    }
    out = read_panel(ROWS, synthetic_roots(ROWS), _declaration(readings), R)
    read = out["readings"]
    assert read["ref-top1"]["outcome"] == "pass"  # the reference agrees with itself
    assert read["ref-top1-by-noisy"]["outcome"] == "fail"  # not with the noisy values
    judged = out["judged"]["noisy"]["ref"]["top1"]["estimate"]
    assert read["ref-top1-by-noisy"]["numbers"]["estimate"] == judged
    assert read["ref-top1-by-noisy"]["numbers"]["judge"] == "noisy"
    assert "against noisy's values, work over ref's" in read["ref-top1-by-noisy"]["reason"]
    assert read["ref-beats-random-by-noisy"]["outcome"] == "pass"
    assert read["random-beats-ref-by-noisy"]["outcome"] == "fail"
    assert set(out["judged"]["noisy"]) == {"ref", "random"}
    plain = read_panel(ROWS, synthetic_roots(ROWS), _declaration(
        {"ref-top1": readings["ref-top1"]}), R)
    assert "judged" not in plain  # a panel without a judge reads as before


@pytest.mark.parametrize(("spec", "message"), [
    ({"judge": "nobody"}, "readings.r.judge: 'nobody' is not a ranker of the panel"),
    ({"judge": "noisy"}, "readings.r.judge: a ranker cannot be judged by its own values"),
])
def test_a_bad_judge_is_refused_in_one_line(spec, message) -> None:
    reading = {"kind": "figure-at-least", "ranker": "noisy", "figure": "top1",
               "threshold": 0.5, **spec}
    with pytest.raises(PanelError) as err:
        check_declaration(_declaration({"r": reading}))
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_a_judge_without_values_is_refused_when_read() -> None:
    reading = {"kind": "figure-at-least", "ranker": "noisy", "figure": "top1",
               "threshold": 0.5, "judge": "choice-only"}
    with pytest.raises(PanelError) as err:
        read_panel(ROWS, synthetic_roots(ROWS), _declaration({"r": reading}), R)
    assert "gives no value" in str(err.value) and "\n" not in str(err.value)
