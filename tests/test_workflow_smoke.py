"""The smoke workflow end to end: every claim, stage and figure; targets; gates; the ledger.

One smoke run (``--cores 2``) of every declared claim is shared by the tests
of this module and the Slurm test (tests/conftest.py).  Tests that need a
changed run work on a clone of its results (big files hard-linked, small
files copied), so they never disturb it; the cluster test runs the same DAG
again through ``snakemake-executor-plugin-cluster-generic`` with a local
submit command and other shard counts, and must give the same results.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from workflow_support import (
    compare_runs,
    drop_tables,
    games_rows,
    load,
    ok,
    plan_of,
    snakemake,
)

from analysis.report.page import FIGURES
from contracts.train_directory import resume_dir
from protocol.paths import INDEX, VALIDATION
from protocol.records.check import check_bundle

pytestmark = pytest.mark.workflow

PLAN = plan_of("smoke")
PATHS = PLAN.paths


@pytest.fixture
def smoke(smoke_run: Path) -> Path:
    """The session's smoke run (tests/conftest.py)."""
    return smoke_run


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    drop_tables(tmp_path)


def clone(src: Path, dst: Path) -> None:
    """Copy a run's results: tables hard-linked (read only), the rest copied."""
    def copy(a: str, b: str) -> None:
        (os.link if a.endswith(".npy") else shutil.copy2)(a, b)

    shutil.copytree(src / PATHS.root, dst / PATHS.root, copy_function=copy)
    shutil.copytree(src / "reports", dst / "reports")


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


def path(work: Path, name: str, **fields) -> Path:
    return work / PATHS.path(name, **fields)


def forget(work: Path, claim: str, *, keep: tuple[str, ...] = ()) -> None:
    """Remove what a claim's run made after its gates (a missing intermediate file alone does
    not make Snakemake rerun its consumers): the screen block's files but ``keep`` (names in
    the block's folder), the verdict and the report."""
    block = work / PATHS.root / "claims" / claim / PLAN.claims[claim].label
    for item in block.iterdir():
        if item.name not in keep:
            (shutil.rmtree if item.is_dir() else Path.unlink)(item)
    for name in ("verdict", "page", "summary", "provenance"):
        path(work, name, claim=claim).unlink()


