"""Adapter: every arm's games of the block in one table; the block marked complete (a
sequential screen: the games of the looks it made, and the seeds it never read; a ranking
panel: its table's SHA-256)."""

import sys
from datetime import UTC, datetime

from contracts.games_table import deciding_sha256, read_rows, write_rows
from contracts.hashing import file_sha256
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run
from protocol.ledger import Opener, close_blocks
from protocol.provenance import run_source
from protocol.records.ids import stamp
from protocol.records.machine import machine_record

S = snakemake  # noqa: F821


def main() -> None:
    rows = [row for path in S.input.games for row in read_rows(path)]
    write_rows(rows, S.output.table)
    opened = load_json(S.input.opened)
    opener = Opener(opened["claim"], opened["hashes"], opened["shares"])
    sha = file_sha256(S.output.table)
    deciding = deciding_sha256(rows)
    looks = dict(S.input.items()).get("looks")  # a sequential screen's looks
    unread = load_json(looks)["unread"] if looks else None
    panel = dict(S.input.items()).get("panel")  # a ranking panel's table
    panel_sha = file_sha256(panel) if panel else None
    entries = close_blocks(S.params.ledger, [int(b) for b in opened["blocks"]], opener,
                           games=len(rows), table_sha256=sha, deciding_sha256=deciding,
                           unread=unread,
                           panel_sha256=panel_sha)
    print(f"{len(rows)} games in, table sha256 {sha}"
          + (f", panel table sha256 {panel_sha}" if panel_sha else ""), file=sys.stderr)
    # the checkout, command and machine that played these games (the records' run;
    # docs/records.md)
    played = run_source(S.params.repo, S.params.ledger)
    write_json(S.output.closed, {"games": len(rows), "table_sha256": sha,
                                 "deciding_sha256": deciding,
                                 **({"panel_sha256": panel_sha} if panel_sha else {}),
                                 "entries": entries,
                                 "played": played,
                                 "machine": machine_record(stamp(datetime.now(UTC)))})


with log_to(S.log[0]):
    run(main)
