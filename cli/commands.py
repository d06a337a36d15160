"""A table of subcommands, each a module loaded only when it is called.

A subcommand is a module exposing ``add_arguments(parser)`` and
``run(args) -> int``.  Its loader imports it with a plain ``from ... import``
inside a function: an ordinary import that the layering test (and any
reader of imports) sees, which runs only when the subcommand is asked for,
so ``drop7 replay`` does not pay for the statistics or the search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

Loader = Callable[[], ModuleType]


@dataclass(frozen=True)
class Command:
    """One subcommand: its one-line help and the loader of its module."""

    help: str
    load: Loader


def registrar(commands: dict[str, Command]) -> Callable[[str, str], Callable[[Loader], Loader]]:
    """The decorator ``@command(name, help)`` that enters a loader into ``commands``."""
    def command(name: str, text: str) -> Callable[[Loader], Loader]:
        def register(load: Loader) -> Loader:
            commands[name] = Command(text, load)
            return load
        return register
    return command
