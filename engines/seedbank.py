"""The seed bank: named role ranges of the 64-bit seed space (``data/seeds.yaml``).

Roles: ``training`` (read in order, wrapping), ``validation`` (one block,
re-read at every validation point), ``screen`` (held-out blocks of 256,
opened once per candidate) and ``probe`` (correctness checks only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

DEFAULT_BANK = Path(__file__).resolve().parents[1] / "data" / "seeds.yaml"
FORMAT = "drop7-seedbank-v1"
ROLES = ("training", "validation", "screen", "probe")
SEED_LIMIT = 1 << 64


@dataclass(frozen=True)
class SeedBank:
    """Role ranges of the seed space."""

    roles: dict

    def training(self, first_game: int, count: int) -> np.ndarray:
        """Seeds of training games ``first_game .. first_game+count-1`` (wrapping)."""
        r = self.roles["training"]
        games = (np.arange(count, dtype=np.uint64) + np.uint64(first_game)) % np.uint64(r["count"])
        return games + np.uint64(r["start"])

    def validation(self, count: int | None = None) -> np.ndarray:
        """The validation block (its first ``count`` seeds)."""
        r = self.roles["validation"]
        n = r["count"] if count is None else count
        if not 0 < n <= r["count"]:
            raise ValueError(f"validation block holds {r['count']} seeds, asked for {n}")
        return np.arange(n, dtype=np.uint64) + np.uint64(r["start"])

    def screen_block(self, block: int, count: int | None = None) -> np.ndarray:
        """Seeds of held-out screen block ``block`` (its first ``count`` seeds)."""
        r = self.roles["screen"]
        if not 0 <= block < r["blocks"]:
            raise ValueError(f"screen block {block} is outside 0..{r['blocks'] - 1}")
        n = r["block_size"] if count is None else count
        if not 0 < n <= r["block_size"]:
            raise ValueError(f"a screen block holds {r['block_size']} seeds, asked for {n}")
        return np.arange(n, dtype=np.uint64) + np.uint64(r["start"] + block * r["block_size"])

    def probe(self, count: int) -> np.ndarray:
        """The first ``count`` probe seeds."""
        r = self.roles["probe"]
        if not 0 < count <= r["count"]:
            raise ValueError(f"probe role holds {r['count']} seeds, asked for {count}")
        return np.arange(count, dtype=np.uint64) + np.uint64(r["start"])

    def role_of(self, seed: int) -> str | None:
        """The role whose range holds ``seed`` (None if none)."""
        for name, r in self.roles.items():
            size = r["block_size"] * r["blocks"] if name == "screen" else r["count"]
            if r["start"] <= seed < r["start"] + size:
                return name
        return None


def load_bank(path: str | Path = DEFAULT_BANK) -> SeedBank:
    """Load and check a seed bank: known roles, 64-bit ranges, no overlap."""
    with open(path, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} seed bank")
    roles = doc.get("roles") or {}
    if sorted(roles) != sorted(ROLES):
        raise ValueError(f"{path}: roles must be exactly {', '.join(ROLES)}")
    spans = []
    for name, r in roles.items():
        size = r["block_size"] * r["blocks"] if name == "screen" else r["count"]
        if r["start"] < 0 or size <= 0 or r["start"] + size > SEED_LIMIT:
            raise ValueError(f"{path}: role {name} is outside the 64-bit seed space")
        spans.append((r["start"], r["start"] + size, name))
    spans.sort()
    for (_, end, a), (start, _, b) in zip(spans, spans[1:], strict=False):
        if start < end:
            raise ValueError(f"{path}: roles {a} and {b} overlap")
    return SeedBank(roles=roles)
