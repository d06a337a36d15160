"""The training driver: chunks of kernel moves, progress lines, checkpoints, resume.

The output directory's format (checkpoints ``step-<moves>``, resume states
``resume-<moves>``, ``latest``) is :mod:`contracts.train_directory`'s.  A
checkpoint is written at every multiple of ``every`` moves and at the end.
The kernels keep their whole state in the arrays saved in a resume state, so
a run cut into chunks or segments, or stopped and resumed, gives the same
tables bit for bit as one uninterrupted run.  Writers build each directory
under a temporary name and rename it into place; a run first removes the
temporaries a killed run left (all of them, or a segment's own).

A learner trains in ``lanes`` games side by side (:mod:`engines.train.lanes`;
1 for the sequential trainer): the position is one row per lane, budgets and
checkpoints fall on whole rounds (multiples of ``lanes``), and a resume state
of more than one lane holds every lane's game (its own format, and ``lanes``
in the config, so one-lane states and hashes are those of the sequential
trainer).
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from contracts.atomic import atomic_dir, replace_symlink
from contracts.hashing import canonical_sha256, file_sha256, hash_mismatch
from contracts.json_file import write_json
from contracts.train_directory import (
    LATEST,
    checkpoint_steps,
    remove_debris,
    resume_dir,
    step_dir,
)
from contracts.weights_dir import PACKED_SUFFIX
from engines.drop7 import core
from engines.leaves.kinds import N_TERMS
from engines.ntuple.fill import promote_into, promotes
from engines.ntuple.layouts import INITIAL_VALUE, get_layout
from engines.train import kernel as kern
from engines.train.lanes import TICKS_LEN, learn_parts, new_sitting, train_rounds
from engines.weights_files import (
    PACKED_STATE_K,
    PACKED_STEP_K,
    WeightsError,
    alloc_zeroed,
    array_chunks,
    packed_bound,
    read_into,
    save_weights,
    write_manifest,
    write_packed,
)

TRAINER_VERSION = 1
#: most lanes a run may train in
MAX_LANES = 1024
RESUME_FORMAT = "drop7-train-resume-v1"
#: a call of the kernel lasts about this long (seconds): progress lines and checkpoints
#: come between calls, and ``drop7 bench train --lanes`` times calls of this size too
CALL_S = 0.5
#: a training's first call, in moves (the next ones follow the measured pace)
FIRST_CALL_MOVES = 2_000
#: the resume format of a run in more than one lane (per-lane carry, state and cols)
RESUME_FORMAT_LANES = "drop7-train-lanes-resume-v1"
#: every resume format (a state of one names its lanes in its config)
RESUME_FORMATS = (RESUME_FORMAT, RESUME_FORMAT_LANES)


@dataclass(frozen=True)
class SeedRange:
    """Training games ``first_game, first_game + 1, ...`` of the range ``start .. start+count-1``.

    Game ``g`` uses seed ``start + (g mod count)`` (read in order, wrapping),
    as the seed bank's training role does.
    """

    start: int
    count: int
    first_game: int = 0
    role: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.start < 1 << 64 or self.count < 1 or self.start + self.count > 1 << 64:
            raise ValueError(f"bad seed range {self.start}:{self.count}")
        if self.first_game < 0:
            raise ValueError("first game must be >= 0")

    def describe(self) -> dict:
        """The range as manifest JSON."""
        out = {"start": self.start, "count": self.count, "first_game": self.first_game}
        if self.role:
            out["role"] = self.role
        return out


class Learner(Protocol):
    """What the driver needs of a learner (n-tuple tables or linear weights)."""

    kind: str
    name: str
    lanes: int

    def config(self) -> dict: ...
    def play(self, seeds: SeedRange, carry: np.ndarray, state: np.ndarray, cols: np.ndarray,
             moves: int, fstats: np.ndarray) -> int:
        """Train ``moves`` moves from the position ``carry``, ``state``, ``cols`` (1-D for one
        lane, one row per lane for more), updated in place."""
    def export(self) -> tuple[tuple[int, ...], np.dtype, object]: ...
    def resume_arrays(self) -> dict[str, np.ndarray]:
        """The learner's own arrays a resume state holds (a resume fills them in place)."""


