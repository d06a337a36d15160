"""The ledger of opened screen blocks: one candidate per block unless reuse is asked for by name."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from analysis.ledger import FORMAT, LedgerError, open_block, opened_blocks, read_ledger

SHA_A = "a" * 64
SHA_B = "b" * 64
SEEDS = (3458764513821589504, 256)
WHEN = datetime(2026, 9, 6, 12, 0, tzinfo=UTC)


def _open(path, sha, block=1, reuse=(), profile="pilot"):
    return open_block(path, block, sha, candidate="ntuple-A", profile=profile, seeds=SEEDS,
                      reuse_blocks=reuse, now=WHEN)


def test_first_opening_owns_the_block(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    opening = _open(path, SHA_A)
    assert not opening.reused and opening.owner["sha256"] == SHA_A
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT
    assert doc["blocks"]["1"][0]["opened_utc"] == "2026-09-06T12:00:00Z"
    assert doc["blocks"]["1"][0]["seeds"] == list(SEEDS)


def test_same_candidate_may_reread_its_block(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    _open(path, SHA_A)
    again = _open(path, SHA_A)
    assert not again.reused
    assert len(opened_blocks(path)[1]) == 1  # a rerun adds no entry


def test_different_candidate_is_refused_naming_block_and_way_out(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    _open(path, SHA_A)
    before = path.read_text()
    with pytest.raises(LedgerError) as err:
        _open(path, SHA_B)
    message = str(err.value)
    assert "screen block 1" in message and "screen.reuse_blocks" in message
    assert SHA_A[:12] in message and "\n" not in message
    assert path.read_text() == before  # nothing recorded for a refused opening


def test_reuse_by_name_is_recorded_and_flagged(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    _open(path, SHA_A)
    with pytest.raises(LedgerError):
        _open(path, SHA_B, reuse=(2,))  # naming another block does not help
    opening = _open(path, SHA_B, reuse=(1,))
    assert opening.reused and opening.owner["sha256"] == SHA_A
    entries = opened_blocks(path)[1]
    assert [e["sha256"] for e in entries] == [SHA_A, SHA_B]
    assert [e["reused"] for e in entries] == [False, True]
    # the owner's rerun is still not a reuse; the reuser's rerun still is
    assert not _open(path, SHA_A).reused
    assert _open(path, SHA_B, reuse=(1,)).reused


def test_blocks_are_independent(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    _open(path, SHA_A, block=1)
    assert not _open(path, SHA_B, block=2).reused
    assert sorted(opened_blocks(path)) == [1, 2]


def test_bad_inputs(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    with pytest.raises(LedgerError, match="not a SHA-256"):
        _open(path, "xyz")
    path.write_text("{not json")
    with pytest.raises(LedgerError, match="unreadable ledger"):
        read_ledger(path)
    path.write_text(json.dumps({"format": "other", "blocks": {}}))
    with pytest.raises(LedgerError, match="not a drop7-screen-ledger-v1"):
        _open(path, SHA_A)
    assert read_ledger(tmp_path / "absent.json")["blocks"] == {}
