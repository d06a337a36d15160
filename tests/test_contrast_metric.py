"""Lifetime as a metric: a contrast of ``metric: moves`` compares the games' lengths, with every
statistic, reading, figure and page following it; the default ``score`` is unchanged."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml
from claims_support import REPO, own_claim, write_claim
from test_stats_support import games_frame

from analysis.contrast import (
    SCREEN_CRITERIA,
    Contrast,
    contrast_games,
    contrast_interaction,
    contrast_scores,
)
from analysis.games_table import METRICS, pair_arms
from analysis.readings import evaluate
from analysis.report import figures
from cli.main import main
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.records.experiment import experiment_record
from protocol.schema import DeclarationError

N = 24


def disagreeing() -> pd.DataFrame:
    """A table where the candidate scores more but lives shorter: score and moves disagree."""
    rng = np.random.default_rng(11)
    base_score = rng.integers(100_000, 400_000, N).astype(float)
    base_moves = rng.integers(80, 160, N).astype(float)
    frame = games_frame({"cand": base_score + 50_000 + rng.integers(0, 9_000, N),
                         "base": base_score}, extra=True)
    moves = np.concatenate([base_moves - 20 - rng.integers(0, 5, N), base_moves])
    frame["moves"] = moves.astype(int)
    return frame


def moves_of(frame: pd.DataFrame, arm: str) -> np.ndarray:
    return frame[frame.arm == arm].sort_values("seed")["moves"].to_numpy(float)


def test_a_moves_contrast_gives_the_moves_delta_where_score_and_moves_disagree() -> None:
    frame = disagreeing()
    score = contrast_games(frame, "cand", "base", n_resamples=2000)
    moves = contrast_games(frame, "cand", "base", "moves", n_resamples=2000)
    assert score.metric == "score" and score.mean_delta > 0 and score.passed
    assert moves.metric == "moves" and moves.mean_delta < 0 and not moves.passed
    # every statistic is the one of the moves columns, as if they were the scores
    direct = contrast_scores(moves_of(frame, "cand"), moves_of(frame, "base"),
                             candidate="cand", baseline="base", n_resamples=2000).to_dict()
    got = moves.to_dict()
    for key in ("n", "mean_delta", "sd_delta", "bootstrap_lb", "bootstrap_ub", "t_lb",
                "detection_floor", "halves", "q25_candidate", "q25_baseline",
                "median_candidate", "q75_baseline", "quartile_regression", "wins", "ties",
                "losses"):
        assert got[key] == direct[key], key
    assert {k: got["criteria"][k] for k in SCREEN_CRITERIA} == {
        k: direct["criteria"][k] for k in SCREEN_CRITERIA}
    assert got["mean_delta"] == pytest.approx(
        float(np.mean(moves_of(frame, "cand") - moves_of(frame, "base"))))
    assert got["wins"] == 0 and got["losses"] == N


def test_the_default_metric_is_the_score_bit_for_bit() -> None:
    frame = disagreeing()
    default = contrast_games(frame, "cand", "base", n_resamples=2000).to_dict()
    scores = [frame[frame.arm == a].sort_values("seed")["score"].to_numpy(float)
              for a in ("cand", "base")]
    direct = contrast_scores(*scores, candidate="cand", baseline="base",
                             n_resamples=2000).to_dict()
    extras = ("seed_first", "seed_last", "mean_moves_candidate", "mean_moves_baseline",
              "censored_candidate", "censored_baseline", "illegal", "unfinished", "criteria")
    for key, value in direct.items():
        if key not in extras:
            assert default[key] == value, key
    assert {k: default["criteria"][k] for k in SCREEN_CRITERIA} == {
        k: direct["criteria"][k] for k in SCREEN_CRITERIA}
    assert default["metric"] == "score"


def test_an_interaction_follows_its_metric_and_refuses_two() -> None:
    frame = pd.concat([disagreeing(), disagreeing().assign(
        arm=lambda f: f.arm.map({"cand": "c2", "base": "b2"}),
        moves=lambda f: f.moves + np.where(f.arm == "c2", 3, 0))])
    first = pair_arms(frame, "cand", "base", "moves")
    second = pair_arms(frame, "c2", "b2", "moves")
    c = contrast_interaction(first, second, n_resamples=500)
    assert c.metric == "moves" and c.mean_delta == pytest.approx(-3.0)
    with pytest.raises(ValueError, match="compare moves and score; both must compare one"):
        contrast_interaction(first, pair_arms(frame, "c2", "b2"), n_resamples=500)


def test_an_unknown_metric_or_a_table_without_its_column_is_one_line() -> None:
    frame = disagreeing()
    with pytest.raises(ValueError, match="unknown metric 'lifetime' .metrics: score, moves, "
                       "clears_per_move, reveals_per_move."):
        pair_arms(frame, "cand", "base", "lifetime")
    with pytest.raises(ValueError, match="lacks column 'moves', read by the contrast's metric "
                       "moves"):
        pair_arms(frame[["arm", "seed", "score"]], "cand", "base", "moves")


def test_the_readings_and_figures_follow_the_metric() -> None:
    frame = disagreeing()
    typed = contrast_games(frame, "cand", "base", "moves", n_resamples=2000)
    typed.seed_first, typed.seed_last = 100, 100 + N - 1
    c = typed.to_dict()
    r = evaluate("life", {"kind": "lower-above-zero", "contrast": "c"}, {"c": c}, {})
    assert r.outcome == "fail" and "(moves: n 24, mean delta -2" in r.reason
    assert Contrast.from_dict(c) == typed
    np.testing.assert_array_equal(figures.deltas(frame, typed),
                                  moves_of(frame, "cand") - moves_of(frame, "base"))
    assert figures.metric_of(typed) == ("moves", "moves")
    assert figures.metric_of(contrast_games(frame, "cand", "base", n_resamples=200)) == (
        "score", "points")
    for png in (figures.paired_deltas(frame, {"life": typed}, "life"),
                figures.halves({"life": typed}),
                figures.score_distributions(frame, "moves")):
        assert png.startswith(b"\x89PNG")


def test_drop7_stats_takes_the_metric(tmp_path, capsys) -> None:
    path = tmp_path / "games.csv"
    disagreeing().to_csv(path, index=False)
    code = main(["stats", str(path), "--candidate", "cand", "--baseline", "base",
                 "--metric", "moves", "--json", "--resamples", "500"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["metric"] == "moves" and out["mean_delta"] < 0
    main(["stats", str(path), "--candidate", "cand", "--baseline", "base", "--resamples", "500",
          "--metric", "moves"])
    assert "metric moves (moves)" in capsys.readouterr().out
    code = main(["stats", str(path), "--candidate", "cand", "--baseline", "base",
                 "--metric", "lifetime"])
    err = capsys.readouterr().err
    assert code == 2 and "argument --metric: invalid choice: 'lifetime'" in err


def _moves_claim(metric: str = "moves") -> dict:
    doc = own_claim()
    doc["contrasts"]["ply"]["metric"] = metric
    return doc


def test_a_declared_metric_is_planned_and_an_unknown_one_refused(tmp_path) -> None:
    write_claim(tmp_path, _moves_claim())
    plan = load_plan(REPO, {"profile": "pilot", "claims_dir": str(tmp_path)})
    mine = plan.claims["my-first-claim"]
    assert mine.contrasts["ply"].metric == "moves"
    assert plan.claims["fourth-ply"].contrasts["persistence"].metric == "score"
    described = mine.describe()
    assert "metric" not in described["contrasts"]["ply"]  # in the declaration, hashed once
    record = experiment_record(described, "2026-12-03T00:00:00Z", ["SL-x"])
    assert record["metrics"]["primary"] == "paired mean moves delta, contrast ply"
    bad = tmp_path / "bad"
    bad.mkdir()
    write_claim(bad, _moves_claim("lifetime"))
    with pytest.raises(DeclarationError) as err:
        load_claims(bad)
    message = str(err.value)
    assert message.startswith(f"{bad / 'my-first-claim.yaml'}: key contrasts.ply.metric: "
                              "unknown metric 'lifetime' (metrics: score (points), moves (moves), "
                              "clears_per_move (clears per move), reveals_per_move (reveals "
                              "per move))")
    assert "\n" not in message
    assert set(METRICS) == {"score", "moves", "clears_per_move", "reveals_per_move"}


def test_the_shipped_plans_keep_their_protocol_hash() -> None:
    """No contrast declares a metric, so the plan's description (what the protocol hash
    reads) is what it was: no ``metric`` key appears."""
    plan = load_plan(REPO, {"profile": "pilot"})
    for p in plan.claims.values():
        for c in p.describe()["contrasts"].values():
            assert set(c) == {"kind", "arms", "games", "title", "prefix_of"}


@pytest.mark.workflow
def test_a_moves_claim_with_a_non_inferiority_reading_runs_end_to_end(tmp_path) -> None:
    """One's own claim under smoke: the fair leaf one ply against random play on 8 games,
    compared on moves, read with a non-inferiority margin; the page says moves."""
    from workflow_support import load, ok, snakemake

    folder = tmp_path / "mine"
    folder.mkdir()
    doc = _moves_claim()
    doc["readings"]["ply-lives"] = {"kind": "non-inferior", "contrast": "ply", "margin": -5}
    doc["verdict"]["rules"].append({"when": {"ply-lives": "fail"},
                                    "then": "not-supported-as-tested"})
    write_claim(folder, doc)
    work = tmp_path / "run"
    work.mkdir()
    ok(snakemake(work, "--cores", "2", "--config", "profile=smoke", f"claims_dir={folder}"))
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(folder)})
    p = plan.claims["my-first-claim"]
    contrast = load(work / plan.paths.path("contrast", claim=p.id, block=p.label,
                                           contrast="ply"))
    games = pd.read_csv(work / plan.paths.path("table", claim=p.id, block=p.label))
    d = (games[games.arm == "fair-d1s3"].sort_values("seed")["moves"].to_numpy()
         - games[games.arm == "random"].sort_values("seed")["moves"].to_numpy())
    assert contrast["metric"] == "moves" and contrast["mean_delta"] == pytest.approx(d.mean())
    verdict = load(work / plan.paths.path("verdict", claim=p.id))
    reading = next(r for r in verdict["readings"] if r["name"] == "ply-lives")
    assert reading["outcome"] in ("pass", "fail") and "margin -5.00 moves" in reading["reason"]
    assert (reading["outcome"] == "pass") == (contrast["bootstrap_lb"] > -5)
    page = (work / plan.paths.path("page", claim=p.id)).read_text()
    assert "<b>moves</b> (moves)" in page and "margin -5.00 moves" in page


def test_the_page_says_each_contrasts_metric() -> None:
    from test_report_render import run_of

    from analysis.report.page import FIGURES, render_claim, render_index, run_summary

    run, pngs = run_of("ntuple-line-tuples"), dict.fromkeys(FIGURES, b"png")
    assert "<b>score</b> (points)" in render_claim(run, pngs)
    run.contrasts["direct"] = replace(run.contrasts["direct"], metric="moves")
    html = render_claim(run, pngs)
    assert "<b>score</b> (points)" in html and "<b>moves</b> (moves)" in html
    # the index gives the first contrast's mean delta with its unit
    run.contrasts["primary"] = replace(run.contrasts["primary"], metric="moves")
    summary = run_summary(run, "p.html")
    assert summary["contrast"]["unit"] == "moves"
    index = render_index({}, [{**summary, "href": "pilot/p.html"}])
    assert f"{summary['contrast']['mean_delta']:+,.2f} moves" in index


def test_the_operating_characteristic_figure_takes_the_metric() -> None:
    from analysis.power import operating_characteristic

    frame = disagreeing()
    oc = operating_characteristic(moves_of(frame, "cand"), moves_of(frame, "base"), n_sims=200)
    assert figures.operating_characteristic(oc.to_dict(), "life", "moves").startswith(
        b"\x89PNG")


@pytest.mark.workflow
def test_a_sequential_screen_on_moves_looks_at_the_games_lengths(tmp_path) -> None:
    """The looks (and the ledger's record of them) read the stopping contrast's metric."""
    from claims_support import claims_copy, sequential_claim
    from workflow_support import load, ok, plan_of, snakemake

    doc = sequential_claim()
    doc["contrasts"]["skill"]["metric"] = "moves"
    claims = claims_copy(tmp_path / "claims", extra={"sequential-stop": doc})
    size = {"claims": {"sequential-stop": {"screen": {"games": 32}}}}
    extra = tmp_path / "size.yaml"
    extra.write_text(yaml.safe_dump(size))
    work = tmp_path / "run"
    work.mkdir()
    ok(snakemake(work, "--cores", "2", "--configfile", str(extra), "--config",
                 "profile=smoke", f"claims_dir={claims}", "--", "sequential_stop"))
    plan = plan_of("smoke", claims_dir=str(claims), **size)
    p, paths = plan.claims["sequential-stop"], plan.paths
    first = load(work / paths.path("looks", claim=p.id, block=p.label))["looks"][0]
    games = pd.concat(pd.read_csv(work / paths.path("games", claim=p.id, block=p.look_label(1),
                                                    arm=a)) for a in ("fair-direct", "random"))
    d = moves_of(games, "fair-direct") - moves_of(games, "random")
    assert first["n"] == 16 and first["mean_delta"] == pytest.approx(d.mean())
    c = load(work / paths.path("contrast", claim=p.id, block=p.label, contrast="skill"))
    assert c["metric"] == "moves" and c["sequential"]["looks"][0]["mean_delta"] == pytest.approx(
        d.mean())
    entry = load(work / plan.profile["ledger"])["blocks"][str(p.block)][0]
    assert entry["looks"][0]["seeds"] == first["seeds"]


def with_rates() -> pd.DataFrame:
    """:func:`disagreeing` with clears and reveals that differ game by game and by arm."""
    frame = disagreeing()
    rng = np.random.default_rng(5)
    frame["clears"] = (frame["moves"] * rng.uniform(0.2, 0.5, len(frame))).round().astype(int)
    frame["reveals"] = (frame["moves"] * rng.uniform(0.05, 0.3, len(frame))).round().astype(int)
    return frame


@pytest.mark.parametrize(("metric", "column"), [("clears_per_move", "clears"),
                                                 ("reveals_per_move", "reveals")])
def test_a_per_move_contrast_is_the_ratio_of_each_games_columns(metric, column) -> None:
    frame = with_rates()

    def rate(arm: str) -> np.ndarray:
        rows = frame[frame.arm == arm].sort_values("seed")
        return rows[column].to_numpy(float) / rows["moves"].to_numpy(float)

    c = contrast_games(frame, "cand", "base", metric, n_resamples=2000)
    d = rate("cand") - rate("base")
    assert c.metric == metric and c.n == N
    assert c.mean_delta == pytest.approx(d.mean())
    assert c.sd_delta == pytest.approx(d.std(ddof=1))
    assert c.halves == pytest.approx((d[:N // 2].mean(), d[N // 2:].mean()))
    assert c.mean_candidate == pytest.approx(rate("cand").mean())
    assert c.q25_baseline == pytest.approx(np.quantile(rate("base"), 0.25))
    assert c.wins == int((d > 0).sum()) and c.losses == int((d < 0).sum())
    typed = c.to_dict()
    r = evaluate("rate", {"kind": "lower-above-zero", "contrast": "c"}, {"c": typed}, {})
    assert f"mean delta {d.mean():+.4f}," in r.reason  # a rate prints at four decimals
    np.testing.assert_allclose(figures.deltas(frame, replace(
        c, seed_first=100, seed_last=100 + N - 1)), d)


def test_a_rate_of_a_game_without_moves_is_refused_naming_the_arm() -> None:
    frame = with_rates()
    frame.loc[(frame.arm == "base") & (frame.seed == 103), "moves"] = 0
    with pytest.raises(ValueError, match=r"^games table, arm 'base': 1 game\(s\) have moves 0: "
                       r"no clears_per_move \(a rate needs at least one of moves\)$"):
        pair_arms(frame, "cand", "base", "clears_per_move")
    with pytest.raises(ValueError, match="lacks column 'reveals', read by the contrast's metric "
                       "reveals_per_move"):
        pair_arms(frame.drop(columns="reveals"), "cand", "base", "reveals_per_move")
