"""Adapter: a panel's roots, table and readings copied beside the claim's page (committed with
it, so the readings recompute from committed files: tests/test_committed_panels.py)."""

import shutil
from pathlib import Path

from contracts.atomic import atomic_dir
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821

#: the files of a committed panel, by the rule's input names
FILES = {"roots": "roots.json", "table": "panel.csv", "readings": "readings.json"}


def main() -> None:
    with atomic_dir(Path(S.output[0]), replace=True) as tmp:
        for key, name in FILES.items():
            shutil.copyfile(S.input[key], tmp / name)


with log_to(S.log[0]):
    run(main)
