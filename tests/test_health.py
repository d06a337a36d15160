"""Training health (analysis.health) and the training-health reading and gate."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.health import TrainingHealth, segment_games, training_health
from analysis.readings import evaluate
from protocol.stages import gates

SEEDS = list(range(100, 400))
READING = {"health": {"kind": "training-health", "weights": "w"}}


def _eval(step: int, one_ply: np.ndarray, random: np.ndarray, start: np.ndarray) -> dict:
    return {"moves_trained": step, "seeds": SEEDS,
            "scores": {"one_ply": one_ply.tolist(), "random": random.tolist(),
                       "start": start.tolist()}}


def _curve(means: list[float], noise: float = 20_000.0, shared: float = 40_000.0,
           start_mean: float = 105_000.0) -> list[dict]:
    """Checkpoints on the same seeds: a per-seed difficulty shared by every checkpoint (and,
    less, by random play and the untrained start)."""
    rng = np.random.default_rng(7)
    seed_effect = rng.normal(0.0, shared, len(SEEDS))
    random = 75_000 + 0.5 * seed_effect + rng.normal(0, 10_000, len(SEEDS))
    start = start_mean + 0.7 * seed_effect + rng.normal(0, 15_000, len(SEEDS))
    return [_eval((i + 1) * 1000, m + seed_effect + rng.normal(0, noise, len(SEEDS)), random,
                  start) for i, m in enumerate(means)]


def test_a_learner_that_rises_or_wiggles_is_healthy() -> None:
    h = training_health("w", _curve([120_000, 135_000, 140_000, 138_500]))
    assert h["healthy"] and not h["problems"]
    assert [p["step"] for p in h["points"]] == [1000, 2000, 3000, 4000]
    assert not any(p["fell"] or p["worse_than_random"] or p["no_lead"] for p in h["points"])
    assert all(p["baseline"] == "start" and p["lead_lb"] > 0 for p in h["points"])
    assert h["points"][0]["change"] is None and h["points"][1]["change"] > 0


def test_worse_than_random_and_a_fall_are_flagged() -> None:
    h = training_health("w", _curve([139_000, 60_000, 130_000]))
    assert not h["healthy"]
    bad = h["points"][1]
    assert bad["worse_than_random"] and bad["fell"] and bad["change_ub"] < 0
    assert "worse than random" in h["problems"][0] and "fell by" in h["problems"][1]
    assert not h["points"][2]["fell"]  # a rise is never a fall


def test_a_fall_above_random_is_flagged_when_beyond_its_interval() -> None:
    h = training_health("w", _curve([200_000, 150_000]))
    assert [p["fell"] for p in h["points"]] == [False, True]
    assert not h["points"][1]["worse_than_random"]


def test_fall_intervals_widen_with_the_number_of_changes() -> None:
    few = training_health("w", _curve([130_000, 130_000]))
    many = training_health("w", _curve([130_000] * 9))
    assert few["z_change"] == pytest.approx(1.959964, abs=1e-5)
    assert many["z_change"] > few["z_change"]


def test_a_checkpoint_above_random_but_not_above_its_start_is_flagged() -> None:
    """The issue's broken learner: above random, far below the untrained start."""
    h = training_health("w", _curve([140_000, 77_000]))
    good, bad = h["points"]
    assert not good["no_lead"] and bad["no_lead"] and not bad["worse_than_random"]
    assert bad["baseline"] == "start" and bad["lead_ub"] < 0 and bad["vs_random"] > 0
    assert not h["healthy"] and "not significantly above the untrained start" in h["problems"][0]
    assert "95% interval" in h["problems"][0]
    # a warm start's checkpoints (manifests naming their init) call the start what it is
    warm = training_health("w", _curve([140_000, 77_000]), [
        {"moves_trained": s, "init": {"path": "p", "sha256": "a" * 64}} for s in (1, 2)])
    assert "not significantly above the warm start" in warm["problems"][0]
    assert "untrained" not in warm["problems"][0]


def test_a_lead_within_its_interval_is_flagged() -> None:
    """A point estimate above the start is not enough: the lead's interval must clear zero."""
    h = training_health("w", _curve([107_000]))
    (p,) = h["points"]
    assert p["one_ply_mean"] - p["start_mean"] > 0 and p["lead_lb"] <= 0 < p["lead_ub"]
    assert p["no_lead"] and not h["healthy"]


def test_random_is_the_baseline_when_the_start_plays_worse() -> None:
    h = training_health("w", _curve([90_000], start_mean=40_000))
    (p,) = h["points"]
    assert p["baseline"] == "random" and p["lead"] == pytest.approx(p["vs_random"])
    assert not p["no_lead"] and h["healthy"]


def test_an_evaluation_without_the_start_is_refused() -> None:
    evals = _curve([130_000])
    del evals[0]["scores"]["start"]
    with pytest.raises(ValueError, match="no start scores"):
        training_health("w", evals)


def test_checkpoints_on_other_seeds_are_refused() -> None:
    evals = _curve([130_000, 131_000])
    evals[1]["seeds"] = SEEDS[::-1]
    with pytest.raises(ValueError, match="other seeds"):
        training_health("w", evals)


def test_segment_games_from_cumulative_manifests() -> None:
    manifests = [{"moves_trained": 200, "games_trained": 30, "mean_score_trained": 110.0},
                 {"moves_trained": 100, "games_trained": 10, "mean_score_trained": 100.0}]
    seg = segment_games(manifests)
    assert seg[100] == {"games": 10, "mean_score": 100.0}
    assert seg[200]["games"] == 20 and seg[200]["mean_score"] == pytest.approx(115.0)


def test_the_reading_and_the_gate_read_the_health() -> None:
    good = {"w": training_health("w", _curve([120_000, 135_000]))}
    bad = {"w": training_health("w", _curve([139_000, 60_000]))}
    assert evaluate("health", READING["health"], {}, {}, good).outcome == "pass"
    assert evaluate("health", READING["health"], {}, {}, good).reason.startswith(
        "2 checkpoints one ply on")
    one = {"w": training_health("w", _curve([120_000]))}
    assert evaluate("health", READING["health"], {}, {}, one).reason.startswith(
        "1 checkpoint one ply on")
    r = evaluate("health", READING["health"], {}, {}, bad)
    assert r.outcome == "fail" and "worse than random" in r.reason
    assert r.numbers["worse_than_random"] == [2000] and r.numbers["no_lead"] == [2000]
    assert evaluate("health", READING["health"], {}, {}, {}).outcome == "not-run"
    assert gates("c", ["health"], READING, {}, True, good)["opens_screen"]
    closed = gates("c", ["health"], READING, {}, True, bad)
    assert not closed["passed"] and not closed["opens_screen"]


def test_the_page_shows_the_lead_and_its_interval() -> None:
    """A flagged checkpoint's lead over its start, with its interval, in the health table."""
    from test_report_render import run_of

    from analysis.report.page import build_figures, render_claim

    run = run_of("ntuple-line-tuples", screened=False)
    doc = training_health("ntuple-A", _curve([140_000, 77_000]))
    run.health = {"ntuple-A": TrainingHealth.from_json(doc)}
    typed = run.health["ntuple-A"].to_json()  # the JSON the health job writes, in its order
    assert typed == doc and list(typed["points"][1]) == list(doc["points"][1])
    html = render_claim(run, build_figures(run))
    bad = run.health["ntuple-A"].points[1]
    assert "not significantly above the untrained start" in html
    assert f"{bad.lead_lb:+,.0f} to {bad.lead_ub:+,.0f}" in html
    assert 'class="l fail">no lead' in html
