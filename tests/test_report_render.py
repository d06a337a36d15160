"""Claim pages rendered from the real plans and synthetic games: self-contained, every section."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd
from claims_support import REPO

from analysis.contrast import Contrast, contrast_interaction, contrast_paired
from analysis.games_table import pair_arms
from analysis.power import operating_characteristic
from analysis.readings import evaluate_all
from analysis.report.model import ClaimDescription, Verdict
from analysis.report.page import (
    FIGURES,
    ClaimRun,
    find_summaries,
    render_claim,
    render_index,
    run_summary,
    write_public,
)
from protocol.plan import load_plan
from protocol.verdict import decide, methodological_errors

PNG = b"\x89PNG\r\n\x1a\n"


def plan(claim: str, profile: str = "pilot"):
    return load_plan(REPO, {"profile": profile}).claims[claim]


def synthetic_games(p) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    start, n = p.seeds
    base = rng.gamma(2.0, 150_000, n)
    rows = []
    for i, (arm, a) in enumerate(p.arms.items()):
        scores = np.maximum(0, base + 30_000 * i + rng.normal(0, 50_000, n)).round()
        for g in range(a.games):
            rows.append({"arm": arm, "policy": a.policy, "seed": start + g, "game": g,
                         "score": scores[g], "moves": 90 + g % 7, "levels": 10, "clears": 0,
                         "censored": 0, "popped": 50, "decisions": 90, "illegal": 0,
                         "unfinished": 0, "wall_s": 0.5})
    df = pd.DataFrame(rows)
    df["seed"] = df["seed"].astype(np.uint64)
    return df


def contrasts_of(p, games) -> dict:
    out = {}
    for name, c in p.contrasts.items():
        inside = games[games["seed"] < np.uint64(p.seeds[0] + c.games)]
        pairs = [pair_arms(inside, a, b) for a, b in zip(c.arms[::2], c.arms[1::2], strict=True)]
        if c.kind == "difference":
            out[name] = contrast_paired(pairs[0], n_resamples=500).to_dict()
        else:
            out[name] = contrast_interaction(*pairs, n_resamples=500).to_dict()
    first = next(iter(out))
    a, b = p.contrasts[first].arms[:2]
    out[first]["oc"] = operating_characteristic(
        games[games.arm == a].score.to_numpy()[:p.contrasts[first].games],
        games[games.arm == b].score.to_numpy()[:p.contrasts[first].games], n_sims=200).to_dict()
    return out


def curve(weights: str, margins: list[float]) -> dict:
    return {"weights": weights, "comparator": "linear-d3s7", "points": [
        {"step": (i + 1) * 5_000_000, "arm": f"{weights}-step{(i + 1) * 5_000_000}-d3s7",
         "path": "p", "margin": m, "n": 64, "mean_candidate": 300_000 + m,
         "mean_baseline": 300_000, "mean_delta": m, "sd_delta": 1e5, "bootstrap_lb": m - 2e4,
         "bootstrap_ub": m + 2e4, "t_lb": m - 2.1e4, "wins": 30, "ties": 2, "losses": 32,
         "mean_moves_candidate": 100, "mean_moves_baseline": 90} for i, m in enumerate(margins)]}


def provenance() -> dict:
    return {"commit": "0123456789abcdef", "dirty": False, "config_hash": "c" * 64,
            "declaration_hash": "d" * 64, "profile": "pilot",
            "packages": {"python": "3.11", "numpy": "2"},
            "seed_blocks": {"screen": {"blocks": [1], "start": 1000, "count": 32}},
            "weights": [{"path": "results/x/step-1000", "moves_trained": 1000,
                         "games_trained": 10, "sha256": "d" * 64, "wall_s": 2.0,
                         "moves_per_s": 500.0}], "frozen": {},
            "games_wall_s": {"linear-d3s7": {"games": 32, "wall_s": 16.0}},
            "jobs": {"train/ntuple-A/step-5000000": {"wall_s": 2.0, "cpu_s": 1.9,
                                                     "max_rss_mb": 700.0}},
            "stages": {"train": {"jobs": 1, "wall_s": 2.0, "cpu_s": 1.9, "max_rss_mb": 700.0}}}


def manifests() -> dict:
    return {"ntuple-A": [{"moves_trained": 5_000_000, "wall_s": 50.0, "moves_per_s": 1e5},
                         {"moves_trained": 10_000_000, "wall_s": 90.0, "moves_per_s": 1.1e5}]}


def run_of(claim: str, *, screened: bool = True, reused: bool = False,
           profile: str = "pilot") -> ClaimRun:
    p = plan(claim, profile)
    desc = ClaimDescription.from_json(p.describe())
    curves = {w: curve(w, [-5e3, 4e4]) for w in p.trained}
    gate = {"claim": claim, "passed": screened, "enforced": True, "opens_screen": screened,
            "gates": [], "reason": "validation margin positive" if screened else "no signal"}
    frozen = {k: {"artefact": k, "weights": a.weights, "step": 10_000_000, "sha256": "f" * 64,
                  "margin": 4e4, "selection": "largest validation margin; ties to the later "
                  "point", "gates_passed": True} for k, a in p.artefacts.items()}
    games = contrasts = opened = closed = None
    if screened:
        games = synthetic_games(p)
        contrasts = contrasts_of(p, games)
        owner = {"claim": "other" if reused else claim, "profile": "paper",
                 "opened_utc": "2026-09-01T00:00:00Z"}
        opened = {"claim": claim, "hashes": {k: "f" * 64 for k in frozen}, "shares": None,
                  "reused": reused, "blocks": {str(b): {
                      "owner": owner, "reused": reused,
                      "entry": {"seeds": list(p.seeds), "opened_utc": "2026-09-06T00:00:00Z"}}
                      for b in p.blocks}}
        closed = {"games": len(games), "table_sha256": "9" * 64,
                  "entries": {str(b): {"table_sha256": "9" * 64} for b in p.blocks}}
    readings = evaluate_all(p.readings, contrasts or {}, curves)
    errors = methodological_errors(integrity=[], gate=gate, screened=screened, reused=reused)
    verdict = decide(p.claim.doc["verdict"], readings, errors, p.tier)
    return ClaimRun(plan=desc, profile={"profile": profile, "note": "a test note"}, gate=gate,
                    verdict=Verdict.from_json(verdict), provenance=provenance(), curves=curves,
                    manifests=manifests() if p.trained else {}, frozen=frozen, opened=opened,
                    closed=closed, hashes={k: {"expected": "f" * 64, "actual": "f" * 64,
                                               "pin": None} for k in frozen},
                    contrasts={n: Contrast.from_dict(c) for n, c in (contrasts or {}).items()},
                    games=games)


def images(html: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"', html)]


def test_claim_page_is_self_contained_with_every_section() -> None:
    html = render_claim(run_of("ntuple-line-tuples"))
    assert len(images(html)) == len(FIGURES) and all(i.startswith(PNG) for i in images(html))
    assert not re.search(r'(src|href)="(?!data:|#)', html)  # nothing outside the page
    for text in ("Readings", "The verdict rule, as declared", "Contrasts", "Arms", "Figures",
                 "Training and validation", "Ledger", "Provenance", "Time per stage",
                 "Shrunk by the pilot profile", "a test note", "ntuple-A: trained 2e7 moves",
                 "TH-20260905-ntuple-line-tuples-tc-td-leaf", "recorded: mean delta",
                 "+170,139", "484,577", "register's recorded figures"):
        assert text in html, text


def test_the_fourth_ply_page_shows_its_interaction() -> None:
    run = run_of("fourth-ply")
    html = render_claim(run)
    assert run.contrasts["interaction"].kind == "interaction"
    assert "interaction" in html and "+881" in html  # the register's interaction anchor
    assert "this claim trains no weights" not in html.split("Figures")[0]


def test_a_closed_screen_says_why_and_draws_placeholders() -> None:
    run = run_of("linear-trained-leaf", screened=False)
    html = render_claim(run)
    assert "The screen was not opened." in html and "no signal" in html
    assert len(images(html)) == len(FIGURES)
    assert run.verdict.outcomes["primary"] == "not-run"


def test_reuse_is_flagged_and_invalidates() -> None:
    run = run_of("ntuple-line-tuples", reused=True)
    html = render_claim(run)
    assert "Screen block reused." in html
    assert run.verdict.verdict == "invalidated-by-methodological-error"


def test_the_registered_size_says_so() -> None:
    html = render_claim(run_of("ntuple-line-tuples", screened=False, profile="paper"))
    assert "The registered size." in html and "Shrunk by" not in html


def test_summaries_and_index(tmp_path) -> None:
    claims = {}
    for claim in ("ntuple-line-tuples", "fourth-ply"):
        run = run_of(claim)
        page = tmp_path / "pilot" / f"{claim}.html"
        write_public(page, render_claim(run))
        write_public(page.with_suffix(".json"), json.dumps(run_summary(run, page.name)))
        claims[claim] = {"title": run.plan.title, "path": run.plan.path}
    claims["linear-trained-leaf"] = {"title": "never run", "path": "x"}
    found = find_summaries(tmp_path)
    assert {s["claim"] for s in found} == {"ntuple-line-tuples", "fourth-ply"}
    assert found[0]["href"].startswith("pilot/")
    ledger = {"data/screen-ledger.json": {1: [{"claim": "ntuple-line-tuples", "profile": "pilot",
                                               "hashes": {"x/y": "f" * 64}, "status": "complete",
                                               "games": 768, "opened_utc": "t",
                                               "reused": False}]}}
    index = render_index(claims, found, ledger)
    assert 'href="pilot/ntuple-line-tuples.html"' in index and "no report" in index
    assert "complete (768 games)" in index and "never run" in index
    assert oct((tmp_path / "pilot" / "fourth-ply.html").stat().st_mode)[-3:] == "644"


def test_the_page_links_each_register_record_and_stays_self_contained() -> None:
    record = b'{"format": "drop7-result-v1"}'
    run = run_of("ntuple-line-tuples")
    run.records = [{"name": "result-RS-1.json", "path": "results/pilot/records/c/result-RS-1.json",
                    "href": "data:application/json;base64," + base64.b64encode(record).decode()},
                   {"name": "games.jsonl", "path": "results/pilot/records/c/games.jsonl",
                    "href": None}]
    html = render_claim(run)
    assert "Register records" in html and "results/pilot/records/c</span>" in html
    link = re.search(r'href="data:application/json;base64,([^"]+)" download="result-RS-1.json"',
                     html)
    assert link and base64.b64decode(link[1]) == record
    assert '<span class="mono">games.jsonl</span>' in html
    assert not re.search(r'(src|href)="(?!data:|#)', html)  # nothing outside the page
    assert "Register records" not in render_claim(run_of("ntuple-line-tuples"))


def test_a_sequential_screen_shows_every_look_the_estimates_and_its_error_rates() -> None:
    from analysis.contrast import contrast_paired as paired
    from analysis.sequential.design import CONTINUE
    from analysis.sequential.screen import look_record, screen_section

    run = run_of("fourth-ply")
    p = plan("fourth-ply")
    design, (a, b) = p.sequential.design, p.contrasts["primary"].arms
    games = run.games.copy()
    games.loc[games.arm == a, "score"] += 150_000  # decisive: stops before its last look
    pair = pair_arms(games, a, b)
    d = pair.candidate_scores - pair.baseline_scores
    looks = []
    for k, n in enumerate(design.looks, start=1):
        looks.append(look_record(d[:n], k, design, p.seeds[0]))
        if looks[-1]["decision"] != CONTINUE:
            break
    n = looks[-1]["n"]
    inside = games[games["seed"] < np.uint64(p.seeds[0] + n)]
    c = paired(pair_arms(inside, a, b), n_resamples=500).to_dict()
    effect, source = p.sequential_effect()
    assert (effect, source) == (50_479.0, "recorded")
    c["sequential"] = screen_section(d[:n], c, design, looks, effect=effect, effect_source=source,
                                     n_sims=300, n_resamples=500)
    run.contrasts["primary"] = Contrast.from_dict(c)
    html = render_claim(run)
    assert n < p.seeds[1] and "<h2>Sequential screen</h2>" in html
    assert f"Stopped at look {len(looks)} of 4" in html and "were never read" in html
    for text in ("efficacy bound", "futility bound", "naive mean", "median-unbiased",
                 "simulated type I error", "expected games", "recorded effect +50,479"):
        assert text in html, text
    assert html.count('<td class="l">stop-efficacy</td>') == 1


def test_the_ledger_shows_the_first_table_and_each_replay_once_labelled() -> None:
    run = run_of("ntuple-line-tuples")
    block = next(iter(run.closed["entries"]))
    first, again = "1" * 64, "2" * 64
    run.closed = {**run.closed, "table_sha256": again,
                  "entries": {block: {"table_sha256": first,
                                      "replays": [{"table_sha256": again}]}}}
    html = render_claim(run)
    assert html.count(first[:16]) == 1 and html.count(again[:16]) == 1
    assert (f"first reading's table SHA-256 (the seed lease's) <span class=\"mono\">"
            f"{first[:16]}</span>") in html
    assert (f"replay 1's table SHA-256 <span class=\"mono\">{again[:16]}</span> (the games on "
            "this page)") in html
    # an older ledger's single hash reads the same way
    run.closed["entries"][block] = {"table_sha256": first, "differs": again}
    assert f"replay 1's table SHA-256 <span class=\"mono\">{again[:16]}" in render_claim(run)


def test_the_page_names_every_pinned_file_with_its_hash() -> None:
    run = run_of("linear-trained-leaf", screened=False)
    run.provenance["pinned"] = {"arms.mine.leaf": {"file": "w/cma.npy", "sha256": "e" * 64,
                                                   "kind": "linear-file"}}
    html = render_claim(run)
    assert f"pinned file (arms.mine.leaf)</td><td class=\"l mono\">w/cma.npy (linear-file), " \
           f"SHA-256 {'e' * 64}" in html
    del run.provenance["pinned"]  # a provenance written before pinned files renders as it did
    assert "pinned file" not in render_claim(run)


def test_the_training_table_names_a_warm_start() -> None:
    run = run_of("linear-trained-leaf", screened=False)

    def warm(init: dict) -> None:
        trained = dict(run.plan.trained)
        trained["linear-trained"] = replace(trained["linear-trained"], init=init)
        run.plan = replace(run.plan, trained=trained)

    warm({"artefact": "other/w"})
    assert "linear-trained (warm start from other/w, accumulators fresh)" in render_claim(run)
    warm({"file": "f.npy", "sha256": "e" * 64, "kind": "linear-file"})
    assert f"(warm start from f.npy, SHA-256 {'e' * 64}, accumulators fresh)" in \
        render_claim(run)


def test_a_sequential_screen_above_its_alpha_says_so_at_the_top() -> None:
    from analysis.sequential.screen import look_record, screen_section

    run = run_of("fourth-ply")
    p = plan("fourth-ply")
    design, (a, b) = p.sequential.design, p.contrasts["primary"].arms
    pair = pair_arms(run.games, a, b)
    d = pair.candidate_scores - pair.baseline_scores
    looks = [look_record(d[:n], k, design, p.seeds[0]) for k, n in
             enumerate(design.looks, start=1)]
    c = run.contrasts["primary"].to_dict()
    c["sequential"] = screen_section(d, c, design, looks, n_sims=200, n_resamples=500)
    null = c["sequential"]["operating"][0]
    for rate, flagged in ((0.1071, True), (0.0480, False)):
        null.update(rejection_rate=rate, n_sims=20_000)
        run.contrasts["primary"] = Contrast.from_dict(c)
        html = render_claim(run)
        top = html.split("<h2>Readings</h2>")[0]
        assert ("The simulated error rate exceeds the declared one" in top) is flagged
        assert ("type I error 0.1071" in top) is flagged


def test_a_proxy_screen_says_so_beside_its_verdict() -> None:
    """The pilot plays factored-chance's arms one ply shallower: its page says the verdict is
    on those arms, not on the register theory; a claim played as declared says nothing."""
    html = render_claim(run_of("factored-chance"))
    banner = html.split("A proxy screen, not a test of the theory.", 1)[1].split("</div>")[0]
    assert "arm fair-d4-n7m2: search d3s7r2 instead of d4s7r2" in banner
    assert "TH-20260821-factored-chance-depth-compounding-aca01725" in banner
    assert "A proxy screen" not in render_claim(run_of("reveal-quadrature"))


def test_the_page_shows_a_weight_search_and_a_distillation_curve() -> None:
    """The section of weights trained by one job: the learner, its recipe as run with what the
    profile shrank, the frozen hash and the curve (a weight search's best, mean and control per
    generation; nnue-distil's losses per epoch and its held-out top-1), from small fixtures."""
    from analysis.report.learner_curves import LearnerCurveSection

    p = plan("depth-native-leaf-weights")
    training = p.direct_trained["cmaes-d4s5"].describe()
    search = {"generations": 2, "frozen": {"file": "frozen.json", "sha256": "a" * 64,
                                            "rule": "mean"},
              "curve": [{"generation": 1, "best": 201_000.0, "mean": 150_250.5,
                         "control": 160_000.0, "health_one_ply": 9_000.0,
                         "health_start": 8_500.0, "health_random": 120.0},
                        {"generation": 2, "best": 233_117.0, "mean": 171_004.0,
                         "control": 158_000.0, "health_one_ply": 9_400.0,
                         "health_start": 8_500.0, "health_random": 120.0}]}
    distil = {"name": "net", "learner": "nnue-distil", "produces": "network weights",
              "recipe": {"epochs": 2, "games": 10}, "shrunk": [], "curve_kind": "distil"}
    fit = {"epochs": 2, "roots": {"train": 640, "held_out": 160}, "top1": {
        "network": 0.525, "random_start": 0.4125},
        "curve": [{"epoch": 1, "train_loss": 0.81234, "heldout_loss": 0.9},
                  {"epoch": 2, "train_loss": 0.5, "heldout_loss": 0.61111,
                   "heldout_top1": 0.525}]}
    sections = [LearnerCurveSection.from_json(training, search, {"sha256": "a" * 64}),
                LearnerCurveSection.from_json(distil, fit, {"sha256": "b" * 64})]
    html = render_claim(replace(run_of("depth-native-leaf-weights"), learners=sections))
    part = html[html.index('<div id="learners">'):]
    assert "cmaes-d4s5: cmaes (a searched weight vector (CMA-ES))" in part
    assert "a" * 64 in part and "b" * 64 in part
    assert "cmaes-d4s5: its search d2s5 (declared: d4s5)" in part  # the pilot's shrink
    assert "generations=6" in part and "population=8" in part
    assert "<td>2</td><td>233,117</td><td>171,004</td><td>158,000</td><td>9,400</td>" in part
    assert "frozen one ply" in part
    assert "frozen by the rule &#39;mean&#39; after generation 2" in part
    assert "<td>2</td><td>0.50000</td><td>0.61111</td><td>0.525</td>" in part
    assert "<th>held-out top-1</th>" in part and "<td>0.90000</td><td>-</td>" in part
    assert "held-out top-1 of the frozen network 0.525 (its random start 0.412)" in part
    assert "Run at its declared size" in part  # the distillation's fixture shrank nothing
