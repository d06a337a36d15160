"""Estimated cost of the jobs a plan creates: seconds, memory and disk, from measured rates.

One model serves three uses: how many shards an arm's games are cut into
(a profile's ``job_minutes``), what a job asks a cluster for (``runtime``,
``mem_mb``), and the CPU hours and disk a dry run prints before anything
runs.  The rates are one-core figures measured on this project's 2-core
machine (``drop7 bench``; docs/claims.md); a dDsS decision visits about
``2 (3.5 S)^D`` nodes (chance nodes whose column reveals nothing have one
child, and the node table merges repeats), each at a rate set by its leaf
(:attr:`engines.leaves.kinds.LeafKind.node_seconds`); a factored search (``M``
reveal samples per disc stratum) multiplies each ply by ``1 + q (M - 1)``
(:attr:`~engines.leaves.kinds.LeafKind.reveal_share`): only the moves that
reveal a grey play ``M`` times the samples.  The seconds of one decision of
each arm kind are its registration's (:mod:`protocol.arms`).
"""

from __future__ import annotations

import math

from engines.ntuple.layouts import FILL_SEP

#: seconds per decision of the engine's baselines
BASELINE_DECISION_S = 2e-6
#: seconds per decision of an external program that declares no movetime (unknown: a
#: d3s7 search's order, so its games are cut into shards like one); its estimate uses its
#: program's measured trial decisions instead (protocol.checks.trial_programs)
EXTERNAL_DECISION_S = 0.05
#: moves of a game, for estimates (strong d3s7 arms play 90-140)
MOVES_PER_GAME = 120
#: per-game and per-job overheads (loading tables, compiled code)
GAME_OVERHEAD_S = 0.05
JOB_OVERHEAD_S = 20.0
#: training moves per second by learner and layout (one core, beside other jobs)
TRAIN_MOVES_PER_S = {"A": 110_000, "B": 130_000, "C": 90_000, "D": 120_000, "E": 190_000,
                     "linear": 70_000}
#: a fill-bucketed layout's training rate as a share of its base layout's (E+hgt5 against E,
#: 1e5 moves each, two pairs on a loaded 2-core machine: 0.23 and 0.34; docs/training.md)
FILL_TRAIN_SPEED = 0.3
#: seconds to write a checkpoint and a resume state, per GB of tables
CHECKPOINT_S_PER_GB = 4.0
#: bytes per table entry: a checkpoint's values (float32), a resume state (values and two
#: temporal-coherence accumulators), and a training job's working set (the same three)
STEP_BYTES_PER_ENTRY, STATE_BYTES_PER_ENTRY, TRAIN_BYTES_PER_ENTRY = 4, 12, 12
#: memory of the interpreter, numba and the engine, besides the tables (MB): a game job
#: peaks at about 170 MB, a training job holds more while it writes a checkpoint
PLAY_BASE_MB, TRAIN_BASE_MB = 500, 1200
#: a training-free table edit (``drop7 tables edit``, :mod:`engines.ntuple.edits`): seconds and
#: bytes per entry (the source's 4 included), measured on layout A's 480M entries (one tenth
#: touched, one core beside other jobs): class-mean 37 s of CPU, zero-untouched 7 s, each
#: peaking 3.1-3.3 GB above the 1.92 GB of values (its masks and the edited copy), and the
#: source's hash and the plain file's (about 0.6 GB/s each) on top
EDIT_S_PER_ENTRY, EDIT_BYTES_PER_ENTRY = 1e-7, 11
#: most game jobs one arm is cut into (a tiny ``job_minutes`` would plan a job per game)
MAX_SHARDS = 1_000


#: legal columns of a root, for estimates (seven, less a full one now and then)
LEGAL_COLUMNS = 6


def outcome_root_seconds(decision_s: float, continuations: int, horizon: int) -> float:
    """Estimated seconds of an outcome reference's labels of one root: every legal column
    played ``continuations`` times for up to ``horizon`` moves (a game's length at most) of a
    policy whose decision takes ``decision_s``."""
    return LEGAL_COLUMNS * continuations * min(horizon, MOVES_PER_GAME) * decision_s


def game_seconds(decision_s: float) -> float:
    """Estimated seconds of one game of an arm whose decision takes ``decision_s``."""
    return GAME_OVERHEAD_S + MOVES_PER_GAME * decision_s


def shards_for(games: int, seconds_per_game: float, job_minutes: float) -> int:
    """Jobs an arm's games are cut into so that each plays about ``job_minutes``."""
    return max(1, min(games, math.ceil(games * seconds_per_game / (60 * job_minutes))))


def train_moves_per_s(layout: str) -> float:
    """Training moves per second of a layout; a fill-bucketed one (``A+occ5``) runs at its
    base layout's rate times :data:`FILL_TRAIN_SPEED` (its afterstates are indexed from
    scratch, docs/training.md)."""
    base, _, rule = layout.partition(FILL_SEP)
    return TRAIN_MOVES_PER_S[base] * (FILL_TRAIN_SPEED if rule else 1.0)


def train_seconds(layout: str, moves: int, entries: int, move_cost: float = 1.0) -> float:
    """Estimated seconds of a training segment of ``moves`` moves (with its checkpoint), each
    move ``move_cost`` TC-TD moves (a search-actor learner's are thousands)."""
    write = CHECKPOINT_S_PER_GB * entries * (STEP_BYTES_PER_ENTRY + STATE_BYTES_PER_ENTRY) / 1e9
    return JOB_OVERHEAD_S + moves * move_cost / train_moves_per_s(layout) + 2 * write


def runtime_minutes(seconds: float) -> int:
    """What a job asks a cluster for: three times the estimate, plus ten minutes."""
    return 10 + math.ceil(3 * seconds / 60)


def train_mem_mb(entries: int) -> int:
    """Memory a training job asks for (tables with their accumulators)."""
    return TRAIN_BASE_MB + entries * TRAIN_BYTES_PER_ENTRY // 10**6


def edit_seconds(entries: int) -> float:
    """Estimated seconds of a table edit of ``entries`` entries (its hashes included)."""
    return JOB_OVERHEAD_S + entries * EDIT_S_PER_ENTRY


def edit_mem_mb(entries: int) -> int:
    """Memory a table edit asks for: the source's values (4 bytes an entry) and the edit's
    own masks and copy."""
    return PLAY_BASE_MB + entries * EDIT_BYTES_PER_ENTRY // 10**6


def play_mem_mb(entries: int) -> int:
    """Memory a game job asks for (memory-mapped float32 tables)."""
    return PLAY_BASE_MB + entries * STEP_BYTES_PER_ENTRY // 10**6
