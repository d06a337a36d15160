"""Estimated cost of the jobs a plan creates: seconds, memory and disk, from measured rates.

One model serves three uses: how many shards an arm's games are cut into
(a profile's ``job_minutes``), what a job asks a cluster for (``runtime``,
``mem_mb``), and the CPU hours and disk a dry run prints before anything
runs.  The rates are one-core figures measured on this project's 2-core
machine (``drop7 bench``; docs/claims.md); a dDsS decision visits about
``2 (3.5 S)^D`` nodes (chance nodes whose column reveals nothing have one
child, and the node table merges repeats), each at a rate set by its leaf.  A
factored search (``M`` reveal samples per disc stratum) multiplies each ply by
``1 + q (M - 1)`` (:data:`REVEAL_SHARE`): only the moves that reveal a grey
play ``M`` times the samples.
"""

from __future__ import annotations

import math

#: seconds per search node visit, by leaf (``drop7 bench search`` nodes/s at d3s7 and d4s7)
NODE_SECONDS = {"linear": 530e-9, "linear-trained": 530e-9, "ntuple": 300e-9, "zero": 160e-9,
                "linear-file": 530e-9, "ntuple-file": 300e-9}
#: ``q`` of a factored search's growth ``(1 + q (M - 1))^D`` over the plain one, by leaf
#: (``drop7 bench search --reveals M``, M = 1, 2, 6 at d3 and d4): nodes grow with q = 0.27-0.36
#: and so does the time of the leaves without a cache; the linear leaf's cache hits more of
#: its boards as M grows, and its time grows with q = 0.17-0.26
REVEAL_SHARE = {"linear": 0.2, "linear-trained": 0.2, "ntuple": 0.3, "zero": 0.3,
                "linear-file": 0.2, "ntuple-file": 0.3}
#: seconds per decision of the engine's baselines
BASELINE_DECISION_S = 2e-6
#: seconds per decision of an external program that declares no movetime (unknown: a
#: d3s7 search's order, so its games are cut into shards like one)
EXTERNAL_DECISION_S = 0.05
#: moves of a game, for estimates (strong d3s7 arms play 90-140)
MOVES_PER_GAME = 120
#: per-game and per-job overheads (loading tables, compiled code)
GAME_OVERHEAD_S = 0.05
JOB_OVERHEAD_S = 20.0
#: training moves per second by learner and layout (one core, beside other jobs)
TRAIN_MOVES_PER_S = {"A": 110_000, "B": 130_000, "C": 90_000, "D": 120_000, "E": 190_000,
                     "linear": 70_000}
#: seconds to write a checkpoint and a resume state, per GB of tables
CHECKPOINT_S_PER_GB = 4.0
#: bytes per table entry: a checkpoint's values (float32), a resume state (values and two
#: temporal-coherence accumulators), and a training job's working set (the same three)
STEP_BYTES_PER_ENTRY, STATE_BYTES_PER_ENTRY, TRAIN_BYTES_PER_ENTRY = 4, 12, 12
#: memory of the interpreter, numba and the engine, besides the tables (MB): a game job
#: peaks at about 170 MB, a training job holds more while it writes a checkpoint
PLAY_BASE_MB, TRAIN_BASE_MB = 500, 1200
#: most game jobs one arm is cut into (a tiny ``job_minutes`` would plan a job per game)
MAX_SHARDS = 1_000


def decision_seconds(play: str, depth: int, strata: int, leaf: str | None,
                     movetime_ms: int | None = None, reveals: int | None = None) -> float:
    """Estimated seconds of one decision of a policy (an external program's: its declared
    ``movetime``, else :data:`EXTERNAL_DECISION_S`; a factored search's grows with its
    ``reveals``)."""
    if play == "external":
        return EXTERNAL_DECISION_S if movetime_ms is None else movetime_ms / 1000
    if play not in ("search", "direct"):
        return BASELINE_DECISION_S
    nodes = 7 * strata if play == "direct" else 2 * (3.5 * strata) ** depth
    if reveals is not None:
        q = REVEAL_SHARE[leaf or "linear"]
        nodes *= (1 + q * (reveals - 1)) ** (1 if play == "direct" else depth)
    return nodes * NODE_SECONDS[leaf or "linear"]


def game_seconds(play: str, depth: int, strata: int, leaf: str | None,
                 movetime_ms: int | None = None, reveals: int | None = None) -> float:
    """Estimated seconds of one game."""
    return GAME_OVERHEAD_S + MOVES_PER_GAME * decision_seconds(play, depth, strata, leaf,
                                                               movetime_ms, reveals)


def shards_for(games: int, seconds_per_game: float, job_minutes: float) -> int:
    """Jobs an arm's games are cut into so that each plays about ``job_minutes``."""
    return max(1, min(games, math.ceil(games * seconds_per_game / (60 * job_minutes))))


def train_seconds(layout: str, moves: int, entries: int) -> float:
    """Estimated seconds of a training segment of ``moves`` moves (with its checkpoint)."""
    write = CHECKPOINT_S_PER_GB * entries * (STEP_BYTES_PER_ENTRY + STATE_BYTES_PER_ENTRY) / 1e9
    return JOB_OVERHEAD_S + moves / TRAIN_MOVES_PER_S[layout] + 2 * write


def runtime_minutes(seconds: float) -> int:
    """What a job asks a cluster for: three times the estimate, plus ten minutes."""
    return 10 + math.ceil(3 * seconds / 60)


def train_mem_mb(entries: int) -> int:
    """Memory a training job asks for (tables with their accumulators)."""
    return TRAIN_BASE_MB + entries * TRAIN_BYTES_PER_ENTRY // 10**6


def play_mem_mb(entries: int) -> int:
    """Memory a game job asks for (memory-mapped float32 tables)."""
    return PLAY_BASE_MB + entries * STEP_BYTES_PER_ENTRY // 10**6
