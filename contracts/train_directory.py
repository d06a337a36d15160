"""The trainer's output directory: checkpoints, resume states and their names (no numba here).

::

    DIR/step-<moves>/{tables.npy, manifest.json}   a checkpoint: values only
    DIR/resume-<moves>/{*.npy, state.json, manifest.json}
                                                   everything needed to go on from <moves>
    DIR/latest -> resume-<moves>                   the newest resume state

Checkpoints fall at every multiple of ``every`` and at the last move
(:func:`checkpoint_steps`).  A *segment* trains from one checkpoint to the
next: it starts from ``resume-<start>`` (nothing for the first) and writes
``step-<end>`` and ``resume-<end>``, so a run cut into segments gives the
same tables bit for bit as one uninterrupted run.  A checkpoint's tables
depend only on the learner's config, the seeds and ``<moves>``, not on the
checkpoint interval, so a directory can be extended or re-cut.
"""

from __future__ import annotations

import shutil
from pathlib import Path

STEP = "step-{moves}"
RESUME = "resume-{moves}"
LATEST = "latest"


def checkpoint_steps(moves: int, every: int) -> list[int]:
    """Checkpoint points: multiples of ``every`` up to ``moves``, and ``moves`` itself."""
    if moves < 1 or every < 1:
        raise ValueError("moves and every must be at least 1")
    steps = list(range(every, moves + 1, every))
    return steps if steps and steps[-1] == moves else [*steps, moves]


def segments(moves: int, every: int) -> list[tuple[int, int]]:
    """``(start, end)`` of every segment of a budget (the first starts at 0)."""
    steps = checkpoint_steps(moves, every)
    return list(zip([0, *steps[:-1]], steps, strict=True))


def step_dir(out: str | Path, moves: int) -> Path:
    """A checkpoint's directory."""
    return Path(out) / STEP.format(moves=moves)


def resume_dir(out: str | Path, moves: int) -> Path:
    """A resume state's directory."""
    return Path(out) / RESUME.format(moves=moves)


def has_output(out: str | Path) -> bool:
    """Whether ``out`` already holds training output (a checkpoint or a resume state)."""
    out = Path(out)
    return out.is_dir() and ((out / LATEST).exists() or any(out.glob("step-*"))
                             or any(out.glob("resume-*")))


def drop_states(out: str | Path, keep: Path | None = None) -> None:
    """Remove every resume state of ``out`` (and ``latest``) except ``keep``."""
    out = Path(out)
    link = out / LATEST
    if keep is None or not link.is_symlink() or link.resolve() != keep.resolve():
        link.unlink(missing_ok=True)  # a symlink, dangling or not
    for state in out.glob("resume-*"):
        if keep is None or state.resolve() != keep.resolve():
            shutil.rmtree(state, ignore_errors=True)
