"""The ledger keeps each opening's protocol hash (what decides the verdict): an opener whose
deciding parts changed after its block was opened is refused; entries from before the hash
was kept are accepted and flagged."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from protocol.ledger import LedgerError, Opener, open_blocks, read_ledger

ONE = Opener("claim-one", {"claim-one/w": "a" * 64})
P1, P2 = "1" * 64, "2" * 64
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def opening(path, blocks, **kw):
    return open_blocks(path, blocks, ONE, profile="pilot", seeds=[100, 8], now=NOW, **kw)


def test_the_hash_is_kept_and_a_changed_declaration_is_refused(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    first = opening(ledger, [3, 4], protocol_sha256=P1)
    assert first["blocks"]["3"]["entry"]["protocol_sha256"] == P1
    assert first["blocks"]["3"]["no_protocol_hash"] is False
    assert opening(ledger, [3, 4], protocol_sha256=P1)["blocks"]["4"]["entry"] == \
        first["blocks"]["4"]["entry"]  # a rerun of the same declaration continues
    before = ledger.read_text()
    with pytest.raises(LedgerError) as refused:
        opening(ledger, [3, 4], protocol_sha256=P2)
    message = str(refused.value)
    assert message.startswith("claim claim-one: screen block 3: the declaration's deciding "
                              "parts changed after the block was opened on 2026-12-01T00:00:00Z")
    assert "\n" not in message and P1[:12] in message and P2[:12] in message
    assert ledger.read_text() == before  # nothing recorded


def test_an_entry_without_a_hash_is_accepted_and_flagged(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [5])  # written as before the hash was kept
    assert "protocol_sha256" not in read_ledger(ledger)["blocks"]["5"][0]
    answer = opening(ledger, [5], protocol_sha256=P2)
    assert answer["blocks"]["5"]["no_protocol_hash"] is True
    assert "protocol_sha256" not in json.loads(ledger.read_text())["blocks"]["5"][0]


def test_a_bad_hash_in_the_ledger_is_one_line(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [6], protocol_sha256=P1)
    doc = json.loads(ledger.read_text())
    doc["blocks"]["6"][0]["protocol_sha256"] = "xyz"
    ledger.write_text(json.dumps(doc))
    with pytest.raises(LedgerError, match=r"protocol_sha256"):
        read_ledger(ledger)
