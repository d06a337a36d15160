"""The ledger of opened screen blocks: owners, reruns, declared sharing, reuse, completion."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime

import pytest

from protocol.ledger import (
    FORMAT,
    LedgerError,
    Opener,
    close_blocks,
    open_blocks,
    opened_blocks,
    read_ledger,
    record_look,
)
from protocol.ledger_readings import replay_errors, replays

A, B = "a" * 64, "b" * 64
NOW = datetime(2026, 12, 1, tzinfo=UTC)
ONE = Opener("claim-one", {"claim-one/w": A})


def opening(path, blocks, opener, **kw):
    return open_blocks(path, blocks, opener, profile="pilot", seeds=[100, 8], now=NOW, **kw)


def test_first_opener_owns_the_block_and_a_rerun_continues_it(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    first = opening(ledger, [3], ONE)
    assert first["reused"] is False and first["blocks"]["3"]["owner"]["claim"] == "claim-one"
    again = opening(ledger, [3], ONE)  # a rerun, or a run after a crash during play
    assert again["blocks"]["3"]["entry"] == first["blocks"]["3"]["entry"]
    doc = json.loads(ledger.read_text())
    assert doc["format"] == FORMAT and len(doc["blocks"]["3"]) == 1
    assert doc["blocks"]["3"][0]["status"] == "opened"


def test_different_frozen_weights_of_the_same_claim_are_refused(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    other = Opener("claim-one", {"claim-one/w": B})
    with pytest.raises(LedgerError, match="screen block 3 was opened on .* by this claim .*"
                                          "refusing to read it for claim claim-one"):
        opening(ledger, [3], other)
    assert len(opened_blocks(ledger)[3]) == 1
    flagged = opening(ledger, [3], other, allow_reuse=True)
    assert flagged["reused"] is True and len(opened_blocks(ledger)[3]) == 2


def test_another_claim_needs_a_declared_share(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [5, 6], ONE)
    stranger = Opener("claim-two", {})
    with pytest.raises(LedgerError, match="by claim claim-one .* declare screen.block: "
                                          r"\{claim: claim-one\}"):
        opening(ledger, [6], stranger)
    sharer = Opener("claim-two", {}, shares="claim-one")
    answer = opening(ledger, [5, 6], sharer)
    assert answer["reused"] is True and answer["blocks"]["6"]["owner"]["claim"] == "claim-one"


def test_a_sharer_first_does_not_lock_out_the_owner_claim(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [7], Opener("claim-two", {}, shares="claim-one"))
    answer = opening(ledger, [7], ONE)
    assert answer["reused"] is True  # read by the sharer first: not held out any more


def test_completion_records_the_table_and_keeps_the_first(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    done = close_blocks(ledger, [3], ONE, games=24, table_sha256="c" * 64,
                        deciding_sha256="1" * 64, now=NOW)
    assert done["3"]["status"] == "complete" and done["3"]["games"] == 24
    assert done["3"]["deciding_sha256"] == "1" * 64
    # the same games with other wall times: a reproduction, nothing recorded
    again = close_blocks(ledger, [3], ONE, games=24, table_sha256="d" * 64,
                         deciding_sha256="1" * 64, now=NOW)
    assert again["3"]["table_sha256"] == "c" * 64 and replays(again["3"]) == []
    assert replay_errors(again) == []
    # other games: a replay, recorded once, and an error of the verdict
    third = close_blocks(ledger, [3], ONE, games=24, table_sha256="e" * 64,
                         deciding_sha256="2" * 64, now=NOW)
    close_blocks(ledger, [3], ONE, games=24, table_sha256="e" * 64,
                 deciding_sha256="2" * 64, now=NOW)
    assert replays(third["3"]) == [{"table_sha256": "e" * 64, "deciding_sha256": "2" * 64,
                                    "utc": "2026-12-01T00:00:00Z"}]
    assert replays(read_ledger(ledger)["blocks"]["3"][0]) == replays(third["3"])
    [error] = replay_errors(third)
    assert "block 3 was played again (replay 1) and its games differ" in error
    with pytest.raises(LedgerError, match="no opening for claim claim-two"):
        close_blocks(ledger, [3], Opener("claim-two", {}), games=1, table_sha256="e" * 64,
                     deciding_sha256="2" * 64)


def test_a_sequential_block_played_again_with_the_same_looks_is_a_reproduction(tmp_path) -> None:
    """Looks made again with the same statistics, bounds and decisions (other times) and the
    same games record nothing; a look that differs makes the rerun a replay."""
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    look = {"look": 1, "seeds": [100, 4], "statistic": 0.5, "efficacy_bound": 3.0,
            "futility_bound": None, "decision": "continue"}
    stop = {**look, "look": 2, "seeds": [100, 8], "statistic": 2.5, "efficacy_bound": 2.0,
            "decision": "stop"}
    for x in (look, stop):
        record_look(ledger, [3], ONE, x, now=NOW)
    close_blocks(ledger, [3], ONE, games=8, table_sha256="c" * 64, deciding_sha256="1" * 64,
                 now=NOW)
    first = read_ledger(ledger)["blocks"]["3"][0]
    later = datetime(2026, 12, 6, tzinfo=UTC)
    for x in (look, stop):
        record_look(ledger, [3], ONE, x, now=later)
    again = close_blocks(ledger, [3], ONE, games=8, table_sha256="d" * 64,
                         deciding_sha256="1" * 64, now=later)
    assert again["3"] == first and replays(again["3"]) == []
    # the same games, but a look read otherwise: a replay, kept with its looks
    record_look(ledger, [3], ONE, {**look, "statistic": 0.6}, now=later)
    record_look(ledger, [3], ONE, stop, now=later)
    third = close_blocks(ledger, [3], ONE, games=8, table_sha256="d" * 64,
                         deciding_sha256="1" * 64, now=later)
    [replay] = replays(third["3"])
    assert [x["statistic"] for x in replay["looks"]] == [0.6, 2.5]
    assert replay_errors(third) == []  # the same games: recorded, not an error


def test_a_replay_of_a_first_reading_without_a_deciding_hash_cannot_be_checked() -> None:
    entry = {"table_sha256": "c" * 64, "replays": [
        {"table_sha256": "d" * 64},  # an older replay: not checked, history
        {"table_sha256": "e" * 64, "deciding_sha256": "2" * 64}]}
    [error] = replay_errors({"3": entry})
    assert "kept no hash of its deciding columns" in error
    assert replay_errors({"3": {**entry, "replays": entry["replays"][:1]}}) == []


def test_a_panel_table_is_recorded_with_the_block_and_a_new_one_is_a_replay(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    done = close_blocks(ledger, [3], ONE, games=16, table_sha256="c" * 64,
                        deciding_sha256="1" * 64, panel_sha256="a" * 64, now=NOW)
    assert done["3"]["panel_sha256"] == "a" * 64 and "replays" not in done["3"]
    # the same games and the same panel: nothing new; the same games, other labels: a replay
    close_blocks(ledger, [3], ONE, games=16, table_sha256="c" * 64, deciding_sha256="1" * 64,
                 panel_sha256="a" * 64, now=NOW)
    again = close_blocks(ledger, [3], ONE, games=16, table_sha256="c" * 64,
                         deciding_sha256="1" * 64, panel_sha256="b" * 64, now=NOW)
    assert again["3"]["panel_sha256"] == "a" * 64  # the first reading is never rewritten
    assert replays(again["3"]) == [{"table_sha256": "c" * 64, "deciding_sha256": "1" * 64,
                                    "panel_sha256": "b" * 64, "utc": "2026-12-01T00:00:00Z"}]
    assert "panel table differ" in replay_errors(again)[0]
    read_ledger(ledger)  # the schema takes the panel's hashes


def test_bad_hashes_and_bad_files_are_refused(tmp_path) -> None:
    with pytest.raises(LedgerError, match="not a SHA-256"):
        opening(tmp_path / "l.json", [1], Opener("c", {"c/w": "xyz"}))
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "drop7-screen-ledger-v1", "blocks": {}}')
    with pytest.raises(LedgerError, match="not a drop7-screen-ledger-v2 or drop7-screen-ledger-v3 "
                                          "ledger"):
        opening(bad, [1], ONE)
    bad.write_text("{not json")
    with pytest.raises(LedgerError, match="unreadable ledger"):
        opened_blocks(bad)


def test_concurrent_openers_of_one_block_get_one_owner(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    results: list[object] = []

    def run(opener: Opener) -> None:
        try:
            results.append(opening(ledger, [9], opener))
        except LedgerError as exc:
            results.append(exc)

    threads = [threading.Thread(target=run, args=(Opener(f"c{i}", {}),)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(r, dict) for r in results) == 1
    assert len(opened_blocks(ledger)[9]) == 1


@pytest.mark.parametrize(("edit", "key"), [
    (lambda e: e.pop("opened_utc"), "missing key blocks.3[0].opened_utc"),
    (lambda e: e.update(hashes=["claim-one/w"]), "key blocks.3[0].hashes"),
    (lambda e: e.update(claim=7), "key blocks.3[0].claim"),
    (lambda e: e.update(seeds=[100]), "key blocks.3[0].seeds"),
    (lambda e: e.update(status="complete"), "blocks.3[0].completed_utc"),
    (lambda e: e.update(reused="no"), "key blocks.3[0].reused"),
])
def test_a_ledger_entry_with_missing_fields_or_wrong_types_is_one_line(tmp_path, edit,
                                                                      key) -> None:
    """Such an entry was a KeyError or a TypeError when a block was checked or opened."""
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    doc = json.loads(ledger.read_text())
    edit(doc["blocks"]["3"][0])
    ledger.write_text(json.dumps(doc))
    for read in (lambda: opened_blocks(ledger), lambda: opening(ledger, [3], ONE)):
        with pytest.raises(LedgerError) as err:
            read()
        assert str(err.value).startswith(f"{ledger}: ") and key in str(err.value)
        assert "\n" not in str(err.value)


def _look(k: int, n: int, decision: str) -> dict[str, object]:
    return {"look": k, "seeds": [1000, n], "statistic": 3.5, "efficacy_bound": 2.9,
            "futility_bound": None, "decision": decision}


def test_a_sequential_screen_records_its_looks_and_the_unread_rest(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    record_look(ledger, [3], ONE, _look(1, 64, "continue"))
    record_look(ledger, [3], ONE, _look(2, 128, "stop-efficacy"))
    record_look(ledger, [3], ONE, _look(2, 128, "stop-efficacy"))  # a rerun replaces it
    close_blocks(ledger, [3], ONE, games=128, table_sha256="c" * 64, deciding_sha256="1" * 64,
                 unread=[1128, 128])
    entry = read_ledger(ledger)["blocks"]["3"][0]
    assert [x["look"] for x in entry["looks"]] == [1, 2]
    assert entry["looks"][1]["decision"] == "stop-efficacy" and entry["unread"] == [1128, 128]
    with pytest.raises(LedgerError, match="no opening for claim claim-two"):
        record_look(ledger, [3], Opener("claim-two", {}), _look(1, 64, "continue"))


def test_a_replay_appends_its_looks_and_never_rewrites_the_first_reading(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    record_look(ledger, [3], ONE, _look(1, 64, "stop"), now=NOW)
    close_blocks(ledger, [3], ONE, games=64, table_sha256="c" * 64, deciding_sha256="1" * 64,
                 unread=[1064, 64], now=NOW)
    first = read_ledger(ledger)["blocks"]["3"][0]
    later = NOW.replace(hour=9)
    # the block played again, its look read otherwise (the same looks would be a reproduction)
    record_look(ledger, [3], ONE, {**_look(1, 64, "stop"), "statistic": 9.0}, now=later)
    close_blocks(ledger, [3], ONE, games=64, table_sha256="d" * 64, deciding_sha256="1" * 64,
                 unread=[1064, 64], now=later)
    entry = read_ledger(ledger)["blocks"]["3"][0]
    assert {k: entry[k] for k in first} == first  # looks, times, hash: as the first reading
    assert entry["looks"][0]["utc"] == "2026-12-01T00:00:00Z"
    (replay,) = replays(entry)
    assert replay["table_sha256"] == "d" * 64 and replay["utc"] == "2026-12-01T09:00:00Z"
    assert [x["utc"] for x in replay["looks"]] == ["2026-12-01T09:00:00Z"]
    # an older ledger's single hash reads as one replay
    assert replays({"differs": "f" * 64}) == [{"table_sha256": "f" * 64}]


def test_a_v2_ledger_still_reads_and_is_written_as_v3(tmp_path) -> None:
    ledger = tmp_path / "ledger.json"
    opening(ledger, [3], ONE)
    doc = json.loads(ledger.read_text())
    ledger.write_text(json.dumps({**doc, "format": "drop7-screen-ledger-v2"}))
    assert opened_blocks(ledger)[3][0]["claim"] == ONE.claim
    record_look(ledger, [3], ONE, _look(1, 64, "continue"))
    assert json.loads(ledger.read_text())["format"] == FORMAT == "drop7-screen-ledger-v3"
    bad = json.loads(ledger.read_text())
    bad["blocks"]["3"][0]["looks"][0]["decision"] = "maybe"
    ledger.write_text(json.dumps(bad))
    with pytest.raises(LedgerError, match="looks"):
        read_ledger(ledger)
