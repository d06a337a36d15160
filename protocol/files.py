"""Files a claim names (pinned weights, an external program's files): where they live, how
they are recorded.

The root of every such path is the run's working directory: the directory Snakemake runs
in and every job starts from (the repository, in an ordinary run), so a relative path
names the same file for the check before any job and for each game job.  A path is
recorded relative to that root and normalised (``./w//x.npy`` is ``w/x.npy``; an absolute
path under the root is made relative), so no path of one machine reaches a policy
string, a protocol hash, a register record or a page.  A path outside the root (absolute
elsewhere, or climbing out with ``..``) is refused: a record could only name it by this
machine's path, and another machine could not find it.  Beside each file its SHA-256 is
recorded, which names what the file is wherever the run's directory lies (docs/claims.md,
Files a claim names).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from contracts.hashing import file_sha256


class OutsideRootError(ValueError):
    """A path a claim names that lies outside the run's directory."""


def run_relative(file: str, root: str | Path | None = None) -> str:
    """``file`` as it is recorded: normalised and relative to ``root`` (the working
    directory when None); :class:`OutsideRootError` when it lies outside ``root``.  Symbolic
    links are not followed: the path is judged as written (its SHA-256 pins its content)."""
    base = os.path.abspath(root if root is not None else os.getcwd())
    rel = os.path.normpath(os.path.relpath(os.path.abspath(file), base)
                           if os.path.isabs(file) else file)
    if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
        raise OutsideRootError(f"{file} is outside the run's directory ({base}): put it under "
                               "that directory (in a folder beside your claims folder, say) "
                               "and name it relative to it")
    return rel


def command_paths(command: Sequence[str], root: str | Path | None = None
                  ) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """An external arm's command with the words that name files recorded relative to the run's
    directory (:func:`run_relative`), and those words' indices.

    The words that name files are the program itself when written as a path (a bare name,
    ``python3``, is looked up on ``PATH`` and kept as written) and the words
    :func:`engines.play.referee_start.command_files` names.  :class:`OutsideRootError` names the
    first word outside the root (its index in ``args[1]``)."""
    from engines.play.referee_start import command_files

    words = list(command)
    named = {i for i, w in enumerate(words) if i and w in command_files(words)}
    if "/" in words[0]:
        named.add(0)
    for i in sorted(named):
        try:
            rel = run_relative(words[i], root)
        except OutsideRootError as exc:
            raise OutsideRootError(str(exc), i) from None
        # the program as a relative path keeps a slash: a bare name would be looked up on PATH
        words[i] = f"./{rel}" if i == 0 and "/" not in rel else rel
    return tuple(words), tuple(sorted(named))


def program_files(command: Sequence[str], root: str | Path | None = None
                  ) -> tuple[tuple[str, ...], dict[int, str]]:
    """:func:`command_paths`, and the SHA-256 of each named word's regular file by the word's
    index (its pins: every game job checks them as it starts the program).  A word naming
    a directory or a missing file is recorded but not pinned (a missing one is refused by
    the check before any job)."""
    words, named = command_paths(command, root)
    files = {i: Path(root or ".") / words[i] for i in named}
    return words, {i: file_sha256(f) for i, f in files.items() if f.is_file()}


#: what a record or a page writes for the folder of a declaration outside the run's directory
OUTSIDE = "(outside the run's directory)"


def shown_path(path: str | Path, root: str | Path | None = None) -> str:
    """A claim's declaration file as its records and page name it: relative to the run's
    directory, or its name under :data:`OUTSIDE` (a claims folder may lie anywhere; only
    the files a claim's runs read must lie under the run's directory)."""
    try:
        return run_relative(str(path), root)
    except OutsideRootError:
        return f"{OUTSIDE}/{Path(path).name}"
