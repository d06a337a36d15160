"""Report pages rendered from a small synthetic games table: self-contained, every section."""

from __future__ import annotations

import base64
import json
import re
from html import escape

import numpy as np
import pandas as pd
import pytest

from analysis.contrast import contrast_games
from analysis.power import operating_characteristic
from analysis.report.page import (
    FIGURES,
    ScreenRun,
    find_summaries,
    render_index,
    render_screen,
    run_summary,
    write_public,
)
from analysis.verdict import claim_verdict

ARMS = ("ntuple-A-d3s7", "ntuple-A-direct", "linear-d3s7")
PNG = b"\x89PNG\r\n\x1a\n"


def synthetic_games(n: int = 32) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    base = rng.gamma(2.0, 150_000, n)
    rows = []
    for arm, shift in zip(ARMS, (60_000, -40_000, 0), strict=True):
        scores = np.maximum(0, base + shift + rng.normal(0, 50_000, n)).round()
        for i, s in enumerate(scores):
            rows.append({"arm": arm, "policy": f"policy-of-{arm}", "seed": 1000 + i, "game": i,
                         "score": s, "moves": 90 + i % 7, "levels": 10, "clears": 0,
                         "censored": 0, "popped": 50, "decisions": 90, "illegal": 0,
                         "unfinished": 0, "wall_s": 0.5})
    return pd.DataFrame(rows)


def curve(weights: str, margins: list[float]) -> dict:
    return {"weights": weights, "fair_arm": "linear-d3s7", "points": [
        {"step": (i + 1) * 1000, "arm": f"{weights}-step{(i + 1) * 1000}-d3s7", "path": "p",
         "margin": m, "n": 64, "mean_candidate": 300_000 + m, "mean_baseline": 300_000,
         "mean_delta": m, "sd_delta": 1e5, "bootstrap_lb": m - 2e4, "bootstrap_ub": m + 2e4,
         "t_lb": m - 2.1e4, "wins": 30, "ties": 2, "losses": 32, "mean_moves_candidate": 100,
         "mean_moves_baseline": 90} for i, m in enumerate(margins)]}


def config(profile: str = "pilot", registered: bool = False) -> dict:
    cfg = {"profile": profile, "description": f"test run {profile}",
           "registered_budget": registered, "ledger": "data/screen-ledger.json",
           "search": {"depth": 3, "strata": 7}, "validation": {"games": 64, "shards": 1},
           "screen": {"block": 7, "games": 32, "shards": 2}}
    if not registered:
        cfg["budget_note"] = "training budget shrunk to a test"
    return cfg


def provenance() -> dict:
    return {"commit": "0123456789abcdef", "dirty": False, "config_hash": "c" * 64,
            "profile": "pilot", "packages": {"python": "3.11", "numpy": "2"},
            "seed_blocks": {"screen": {"block": 7, "start": 1000, "count": 32}},
            "weights": [{"path": "results/x/step-1000", "moves_trained": 1000,
                         "games_trained": 10, "sha256": "d" * 64, "wall_s": 2.0,
                         "moves_per_s": 500.0}],
            "frozen": None, "games_wall_s": {"linear-d3s7": {"games": 32, "wall_s": 16.0}},
            "job_wall_s": {"train/ntuple-A": 2.0}}


def manifests() -> dict:
    return {"ntuple-A": [{"moves_trained": 1000, "wall_s": 2.0, "moves_per_s": 500.0},
                         {"moves_trained": 2000, "wall_s": 3.0, "moves_per_s": 666.0}]}


def screened_run(reused: bool = False, registered: bool = False) -> ScreenRun:
    games = synthetic_games()
    primary = contrast_games(games, ARMS[0], ARMS[2], n_resamples=500).to_dict()
    direct = contrast_games(games, ARMS[1], ARMS[2], n_resamples=500).to_dict()
    c = games[games.arm == ARMS[0]].score.to_numpy()
    b = games[games.arm == ARMS[2]].score.to_numpy()
    primary["oc"] = operating_characteristic(c, b, n_sims=200).to_dict()
    curves = {"ntuple-A": curve("ntuple-A", [-5e3, 4e4]), "ntuple-E": curve("ntuple-E", [1e3])}
    verdict = claim_verdict(candidate_margins=[-5e3, 4e4], ablation_margins=[1e3],
                            primary=primary, direct=direct, reused_block=reused).to_dict()
    owner_sha = "e" * 64 if reused else "f" * 64
    opened = {"block": 7, "sha256": "f" * 64, "reused": reused,
              "owner": {"sha256": owner_sha, "candidate": "ntuple-A", "profile": "paper",
                        "opened_utc": "2026-09-01T00:00:00Z"},
              "entry": {"seeds": [1000, 32], "opened_utc": "2026-09-06T00:00:00Z"}}
    frozen = {"weights": "ntuple-A", "step": 2000, "sha256": "f" * 64, "margin": 4e4,
              "selection": "largest validation margin; ties to the later point"}
    gate = {"weights": "ntuple-A", "passed": True, "reason": "validation margin positive"}
    return ScreenRun(config=config(registered=registered), gate=gate, curves=curves,
                     verdict=verdict, provenance=provenance(), manifests=manifests(),
                     frozen=frozen, opened=opened, contrasts={"primary": primary,
                                                               "direct": direct},
                     games=games, arms={a: {"policy": f"policy-of-{a}"} for a in ARMS})


