"""The root filter as a claim declares and reads it: the arm key, the filter-rate-at-least
reading, the shipped survival-instinct claim and its smoke run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from claims_support import claims_copy, own_claim, shipped, write_claim
from test_panel_declaration import one_line
from workflow_support import load, ok, plan_of, snakemake

from analysis.contrast import contrast_games
from analysis.readers import read_filter_rate
from protocol.declaration import load_claims
from protocol.records.metrics import result_metrics
from protocol.schema import DeclarationError


def _claim(tmp_path, edit) -> str:
    doc = own_claim()
    doc["arms"]["fair-d1s3-survival"] = {"play": "search", "depth": 1, "strata": 3,
                                         "leaf": "linear", "filter": "survival"}
    doc["contrasts"]["filtered"] = {"difference": ["fair-d1s3-survival", "fair-d1s3"]}
    doc["readings"]["coverage"] = {"kind": "filter-rate-at-least", "contrast": "filtered",
                                   "threshold": 0.02}
    edit(doc)
    directory = tmp_path / "mine"
    directory.mkdir(exist_ok=True)
    write_claim(directory, doc)
    return directory


def test_a_search_arm_declares_a_filter_and_plays_it(tmp_path) -> None:
    claims = _claim(tmp_path, lambda d: None)
    assert "filter" in load_claims(claims)["my-first-claim"].arms["fair-d1s3-survival"]
    plan = plan_of("pilot", claims_dir=str(claims)).claims["my-first-claim"]
    assert plan.arms["fair-d1s3-survival"].policy == "search:leaf=linear,d=1,s=3,f=survival"
    assert plan.arms["fair-d1s3"].policy == "search:leaf=linear,d=1,s=3"  # none: as before


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda d: d["arms"]["random"].update(filter="survival"), "arms.random.filter",
     "the random baseline takes no filter"),
    (lambda d: d["arms"]["fair-d1s3-survival"].update(filter="entomb"),
     "arms.fair-d1s3-survival.filter", "'entomb' is not one of ['survival']"),
    (lambda d: d["contrasts"]["filtered"].update(difference=["fair-d1s3", "random"]),
     "readings.coverage.contrast", "the candidate arm 'fair-d1s3' of 'filtered' declares no "
     "root filter"),
    (lambda d: d["readings"]["coverage"].update(threshold=2), "readings.coverage.threshold",
     "2 is not a share in 0..1"),
])
def test_misuse_is_one_line_naming_the_file_and_key(tmp_path, edit, key, message) -> None:
    claims = _claim(tmp_path, edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    text = one_line(err, f"{claims / 'my-first-claim.yaml'}: key {key}")
    assert message in text


@pytest.mark.parametrize(("arm", "key"), [("fair-d2s7", "panel.rankers[1]"),
                                         ("fair-d4s7", "panel.reference")])
def test_a_panel_ranks_without_a_filter(tmp_path, arm, key) -> None:
    claims = claims_copy(tmp_path / "c")
    path = claims / "shallow-ordering.yaml"  # edited as text: the file spells a key `on`
    text = path.read_text()
    assert f"  {arm}: {{play: search," in text
    path.write_text(text.replace(f"  {arm}: {{play: search,",
                                 f"  {arm}: {{filter: survival, play: search,"))
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    message = one_line(err, f"{path}: key {key}")
    assert f"arm {arm!r} declares a root filter" in message


def _games(changed: list[int], applied: list[int] | None = None) -> pd.DataFrame:
    rows = []
    for i, c in enumerate(changed):
        common = {"seed": 100 + i, "moves": 40, "censored": 0, "illegal": 0, "unfinished": 0,
                  "decisions": 50}
        rows.append({**common, "arm": "filtered", "score": 1000.0 + 10 * i,
                     "filter_applied": (applied or changed)[i], "filter_changed": c})
        rows.append({**common, "arm": "plain", "score": 1000.0, "filter_applied": None,
                     "filter_changed": None})
    return pd.DataFrame(rows)


def test_the_rate_is_changed_over_decisions_of_the_candidate() -> None:
    c = contrast_games(_games([1, 0, 2, 1], [3, 1, 4, 2]), "filtered", "plain",
                       n_resamples=200).to_dict()
    assert c["filter_candidate"] == {"decisions": 200, "applied": 10, "changed": 4,
                                     "rate": 0.02}
    assert "filter_baseline" not in c  # the plain arm has none: absent, as in older contrasts
    assert read_filter_rate(c, 0.02)[0] == "pass"
    assert read_filter_rate(c, 0.021)[0] == "fail"
    assert result_metrics({}, {"filtered": c}, {})["contrasts"]["filtered"][
        "filterCandidate"]["changed"] == 4
    plain = contrast_games(_games([1, 0, 2, 1]), "plain", "filtered", n_resamples=200).to_dict()
    outcome, reason, _ = read_filter_rate(plain, 0.0)
    assert outcome == "fail" and "plain has no root filter counts" in reason


def test_counts_in_some_games_only_are_refused() -> None:
    games = _games([1, 0, 2, 1])
    games.loc[0, "filter_changed"] = np.nan
    with pytest.raises(ValueError, match="arm 'filtered': root filter counts"):
        contrast_games(games, "filtered", "plain", n_resamples=200)


def test_the_shipped_claim_is_the_registers_theory_with_its_figures() -> None:
    doc = shipped("survival-instinct")
    assert doc["theory"] == "TH-20260822-survival-instinct-vertical-clear-26f173b5"
    assert doc["readings"]["coverage"] == {
        "kind": "filter-rate-at-least", "contrast": "primary", "threshold": 0.02,
        "title": doc["readings"]["coverage"]["title"]}
    rec = doc["recorded"]
    assert "RS-20260822T233343Z-12becce9" in rec["source"] and rec["verdict"] == "mixed"
    assert rec["contrasts"]["primary"]["mean_delta"] == -1969.84375
    assert rec["contrasts"]["primary"]["wins_ties_losses"] == [41, 26, 61]
    assert rec["arms"]["fair-d4s5-survival"]["filter_changed"] == 254
    pilot = plan_of("pilot").claims["survival-instinct"]
    assert {n: (a.policy, a.games) for n, a in pilot.arms.items()} == {
        "fair-d4s5-survival": ("search:leaf=linear,d=4,s=5,f=survival", 12),
        "fair-d4s5": ("search:leaf=linear,d=4,s=5", 12)}
    # the unfiltered arm plays the policy reveal-quadrature's d4s5 arm plays
    assert plan_of("pilot").claims["reveal-quadrature"].arms["fair-d4s5"].policy == \
        pilot.arms["fair-d4s5"].policy
    assert pilot.block == 1054


@pytest.mark.workflow
def test_the_claim_runs_under_smoke(tmp_path) -> None:
    work = tmp_path / "run"
    work.mkdir()
    ok(snakemake(work, "--cores", "2", "--config", "profile=smoke", "--",
                 "survival_instinct"))
    plan = plan_of("smoke")
    p, paths = plan.claims["survival-instinct"], plan.paths
    rows = pd.read_csv(work / paths.path("table", claim=p.id, block=p.label))
    filtered = rows[rows["arm"] == "fair-d4s5-survival"]
    assert rows[rows["arm"] == "fair-d4s5"]["filter_changed"].isna().all()
    contrast = load(work / paths.path("contrast", claim=p.id, block=p.label, contrast="primary"))
    assert contrast["filter_candidate"]["decisions"] == int(filtered["decisions"].sum())
    assert contrast["filter_candidate"]["changed"] == int(filtered["filter_changed"].sum())
    verdict = load(work / paths.path("verdict", claim=p.id))
    assert [r["name"] for r in verdict["readings"]] == ["primary", "coverage"]
    html = (work / paths.path("page", claim=p.id)).read_text()
    assert "Root filters" in html and "search:leaf=linear,d=3,s=3,f=survival" in html