def test_every_claim_every_stage_and_figure(smoke: Path) -> None:
    ledger = load(smoke / PLAN.profile["ledger"])
    for c in PLAN.run:
        p = PLAN.claims[c]
        for w, t in p.trained.items():
            assert path(smoke, "curve", claim=c, weights=w).exists()
            assert all((smoke / t.checkpoint(s) / "manifest.json").exists() for s in t.steps)
            # smoke keeps no resume state (keep_final_state: false): temp states are gone
            assert not list((smoke / t.dir).glob("resume-*"))
            for start, end in t.segments[1:]:  # a segment removes the state it started from
                log = path(smoke, "log", claim=c, job=f"train/{w}/step-{end}").read_text()
                assert f"removed the state it started from, {t.dir}/resume-{start}" in log
        gate = load(path(smoke, "gates", claim=c))
        assert gate["opens_screen"] and not gate["enforced"]
        for art in p.artefacts.values():
            assert len(load(smoke / art.record)["sha256"]) == 64
        opened = load(path(smoke, "opened", claim=c, block=p.label))
        assert opened["claim"] == c and set(opened["hashes"]) == set(p.artefacts)
        # a sequential screen (fourth-ply) reads the seeds up to the look that stopped it
        looks = load(path(smoke, "looks", claim=c, block=p.label)) if p.sequential else None
        read = looks["stop"]["n"] if looks else p.seeds[1]
        rows = games_rows(path(smoke, "table", claim=c, block=p.label))
        assert len(rows) == sum(min(a.games, read) for a in p.arms.values())
        for name, planned in p.contrasts.items():
            got = load(path(smoke, "contrast", claim=c, block=p.label, contrast=name))
            assert got["n"] == min(planned.games, read) and got["kind"] == planned.kind
        verdict = load(path(smoke, "verdict", claim=c))
        assert verdict["tier"] == "pilot" and [r["name"] for r in verdict["readings"]] == \
            list(p.readings)
        # smoke opens the screens past failed gates: that must invalidate every verdict
        assert verdict["verdict"] == "invalidated-by-methodological-error"
        for name in FIGURES:
            assert path(smoke, "figure", claim=c, figure=name).stat().st_size
        assert check_bundle(path(smoke, "records", claim=c)) == []
        # the run record is the run that played the games, as its closing job saw it
        played = load(path(smoke, "closed", claim=c, block=p.label))["played"]
        run = load(next(path(smoke, "records", claim=c).glob("run-*.json")))
        assert run["sourceState"]["gitCommit"] == played["commit"]
        assert run["command"] == (played["command"] or ["snakemake"])
        assert run["command"][0] == "snakemake"
        # the result holds every contrast's figures; the machine is the one the run closed on
        result = load(next(path(smoke, "records", claim=c).glob("result-*.json")))
        assert set(result["metrics"]["contrasts"]) == set(p.contrasts)
        assert "captured at the run" in run["resourceObserved"]["measurementNotes"]
        assert run["resourceObserved"]["wallSeconds"] is not None
        entries = ledger["blocks"][str(p.block)]
        assert [e["claim"] for e in entries] == [c] and entries[0]["status"] == "complete"
        if looks:
            assert [x["decision"] for x in entries[0]["looks"]] == [
                x["decision"] for x in looks["looks"]]
            assert entries[0].get("unread") == looks["unread"]
    primary = load(path(smoke, "contrast", claim="fourth-ply", block="screen-4010",
                        contrast="primary"))
    assert "oc" in primary and primary["sequential"]["design"]["looks"] == [4, 6, 8]
    assert not (smoke / "data").exists()  # smoke never writes the real ledger


def test_report_pages_are_self_contained_and_the_index_lists_every_claim(smoke: Path) -> None:
    index = (smoke / INDEX).read_text()
    for c in PLAN.run:
        html = path(smoke, "page", claim=c).read_text()
        assert len(re.findall(r'src="data:image/png;base64,', html)) == len(FIGURES)
        assert not re.search(r'(src|href)="(?!data:|#)', html)
        assert "profile <code>smoke</code>" in html and "Shrunk by the smoke profile" in html
        # every claim's page shows the training health of every trained weights it reads
        for owner, weights in PLAN.claims[c].health_weights():
            name = weights if owner == c else f"{owner}/{weights}"
            assert f"<h3>{name} <span" in html, (c, name)
            assert load(path(smoke, "health", claim=owner, weights=weights))["points"]
        prov = load(path(smoke, "provenance", claim=c))
        assert prov["profile"] == "smoke" and prov["config_hash"] in html
        assert prov["stages"] and all(s["wall_s"] > 0 for s in prov["stages"].values())
        assert f'href="smoke/{c}.html"' in index
    assert "Screen opened although a gate failed." in path(
        smoke, "page", claim="ntuple-line-tuples").read_text()


def test_snakemake_report_with_captions(smoke: Path) -> None:
    ok(snakemake(smoke, "--config", "profile=smoke", "--report", "snakemake-report.html"))
    text = (smoke / "snakemake-report.html").read_text(errors="replace")
    assert "operating_characteristic" in text or "Operating characteristic" in text


def test_nothing_left_to_do_after_a_run(smoke: Path) -> None:
    result = snakemake(smoke, "-n", "--config", "profile=smoke")
    ok(result)
    assert "Nothing to be done" in result.stdout + result.stderr
    assert "estimated CPU hours of the smoke profile" in result.stderr


