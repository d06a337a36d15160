"""The page's "Reproduced game for game" section: a claim's replay of the register's published
games of one arm (``drop7 register-replay``, :mod:`contracts.register_games`) and the line
the page states near its top: reproduced, or the first game that is not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReplaySection:
    """A replay as the page shows it: the declared ``recorded.replay`` and what it gave."""

    arm: str
    result: str
    policy: str
    games_file: str
    sha256: str
    source: dict[str, Any]
    summary: dict[str, Any]
    rows: list[dict[str, Any]]

    @classmethod
    def from_json(cls, doc: Mapping[str, Any], declared: Mapping[str, Any]) -> ReplaySection:
        """The replay file's document ``doc`` with its declaration ``declared`` (which names
        the games file as the run's directory holds it)."""
        return cls(arm=declared["arm"], result=declared["result"], policy=doc["policy"],
                   games_file=declared["games"], sha256=doc["sha256"],
                   source=dict(doc["source"]), summary=dict(doc["summary"]),
                   rows=[dict(r) for r in doc["rows"]])

    @property
    def reproduced(self) -> bool:
        """Every replayed game ended on the published score after the published moves."""
        return self.summary["first_differing"] is None and self.summary["games"] > 0

    @property
    def headline(self) -> str:
        """The page's line: ``reproduced: N of N published games ...`` or ``not reproduced:
        seed X scored Y here, Z in the register``."""
        s = self.summary
        if not self.reproduced:
            d = s["first_differing"]
            if d is None:
                return "not reproduced: no published game was replayed"
            if d["score"] != d["published_score"]:
                return (f"not reproduced: seed {d['seed']} scored {d['score']:,} here, "
                        f"{d['published_score']:,} in the register")
            return (f"not reproduced: seed {d['seed']} ended after {d['moves']} moves here, "
                    f"{d['published_moves']} in the register")
        games = (f"{s['games']} of {s['published']} published games" if s["games"] == s["published"]
                 else f"{s['games']} of {s['games']} replayed games (the first {s['games']} of "
                      f"{s['published']} published; the profile caps the replay)")
        return (f"reproduced: {games} of the register's {self.arm} (result {self.result}), "
                "score and moves equal")
