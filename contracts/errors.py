"""The one error line a command prints for bad input, and its exit status.

Every command reports bad input as a single line on stderr,
``<prog>: error: <message>``, where the message names the file and the key
(or the row) when there is one (``<file>: <key>: <what is wrong>``), and
exits with status 2; a workflow job's line has no program name
(``error: <message>``), so the lines Snakemake shows read alike.
"""

from __future__ import annotations

import sys
from typing import NoReturn, TextIO

#: exit status of a command refused for bad input
EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Bad user input: reported as one line, exit status 2."""


def clip(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters (``...`` marks a cut): a bad value echoed in an
    error line stays short however long the value."""
    return text if len(text) <= limit else text[:limit] + "..."


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type's name when it has none)."""
    text = str(exc)
    return text.splitlines()[0] if text.strip() else type(exc).__name__


def error_line(message: str | BaseException, prog: str | None = None,
               file: str | None = None, key: str | None = None) -> str:
    """``<prog>: error: <file>: <key>: <message>`` (parts not given left out)."""
    text = first_line(message) if isinstance(message, BaseException) else message
    parts = [p for p in (file, key) if p] + [text]
    head = f"{prog}: error" if prog else "error"
    return f"{head}: " + ": ".join(parts)


def print_error(message: str | BaseException, prog: str | None = None,
                file: str | None = None, key: str | None = None,
                stream: TextIO | None = None) -> int:
    """Print :func:`error_line` on ``stream`` (stderr); returns :data:`EXIT_BAD_INPUT`."""
    print(error_line(message, prog, file, key), file=stream or sys.stderr, flush=True)
    return EXIT_BAD_INPUT


def exit_with_error(message: str | BaseException, prog: str | None = None,
                    file: str | None = None, key: str | None = None) -> NoReturn:
    """:func:`print_error`, then exit with status 2."""
    sys.exit(print_error(message, prog, file, key))
