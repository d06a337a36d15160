"""The smoke DAG through a real Slurm: a one-node cluster and snakemake-executor-plugin-slurm.

The run uses the project's profile (``config/slurm``) with what a cluster without an
accounting database needs (the partition given, no account; job states from squeue).  It
must send every job that is not a local rule through Slurm, with the threads, memory and
time its rule declares, leave no job behind, and give the results of conftest's ``--cores``
run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from slurm_cluster import Cluster, one_node_cluster
from workflow_support import REPO, compare_runs, drop_tables, ok, plan_of, snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slurm]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with one_node_cluster() as running:
        yield running


def cluster_command(partition: str) -> list[str]:
    """docs/cluster.md's command for a cluster without accounting, after ``snakemake``."""
    return ["--profile", str(REPO / "config" / "slurm"),
            "--default-resources", f"slurm_partition={partition}",
            "--slurm-status-command", "squeue"]


def job_blocks(log: str) -> list[dict[str, str]]:
    """Each job Snakemake started: its rule, whether local, and its indented ``key: value``s."""
    blocks = []
    for m in re.finditer(r"^(local)?(?:rule|checkpoint) (\w+):\n((?:    .*\n)*)", log, re.M):
        fields = dict(re.findall(r"^    (\w+): (.*)$", m.group(3), re.M))
        blocks.append({"local": bool(m.group(1)), "rule": m.group(2), **fields})
    return blocks


def megabytes(text: str) -> int:
    """squeue's memory (``6560M``, ``2G``) in MB."""
    number, unit = re.fullmatch(r"(\d+)([MGT])", text).groups()
    return int(number) * 1024 ** "MGT".index(unit)


def minutes(text: str) -> int:
    """squeue's time limit (``15:00``, ``1:30:00``, ``1-00:00:00``) in whole minutes."""
    days, _, clock = text.rpartition("-")
    parts = [int(p) for p in clock.split(":")]
    hours, mins = (parts[-3] if len(parts) == 3 else 0), parts[-2]
    return (int(days or 0) * 24 + hours) * 60 + mins


def test_smoke_dag_through_slurm_matches_cores(cluster: Cluster, smoke_run: Path,
                                                tmp_path: Path) -> None:
    work = tmp_path / "run"
    work.mkdir()
    try:
        result = snakemake(work, *cluster_command(cluster.partition), "--retries", "0",
                           "--slurm-init-seconds-before-status-checks", "2",
                           "--config", "profile=smoke", timeout=2400, env=cluster.env)
        ok(result, *cluster.logs)
        log = result.stdout + result.stderr
        run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
        submitted = dict(re.findall(r"Job (\d+) has been submitted with SLURM jobid (\d+)", log))
        remote = [b for b in job_blocks(log) if not b["local"]]
        # every non-local job, and nothing else, went to Slurm, and finished there
        assert remote and sorted(submitted) == sorted(b["jobid"] for b in remote)
        jobs = {j["id"]: j for j in cluster.jobs() if j["name"] == run_id}
        assert sorted(jobs) == sorted(submitted.values())
        assert {j["state"] for j in jobs.values()} == {"COMPLETED"}
        assert not cluster.jobs("pending", "running", "completing")
        # with the resources each rule declares
        for block in remote:
            job = jobs[submitted[block["jobid"]]]
            declared = dict(re.findall(r"(\w+)=(\d+)\b", block["resources"]))
            assert "runtime" in declared, f"rule {block['rule']} declares no runtime"
            assert megabytes(job["mem"]) == int(declared["mem_mb"]), block
            assert minutes(job["time_limit"]) == int(declared["runtime"]), block
            assert int(job["cpus"]) == int(block.get("threads", 1)), block
        compare_runs(plan_of("smoke"), smoke_run, work)
    finally:
        drop_tables(work)