def test_the_interaction_matches_a_computation_by_hand(smoke: Path) -> None:
    p = PLAN.claims["fourth-ply"]
    got = load(path(smoke, "contrast", claim="fourth-ply", block=p.label,
                    contrast="interaction"))
    games = pd.read_csv(path(smoke, "table", claim="fourth-ply", block=p.label))
    n = got["n"]  # the games up to the sequential screen's stopping look
    score = {arm: games[games.arm == arm].sort_values("seed")["score"].to_numpy(float)[:n]
             for arm in p.arms}
    d = (score["tables-d4s7"] - score["tables-d3s7"]) - (score["fair-d4s7"] - score["fair-d3s7"])
    sd = d.std(ddof=1)
    assert got["n"] == n == d.size
    assert got["mean_delta"] == pytest.approx(d.mean(), abs=1e-9)
    assert got["sd_delta"] == pytest.approx(sd, rel=1e-12)
    assert got["t_lb"] == pytest.approx(d.mean() - stats.t.ppf(0.95, n - 1) * sd / np.sqrt(n))
    assert got["detection_floor"] == pytest.approx(1.645 * sd / np.sqrt(n))
    assert got["halves"] == pytest.approx([d[:n // 2].mean(), d[n // 2:].mean()])
    assert [got["wins"], got["ties"], got["losses"]] == [int((d > 0).sum()), int((d == 0).sum()),
                                                         int((d < 0).sum())]
    assert got["mean_candidate"] == pytest.approx(
        (score["tables-d4s7"] - score["tables-d3s7"]).mean())
    assert got["bootstrap_lb"] <= got["mean_delta"] <= got["bootstrap_ub"]


def test_one_claim_reruns_alone(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch)
    for name in ("verdict", "page"):
        path(scratch, name, claim="linear-trained-leaf").unlink()
    result = snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--",
                       "linear_trained_leaf")
    ok(result)
    assert jobs_run(result) == {"linear_trained_leaf": 1, "report": 1, "verdict": 1,
                                "records": 1, "total": 4}


def test_one_arm_reruns_alone(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch)
    p = PLAN.claims["fourth-ply"]
    games = path(scratch, "games", claim="fourth-ply", block=p.look_label(1), arm="fair-d4s7")
    before = games_rows(games)
    games.unlink()
    result = snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--",
                       "fourth_ply__fair_d4s7")
    ok(result)
    assert jobs_run(result) == {"fourth_ply__fair_d4s7": 1, "merge": 1, "total": 2}
    assert games_rows(games) == before


def test_enforced_gates_never_open_a_screen(smoke: Path, scratch: Path) -> None:
    shutil.copytree(smoke / PATHS.root / "claims", scratch / PATHS.root / "claims",
                    ignore=shutil.ignore_patterns("screen-*", "frozen", "verdict.json",
                                                  "gates.json"),
                    copy_function=lambda a, b: (os.link if a.endswith(".npy") else shutil.copy2)(
                        a, b))
    strict = scratch / "strict.yaml"
    strict.write_text("enforce_gates: true\n")
    result = snakemake(scratch, "--cores", "2", "--configfile", str(strict), "--config",
                       "profile=smoke")
    ok(result)
    ran = set(re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):", result.stdout + result.stderr,
                         re.M))
    assert {"gates", "verdict", "report"} <= ran
    assert not {"freeze", "open_block", "close_block", "contrast"} & ran, ran
    assert not (scratch / PLAN.profile["ledger"]).exists()
    for c in PLAN.run:
        p = PLAN.claims[c]
        assert not path(scratch, "opened", claim=c, block=p.label).exists()
        html = path(scratch, "page", claim=c).read_text()
        assert "The screen was not opened" in html and "not-supported-as-tested" in html
        assert len(re.findall(r'src="data:image/png;base64,', html)) == len(FIGURES)
    # fourth-ply has no gate of its own: the frozen tables it reads were never frozen
    assert not load(path(scratch, "gates", claim="ntuple-line-tuples"))["opens_screen"]


