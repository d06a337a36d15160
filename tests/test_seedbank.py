"""The seed bank: role ranges, wrapping, overlap refusal."""

from __future__ import annotations

import pytest
import yaml

from engines.seedbank import DEFAULT_BANK, load_bank


def test_roles_are_disjoint_and_below_2_63():
    bank = load_bank()
    seeds = {
        "training": bank.training(0, 10),
        "validation": bank.validation(),
        "screen": bank.screen_block(3),
        "probe": bank.probe(10),
    }
    for role, values in seeds.items():
        assert all(bank.role_of(int(s)) == role for s in values)
        assert int(values.max()) < 2**63  # fits a signed 64-bit column in any table
    assert len(seeds["validation"]) == 64 and len(seeds["screen"]) == 256


def test_training_wraps():
    bank = load_bank()
    n = bank.roles["training"]["count"]
    assert bank.training(n - 1, 2).tolist() == [bank.training(n - 1, 1)[0], bank.training(0, 1)[0]]


def test_overlap_is_refused(tmp_path):
    doc = yaml.safe_load(DEFAULT_BANK.read_text())
    doc["roles"]["probe"]["start"] = doc["roles"]["validation"]["start"]
    bad = tmp_path / "seeds.yaml"
    bad.write_text(yaml.safe_dump(doc))
    with pytest.raises(ValueError, match="overlap"):
        load_bank(bad)


def test_bad_block_is_refused():
    with pytest.raises(ValueError, match="outside"):
        load_bank().screen_block(10**6)
