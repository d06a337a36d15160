"""`drop7 records rebuild`: a committed bundle written again from itself, the ledger and its git
history is the bundle committed (its games unchanged), and a bundle whose readings the games do
not give again is refused; a committed page's records and ledger line are written again."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from analysis.report.page import refresh_page
from contracts.games_table import write_rows
from protocol.ledger import COMMITTED, read_ledger
from protocol.plan import load_plan
from protocol.records.check import check_bundle
from protocol.records.ids import RecordError
from protocol.records.rebuild import _check_readings, _contrasts, _verdict, rebuild, table_rows

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "reports/pilot/records/fourth-ply"

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse"], capture_output=True).returncode != 0,
    reason="needs the git history of a checkout")


def _load(directory: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in directory.glob("*.json")}


def _without_times(records: dict[str, dict]) -> dict[str, dict]:
    drop = ("recordedAt", "updatedAt")
    return {k: {f: v for f, v in r.items() if f not in drop} for k, r in records.items()}


def test_the_committed_sequential_bundle_is_what_rebuild_writes(tmp_path) -> None:
    out = tmp_path / "records" / "fourth-ply"
    result = rebuild(BUNDLE, ROOT, out=out, now=datetime(2027, 1, 1, tzinfo=UTC))
    assert check_bundle(out) == []
    assert _without_times(_load(out)) == _without_times(_load(BUNDLE))
    assert (out / "games.jsonl").read_bytes() == (BUNDLE / "games.jsonl").read_bytes()
    seq = result["metrics"]["sequential"]
    assert [x["look"] for x in seq["looks"]] == [1, 2, 3, 4] and seq["decision"] == "stop"
    assert result["metrics"]["contrasts"]["primary"]["n"] == 32


def test_the_committed_panel_bundle_is_what_rebuild_writes(tmp_path) -> None:
    """A panel-only claim's bundle: its games (the roots arm's) and its panel figures, which
    the rebuild carries over (tests/test_committed_panels.py recomputes them)."""
    bundle = ROOT / "reports/pilot/records/shallow-ordering"
    out = tmp_path / "records" / "shallow-ordering"
    result = rebuild(bundle, ROOT, out=out, now=datetime(2027, 1, 1, tzinfo=UTC))
    assert check_bundle(out) == []
    # the result and the experiment as written by the run (the run's machine and job times
    # are not in a committed bundle's sources: rebuild says so in those records)
    decided = {k: v for k, v in _without_times(_load(bundle)).items()
               if k.startswith(("result-", "experiment-"))}
    assert {k: v for k, v in _without_times(_load(out)).items() if k in decided} == decided
    assert (out / "games.jsonl").read_bytes() == (bundle / "games.jsonl").read_bytes()
    assert set(result["metrics"]["panel"]["rankers"]) == {"fair-d3s7", "fair-d2s7",
                                                          "fair-d1s7"}


def test_rebuild_at_the_committed_time_writes_the_committed_bytes(tmp_path) -> None:
    """The records' JSON writer and every hash of their ids are pinned by the committed
    bundle: written again at its own time, each file is the committed one byte for byte."""
    out = tmp_path / "records" / "fourth-ply"
    rebuild(BUNDLE, ROOT, out=out, now=datetime(2026, 12, 3, 16, 51, 3, tzinfo=UTC))
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    assert written == {p.name: p.read_bytes() for p in BUNDLE.iterdir()}


def test_a_reading_the_games_do_not_give_again_is_refused(tmp_path) -> None:
    loaded = load_plan(ROOT, {"profile": "pilot"})
    plan = loaded.claims["fourth-ply"]
    records = {r["format"].split("-")[1]: r for r in _load(BUNDLE).values()}
    verdict = _verdict(records, plan)
    write_rows(table_rows(BUNDLE / "games.jsonl"), tmp_path / "t.csv")
    entry = read_ledger(ROOT / COMMITTED)["blocks"]["1012"][0]
    contrasts = _contrasts(plan, loaded.profile, tmp_path / "t.csv", entry)
    _check_readings(plan, contrasts, verdict)  # the committed readings hold
    tampered = json.loads(json.dumps(verdict))
    tampered["readings"][0]["reason"] = tampered["readings"][0]["reason"].replace("n 32", "n 33")
    with pytest.raises(RecordError, match="reading primary: the games give"):
        _check_readings(plan, contrasts, tampered)


def test_a_page_written_before_gets_its_records_and_ledger_line_again() -> None:
    old = ('<p>x Complete: 128 games, table SHA-256 <span class="mono">d552ced2184c5a32</span>; '
           '<b>a later run of the same opener produced a different table</b> (<span class="mono">'
           'd552ced2184c5a32</span>).</p>\n<h2>Register records</h2>\n<p>The claim\'s records\n'
           '<span class="mono">.snakemake_timestamp</span>, <span class="mono">games.jsonl'
           '</span>.</p>\n<h2>How to read this page</h2>')
    closed = {"games": 128, "table_sha256": "d" * 64,
              "entries": {"1012": {"table_sha256": "a" * 64,
                                   "replays": [{"table_sha256": "d" * 64}]}}}
    records = [{"name": "games.jsonl", "path": "reports/pilot/records/c/games.jsonl",
                "href": None}]
    html = refresh_page(old, records, closed)
    assert ".snakemake_timestamp" not in html and "a later run" not in html
    assert html.count("d" * 16) == 1 and html.count("a" * 16) == 1
    assert "first reading's table SHA-256 (the seed lease's)" in html
    assert html.endswith("<h2>How to read this page</h2>")
    assert refresh_page(html, records, closed) == html  # a page written now refreshes the same


def test_rebuild_keeps_a_root_filters_counts_from_the_bundle(tmp_path, monkeypatch) -> None:
    """The per-game rows (the register's format) have no field for a root filter's counts: the
    rebuild keeps the bundle's, as it keeps a panel's figures."""
    from protocol.records import rebuild as module

    counts = {"decisions": 3200, "applied": 150, "changed": 70, "rate": 70 / 3200}
    read = module._old_records

    def with_counts(directory):
        old = read(directory)
        old["result"]["metrics"]["contrasts"]["primary"]["filterCandidate"] = counts
        return old

    monkeypatch.setattr(module, "_old_records", with_counts)
    result = rebuild(BUNDLE, ROOT, out=tmp_path / "records" / "fourth-ply",
                     now=datetime(2027, 1, 1, tzinfo=UTC))
    contrasts = result["metrics"]["contrasts"]
    assert contrasts["primary"]["filterCandidate"] == counts
    assert "filterCandidate" not in contrasts["interaction"]