def gate_failed_run() -> ScreenRun:
    curves = {"ntuple-A": curve("ntuple-A", [-5e3, -1e3]), "ntuple-E": curve("ntuple-E", [-2e3])}
    verdict = claim_verdict(candidate_margins=[-5e3, -1e3], ablation_margins=[-2e3]).to_dict()
    gate = {"weights": "ntuple-A", "passed": False,
            "reason": "no validation point of ntuple-A beat the fair leaf"}
    return ScreenRun(config=config(), gate=gate, curves=curves, verdict=verdict,
                     provenance=provenance(), manifests=manifests())


def images(html: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"', html)]


def test_screen_page_is_self_contained_with_every_section() -> None:
    run = screened_run()
    html = render_screen(run)
    pngs = images(html)
    assert len(pngs) == len(FIGURES) and all(p.startswith(PNG) for p in pngs)
    # no external resource: nothing fetched from a server or another file
    assert not re.search(r'(src|href)="(?!data:|#)', html)
    assert "<script" not in html and "<link" not in html
    assert f"profile <code>{run.profile}</code>" in html
    assert run.verdict["verdict"] in html
    for c in run.verdict["criteria"]:
        assert escape(c["title"], quote=False) in html
    primary = run.contrasts["primary"]
    assert f"{primary['mean_delta']:+,.0f}" in html and f"{primary['bootstrap_lb']:+,.0f}" in html
    assert "Budgets shrunk" in html and "Screen block reused" not in html
    assert "c" * 64 in html and "0123456789abcdef" in html  # config hash and commit
    assert "f" * 64 in html  # frozen weights SHA-256
    assert "policy-of-ntuple-A-direct" in html
    moves = primary["mean_moves_candidate"]
    assert f"<td>{moves:,.1f} / " in html  # plain numbers carry no sign


def test_reused_block_is_flagged() -> None:
    run = screened_run(reused=True)
    html = render_screen(run)
    assert "Screen block reused" in html and "e" * 16 in html
    assert run.verdict["verdict"] == "invalidated-by-methodological-error"
    assert run_summary(run, "screen-7.html")["reused"] is True


def test_registered_run_has_no_shrunk_banner() -> None:
    assert "Budgets shrunk" not in render_screen(screened_run(registered=True))


def test_gate_failed_page_says_why_and_keeps_every_figure() -> None:
    run = gate_failed_run()
    html = render_screen(run)
    assert "The screen was not opened" in html
    assert "no validation point of ntuple-A beat the fair leaf" in html
    assert "not-supported-as-tested" in html
    assert len(images(html)) == len(FIGURES)  # screen figures are labelled placeholders
    summary = run_summary(run, "screen-7.html")
    assert summary["screened"] is False and summary["sha256"] is None


def test_index_lists_every_run_with_its_verdict(tmp_path) -> None:
    reports = tmp_path / "reports"
    for profile, run in (("pilot", screened_run()), ("smoke", gate_failed_run())):
        run.config["profile"] = profile
        write_public(reports / profile / "screen-7.json",
                     json.dumps(run_summary(run, "screen-7.html")))
    (reports / "junk").mkdir()
    (reports / "junk" / "screen-1.json").write_text("{broken")
    runs = find_summaries(reports)
    assert {r["profile"] for r in runs} == {"pilot", "smoke"}
    ledger = {"data/screen-ledger.json": {7: [{"candidate": "ntuple-A", "profile": "pilot",
                                               "sha256": "f" * 64, "opened_utc": "t",
                                               "reused": False}]}}
    html = render_index(runs, ledger)
    assert 'href="pilot/screen-7.html"' in html and 'href="smoke/screen-7.html"' in html
    assert "not-supported-as-tested" in html and "screen not opened" in html
    assert "f" * 16 in html
    assert oct((reports / "pilot" / "screen-7.json").stat().st_mode & 0o777) == "0o644"


@pytest.mark.parametrize("figure", ["validation_curve", "training_throughput"])
def test_training_figures_render_without_a_screen(figure: str) -> None:
    from analysis.report.page import build_figures

    assert build_figures(gate_failed_run())[figure].startswith(PNG)
