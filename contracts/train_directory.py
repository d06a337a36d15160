"""The trainer's output directory: checkpoints, resume states and their names (no numba here).

::

    DIR/step-<moves>/{tables.npy.zst, manifest.json}
                                                   a checkpoint: values only
    DIR/resume-<moves>/{*.npy.zst, state.json, manifest.json}
                                                   everything needed to go on from <moves>
    DIR/latest -> resume-<moves>                   the newest resume state

Checkpoints fall at every multiple of ``every`` and at the last move
(:func:`checkpoint_steps`).  A *segment* trains from one checkpoint to the
next: it starts from ``resume-<start>`` (nothing for the first) and writes
``step-<end>`` and ``resume-<end>``, so a run cut into segments gives the
same tables bit for bit as one uninterrupted run.  A checkpoint's tables
depend only on the learner's config, the seeds and ``<moves>``, not on the
checkpoint interval, so a directory can be extended or re-cut.

A write killed halfway leaves *debris*: the folder a checkpoint or state
was being built in (``step-<moves>.tmp-<pid>``, ``resume-<moves>.tmp-<pid>``),
the previous copy being swapped out (``<name>.old-<pid>``) or the new
``latest`` link (``.latest-<pid>``), named as :mod:`contracts.atomic`'s
writers name them (:func:`contracts.atomic.debris_target` recognises them).
Debris is never output (:func:`has_output` ignores it); the next run of the
directory removes it (:func:`remove_debris`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from contracts.atomic import debris_target

STEP = "step-{moves}"
RESUME = "resume-{moves}"
LATEST = "latest"
#: a checkpoint's or a resume state's name (group 1: its moves)
_SAVED = re.compile(r"(?:step|resume)-([0-9]+)")


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


def _outputs(out: Path) -> list[Path]:
    return [p for pattern in ("step-*", "resume-*") for p in out.glob(pattern)
            if debris_target(p.name) is None]


def _debris_of(name: str) -> tuple[bool, int | None]:
    """Whether ``name`` is debris of this directory's writes, and of which checkpoint's
    moves (None: of ``latest``)."""
    target = debris_target(name)
    if target == LATEST:
        return True, None
    saved = None if target is None else _SAVED.fullmatch(target)
    return saved is not None, None if saved is None else int(saved[1])


def has_output(out: str | Path) -> bool:
    """Whether ``out`` already holds training output (a checkpoint, a resume state or a
    ``latest`` link, dangling or not); debris does not count."""
    out = Path(out)
    link = out / LATEST
    return out.is_dir() and (link.exists() or link.is_symlink() or bool(_outputs(out)))


def latest_problem(out: str | Path) -> str | None:
    """Why ``--resume`` cannot go on from ``out``: it holds output but ``latest`` is missing
    or dangling (None when ``latest`` names a state, or ``out`` holds no output)."""
    out = Path(out)
    link = out / LATEST
    if link.exists() or not has_output(out):
        return None
    if link.is_symlink():
        return f"{link} is dangling (it points to the missing {link.readlink()})"
    return f"{out} holds training output but no {LATEST} link"


def newest_state(out: str | Path) -> Path | None:
    """The resume state of ``out`` with the most moves (None: it holds none).  States are
    written whole or not at all, so any one present is complete."""
    found = [(int(m[1]), p) for p in Path(out).glob("resume-*")
             if (m := _SAVED.fullmatch(p.name)) and p.is_dir()]
    return max(found)[1] if found else None


def debris(out: str | Path, steps: Iterable[int] | None = None) -> list[Path]:
    """The debris in ``out``; with ``steps``, only that of those checkpoints' directories."""
    out = Path(out)
    if not out.is_dir():
        return []
    wanted = None if steps is None else {int(s) for s in steps}
    found = []
    for path in out.iterdir():
        is_debris, moves = _debris_of(path.name)
        if is_debris and (wanted is None or moves in wanted):
            found.append(path)
    return sorted(found)


def remove_debris(out: str | Path, steps: Iterable[int] | None = None,
                  log: Callable[[str], None] | None = None) -> list[Path]:
    """Remove :func:`debris` (logging each removal); returns what was removed."""
    found = debris(out, steps)
    for path in found:
        if log is not None:
            log(f"removing {path}: left by an interrupted write")
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    return found


def drop_states(out: str | Path, keep: Path | None = None) -> None:
    """Remove every resume state of ``out`` (and ``latest``) except ``keep``."""
    out = Path(out)
    link = out / LATEST
    if keep is None or not link.is_symlink() or link.resolve() != keep.resolve():
        link.unlink(missing_ok=True)  # a symlink, dangling or not
    for state in out.glob("resume-*"):
        if keep is None or state.resolve() != keep.resolve():
            shutil.rmtree(state, ignore_errors=True)
