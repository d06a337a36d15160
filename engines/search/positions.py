"""The fixed positions of ``drop7 bench search``: public states from real games.

The set is shipped as ``engines/search/positions.json`` so every bench run
and every test times and checks the same decisions; :mod:`engines.play.positions`
drew it from games of the fair d3s7 policy and redraws it identically.  A
position is a decision state: the board (row strings, top row first), the
next disc and the moves remaining; its seed and move say where it came from.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engines.drop7.board import rows_to_cols

POSITIONS_FILE = Path(__file__).with_name("positions.json")
FORMAT = "drop7-positions-v1"

Position = tuple[np.ndarray, int, int]


def load_positions(path: str | Path = POSITIONS_FILE) -> list[Position]:
    """The positions of a position file as ``(cols, disc, moves_remaining)``."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    return [(rows_to_cols(p["board"]), int(p["disc"]), int(p["moves_remaining"]))
            for p in doc["positions"]]
