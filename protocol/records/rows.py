"""A bundle's per-game rows: ``games.jsonl``, one ``drop7-game-result-v1`` line per game and arm.

The rows carry the statistics' columns of the games table and the
register's per-game figures (work, reveals, chains, trajectory); the work
this harness does not measure is null in every row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from contracts.cli_numbers import seed_hex
from protocol.records.check import check_record
from protocol.records.ids import (
    FORMATS,
    RecordError,
)

#: the per-game work figures this harness does not measure (null in every row)
NOT_MEASURED = ("logicalWork",)


#: a row's work figures from the games table's columns (empty: the player did not report it)
WORK_COLUMNS = {"nodesOrTransitions": "nodes", "modelInferences": "leaves"}


#: the games-table columns the register's per-game rows need beyond the statistics' own
_PER_GAME = ("reveals", "chain_max", "chain_mean", "trajectory")


def game_rows(rows: Sequence[Mapping[str, str]], plan: Mapping[str, Any], experiment: str,
              run: str, leases: Mapping[int, tuple[int, int, str]]) -> list[dict[str, Any]]:
    """``drop7-game-result-v1`` rows of a games table (values as text, the runner's columns).

    ``leases`` maps each block to ``(first seed, end seed, lease id)``; a game's
    ``cohortOrdinal`` is its seed's place in the block (unique in its arm's cohort, whatever
    look played it).
    """
    first = {sl: lo for lo, _, sl in leases.values()}
    out = []
    for i, row in enumerate(rows):
        missing = [c for c in _PER_GAME if not row.get(c)]
        if missing:
            raise RecordError(f"games table row {i + 2}: no {', '.join(missing)} (a table "
                              "written before the games carried them: play the screen "
                              "again, docs/records.md)")
        seed = int(row["seed"])
        lease = next((sl for lo, hi, sl in leases.values() if lo <= seed < hi), None)
        if lease is None:
            raise RecordError(f"games table row {i + 2}: seed {seed_hex(seed)} is in no "
                              "block the claim read")
        record = {
            "format": FORMATS["game-result"], "experimentId": experiment, "runId": run,
            "policyId": row["policy"], "cohortId": f"{plan['id']}/{plan['label']}/{row['arm']}",
            "seedLeaseId": lease, "cohortOrdinal": seed - first[lease],
            "seedHex": seed_hex(seed),
            "score": int(float(row["score"])), "moves": int(row["moves"]),
            "censored": row["censored"] in ("1", "True", "true"),
            "numberedClears": int(row["popped"]), "coveredReveals": int(row["reveals"]),
            "meanChainDepth": float(row["chain_mean"]), "maximumChainDepth": int(row["chain_max"]),
            "illegalDecisions": int(row["illegal"]), "incompleteDecisions": int(row["unfinished"]),
            "runnerFailures": 0, **dict.fromkeys(NOT_MEASURED),
            **{key: int(row[col]) if row.get(col) else None
               for key, col in WORK_COLUMNS.items()},
            "wallSeconds": float(row["wall_s"]), "trajectoryChecksum": row["trajectory"],
        }
        check_record(record, "game-result", f"games table row {i + 2}")
        out.append(record)
    return out


def games_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The per-game rows as JSON lines (compact, one row a line: ``games.jsonl``)."""
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
