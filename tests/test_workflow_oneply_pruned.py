"""The one-ply Q's pruned-search claim (planned alone with ``claims_dir`` at its smoke
sizes) through Snakemake under smoke: fair d4 and d5 searches
pruned by the pinned Q, by the Q the claim fits (learner ridge-q) and by their own one-ply value
rank against fair d4; leg (d) is read against fair d5's values; the fit's SHA-256 is an opener
hash of the block and every leg's readings reach the verdict."""

from __future__ import annotations

import json

import pytest
import yaml
from claims_support import REPO
from test_oneply_legs import DECLARED, SMOKE
from workflow_support import failure_report, snakemake

from protocol.plan import load_plan

pytestmark = pytest.mark.workflow

CLAIM = "oneply-linear-q-pruned-search"


def test_the_pruned_search_panel_runs_and_its_judge_reads_leg_d(tmp_path) -> None:
    config = {"profile": "smoke", "claims_dir": str(DECLARED), **SMOKE}
    (tmp_path / "over.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(tmp_path, "--cores", "2", "--configfile", str(tmp_path / "over.yaml"),
                       "--", CLAIM.replace("-", "_"))
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    plan = load_plan(REPO, config)
    p, paths = plan.claims[CLAIM], plan.paths
    fit = p.direct_trained["qfit"]
    manifest = json.loads((tmp_path / fit.record).read_text())
    opened = json.loads((tmp_path / paths.path("opened", claim=CLAIM, block=p.label)).read_text())
    assert opened["hashes"] == {f"{CLAIM}/qfit": manifest["sha256"]}
    verdict = json.loads((tmp_path / paths.path("verdict", claim=CLAIM)).read_text())
    read = {r["name"]: r for r in verdict["readings"]}
    assert {"c-top1-95", "c-regret-02", "c-work-35", "c-top1-90", "c-regret-05", "d-work-2x",
            "d-beats-d4", "d-d4-beats", "fitted-c-top1-95"} <= set(read)
    assert all(r["outcome"] != "not-run" for r in read.values())
    assert read["d-beats-d4"]["numbers"]["judge"] == "fair-d5s7"
    panel = json.loads((tmp_path / paths.path("panel_readings", claim=CLAIM,
                                              block=p.label)).read_text())
    judged = panel["judged"]["fair-d5s7"]
    assert set(judged) == {"q-register-pruned-d5s7", "fair-d4s7", "oneply-pruned-d5s7"}
    # fair d4 read against d5's values: its work over its own (the reference's) is 1
    assert judged["fair-d4s7"]["work_ratio"]["estimate"] == 1.0
    # the pruned searches' work, their prior's included, is below full width's
    for ranker in ("q-register-pruned-d4s7", "q-fitted-pruned-d4s7", "oneply-pruned-d4s7"):
        assert 0 < panel["figures"][ranker]["work_ratio"]["estimate"] < 1, ranker
    page = (tmp_path / paths.path("page", claim=CLAIM)).read_text()
    assert "Against a judge: fair-d5s7" in page and manifest["sha256"] in page
    assert verdict["verdict"] in ("supported-as-tested", "not-supported-as-tested", "mixed")
