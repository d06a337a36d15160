"""Panel readings against an independent computation, resampling games, and the theory's
landmarks (the reference ranks itself perfectly; a random ranker scores what chance gives)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panel_support import make_rows, row
from scipy.stats import kendalltau

from analysis.bootstrap import BOOTSTRAP_SEED
from analysis.panel_bootstrap import Figure, figure
from analysis.panel_criteria import read_beats, read_non_inferior, read_threshold
from analysis.panel_readings import PanelError, difference, panel_roots, per_root, read_ranker
from contracts.panel_table import (
    PANEL_COLUMNS,
    TIE_ORDER,
    VALUE_COLUMNS,
    PanelTableError,
    read_rows,
    write_rows,
)

R = 400  # resamples in the tests (the readings default to 20,000)


def plain_figures(rows, reference, ranker):
    """Per-root figures by plain loops (no numpy sorting, scipy for tau)."""
    ref = {(int(r["game"]), int(r["root"])): r for r in rows if r["ranker"] == reference}
    mine = {(int(r["game"]), int(r["root"])): r for r in rows if r["ranker"] == ranker}
    out = {k: [] for k in ("top1", "regret", "regret_frac", "pairwise", "tau", "recall@3")}
    for key in sorted(ref):
        rv = {c: float(ref[key][f"v{c}"]) for c in range(7) if ref[key][f"v{c}"]}
        mv = {c: float(mine[key][f"v{c}"]) for c in range(7) if mine[key][f"v{c}"]}
        ch = int(mine[key]["choice"])
        best, worst = max(rv.values()), min(rv.values())
        out["top1"].append(1.0 if rv[ch] == best else 0.0)
        out["regret"].append(best - rv[ch])
        out["regret_frac"].append(0.0 if best == worst else (best - rv[ch]) / (best - worst))
        cols = sorted(rv)
        agree = total = 0.0
        for i in cols:
            for j in cols:
                if i < j and rv[i] != rv[j]:
                    total += 1
                    if mv[i] == mv[j]:
                        agree += 0.5
                    elif (rv[i] > rv[j]) == (mv[i] > mv[j]):
                        agree += 1
        out["pairwise"].append(agree / total if total else math.nan)
        xs, ys = [rv[c] for c in cols], [mv[c] for c in cols]
        defined = len(cols) >= 2 and len(set(xs)) > 1 and len(set(ys)) > 1
        out["tau"].append(kendalltau(xs, ys).statistic if defined else math.nan)
        ranked = sorted(cols, key=lambda c: (-mv[c], TIE_ORDER.index(c)))
        out["recall@3"].append(1.0 if any(rv[c] == best for c in ranked[:3]) else 0.0)
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("ties", [False, True])
def test_per_root_figures_match_a_plain_computation(ties):
    rows = make_rows(ties=ties)
    roots = panel_roots(rows, "ref", "noisy")
    got = per_root(roots, ks=(3,))
    want = plain_figures(rows, "ref", "noisy")
    for name, x in want.items():
        np.testing.assert_allclose(got[name], x, rtol=1e-12, equal_nan=True, err_msg=name)
    assert np.isnan(want["tau"]).sum() < len(want["tau"])


def plain_splitmix(seed, i):
    m = (1 << 64) - 1
    z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def test_interval_resamples_games_as_a_plain_loop_does():
    rows = make_rows(games=9, roots=5)
    roots = panel_roots(rows, "ref", "noisy")
    top1 = per_root(roots)["top1"]
    got = figure(roots.games, top1, n_resamples=R)
    games = sorted(set(roots.games.tolist()))
    per_game = {g: [t for gg, t in zip(roots.games.tolist(), top1, strict=True) if gg == g]
                for g in games}
    means = []
    for b in range(R):
        drawn = [games[(plain_splitmix(BOOTSTRAP_SEED, b * len(games) + j) >> 32)
                       * len(games) >> 32] for j in range(len(games))]
        pooled = [t for g in drawn for t in per_game[g]]
        means.append(sum(pooled) / len(pooled))
    lo, hi = np.quantile(means, [0.05, 0.95])
    assert got.lower == pytest.approx(lo, abs=1e-12)
    assert got.upper == pytest.approx(hi, abs=1e-12)
    assert got.estimate == pytest.approx(top1.mean())
    half = len(games) // 2
    first = [t for g in games[:half] for t in per_game[g]]
    second = [t for g in games[half:] for t in per_game[g]]
    assert got.halves == (pytest.approx(np.mean(first)), pytest.approx(np.mean(second)))
    assert (got.games, got.roots) == (9, 45)


def test_duplicating_roots_within_games_leaves_the_interval_unchanged():
    """The unit is the game: copying every root of each game ten times adds no information
    (a root-level bootstrap would narrow the interval ~3 times)."""
    rows = make_rows(games=10, roots=4)
    roots = panel_roots(rows, "ref", "noisy")
    x = per_root(roots)["regret_frac"]
    one = figure(roots.games, x, n_resamples=R)
    many = figure(np.repeat(roots.games, 10), np.repeat(x, 10), n_resamples=R)
    assert (many.lower, many.upper, many.estimate) == pytest.approx(
        (one.lower, one.upper, one.estimate), abs=1e-12)
    assert many.roots == 10 * one.roots and one.upper > one.lower


def test_the_reference_ranks_itself_perfectly():
    rows = make_rows()
    figs = read_ranker(panel_roots(rows, "ref", "ref"), n_resamples=R)
    for name, want in (("top1", 1), ("regret", 0), ("regret_frac", 0), ("tau", 1),
                       ("pairwise", 1), ("recall@2", 1), ("work_ratio", 1)):
        f = figs[name]
        assert (f.estimate, f.lower, f.upper) == pytest.approx((want, want, want)), name


def test_a_random_ranker_lands_where_chance_puts_it():
    rows = make_rows(games=80, roots=10, legal_p=0.7)
    roots = panel_roots(rows, "ref", "random")
    figs = read_ranker(roots, n_resamples=R)
    legal = (~np.isnan(roots.reference)).sum(axis=1)
    chance_top1 = float(np.mean(1 / legal))  # no reference ties in continuous values
    chance_recall2 = float(np.mean(np.minimum(2, legal) / legal))
    for name, chance in (("top1", chance_top1), ("tau", 0.0), ("pairwise", 0.5),
                         ("recall@2", chance_recall2)):
        f = figs[name]
        se = (f.upper - f.lower) / (2 * 1.645)  # the 90% interval's half width is 1.645 se
        assert abs(f.estimate - chance) < 3 * se, name
        assert se < 0.05, name  # and the panel is large enough to tell
    noisy = read_ranker(panel_roots(rows, "ref", "noisy"), n_resamples=R)
    assert noisy["top1"].lower > chance_top1 + 0.1 and noisy["tau"].lower > 0.3
    assert figs["work_ratio"].estimate == 0


def test_a_choice_only_ranker_has_the_choice_figures_and_no_others():
    rows = make_rows()
    figs = read_ranker(panel_roots(rows, "ref", "choice-only"), n_resamples=R)
    noisy = read_ranker(panel_roots(rows, "ref", "noisy"), n_resamples=R)
    for name in ("top1", "regret", "regret_frac"):
        assert figs[name] == noisy[name]
    for name in ("tau", "pairwise", "recall@2", "work", "work_ratio"):
        assert figs[name].estimate is None and figs[name].roots == 0
    reading = read_threshold("t", "figure-at-least", "choice-only", "tau", figs["tau"], 0.5)
    assert reading.outcome == "not-run"


def test_a_better_ranker_beats_a_worse_one_paired_by_game():
    rows = make_rows(games=30, noise=0.2) + [
        r | {"ranker": "worse"} for r in make_rows(games=30, noise=3.0) if r["ranker"] == "noisy"]
    good, bad = panel_roots(rows, "ref", "noisy"), panel_roots(rows, "ref", "worse")
    d = difference(good, bad, "top1", n_resamples=R)
    assert d.lower > 0
    assert read_beats("b", "noisy", "worse", "top1", d).outcome == "pass"
    assert read_beats("b", "worse", "noisy", "top1",
                      difference(bad, good, "top1", n_resamples=R)).outcome == "fail"
    regret = difference(good, bad, "regret_frac", n_resamples=R)
    assert regret.upper < 0
    assert read_beats("b", "noisy", "worse", "regret_frac", regret).outcome == "pass"
    same = difference(good, good, "top1", n_resamples=R)
    assert read_beats("b", "noisy", "noisy", "top1", same).outcome == "fail"
    assert d.estimate == pytest.approx(per_root(good)["top1"].mean() - per_root(bad)["top1"].mean())


def _diff(estimate, lower, upper, halves):
    return Figure(estimate, lower, upper, halves, 40, 8, R, BOOTSTRAP_SEED)


@pytest.mark.parametrize("figure_name, diff, margin, on, outcome", [
    # top-1 (higher is better): the lower bound must be above -margin, strictly
    ("top1", _diff(-0.01, -0.019, 0.0, (-0.02, 0.0)), 0.02, "bound", "pass"),
    ("top1", _diff(-0.01, -0.021, 0.0, (-0.02, 0.0)), 0.02, "bound", "fail"),
    ("top1", _diff(-0.01, -0.02, 0.0, (-0.02, 0.0)), 0.02, "bound", "fail"),
    # both halves at least -margin (the register's "on each held-out half-fold")
    ("top1", _diff(-0.01, -0.05, 0.0, (-0.02, 0.0)), 0.02, "halves", "pass"),
    ("top1", _diff(-0.01, -0.05, 0.0, (-0.03, 0.01)), 0.02, "halves", "fail"),
    ("top1", _diff(-0.02, -0.05, 0.0, (-0.03, 0.01)), 0.02, "estimate", "pass"),
    ("top1", _diff(-0.021, -0.05, 0.0, (-0.03, 0.01)), 0.02, "estimate", "fail"),
    # regret (lower is better), the mirror: the upper bound must be below +margin
    ("regret_frac", _diff(0.01, -0.01, 0.019, (0.02, 0.0)), 0.02, "bound", "pass"),
    ("regret_frac", _diff(0.01, -0.01, 0.021, (0.02, 0.0)), 0.02, "bound", "fail"),
    ("regret_frac", _diff(0.01, -0.01, 0.05, (0.02, 0.0)), 0.02, "halves", "pass"),
    ("regret_frac", _diff(0.01, -0.01, 0.05, (0.03, 0.0)), 0.02, "halves", "fail"),
    # work: a ranker doing 40 more nodes a root is non-inferior at a margin of 50, not of 30
    ("work", _diff(40.0, 20.0, 45.0, (30.0, 50.0)), 50.0, "bound", "pass"),
    ("work", _diff(40.0, 20.0, 45.0, (30.0, 50.0)), 30.0, "bound", "fail"),
])
def test_non_inferiority_reads_the_bound_halves_or_estimate_against_the_margin(
        figure_name, diff, margin, on, outcome):
    r = read_non_inferior("n", "cand", "base", figure_name, diff, margin, on)
    assert (r.outcome, r.kind) == (outcome, "ranker-non-inferior")
    assert r.numbers["margin"] == margin and r.numbers["on"] == on
    limit = f"{margin if figure_name in ('regret_frac', 'work') else -margin:+g}"
    assert limit in r.reason and ("not " in r.reason) == (outcome == "fail")


def test_non_inferiority_of_a_missing_figure_is_not_run():
    empty = Figure(None, None, None, (None, None), 0, 0, R, BOOTSTRAP_SEED)
    assert read_non_inferior("n", "a", "b", "tau", empty, 0.02).outcome == "not-run"


def test_non_inferiority_reads_a_bootstrap_of_games_computed_by_hand():
    """The paired difference ranker - other, by root, resampled by game with the screens'
    generator, then its 0.05 quantile against -margin: computed here by plain loops."""
    rows = make_rows(games=10, roots=6, noise=0.5) + [
        r | {"ranker": "worse"} for r in make_rows(games=10, roots=6, noise=0.8)
        if r["ranker"] == "noisy"]
    cand, base = plain_figures(rows, "ref", "worse"), plain_figures(rows, "ref", "noisy")
    keys = sorted({(int(r["game"]), int(r["root"])) for r in rows})
    games = sorted({g for g, _ in keys})
    per_game = {g: [c - b for (gg, _), c, b in zip(keys, cand["top1"], base["top1"],
                                                   strict=True) if gg == g] for g in games}
    means = []
    for b in range(R):
        drawn = [games[(plain_splitmix(BOOTSTRAP_SEED, b * len(games) + j) >> 32)
                       * len(games) >> 32] for j in range(len(games))]
        pooled = [x for g in drawn for x in per_game[g]]
        means.append(sum(pooled) / len(pooled))
    lower = float(np.quantile(means, 0.05))
    estimate = float(np.mean(cand["top1"] - base["top1"]))
    d = difference(panel_roots(rows, "ref", "worse"), panel_roots(rows, "ref", "noisy"), "top1",
                   n_resamples=R)
    assert (d.lower, d.estimate) == (pytest.approx(lower, abs=1e-12), pytest.approx(estimate))
    assert estimate < 0 < -lower  # the worse ranker loses top-1: a margin decides
    read = lambda m: read_non_inferior("n", "worse", "noisy", "top1", d, m).outcome  # noqa: E731
    assert read(-lower + 1e-9) == "pass"
    assert read(-lower - 1e-9) == "fail"


def test_threshold_readings_compare_estimate_bound_or_halves():
    rows = make_rows(games=20, noise=0.3)
    figs = read_ranker(panel_roots(rows, "ref", "noisy"), n_resamples=R)
    top1 = figs["top1"]
    assert top1.lower < top1.estimate
    between = (top1.lower + top1.estimate) / 2
    read = lambda kind, fig, t, on: read_threshold("r", kind, "noisy", "top1", fig, t, on).outcome  # noqa: E731
    assert read("figure-at-least", top1, between, "estimate") == "pass"
    assert read("figure-at-least", top1, between, "bound") == "fail"
    assert read("figure-at-least", top1, min(top1.halves) - 1e-9, "halves") == "pass"
    assert read("figure-at-least", top1, max(top1.halves) + 1e-9, "halves") == "fail"
    regret = figs["regret_frac"]
    assert read("figure-at-most", regret, (regret.upper + regret.estimate) / 2,
                "estimate") == "pass"
    assert read("figure-at-most", regret, (regret.upper + regret.estimate) / 2,
                "bound") == "fail"
    with pytest.raises(ValueError, match="not a threshold reading kind"):
        read_threshold("r", "figure-above", "noisy", "top1", top1, 0.5)


def test_misaligned_rankers_are_refused_in_one_line():
    rows = make_rows(games=2, roots=2)
    with pytest.raises(PanelError, match="no row of ranker 'nobody'"):
        panel_roots(rows, "ref", "nobody")
    short = [r for r in rows if not (r["ranker"] == "noisy" and r["root"] == "1")]
    with pytest.raises(PanelError, match="noisy has no row at game 1000 root 1"):
        panel_roots(short, "ref", "noisy")
    some = [r | {k: "" for k in VALUE_COLUMNS} if r["ranker"] == "noisy" and r["root"] == "0"
            else r for r in rows]
    with pytest.raises(PanelError, match="gives values at 2 of 4 roots"):
        panel_roots(some, "ref", "noisy")
    legal_of = {(r["game"], r["root"]): [c for c in range(7) if r[f"v{c}"]]
                for r in rows if r["ranker"] == "ref"}
    g, rt = next((k for k, v in legal_of.items() if len(v) < 7))
    bad_col = next(c for c in range(7) if c not in legal_of[(g, rt)])
    wrong = [r | {"choice": str(bad_col)} if (r["game"], r["root"], r["ranker"])
             == (g, rt, "choice-only") else r for r in rows]
    with pytest.raises(PanelError, match=f"chooses column {bad_col} at game {g} root {rt}"):
        panel_roots(wrong, "ref", "choice-only")


def test_the_panel_table_round_trips_and_refuses_bad_rows(tmp_path):
    rows = make_rows(games=2, roots=2)
    path = tmp_path / "panel.csv"
    write_rows(rows, path)
    assert read_rows(path) == rows
    text = path.read_text().splitlines()
    assert text[0] == ",".join(PANEL_COLUMNS)
    cases = {
        "game x": ("game", "x", "game 'x' is not an integer"),
        "choice 7": ("choice", "7", "choice '7' is not a column 0..6"),
        "work -1": ("work", "-1", "work '-1' is not a whole number"),
        "value nan": ("v3", "nan", "v3 'nan' is not a finite number"),
        "ranker spaces": ("ranker", " ref", "has spaces around it"),
    }
    for label, (key, value, message) in cases.items():
        bad = [dict(rows[0], **{key: value})] + rows[1:]
        if key == "v3" and not rows[0]["v3"]:
            bad[0]["v3"] = value
        write_rows(bad, path)
        with pytest.raises(PanelTableError, match=rf"panel.csv: line 2: .*{message}"):
            read_rows(path)
        assert label
    write_rows([rows[0], rows[0]], path)
    with pytest.raises(PanelTableError, match="line 3: game 1000 root 0 ranker ref is given "
                       "twice"):
        read_rows(path)
    path.write_text("game,root\n1,2\n")
    with pytest.raises(PanelTableError, match="line 1: the header must be"):
        read_rows(path)
    path.write_text(",".join(PANEL_COLUMNS) + "\n1,2\n")
    with pytest.raises(PanelTableError, match="line 2 has 2 fields"):
        read_rows(path)


def test_numpy_numbers_are_written_as_plain_numbers(tmp_path):
    path = tmp_path / "p.csv"
    values = np.array([1.5, -2.0, np.nan, 3.0, 4.0, 5.0, 6.0])
    write_rows([{"game": np.uint64(2**64 - 1), "root": np.int64(3), "ranker": "a",
                 "choice": np.int64(0), "work": None,
                 **{k: values[c] for c, k in enumerate(VALUE_COLUMNS)}}], path)
    row_read = read_rows(path)[0]
    assert (row_read["game"], row_read["root"], row_read["work"]) == (str(2**64 - 1), "3", "")
    assert [row_read[k] for k in VALUE_COLUMNS] == ["1.5", "-2.0", "", "3.0", "4.0", "5.0",
                                                    "6.0"]


def test_a_choice_on_an_unvalued_column_is_refused(tmp_path):
    values = [1.0, 2.0, math.nan, 3.0, 4.0, 5.0, 6.0]
    path = tmp_path / "p.csv"
    write_rows([row(1, 0, "a", 2, 5, values)], path)
    with pytest.raises(PanelTableError, match="line 2: choice 2 has no value"):
        read_rows(path)


def test_the_tie_order_is_the_engines_centre_order():
    from engines.drop7.board import CENTRE_ORDER

    assert TIE_ORDER == CENTRE_ORDER