def updates_per_move(layout: str) -> int:
    """Entries one training move updates: a layout's active tuples (``linear``: its weights).

    It sizes the compressed checkpoints and states (:func:`engines.weights_files.packed_bound`).
    """
    return N_TERMS if layout == "linear" else get_layout(layout).n_active


def config_hash(config: dict) -> str:
    """SHA-256 (first 16 hex digits) of the canonical JSON of a training config."""
    return canonical_sha256(config)[:16]


def next_call(moves: int, seconds: float) -> int:
    """The moves of the next kernel call after one of ``moves`` took ``seconds``: as many as
    take ``CALL_S`` at that pace (between 1,000 and 2,000,000)."""
    return int(min(max(moves * (CALL_S / seconds if seconds > 0 else 2.0), 1_000), 2_000_000))


def _fmt_eta(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    s = int(seconds)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Trainer:
    """Drive a learner over a seed range with checkpoints (see module docstring)."""

    def __init__(self, learner: Learner, seeds: SeedRange, out: Path,
                 log: Callable[[str], None] | None = None, log_every: float = 10.0,
                 threads: int = 1) -> None:
        self.learner = learner
        self.threads = max(int(threads), 1)  # the job's budget, for compressing too
        self.seeds = seeds
        self.out = Path(out)
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.log_every = log_every
        self.lanes = int(getattr(learner, "lanes", 1))
        # one row per lane; lane l plays games first_game + l, + l + lanes, ...
        self.carry = np.zeros((self.lanes, kern.C_LEN), dtype=np.int64)
        self.carry[:, kern.C_GAME] = seeds.first_game + np.arange(self.lanes)
        self.state = np.zeros((self.lanes, core.ST_LEN), dtype=np.int64)
        self.cols = np.zeros((self.lanes, 7), dtype=np.int64)
        self.wall_s = 0.0
        self.config = {**learner.config(), "seeds": seeds.describe(),
                       "trainer_version": TRAINER_VERSION}
        self.hash = config_hash(self.config)

    # ---- state --------------------------------------------------------------------------
    def _total(self, field: int) -> int:
        """A carry field summed over the lanes."""
        return int(self.carry[:, field].sum())

    @property
    def moves(self) -> int:
        """Moves trained so far (every lane's)."""
        return self._total(kern.C_MOVES)

    def warm_start(self, path: str, sha256: str, load: bool = True) -> None:
        """Continue from the pinned weights ``path`` (the learner's :meth:`warm_start`): the
        config, and so its hash and every resume state's, then names the start's SHA-256."""
        self.learner.warm_start(path, sha256, load)
        self.config = {**self.learner.config(), "seeds": self.seeds.describe(),
                       "trainer_version": TRAINER_VERSION}
        self.hash = config_hash(self.config)

    def _facts(self) -> dict:
        games = self._total(kern.C_GAMES_DONE)
        init = getattr(self.learner, "init", None)
        fill = getattr(getattr(self.learner, "layout", None), "fill", None)
        return {**({"init": dict(init)} if init else {}),
                **({"fill": fill.describe()} if fill else {}),
                "kind": self.learner.kind, "layout": self.learner.name,
                "moves_trained": self.moves, "games_trained": games,
                "seeds": self.seeds.describe(), "config": self.config,
                "config_hash": self.hash, "wall_s": round(self.wall_s, 3),
                "moves_per_s": round(self.moves / self.wall_s, 1) if self.wall_s > 0 else None,
                "mean_score_trained": self._total(kern.C_SCORE_SUM) / games if games else None}

    # ---- checkpoints ---------------------------------------------------------------------
    def save_step(self) -> Path:
        """Write ``DIR/step-<moves>`` (values only) and return it.  A checkpoint already there
        (a run going on from an older state) must be the same tables, or WeightsError."""
        shape, dtype, chunks = self.learner.export()
        final = step_dir(self.out, self.moves)
        manifest = {**self._facts(), "entries": int(np.prod(shape))}
        save_weights(final, shape, dtype, chunks, manifest, replace=True, threads=self.threads,
                     same=True)
        return final

    def save_resume(self, segment: bool = False) -> Path:
        """Write ``DIR/resume-<moves>``; unless in a ``segment``, point ``DIR/latest`` at it and
        delete the older states (a segment leaves the others to whoever runs the segments)."""
        final = resume_dir(self.out, self.moves)
        with atomic_dir(final, replace=True) as tmp:
            files = {}
            for name, arr in self.learner.resume_arrays().items():
                files[name] = write_packed(tmp / f"{name}.npy{PACKED_SUFFIX}", arr.shape,
                                           arr.dtype, array_chunks(arr), self.threads)
            write_json(tmp / "state.json", self._position(), indent=None)
            files["state"] = file_sha256(tmp / "state.json")
            write_manifest(tmp / "manifest.json", {**self._facts(), "format": self.resume_format,
                                                   "files": files})
        if segment:
            return final
        replace_symlink(self.out / LATEST, final.name)
        for old in self.out.glob("resume-*"):
            if old.name != final.name and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        return final

    def _rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(carry, state, cols)`` as a learner takes them: the one lane's rows, or every
        lane's (one row per lane)."""
        if self.lanes == 1:
            return self.carry[0], self.state[0], self.cols[0]
        return self.carry, self.state, self.cols

    @property
    def resume_format(self) -> str:
        """The format of this run's resume states (one lane: the sequential trainer's)."""
        return RESUME_FORMAT if self.lanes == 1 else RESUME_FORMAT_LANES

    def _position(self) -> dict:
        """``state.json``: the position in the seed stream and the game in progress (per lane
        when there is more than one)."""
        if self.lanes == 1:
            return {"carry": [int(v) for v in self.carry[0]],
                    "state": [int(v) for v in self.state[0]],
                    "cols": [int(v) for v in self.cols[0]], "wall_s": self.wall_s}
        return {"lanes": self.lanes, "carry": self.carry.tolist(), "state": self.state.tolist(),
                "cols": self.cols.tolist(), "wall_s": self.wall_s}

    def _load_position(self, path: Path) -> None:
        """Restore :meth:`_position` from ``state.json``."""
        try:
            state = json.loads(path.read_text())
            arrays = {k: np.asarray(state[k], dtype=np.int64) for k in ("carry", "state", "cols")}
            wall = float(state["wall_s"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise WeightsError(f"{path}: unreadable resume state ({exc})") from None
        for name, dest in (("carry", self.carry), ("state", self.state), ("cols", self.cols)):
            arr = arrays[name].reshape(-1) if self.lanes == 1 else arrays[name]
            if arr.size != dest.size or (self.lanes > 1 and arr.shape != dest.shape):
                raise WeightsError(f"{path}: key {name} holds {list(arr.shape)}, expected "
                                   f"{list(dest.shape)}")
            dest[:] = arr.reshape(dest.shape)
        self.wall_s = wall

    def disk_need(self, steps: list[int]) -> int:
        """Bytes the run writes at most: a checkpoint at each of ``steps`` (moves) and one resume
        state at a time (two while the newest replaces the last), each compressed
        (:func:`~engines.weights_files.packed_bound`)."""
        shape, dtype, _ = self.learner.export()
        step = int(np.prod(shape)) * np.dtype(dtype).itemsize
        resume = sum(a.nbytes for a in self.learner.resume_arrays().values())
        per_move = updates_per_move(self.learner.name)
        return (sum(packed_bound(step, s * per_move, PACKED_STEP_K) for s in steps)
                + sum(packed_bound(resume, s * per_move, PACKED_STATE_K)
                      for s in sorted(steps)[-2:]))

    def _check_disk(self, steps: list[int]) -> None:
        """Log the disk the checkpoints at ``steps`` need; warn when less is free."""
        need, free = self.disk_need(steps), shutil.disk_usage(self.out).free
        line = (f"train {self.learner.name}: {len(steps)} checkpoint"
                f"{'' if len(steps) == 1 else 's'} to write, up to "
                f"{need / 1e9:.2f} GB; {free / 1e9:.2f} GB free at {self.out}")
        self.log(line + ("" if need <= free else " - WARNING: the disk may fill up"))

    def load_resume(self, state: Path | None = None) -> None:
        """Restore the learner and the position from ``state`` (default ``DIR/latest``),
        checking its config and hashes."""
        link = self.out / LATEST if state is None else Path(state)
        if not link.exists():
            raise WeightsError(f"{link}: no resume state to resume from")
        directory = link.resolve()
        try:
            manifest = json.loads((directory / "manifest.json").read_text())
        except (OSError, ValueError) as exc:
            raise WeightsError(f"{directory}: unreadable resume manifest ({exc})") from None
        config = manifest.get("config")
        lanes = config.get("lanes", 1) if isinstance(config, dict) else None
        if manifest.get("format") in RESUME_FORMATS and lanes != self.lanes:
            raise WeightsError(f"{directory}: lane count mismatch: the state was trained in "
                               f"{lanes} lane(s), this run trains in {self.lanes} (--lanes); "
                               "resume it with the same lanes, or start a new directory")
        if manifest.get("format") != self.resume_format:
            raise WeightsError(f"{directory}: not a {self.resume_format} state")
        if manifest.get("config_hash") != self.hash:
            raise WeightsError(f"{directory}: trained with another config "
                               f"({manifest.get('config_hash')} != {self.hash})")
        files = dict(manifest.get("files", {}))
        state = directory / "state.json"
        if not state.is_file() or file_sha256(state) != files.pop("state", None):
            raise WeightsError(f"{state}: missing or SHA-256 does not match the manifest")
        arrays = self.learner.resume_arrays()
        if set(files) != set(arrays):
            raise WeightsError(f"{directory}: holds {sorted(files)}, expected {sorted(arrays)}")
        for name, dest in arrays.items():
            # compressed (this trainer's), or a plain .npy of a state written before
            packed = directory / f"{name}.npy{PACKED_SUFFIX}"
            read_into(packed if packed.exists() else directory / f"{name}.npy", dest,
                      files[name])
        self._load_position(state)

    # ---- the loop --------------------------------------------------------------------------
    def run(self, moves: int, every: int, segment: bool = False) -> dict:
        """Train until ``moves`` moves, checkpointing at every multiple of ``every``
        (``segment``: see :meth:`save_resume`).  Debris of killed writes goes first: all of
        it, or in a segment only that of the segment's own checkpoints."""
        if moves < 1 or every < 1:
            raise ValueError("--moves and --every must be at least 1")
        if moves % self.lanes or every % self.lanes:
            raise ValueError(f"--moves and --every must be multiples of --lanes {self.lanes} "
                             f"(whole rounds), got {moves} and {every}")
        if self.moves > moves:
            raise ValueError(f"the resume state is at {self.moves} moves, past --moves {moves}")
        self.out.mkdir(parents=True, exist_ok=True)
        steps = [s for s in checkpoint_steps(moves, every) if s > self.moves]
        remove_debris(self.out, steps if segment else None, self.log)
        self._check_disk(steps)
        start_moves, t_session = self.moves, time.perf_counter()
        fstats = np.zeros(kern.F_LEN)
        chunk = FIRST_CALL_MOVES
        last_log = time.perf_counter()
        log_moves, log_games, log_score = self.moves, self._total(kern.C_GAMES_DONE), \
            self._total(kern.C_SCORE_SUM)
        for step in steps:
            while self.moves < step:
                n = min(max(chunk // self.lanes, 1) * self.lanes, step - self.moves)
                t0 = time.perf_counter()
                self.learner.play(self.seeds, *self._rows(), n, fstats)
                dt = time.perf_counter() - t0
                self.wall_s += dt
                chunk = next_call(chunk, dt)
                now = time.perf_counter()
                if now - last_log >= self.log_every:
                    rate = (self.moves - log_moves) / (now - last_log)
                    games = self._total(kern.C_GAMES_DONE) - log_games
                    score = (self._total(kern.C_SCORE_SUM) - log_score) / games if games else 0
                    steps_n = max(fstats[kern.F_STEPS], 1.0)
                    self.log(f"train {self.learner.name}: moves {self.moves:,}/{moves:,} "
                             f"({100 * self.moves / moves:.1f}%), {rate:,.0f} moves/s, "
                             f"ETA {_fmt_eta((moves - self.moves) / rate if rate else math.inf)}, "
                             f"games {self._total(kern.C_GAMES_DONE):,}, "
                             f"mean score {score:,.0f}, "
                             f"|delta| {fstats[kern.F_ABS_DELTA] / steps_n:.3f}, "
                             f"clamped {int(fstats[kern.F_CLAMPED])}")
                    fstats[:] = 0.0
                    last_log = now
                    log_moves, log_games = self.moves, self._total(kern.C_GAMES_DONE)
                    log_score = self._total(kern.C_SCORE_SUM)
            t0 = time.perf_counter()
            path = self.save_step()
            self.save_resume(segment)
            self.log(f"train {self.learner.name}: checkpoint {path} "
                     f"({time.perf_counter() - t0:.1f} s to write)")
            last_log = time.perf_counter()  # rates exclude checkpoint writing
            log_moves = self.moves
        session = time.perf_counter() - t_session
        self.log(f"train {self.learner.name}: done, {self.moves - start_moves:,} moves in "
                 f"{session:.1f} s this session")
        return self._facts()


class NtupleLearner:
    """TC-TD(0) n-tuple tables of one layout (see :mod:`engines.train.kernel`), in ``lanes``
    games side by side (:mod:`engines.train.lanes`; 1: the sequential kernel)."""

    kind = "ntuple"

    def __init__(self, layout, alpha: float = 1.0, lanes: int = 1) -> None:
        self.layout = layout
        self.name = layout.name
        self.alpha = kern.check_alpha(alpha)
        if not 1 <= lanes <= MAX_LANES:
            raise ValueError(f"lanes must be in 1..{MAX_LANES}, got {lanes}")
        self.lanes = int(lanes)
        self.ticks = np.zeros(TICKS_LEN, dtype=np.int64)  # the lane kernel's cycles by phase
        self.sitting = new_sitting()  # what the lane threads learnt of the machine, call to call
        self.vals = alloc_zeroed((layout.entries,))
        self.acc = alloc_zeroed((layout.entries, 2))
        #: the constant the kernels add to a state's sum of entries (rises): fresh tables hold
        #: ``w - 20/N`` with bias 20; warm-started ones hold ``w`` itself with bias 0
        self.bias = INITIAL_VALUE
        self.init: dict | None = None  # a warm start: {"path", "sha256"}

    def warm_start(self, path: str, sha256: str, load: bool = True) -> None:
        """Start from the tables of the pinned weights directory ``path`` (the register's
        promotion rule: the values copied, bit for bit the frozen leaf until training moves
        them; the accumulators ``E, A`` fresh, so every entry's first update runs at the full
        step).  Tables of the unbucketed base of a fill-bucketed layout are promoted: copied
        into every bucket (:mod:`engines.ntuple.fill`).  ``load`` false sets only the config
        (a segment that resumes a state).  Another layout, kind or hash is a
        :class:`WeightsError`."""
        from engines.pinned_leaf import NTUPLE_FILE, PinnedError, inspect_pinned, load_pinned

        try:
            kind, entries = inspect_pinned(path)
            if kind != NTUPLE_FILE:
                raise PinnedError(f"{path}: holds a {kind} leaf, not n-tuple tables to train")
            if not load:
                from engines.weights_files import read_manifest

                manifest = read_manifest(Path(path))
                if manifest.get("sha256") != sha256:
                    raise PinnedError(f"{path}: " + hash_mismatch(
                                          manifest.get("sha256"), sha256, "the recorded SHA-256"))
                layout = manifest.get("layout")
                if layout not in (self.layout.name, self.layout.base):
                    raise PinnedError(f"{path}: holds layout {layout} tables, this run trains "
                                      f"layout {self.layout.name}")
            else:
                _, _, tables, layout = load_pinned(path, sha256, True, NTUPLE_FILE)
                if layout.name == self.layout.name:
                    self.vals[:] = tables
                elif promotes(layout, self.layout):  # a copy in every fill bucket
                    promote_into(self.vals, tables, layout, self.layout)
                else:
                    raise PinnedError(f"{path}: holds layout {layout.name} tables, this run "
                                      f"trains layout {self.layout.name}")
        except PinnedError as exc:
            raise WeightsError(str(exc)) from None
        self.acc[:] = 0.0
        self.bias = 0.0
        self.init = {"path": str(path), "sha256": sha256}

    def config(self) -> dict:
        """What determines the tables besides the seeds (a warm start's hash, not its path)."""
        config = {"kind": self.kind, **self.layout.describe(), "alpha": self.alpha,
                  "initial_value": INITIAL_VALUE, "delta_clamp": kern.DELTA_CLAMP,
                  "strata": kern.STRATA}
        if self.init is not None:
            config = {**config, "initial_value": None, "init": {"sha256": self.init["sha256"],
                                                                "accumulators": "fresh"}}
        if self.lanes == 1:
            return config
        # the rule for an entry several lanes write in one round (engines.train.lanes)
        return {**config, "lanes": self.lanes, "shared_entry_step": "mean"}

    def play(self, seeds: SeedRange, carry, state, cols, moves: int, fstats) -> int:
        """Train ``moves`` moves (more than one lane: whole rounds, one row per lane, on every
        thread numba has)."""
        if self.lanes == 1:
            return int(kern.train_moves(self.vals, self.acc, self.bias, self.layout.spec,
                                        self.alpha, np.uint64(seeds.start), seeds.count, carry,
                                        state, cols, moves, True, fstats))
        if moves % self.lanes:
            raise ValueError(f"{moves} moves is not a whole number of {self.lanes}-lane rounds")
        return int(train_rounds(self.vals, self.acc, self.bias, self.layout.spec,
                                self.alpha, np.uint64(seeds.start), seeds.count, carry, state,
                                cols, moves // self.lanes,
                                learn_parts(), fstats, self.ticks,
                                sitting=self.sitting))

    def values_chunks(self, block: int = 1 << 20):
        """The exported values ``float32(20/N + offset)`` (a warm start's: the values as held),
        block by block (raw bytes)."""
        init = self.layout.initial_entry if self.init is None else 0.0
        for start in range(0, self.vals.shape[0], block):
            part = self.vals[start:start + block].astype(np.float64) + init
            yield memoryview(part.astype(np.float32)).cast("B")

    def export(self):
        """Shape, dtype and chunks of the exported value array."""
        return (self.layout.entries,), np.dtype(np.float32), self.values_chunks()

    def values(self) -> np.ndarray:
        """The exported values as one array (small layouts and tests)."""
        return np.frombuffer(b"".join(bytes(c) for c in self.values_chunks()), dtype=np.float32)

    def resume_arrays(self) -> dict[str, np.ndarray]:
        """Arrays a resume state holds."""
        return {"vals": self.vals, "acc": self.acc}
