"""Atomic writes: a file or a directory either exists whole or not at all.

A writer builds its output beside the target (a hidden temporary file, or a
``<name>.tmp-<pid>`` directory) and renames it into place, so a job that
fails half-way never leaves output Snakemake (or a reader) would take as
done, and readers never see half a file.  On any error the temporary is
removed and the old target, if any, is left untouched.

A process killed mid-write cannot remove its temporaries: the names they
take are :data:`DIR_BUILD`, :data:`DIR_OLD` and :data:`LINK_TEMP`, and
:func:`debris_target` recognises them, so a later run can clear them away
(:mod:`contracts.train_directory` does, for the trainer's directory).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

#: the process's umask, read once: temporary files get the mode a plain ``open`` would give
_UMASK = os.umask(0o022)
os.umask(_UMASK)


# the names of a write's temporaries: ``{name}`` the target's, ``{pid}`` the writer's process id
#: the sibling :func:`atomic_dir` builds a directory in
DIR_BUILD = "{name}.tmp-{pid}"
#: the sibling an existing directory is moved to while :func:`atomic_dir` replaces it
DIR_OLD = "{name}.old-{pid}"
#: the new link :func:`replace_symlink` renames onto the target
LINK_TEMP = ".{name}-{pid}"


def temp_path(template: str, target: str | os.PathLike, pid: int | None = None) -> Path:
    """The temporary beside ``target`` that ``template`` names (``pid``: this process's)."""
    target = Path(target)
    return target.with_name(template.format(name=target.name,
                                            pid=os.getpid() if pid is None else pid))


def _template_regex(template: str) -> re.Pattern[str]:
    head, _, rest = template.partition("{name}")
    middle, _, tail = rest.partition("{pid}")
    return re.compile(f"{re.escape(head)}(?P<name>.+){re.escape(middle)}[0-9]+{re.escape(tail)}")


_DEBRIS = tuple(_template_regex(t) for t in (DIR_BUILD, DIR_OLD, LINK_TEMP))


def debris_target(name: str) -> str | None:
    """The target's name when ``name`` is one a write's temporary directory or link takes
    (what a killed write leaves behind), else None."""
    for pattern in _DEBRIS:
        if match := pattern.fullmatch(name):
            return match["name"]
    return None


class TargetExistsError(FileExistsError):
    """:func:`atomic_dir` was asked not to replace a directory that exists."""


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w", **open_args: object) -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; renamed to ``path`` on success.

    ``mode`` is ``"w"`` or ``"wb"``; ``open_args`` go to :func:`open` (``newline``,
    ``encoding``).  The folder is created when missing.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)
        with os.fdopen(fd, mode, **open_args) as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write(path: str | os.PathLike, data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically; returns the path."""
    payload = data.encode() if isinstance(data, str) else data
    with atomic_file(path, "wb") as fh:
        fh.write(payload)
    return Path(path)


@contextmanager
def atomic_dir(final: str | os.PathLike, replace: bool = False) -> Iterator[Path]:
    """A fresh sibling directory to build ``final`` in, renamed into place on success.

    An existing ``final`` is swapped out and removed when ``replace`` is true;
    otherwise :class:`TargetExistsError` is raised once the new directory is built
    (and the new one is removed).
    """
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(DIR_BUILD, final)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
        if not final.exists():
            os.replace(tmp, final)
        elif not replace:
            raise TargetExistsError(f"{final} exists; refusing to overwrite it")
        else:
            old = temp_path(DIR_OLD, final)
            os.replace(final, old)
            os.replace(tmp, final)
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def replace_symlink(link: str | os.PathLike, target: str) -> None:
    """Point the symbolic link ``link`` at ``target`` atomically (a new link renamed over it)."""
    link = Path(link)
    tmp = temp_path(LINK_TEMP, link)
    tmp.unlink(missing_ok=True)  # a symlink, dangling or not
    os.symlink(target, tmp)
    os.replace(tmp, link)
