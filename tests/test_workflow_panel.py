"""A ranking panel through Snakemake: the shipped panel claim under smoke, end to end.

The roots come from the opened block's games, the reference and the rankers answer in shards,
the table is closed in the ledger with the block, and the readings reach the verdict, the page
and the records; other shard counts give the same table byte for byte.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_support import failure_report, load, plan_of, snakemake

from contracts.hashing import file_sha256

pytestmark = pytest.mark.workflow

CLAIM = "shallow-ordering"


@pytest.fixture(scope="module")
def panel_run(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("panel")
    result = snakemake(work, "--cores", "2", "--config", "profile=smoke", "--",
                       CLAIM.replace("-", "_"))
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    return work


def _files(work: Path) -> dict[str, Path]:
    plan = plan_of("smoke")
    p, paths = plan.claims[CLAIM], plan.paths
    return {name: work / paths.path(name, claim=CLAIM, block=p.label)
            for name in ("panel_roots", "panel_table", "panel_readings", "closed", "opened")
            } | {"verdict": work / paths.path("verdict", claim=CLAIM),
                 "page": work / paths.path("page", claim=CLAIM),
                 "records": work / paths.path("records", claim=CLAIM),
                 "ledger": work / plan.profile["ledger"]}


def test_the_panel_claim_runs_and_its_readings_decide_the_verdict(panel_run: Path) -> None:
    plan = plan_of("smoke")
    p = plan.claims[CLAIM]
    f = _files(panel_run)
    with f["panel_table"].open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    names = p.panel.names()
    roots = {(r["game"], r["root"]) for r in rows}
    assert [r["ranker"] for r in rows[:len(names)]] == names
    assert len(rows) == len(roots) * len(names) and 0 < len(roots) <= p.panel.limit
    # only the roots arm played games on the block: the panel-only claim's screen
    assert list(p.arms) == [p.panel.roots_arm]
    readings = load(f["panel_readings"])
    assert readings["reference_figures"]["top1"]["estimate"] == 1.0
    assert readings["reference_figures"]["regret"]["estimate"] == 0.0
    verdict = load(f["verdict"])
    panel_kinds = {"figure-at-least", "figure-at-most", "ranker-beats"}
    read = [r for r in verdict["readings"] if r["kind"] in panel_kinds]
    assert [r["name"] for r in read] == list(p.readings)
    assert all(r["outcome"] in ("pass", "fail") for r in read), read
    assert {r["name"]: r["outcome"] for r in read} == {
        n: r["outcome"] for n, r in readings["readings"].items()}
    public = panel_run / plan.paths.path("panel_public", claim=CLAIM)
    # (besides Snakemake's own .snakemake_timestamp of a directory output)
    assert sorted(x.name for x in public.iterdir() if not x.name.startswith(".")) == [
        "panel.csv", "readings.json", "roots.json"]
    assert (public / "panel.csv").read_bytes() == f["panel_table"].read_bytes()
    html = f["page"].read_text()
    assert "fair-d2s7" in html and readings["table_sha256"][:12] in html


def test_the_ledger_records_the_panel_table_with_the_block(panel_run: Path) -> None:
    f = _files(panel_run)
    sha = file_sha256(f["panel_table"])
    closed = load(f["closed"])
    assert closed["panel_sha256"] == sha
    ledger = json.loads(f["ledger"].read_text())
    plan = plan_of("smoke")
    entries = ledger["blocks"][str(plan.claims[CLAIM].block)]
    assert [e["panel_sha256"] for e in entries if e["claim"] == CLAIM] == [sha]
    assert load(f["panel_readings"])["table_sha256"] == sha


def test_other_shard_counts_give_the_same_panel_table(panel_run: Path, tmp_path) -> None:
    """Each ranker's shards re-made as one and as three: the same table, byte for byte."""
    f = _files(panel_run)
    roots = f["panel_roots"]
    plan = plan_of("smoke")
    panel = plan.claims[CLAIM].panel
    for shards in (1, 3):
        outs = []
        for name in panel.names():
            arm = panel.arms[name]
            for k in range(1, shards + 1):
                out = tmp_path / f"{name}-{k}-of-{shards}.csv"
                result = drop7(
                    "panel", "rank", "--ranker", f"{name}={arm.policy}", "--roots", str(roots),
                    "--work", panel.work, "--shard", f"{k}/{shards}", "--out", str(out))
                assert result.returncode == 0, result.stderr
                outs.append(str(out))
        table = tmp_path / f"table-{shards}.csv"
        result = drop7("panel", "merge", "--rankers", ",".join(panel.names()),
                       "--out", str(table), *outs)
        assert result.returncode == 0, result.stderr
        assert table.read_bytes() == f["panel_table"].read_bytes()


def drop7(*args: str) -> subprocess.CompletedProcess:
    """``drop7`` of the environment that runs the tests."""
    exe = shutil.which("drop7", path=str(Path(sys.executable).parent))
    return subprocess.run([exe or "drop7", *args], capture_output=True, text=True, timeout=600)


def test_the_panel_page_says_the_registers_games_were_reproduced(panel_run: Path) -> None:
    """The rule register_replay ran for the claim's declared replay (smoke: its first two
    published games, at the declared d3s7 with the register's sampling, not the panel's
    shrunk search), and the page says so near its top; the file re-made alone is the same."""
    from html import unescape

    plan = plan_of("smoke")
    replay = plan.claims[CLAIM].replay
    out = panel_run / plan.paths.path("register_replay", claim=CLAIM)
    doc = load(out)
    assert doc["policy"] == replay.policy == "search:leaf=linear,d=3,s=7,sampling=register"
    assert doc["summary"] == {"games": 2, "equal": 2, "published": 64, "first_differing": None}
    html = unescape(_files(panel_run)["page"].read_text())
    assert html.index("reproduced: 2 of 2 replayed games (the first 2 of 64 published") < \
        html.index("<h2>")
    assert "Reproduced game for game" in html
    before = out.read_bytes()
    out.unlink()
    result = snakemake(panel_run, "--cores", "1", "--config", "profile=smoke", "--",
                       str(plan.paths.path("register_replay", claim=CLAIM)))
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    assert out.read_bytes() == before
