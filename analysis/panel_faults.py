"""A panel ranker's faults: an illegal choice, a time-out or an exit, or a bad ``values``
answer, recorded in the panel table's ``fault`` column (:data:`contracts.panel_table.FAULT`).

They are counted per ranker and make the claim's verdict invalid, as a game's illegal and
unfinished decisions do; the faulted root keeps the centre-first choice and has no values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contracts.panel_table import FAULT, FAULTS


def faulted(row: Mapping[str, str]) -> bool:
    """Whether a panel table's row records a fault of its ranker at its root."""
    return bool(row.get(FAULT))


def ranker_faults(rows: Sequence[Mapping[str, str]], names: Sequence[str]
                  ) -> dict[str, dict[str, int]]:
    """``ranker -> {fault: count}`` (every kind of :data:`FAULTS`) for each of ``names`` with
    a fault in the table, in ``names`` order; empty when none has one."""
    counts = {name: dict.fromkeys(FAULTS, 0) for name in names}
    for row in rows:
        if faulted(row) and row["ranker"] in counts:
            counts[row["ranker"]][row[FAULT]] += 1
    return {name: c for name, c in counts.items() if any(c.values())}


def fault_errors(panel: Mapping[str, Any] | None) -> list[str]:
    """The methodological errors of a panel's readings file: one per ranker with faults (its
    ``faults``), as a contrast's illegal or unfinished decisions are."""
    return [f"panel ranker {name}: {c.get(FAULTS[0], 0)} illegal and {c.get(FAULTS[1], 0)} "
            "unfinished answers (faults: the centre-first choice was taken, no values)"
            for name, c in ((panel or {}).get("faults") or {}).items()]
