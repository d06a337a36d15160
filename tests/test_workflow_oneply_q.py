"""The one-ply Q's panel claim through Snakemake under smoke: the pinned Q and the Q the claim
fits (learner ridge-q) rank beside fair d1 against fair d4, the fit's SHA-256 is an opener hash
of the block, and the readings of both reach the verdict."""

from __future__ import annotations

import csv
import json

import pytest
from workflow_support import failure_report, plan_of, snakemake

from contracts.panel_table import VALUE_COLUMNS

pytestmark = pytest.mark.workflow

CLAIM = "oneply-linear-q-prune-prior"


def test_the_q_panel_runs_and_its_readings_decide_the_verdict(tmp_path) -> None:
    result = snakemake(tmp_path, "--cores", "2", "--config", "profile=smoke", "--",
                       CLAIM.replace("-", "_"))
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    plan = plan_of("smoke")
    p, paths = plan.claims[CLAIM], plan.paths
    with open(tmp_path / paths.path("panel_table", claim=CLAIM, block=p.label)) as fh:
        table = list(csv.DictReader(fh))
    for ranker in ("q-register", "q-fitted"):
        rows = [r for r in table if r["ranker"] == ranker]
        assert len(rows) == p.panel.roots
        for r in rows:  # the Q offers its values: the chosen column's is the row's largest
            values = [float(r[k]) for k in VALUE_COLUMNS if r[k]]
            assert float(r[VALUE_COLUMNS[int(r["choice"])]]) == max(values)
    fit = p.kf_trained["qfit"]
    manifest = json.loads((tmp_path / fit.record).read_text())
    assert manifest["fit"]["games_played"] == 1 and manifest["fit"]["target"] == "centred"
    opened = json.loads((tmp_path / paths.path("opened", claim=CLAIM, block=p.label)).read_text())
    assert opened["hashes"] == {f"{CLAIM}/qfit": manifest["sha256"]}
    page = (tmp_path / paths.path("page", claim=CLAIM)).read_text()
    assert "The ridge one-ply Q fits" in page and manifest["sha256"] in page
    assert "qfit: trained on 1 games (declared: 32)" in page
    verdict = json.loads((tmp_path / paths.path("verdict", claim=CLAIM)).read_text())
    read = {r["name"]: r for r in verdict["readings"]}
    assert {"q-beats-d1", "q-recall3-90", "q-recall3-95", "fitted-beats-d1",
            "fitted-recall3-90", "fitted-recall3-95"} <= set(read)
    assert all(r["outcome"] != "not-run" for r in read.values())
    assert read["q-beats-d1"]["numbers"]["roots"] == p.panel.roots
    assert verdict["verdict"] in ("supported-as-tested", "not-supported-as-tested", "mixed")
