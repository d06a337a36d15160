"""The two rule sets a panel's figures can be read under: ours (``harness``) and the register's.

The register computes its ordering gates (top-1, pairwise, normalised regret, in each half)
with other conventions than ours (docs/panels.md, "Conventions"; the register's
``approaches/afterstate-learning/distributional-afterstate/d4q.py``, its
``ranking_metrics_from_q`` and ``half_of``, in keshavsaharia/drop7-bench):

============  ==========================================  ==========================================
rule          ``harness``                                 ``register``
============  ==========================================  ==========================================
the pick      the ranker's played choice                  the first column of the ranker's highest
                                                          value (its choice when it gives none)
top-1         the reference values the pick as its best   the pick is the reference's first best
              (any tied best counts)                      column
pairwise tie  a ranker tie on a pair the reference        scores 0
              orders scores 1/2
roots         every root                                  roots with fewer than two legal columns
                                                          are left out of every figure
halves        the games in seed order, first half and     a hash of the origin seed: ``mix32`` of
              the rest                                    its low 32 bits, bit 0 (0: first half)
============  ==========================================  ==========================================

This module holds each rule once; :mod:`analysis.panel_readings` computes every figure through
it, so either convention reads the same committed panel table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HARNESS, REGISTER = "harness", "register"
#: every convention a panel may declare (``panel.conventions``)
CONVENTIONS = (HARNESS, REGISTER)
#: the convention a readings file or a protocol without one was read under (the rules before
#: conventions could be declared)
DEFAULT = HARNESS


@dataclass(frozen=True)
class Conventions:
    """One rule set: how a pair tied by the ranker scores, whether the pick is the first best of
    the ranker's values (else its played choice) and top-1 the reference's first best column
    (else any of its best), the fewest legal columns a root needs to count, how the games are
    halved."""

    name: str
    tie_credit: float
    pick_by_values: bool
    min_legal: int
    halves: str  #: "seed-order" or "origin-hash"


RULES = {
    HARNESS: Conventions(HARNESS, 0.5, False, 1, "seed-order"),
    REGISTER: Conventions(REGISTER, 0.0, True, 2, "origin-hash"),
}


def rules(name: str) -> Conventions:
    """The rule set named ``name`` (a :class:`ValueError` naming the choices otherwise)."""
    if name not in RULES:
        raise ValueError(f"{name!r} is not a panel convention ({', '.join(CONVENTIONS)})")
    return RULES[name]


def other(name: str) -> str:
    """The convention that is not ``name``: the page's side display."""
    rules(name)
    return REGISTER if name == HARNESS else HARNESS


_M32 = np.uint64(0xFFFFFFFF)


def mix32(x: np.ndarray) -> np.ndarray:
    """The register's 32-bit finaliser (shifts 16, 15, 16; multipliers 0x7FEB352D and
    0x846CA68B) of the low 32 bits of each ``x``, as uint64."""
    h = np.asarray(x, dtype=np.uint64) & _M32
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x7FEB352D)) & _M32
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(0x846CA68B)) & _M32
    h ^= h >> np.uint64(16)
    return h


def first_half(games: np.ndarray, name: str) -> np.ndarray:
    """For ``games`` (distinct seeds in seed order), whether each is in the first half:
    the first ``len // 2`` (``harness``), or those whose ``mix32`` is even (``register``)."""
    games = np.asarray(games, dtype=np.uint64)
    if rules(name).halves == "seed-order":
        return np.arange(games.size) < games.size // 2
    return (mix32(games) & np.uint64(1)) == 0
