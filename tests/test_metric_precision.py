"""Every figure in a metric's units prints at that metric's precision: whole points, moves to
two decimals, per-move rates to four (analysis.metrics.figure_text), on the page, in the
readings' reasons and in ``drop7 stats``; a score prints exactly as before."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_contrast_metric import disagreeing
from test_report_render import run_of

from analysis.cli import format_text
from analysis.contrast import contrast_games
from analysis.metrics import METRICS, figure_text
from analysis.readers import read_non_inferior, read_three_way, read_upper_below_zero
from analysis.report.page import FIGURES, render_claim


def test_a_score_prints_as_it_always_did() -> None:
    for x in (0.0, 3.26, -0.26, 1234.5, -98_765.4321, 205_530.0):
        assert figure_text(x, "score", signed=True) == f"{x:+,.0f}"
        assert figure_text(x, "score") == f"{x:,.0f}"
        assert figure_text(x, "score", signed=True, at_least=1) == f"{x:+,.1f}"
    assert figure_text(None, "moves") == "-" and figure_text(float("nan"), "score") == "-"
    assert figure_text([1.234, -2.5], "moves", signed=True) == "+1.23 / -2.50"
    assert {m: METRICS[m].decimals for m in METRICS} == {
        "score": 0, "moves": 2, "clears_per_move": 4, "reveals_per_move": 4}


def _moves_contrast():
    """A moves contrast of a few moves each way: LB +3.26, UB -0.26 (as the issue prints)."""
    c = contrast_games(disagreeing(), "cand", "base", "moves", n_resamples=500)
    return replace(c, mean_delta=1.5049, bootstrap_lb=3.2611, bootstrap_ub=-0.2640,
                   t_lb=0.7468, detection_floor=2.4142, sd_delta=6.012,
                   halves=(1.0051, 2.0047))


def test_a_moves_contrast_prints_its_bounds_floor_and_halves_to_two_decimals() -> None:
    c = _moves_contrast()
    run = run_of("ntuple-line-tuples")
    before = render_claim(run, dict.fromkeys(FIGURES, b"png"))
    score = run.contrasts["direct"]
    run.contrasts["direct"] = c
    html = render_claim(run, dict.fromkeys(FIGURES, b"png"))
    assert "<td>+3.26 / -0.26</td>" in html  # not "+3 / -0"
    assert "<td><b>+1.50</b></td>" in html and "<td>+0.75 (t =" in html
    assert "<td>2.41</td>" in html and "<td>+1.01 / +2.00</td>" in html
    # the score contrasts beside it print whole points, as before
    lb, ub = f"{score.bootstrap_lb:+,.0f}", f"{score.bootstrap_ub:+,.0f}"
    assert f"<td>{lb} / {ub}</td>" in before
    primary = run.contrasts["primary"]
    assert f"<td>{primary.bootstrap_lb:+,.0f} / {primary.bootstrap_ub:+,.0f}</td>" in html


def test_the_readings_reasons_print_a_moves_contrast_at_its_precision() -> None:
    c = _moves_contrast().to_dict()
    assert "bootstrap UB -0.26 < 0 (moves: n 24, mean delta +1.50, bootstrap LB +3.26" in (
        read_upper_below_zero(c)[1])
    assert "detection floor 2.41" in read_three_way(c)[1]
    assert read_non_inferior(c, -5)[1].startswith(
        "bootstrap LB +3.26 > margin -5.00 moves: non-inferior")


@pytest.mark.parametrize("metric", ["moves", "clears_per_move"])
def test_drop7_stats_prints_at_least_the_metrics_precision(metric) -> None:
    from test_contrast_metric import with_rates

    c = contrast_games(with_rates(), "cand", "base", metric, n_resamples=500)
    text = format_text(c)
    decimals = max(1, METRICS[metric].decimals)
    assert f"bootstrap 95% LB {c.bootstrap_lb:+,.{decimals}f}  UB " in text
    assert f"halves {c.halves[0]:+,.{decimals}f} / {c.halves[1]:+,.{decimals}f}" in text
