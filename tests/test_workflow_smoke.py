"""The smoke workflow end to end: every stage, every figure, the gate, the ledger, a cluster run.

One smoke run (``--cores 2``) is shared by the tests of this module; the
cluster test runs the same DAG again through
``snakemake-executor-plugin-cluster-generic`` with a local submit command and
other shard counts, and must give the same per-game results.  Tests that need
a changed run work on a clone of the smoke run's results (big files
hard-linked, small files copied), so they never disturb it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from workflow_support import failure_report, games_rows, snakemake

pytestmark = pytest.mark.workflow

RESULTS = Path("results/smoke")
BLOCK = 4095
PAGE = Path(f"reports/smoke/screen-{BLOCK}.html")
SCREEN = RESULTS / f"screen-{BLOCK}"
FIGURES = ("validation_curve", "training_throughput", "paired_deltas", "score_distributions",
           "halves", "operating_characteristic")


def _ok(result, *extra: Path) -> None:
    if result.returncode != 0:
        pytest.fail(failure_report(result, *extra), pytrace=False)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Iterator[Path]:
    work = tmp_path_factory.mktemp("smoke")
    _ok(snakemake(work, "--cores", "2", "--config", "profile=smoke"))
    yield work
    drop_tables(work)


def drop_tables(work: Path) -> None:
    """Remove a run's gigabytes of tables (pytest keeps recent temporary directories)."""
    for part in ("train", "frozen"):
        shutil.rmtree(work / RESULTS / part, ignore_errors=True)


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    drop_tables(tmp_path)


def clone(src: Path, dst: Path, parts: tuple[str, ...]) -> None:
    """Copy ``parts`` of a run's results: tables hard-linked (read only), the rest copied."""
    def copy(a: str, b: str) -> None:
        (os.link if a.endswith(".npy") else shutil.copy2)(a, b)

    for part in parts:
        shutil.copytree(src / RESULTS / part, dst / RESULTS / part, copy_function=copy)


def jobs_run(result) -> dict[str, int]:
    """Job counts from a Snakemake run's 'Job stats' table."""
    text = result.stdout + result.stderr
    table = text.split("Job stats:", 1)[1] if "Job stats:" in text else ""
    counts = {}
    for line in table.splitlines()[3:]:
        m = re.fullmatch(r"(\S+)\s+(\d+)", line.strip())
        if not m:
            break
        counts[m.group(1)] = int(m.group(2))
    return counts


def test_every_stage_and_figure(smoke: Path) -> None:
    for weights in ("ntuple-A", "ntuple-E", "linear-trained"):
        assert (smoke / RESULTS / "validation" / "curves" / f"{weights}.json").exists()
        # smoke keeps no resume state (training.keep_resume: false): the checkpoints stay
        train = smoke / RESULTS / "train" / weights
        assert list(train.glob("step-*")) and not list(train.glob("resume-*"))
        assert not (train / "latest").is_symlink()
    assert json.loads((smoke / RESULTS / "gate.json").read_text())["weights"] == "ntuple-A"
    frozen = json.loads((smoke / RESULTS / "frozen" / "ntuple-A.json").read_text())
    assert len(frozen["sha256"]) == 64
    assert json.loads((smoke / SCREEN / "opened.json").read_text())["sha256"] == frozen["sha256"]
    rows = games_rows(smoke / SCREEN / "games.csv")
    arms = {r["arm"] for r in rows}
    assert arms == {"ntuple-A-d2s3", "ntuple-A-direct", "linear-d2s3", "linear-d3s3"}
    assert len(rows) == 4 * 8
    for contrast in ("primary", "direct", "deeper"):
        stats = json.loads((smoke / SCREEN / "stats" / f"{contrast}.json").read_text())
        assert stats["n"] == 8
    assert "oc" in json.loads((smoke / SCREEN / "stats" / "primary.json").read_text())
    verdict = json.loads((smoke / SCREEN / "verdict.json").read_text())
    assert verdict["tier"] == "pilot"
    if not json.loads((smoke / RESULTS / "gate.json").read_text())["passed"]:
        # smoke opens the screen although the gate failed: that must invalidate the verdict
        assert verdict["verdict"] == "invalidated-by-methodological-error"
    for name in FIGURES:
        assert (smoke / RESULTS / "figures" / f"screen-{BLOCK}" / f"{name}.png").stat().st_size
    ledger = json.loads((smoke / RESULTS / "screen-ledger.json").read_text())
    assert ledger["blocks"][str(BLOCK)][0]["sha256"] == frozen["sha256"]
    assert not (smoke / "data").exists()  # smoke never writes the real ledger


def test_report_page_is_self_contained_and_names_its_profile(smoke: Path) -> None:
    html = (smoke / PAGE).read_text()
    assert len(re.findall(r'src="data:image/png;base64,', html)) == len(FIGURES)
    assert not re.search(r'(src|href)="(?!data:|#)', html)
    assert "profile <code>smoke</code>" in html and "Budgets shrunk" in html
    prov = json.loads((smoke / SCREEN / "provenance.json").read_text())
    assert prov["profile"] == "smoke" and len(prov["config_hash"]) == 64
    assert prov["seed_blocks"]["screen"]["block"] == BLOCK and prov["weights"]
    assert prov["config_hash"] in html
    index = (smoke / "reports" / "index.html").read_text()
    assert f'href="smoke/screen-{BLOCK}.html"' in index


def test_snakemake_report_with_captions(smoke: Path) -> None:
    _ok(snakemake(smoke, "--config", "profile=smoke", "--report", "snakemake-report.html"))
    text = (smoke / "snakemake-report.html").read_text(errors="replace")
    assert "operating_characteristic" in text or "Operating characteristic" in text


