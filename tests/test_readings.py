"""Readings: each kind's outcome on contrasts and curves, and what counts as not run."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.contrast import contrast_scores
from analysis.reading_kinds import PANEL, READING_KINDS, kinds_of
from analysis.readings import (
    NOT_RUN,
    evaluate,
    evaluate_all,
    integrity_errors,
)


def contrast(shift: float, noise: float = 1000.0, n: int = 64, **kw) -> dict:
    rng = np.random.default_rng(7)
    base = rng.normal(300_000, 100_000, n)
    return contrast_scores(base + shift + rng.normal(0, noise, n), base, candidate="a",
                           baseline="b", n_resamples=2000, **kw).to_dict()


def curve(weights, margins):
    return {"weights": weights, "points": [{"step": 10 * (i + 1), "margin": m}
                                           for i, m in enumerate(margins)]}


def test_every_kind_has_a_reader_and_outcomes() -> None:
    """Every kind has its reader, outcomes and source; a panel's kinds are read into the
    panel's readings file, which :func:`evaluate` takes their readings from."""
    assert all(k.reader and k.outcomes and set(k.held) & set(k.outcomes)
               for k in READING_KINDS.values())
    assert set(kinds_of(PANEL)) == {"figure-at-least", "figure-at-most", "ranker-beats",
                                    "ranker-non-inferior"}


def test_screen_passes_a_clear_gain_and_fails_a_loss() -> None:
    up, down = contrast(50_000), contrast(-50_000)
    assert evaluate("p", {"kind": "screen", "contrast": "c"}, {"c": up}, {}).outcome == "pass"
    r = evaluate("p", {"kind": "screen", "contrast": "c"}, {"c": down}, {})
    assert r.outcome == "fail" and "bootstrap_lb" in r.reason and r.numbers["n"] == 64


def test_bounds_readings() -> None:
    up, down, flat = contrast(50_000), contrast(-50_000), contrast(0, noise=200_000)
    ub = {"kind": "upper-below-zero", "contrast": "c"}
    lb = {"kind": "lower-above-zero", "contrast": "c"}
    assert evaluate("x", ub, {"c": down}, {}).outcome == "refuted"
    assert evaluate("x", ub, {"c": up}, {}).outcome == "not-refuted"
    assert evaluate("x", lb, {"c": up}, {}).outcome == "pass"
    assert evaluate("x", lb, {"c": flat}, {}).outcome == "fail"


def test_three_way_never_reads_an_unmeasurable_contrast_as_refuted() -> None:
    spec = {"kind": "three-way", "contrast": "c"}
    assert evaluate("x", spec, {"c": contrast(50_000)}, {}).outcome == "supported"
    assert evaluate("x", spec, {"c": contrast(-50_000)}, {}).outcome == "refuted"
    flat = evaluate("x", spec, {"c": contrast(0, noise=200_000)}, {})
    assert flat.outcome == "inconclusive" and "detection floor" in flat.reason


def test_passes_while_not_is_the_conditional_diagnostic() -> None:
    spec = {"kind": "passes-while-not", "contrast": "direct", "while_not": "primary"}
    up, down = contrast(50_000), contrast(-50_000)
    assert evaluate("d", spec, {"direct": up, "primary": down}, {}).outcome == "fail"
    assert evaluate("d", spec, {"direct": up, "primary": up}, {}).outcome == "pass"
    assert evaluate("d", spec, {"direct": down, "primary": down}, {}).outcome == "pass"


def test_margin_readings_compare_at_the_same_budget() -> None:
    gate = {"kind": "margin-positive", "weights": "A"}
    assert evaluate("g", gate, {}, {"A": curve("A", [-1.0, 2.0])}).outcome == "pass"
    assert evaluate("g", gate, {}, {"A": curve("A", [-1.0, 0.0])}).outcome == "fail"
    below = {"kind": "margin-below", "weights": "E", "reference": "A"}
    # E trained to 20 moves: A's points past 20 do not count
    a, e = curve("A", [5.0, 6.0, 100.0]), curve("E", [1.0, 7.0])
    r = evaluate("b", below, {}, {"A": a, "E": e})
    assert r.outcome == "fail" and r.numbers == {"budget": 20, "best_margin": 7.0,
                                                "reference_best_margin": 6.0}
    assert evaluate("b", below, {}, {"A": a, "E": curve("E", [1.0, 5.0])}).outcome == "pass"


def test_missing_data_is_not_run() -> None:
    specs = {"p": {"kind": "screen", "contrast": "c"},
             "g": {"kind": "margin-positive", "weights": "A"}}
    out = evaluate_all(specs, {}, {})
    assert [r.outcome for r in out] == [NOT_RUN, NOT_RUN]
    assert "no contrast c" in out[0].reason and "no validation curve A" in out[1].reason


def test_integrity_errors_come_from_the_contrasts_criteria() -> None:
    zeros = np.zeros(64)
    one = zeros.copy()
    one[5] = 1
    bad = contrast(50_000, extra_candidate={"illegal": one, "unfinished": zeros})
    hashed = contrast(50_000, hashes={"w": ("a" * 64, "b" * 64)})
    assert integrity_errors({"ok": contrast(50_000)}) == []
    errors = integrity_errors({"bad": bad, "hashed": hashed})
    assert errors == ["contrast bad: 1 illegal and 0 unfinished decisions",
                      "contrast hashed: screened weights do not match the frozen SHA-256"]
    # the screen reading itself still reads the statistics
    assert evaluate("p", {"kind": "screen", "contrast": "c"}, {"c": bad}, {}).outcome == "pass"


@pytest.mark.parametrize("kind", sorted(READING_KINDS))
def test_titles_default_to_name_and_kind(kind) -> None:
    spec = {"kind": kind, "contrast": "c", "while_not": "c", "weights": "A", "reference": "A",
            "arm": "a"}
    assert evaluate("x", spec, {}, {}).title == f"x ({kind})"
