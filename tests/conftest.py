"""The smoke run shared by the workflow tests (the ``--cores`` reference of the other executors)."""

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Iterator[Path]:
    """The smoke DAG run once with ``--cores 2`` (its tables are dropped at the session's end)."""
    from workflow_support import drop_tables, ok, snakemake

    work = tmp_path_factory.mktemp("smoke")
    ok(snakemake(work, "--cores", "2", "--config", "profile=smoke"))
    yield work
    drop_tables(work)