def test_a_crash_during_play_does_not_burn_the_block(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch)
    c, p = "linear-trained-leaf", PLAN.claims["linear-trained-leaf"]
    table = path(smoke, "table", claim=c, block=p.label)
    # the crash came after the opening and one arm's shards, before the other arm's
    forget(scratch, c, keep=("opened.json", "shards"))
    shutil.rmtree(scratch / PATHS.root / "claims" / c / p.label / "shards" / "linear-d3s7")
    ledger_path = scratch / PLAN.profile["ledger"]
    ledger = load(ledger_path)
    entry = ledger["blocks"][str(p.block)][0]
    for key in ("games", "table_sha256", "completed_utc"):
        del entry[key]
    entry["status"] = "opened"  # what a crash after the opening leaves
    ledger_path.write_text(json.dumps(ledger))
    ok(snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--",
                  "linear_trained_leaf"))
    assert games_rows(path(scratch, "table", claim=c, block=p.label)) == games_rows(table)
    entries = load(ledger_path)["blocks"][str(p.block)]
    assert len(entries) == 1 and entries[0]["status"] == "complete"
    assert entries[0]["reused"] is False


def test_a_crash_between_looks_resumes_at_the_same_look(smoke: Path, scratch: Path) -> None:
    clone(smoke, scratch)
    c, p = "fourth-ply", PLAN.claims["fourth-ply"]
    looks = load(path(smoke, "looks", claim=c, block=p.label))
    assert len(looks["looks"]) >= 2, looks  # the smoke screen went past its first look
    block = scratch / PATHS.root / "claims" / c / p.label
    # the crash came after look 1's decision, during look 2's games
    forget(scratch, c, keep=("opened.json", "experiment.json", "look-1", "looks"))
    for done in (block / "looks").iterdir():
        if done.name != "look-1.json":
            done.unlink()
    first = {a: path(scratch, "games", claim=c, block=p.look_label(1), arm=a).stat().st_mtime_ns
             for a in p.arms}
    ledger_path = scratch / PLAN.profile["ledger"]
    ledger = load(ledger_path)
    entry = ledger["blocks"][str(p.block)][0]
    for key in ("games", "table_sha256", "completed_utc", "unread"):
        entry.pop(key, None)
    entry.update(status="opened", looks=entry["looks"][:1])
    ledger_path.write_text(json.dumps(ledger))
    ok(snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--", "fourth_ply"))
    # look 1's games stand; looks 2.. are made again and decide as before
    assert first == {a: path(scratch, "games", claim=c, block=p.look_label(1),
                             arm=a).stat().st_mtime_ns for a in p.arms}
    again = load(path(scratch, "looks", claim=c, block=p.label))
    assert [x["decision"] for x in again["looks"]] == [x["decision"] for x in looks["looks"]]
    assert games_rows(path(scratch, "table", claim=c, block=p.label)) == \
        games_rows(path(smoke, "table", claim=c, block=p.label))
    entry = load(ledger_path)["blocks"][str(p.block)][0]
    assert entry["status"] == "complete" and len(entry["looks"]) == len(looks["looks"])


def test_different_frozen_weights_on_an_opened_block_are_refused(smoke: Path,
                                                                scratch: Path) -> None:
    clone(smoke, scratch)
    c, p = "ntuple-line-tuples", PLAN.claims["ntuple-line-tuples"]
    ledger_path = scratch / PLAN.profile["ledger"]
    ledger = load(ledger_path)
    ledger["blocks"][str(p.block)][0]["hashes"] = {"ntuple-line-tuples/ntuple-A": "0" * 64}
    ledger_path.write_text(json.dumps(ledger))
    forget(scratch, c)
    strict = scratch / "strict.yaml"
    strict.write_text("allow_reuse: false\n")
    result = snakemake(scratch, "--cores", "2", "--configfile", str(strict),
                       "--config", "profile=smoke", "--", "ntuple_line_tuples")
    # the frozen tables on disk are known: refused before any job, as the opening would
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"screen block {p.block} was opened on" in result.stderr
    assert not path(scratch, "opened", claim=c, block=p.label).exists()
    # the smoke profile allows reuse: the opening goes through, flagged
    ok(snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--",
                  "ntuple_line_tuples"))
    assert load(path(scratch, "opened", claim=c, block=p.label))["reused"] is True
    assert "Screen block reused." in path(scratch, "page", claim=c).read_text()


