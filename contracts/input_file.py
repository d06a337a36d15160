"""Reading a user's input file: its bytes, its UTF-8 text or its lines, or one line naming it.

A missing file, a directory, an unreadable file and bytes that are not
UTF-8 are refused with the same words wherever a command reads its input
(replay records, leaf positions, games tables); ``-`` is standard input for
the commands that read lines (:func:`read_input_lines`).
"""

from __future__ import annotations

import os
import sys

from contracts.errors import InputError


def read_input_bytes(path: str | os.PathLike, name: str,
                     error: type[Exception] = InputError) -> bytes:
    """The bytes of ``path``; ``error`` naming ``name`` when it is missing, a directory or
    unreadable."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory, not a file") from None
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror or exc})") from None


def decode_utf8(data: bytes, name: str, error: type[Exception] = InputError) -> str:
    """``data`` as UTF-8 text; ``error`` naming ``name`` and the first bad byte otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{name}: not UTF-8 text (byte {exc.start})") from None


def read_input_lines(path: str) -> list[str]:
    """The lines of ``path`` (UTF-8), or of standard input when ``path`` is ``-``.

    Raises :class:`InputError` naming the file when it is missing, a
    directory, unreadable or not UTF-8 text.
    """
    if path != "-":
        return decode_utf8(read_input_bytes(path, path), path).splitlines(keepends=True)
    stream = getattr(sys.stdin, "buffer", None)  # None: a text stream (tests)
    if stream is None:
        return sys.stdin.read().splitlines(keepends=True)
    try:
        data = stream.read()
    except OSError as exc:
        raise InputError(f"standard input: cannot read ({exc.strerror or exc})") from None
    return decode_utf8(data, "standard input").splitlines(keepends=True)
