"""The register's published per-game results of one arm, and our replay of them game for game.

A published games file (``drop7-register-games-v1``, under ``data/register/``) holds the
register's arm, its policy string as we spell it (the register's sampling), where the
games were published (``source``) and each game's 32-bit seed (hex), score and moves.  A
replay (``drop7-register-replay-v1``) holds one row per game replayed, ours beside the
register's, and a summary the page quotes.  The protocol reads the first to plan a
claim's replay, the engine reads it and writes the second, the page reads the second.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PUBLISHED_FORMAT = "drop7-register-games-v1"
REPLAY_FORMAT = "drop7-register-replay-v1"


class RegisterGamesError(ValueError):
    """A published games file that does not hold its format: one line naming it and the key."""


def _fail(path: str | Path, key: str, message: str) -> RegisterGamesError:
    return RegisterGamesError(f"{path}: key {key}: {message}")


def read_published(path: str | Path) -> dict[str, Any]:
    """The published games file at ``path``, its format and every game's fields checked."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _fail(path, "format", f"not a readable JSON file ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != PUBLISHED_FORMAT:
        raise _fail(path, "format", f"not {PUBLISHED_FORMAT}")
    for key in ("policy", "source"):
        if key not in doc:
            raise _fail(path, key, "missing")
    games = doc.get("games")
    if not isinstance(games, list) or not games:
        raise _fail(path, "games", "not a list of published games")
    for i, g in enumerate(games):
        try:
            seed = int(g["seed"], 16)
            ok = 0 <= seed < 1 << 32 and all(isinstance(g[k], int) and g[k] >= 0
                                              for k in ("score", "moves"))
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            raise _fail(path, f"games[{i}]", "needs seed (32-bit hex), score and moves "
                        "(whole numbers)")
    return doc


def replay_row(published: Mapping[str, Any], score: int, moves: int) -> dict[str, Any]:
    """One replayed game: its seed, our score and moves, the register's, and whether equal."""
    return {"seed": published["seed"], "score": score, "moves": moves,
            "published_score": published["score"], "published_moves": published["moves"],
            "equal": (score, moves) == (published["score"], published["moves"])}


def replay_summary(rows: Sequence[Mapping[str, Any]], published: int) -> dict[str, Any]:
    """Games replayed, how many ended equal (score and moves), the first that did not (None:
    every one did) and how many games were ``published``."""
    differing = next((dict(r) for r in rows if not r["equal"]), None)
    return {"games": len(rows), "equal": sum(bool(r["equal"]) for r in rows),
            "published": published, "first_differing": differing}
