"""Every shipped (and pending) claim and profile means the same to a YAML 1.1 reader (PyYAML's plain
``yaml.safe_load``, which reads ``on``, ``off``, ``yes`` and ``no`` as booleans) as to ours."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from claims_support import REPO

from protocol.schema import read_yaml

SHIPPED = sorted([*Path(REPO, "config/claims").glob("*.yaml"),
                  *Path(REPO, "config/pending").glob("*.yaml"),
                  *Path(REPO, "config/profiles").glob("*.yaml")])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_yaml_1_1_reader_reads_the_shipped_file_alike(path: Path) -> None:
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == read_yaml(path)
