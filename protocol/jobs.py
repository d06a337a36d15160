"""What every script adapter shares: its log, and one-line errors (exit status 2)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn

from contracts.errors import EXIT_BAD_INPUT, first_line, print_error


@contextmanager
def log_to(path: str) -> Iterator[None]:
    """Send stderr to the job's log (:func:`fail` also tells the console)."""
    with open(path, "a", encoding="utf-8") as log:
        old = sys.stderr
        sys.stderr = log
        try:
            yield
        finally:
            sys.stderr = old


def run(main: Callable[[], None]) -> None:
    """Run ``main``; bad input becomes one line on stderr and exit status 2."""
    try:
        main()
    except subprocess.CalledProcessError as exc:
        fail(f"{exc.cmd[0]} {exc.cmd[1]} failed with exit status {exc.returncode} "
             "(its messages are in the log)")
    except (ValueError, OSError) as exc:
        fail(first_line(exc))


def fail(message: str) -> NoReturn:
    """One line on stderr (the log and the console), exit status 2."""
    print_error(message)
    if sys.stderr is not sys.__stderr__:
        print_error(message, stream=sys.__stderr__)
    sys.exit(EXIT_BAD_INPUT)