def test_nothing_left_to_do_after_a_run(smoke: Path) -> None:
    result = snakemake(smoke, "-n", "--config", "profile=smoke")
    _ok(result)
    assert "Nothing to be done" in result.stdout + result.stderr


def test_named_ablation_target_reruns_only_its_own_jobs(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch, ("train", "validation"))
    (scratch / RESULTS / "validation" / "curves" / "ntuple-E.json").unlink()
    result = snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--", "ablation_E")
    _ok(result)
    assert jobs_run(result) == {"ablation_E": 1, "validation_curve": 1, "total": 2}
    assert not (scratch / RESULTS / "gate.json").exists()


def test_gate_failure_never_opens_the_screen(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch, ("train", "validation"))
    curve_path = scratch / RESULTS / "validation" / "curves" / "ntuple-A.json"
    curve = json.loads(curve_path.read_text())
    for point in curve["points"]:
        shift = -1000.0 - point["step"] - point["margin"]
        for key in ("margin", "mean_delta", "bootstrap_lb", "bootstrap_ub", "t_lb"):
            point[key] += shift
    curve_path.write_text(json.dumps(curve))
    strict = scratch / "strict.yaml"
    strict.write_text("screen:\n  require_training_signal: true\n")
    result = snakemake(scratch, "--cores", "2", "--configfile", str(strict),
                       "--config", "profile=smoke")
    _ok(result)
    ran = set(re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):", result.stdout + result.stderr,
                         re.M))
    assert {"gate", "verdict", "report"} <= ran
    assert not {"freeze", "open_screen", "play_screen", "contrast"} & ran, ran
    assert not (scratch / SCREEN / "opened.json").exists()
    assert not (scratch / SCREEN / "shards").exists()
    assert not (scratch / RESULTS / "screen-ledger.json").exists()
    html = (scratch / PAGE).read_text()
    assert "The screen was not opened" in html and "not-supported-as-tested" in html
    assert len(re.findall(r'src="data:image/png;base64,', html)) == len(FIGURES)


def test_ledger_refuses_a_different_candidate(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch, ("train", "validation", "frozen"))
    shutil.copy2(smoke / RESULTS / "gate.json", scratch / RESULTS / "gate.json")
    owner = {"sha256": "0" * 64, "candidate": "ntuple-A", "profile": "other",
             "seeds": [0, 8], "opened_utc": "2026-01-01T00:00:00Z", "reused": False,
             "config_hash": None, "commit": None}
    ledger = scratch / RESULTS / "screen-ledger.json"
    ledger.write_text(json.dumps({"format": "drop7-screen-ledger-v1",
                                  "blocks": {str(BLOCK): [owner]}}))
    no_reuse = scratch / "no-reuse.yaml"
    no_reuse.write_text("screen:\n  reuse_blocks: []\n")
    result = snakemake(scratch, "--cores", "2", "--configfile", str(no_reuse),
                       "--config", "profile=smoke", "--", "screen")
    assert result.returncode != 0
    assert f"screen block {BLOCK} was opened" in result.stdout + result.stderr
    assert not (scratch / SCREEN / "shards").exists()
    # naming the block in screen.reuse_blocks lets it through, flagged as reused
    result = snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--",
                       "open_screen")
    _ok(result)
    assert json.loads((scratch / SCREEN / "opened.json").read_text())["reused"] is True


def test_cluster_generic_gives_the_same_games_for_other_shard_counts(smoke: Path,
                                                                      tmp_path: Path) -> None:
    submit = tmp_path / "submit.sh"
    jobs = tmp_path / "jobs"  # each job's output, kept for failure_report
    jobs.mkdir()
    submit.write_text('#!/bin/sh\n# a local "batch system": run the job script in the '
                      'background, print its id\n'
                      f'nohup sh "$1" > "{jobs}/$(basename "$1").out" 2>&1 < /dev/null &\n'
                      'echo $!\n')
    shards = tmp_path / "shards.yaml"
    shards.write_text("validation:\n  shards: 2\nscreen:\n  shards: 3\n")
    work = tmp_path / "run"
    work.mkdir()
    try:
        compare_cluster_run(smoke, work, submit, shards, jobs)
    finally:
        drop_tables(work)


def compare_cluster_run(smoke: Path, work: Path, submit: Path, shards: Path,
                        jobs: Path) -> None:
    """Run the smoke DAG through cluster-generic in ``work``; compare it with ``smoke``."""
    result = snakemake(work, "--executor", "cluster-generic",
                       "--cluster-generic-submit-cmd", f"sh {submit}", "--jobs", "2",
                       "--seconds-between-status-checks", "1", "--latency-wait", "30",
                       "--configfile", str(shards),
                       "--config", "profile=smoke")
    _ok(result, *sorted(jobs.glob("*.out")))
    assert "Submitted job" in result.stdout + result.stderr
    assert (work / RESULTS / "validation" / "shards" / "linear-d2s3" / "shard-2-of-2.csv").exists()
    for path in sorted((smoke / RESULTS / "train").glob("*/step-*/manifest.json")):
        other = work / path.relative_to(smoke)
        assert json.loads(other.read_text())["sha256"] == json.loads(path.read_text())["sha256"]
    tables = sorted((smoke / RESULTS / "validation" / "games").glob("*.csv"))
    assert tables
    for path in [*tables, smoke / SCREEN / "games.csv"]:
        assert games_rows(work / path.relative_to(smoke)) == games_rows(path), path.name
    for name in ("verdict.json", "stats/primary.json"):
        assert json.loads((work / SCREEN / name).read_text()) == json.loads(
            (smoke / SCREEN / name).read_text())
