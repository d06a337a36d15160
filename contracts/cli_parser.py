"""The argument parser of every ``drop7`` command: a refused flag is one line, exit status 2.

argparse prints a usage block and exits on a bad flag; :class:`OneLineParser`
raises :class:`~contracts.errors.InputError` instead, so the dispatcher
(:mod:`cli.main`) prints the one error line of :mod:`contracts.errors` like
any other bad input.
"""

from __future__ import annotations

import argparse

from contracts.errors import InputError, clip


class FlagError(InputError):
    """argparse refused a flag (raised by :class:`OneLineParser` instead of exiting)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        raise FlagError(clip(message, 200))  # argparse echoes a bad value whole