def test_segments_give_the_tables_of_one_uninterrupted_run(smoke: Path, tmp_path: Path) -> None:
    t = PLAN.claims["ntuple-line-tuples"].trained["ntuple-E"]
    assert len(t.segments) == 2
    out = tmp_path / "one-run"
    cmd = [str(Path(sys.executable).parent / "drop7"), "train", "--layout", t.layout,
           "--moves", str(t.moves), "--every", str(t.every), "--first-game", str(t.first_game),
           "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    for step in t.steps:
        one = load(out / f"step-{step}" / "manifest.json")["sha256"]
        assert load(smoke / t.checkpoint(step) / "manifest.json")["sha256"] == one


def test_an_interrupted_run_loses_at_most_one_segment(scratch: Path) -> None:
    t = PLAN.claims["ntuple-line-tuples"].trained["ntuple-E"]
    first = Path(t.checkpoint(t.steps[0]), "manifest.json")
    ok(snakemake(scratch, "--cores", "1", "--config", "profile=smoke", "--", str(first)))
    assert (scratch / resume_dir(t.dir, t.steps[0])).is_dir()  # what an interruption leaves
    result = snakemake(scratch, "--cores", "2", "--config", "profile=smoke", "--",
                       "ntuple_line_tuples__ntuple_E")
    ok(result)
    assert jobs_run(result)["train_segment"] == 1
    log = scratch / PATHS.path("log", claim="ntuple-line-tuples",
                               job=f"train/ntuple-E/step-{t.steps[1]}")
    assert f"resumed at {t.steps[0]:,} moves" in log.read_text()
    assert not (scratch / resume_dir(t.dir, t.steps[0])).exists()  # not kept twice


def test_cluster_generic_gives_the_same_results_for_other_shard_counts(smoke: Path,
                                                                       tmp_path: Path) -> None:
    submit = tmp_path / "submit.sh"
    jobs = tmp_path / "jobs"  # each job's output, kept for failure_report
    jobs.mkdir()
    submit.write_text('#!/bin/sh\n# a local "batch system": run the job script in the '
                      'background, print its id\n'
                      f'nohup sh "$1" > "{jobs}/$(basename "$1").out" 2>&1 < /dev/null &\n'
                      'echo $!\n')
    work = tmp_path / "run"
    work.mkdir()
    many = plan_of("smoke", job_minutes=0.003)
    try:
        result = snakemake(work, "--executor", "cluster-generic",
                           "--cluster-generic-submit-cmd", f"sh {submit}", "--jobs", "2",
                           "--seconds-between-status-checks", "1", "--latency-wait", "30",
                           "--config", "profile=smoke", "job_minutes=0.003")
        ok(result, *sorted(jobs.glob("*.out")))
        assert "Submitted job" in result.stdout + result.stderr
        arm = many.claims["ntuple-line-tuples"].validation_arms["linear-d2s3"]
        assert arm.shards > PLAN.claims["ntuple-line-tuples"].validation_arms[
            "linear-d2s3"].shards
        assert (work / many.paths.path("shard", claim="ntuple-line-tuples", block=VALIDATION,
                                       arm=arm.name, k=arm.shards, K=arm.shards)).exists()
        compare_runs(PLAN, smoke, work)
    finally:
        drop_tables(work)
