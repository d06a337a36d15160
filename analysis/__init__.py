"""Paired-screen statistics over tables of games (no numba, no engine imports).

Modules: :mod:`analysis.games_table` (read and validate games CSVs),
:mod:`analysis.bootstrap` (the counter-based percentile bootstrap),
:mod:`analysis.contrast` (one paired contrast and its pass criteria),
:mod:`analysis.readings` (what a claim concludes from a contrast or a curve),
:mod:`analysis.power` (the screen's operating characteristic),
:mod:`analysis.oc_plot` (its figure) and :mod:`analysis.cli` (``drop7 stats``).
See docs/statistics.md for the formulas and decisions.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder, then rename."""
    target = Path(path)
    payload = data.encode() if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
