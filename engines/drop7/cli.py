"""The ``drop7`` console script: one dispatcher, subcommands live with their code.

Each subcommand is a module exposing ``add_arguments(parser)`` and
``run(args) -> int``; it is imported only when called, so ``drop7 replay``
does not pay for the statistics or the search.  Bad input is reported as one
line on stderr with exit status 2 (:mod:`contracts.errors`): a subcommand
raises :class:`InputError` (or ``ValueError`` / ``OSError``) and the
dispatcher prints it; a flag that argparse refuses is reported the same way
(no usage block).  Integer flags use
:func:`contracts.cli_numbers.int_option` and seed blocks
:func:`contracts.cli_numbers.parse_seed_block`, so every subcommand refuses
out-of-range numbers before any work.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from contracts.errors import EXIT_BAD_INPUT, InputError, clip, print_error
from contracts.input_file import decode_utf8, read_input_bytes

#: name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("engines.drop7.replay", "replay drop7-replay-v1 records (FILE or -)"),
    "play": ("engines.play.play_cli", "play whole games of a policy on a seed range"),
    "bench": ("engines.drop7.bench", "benchmarks printing JSON: engine, train, search"),
    "leaf-terms": ("engines.leaves.cli", "the frozen fair leaf's 18 terms and value"),
    "train": ("engines.train.cli", "train n-tuple or linear-trained weights by TC-TD(0)"),
    "stats": ("analysis.cli", "paired-screen statistics of a games table"),
    "run-arms": ("engines.play.runner_cli", "play several arms on one seed block, one shard"),
    "serve": ("engines.play.serve", "a policy speaking the referee protocol on stdin/stdout"),
    "records": ("protocol.records_cli", "check a bundle of register records: validate DIR"),
}


class _FlagError(InputError):
    """argparse refused a flag (raised by :class:`OneLineParser` instead of exiting)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        raise _FlagError(clip(message, 200))  # argparse echoes a bad value whole


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drop7`` and ``python -m engines.drop7``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        lines = [f"  {name:<11} {text}" for name, (_, text) in COMMANDS.items()]
        usage = "usage: drop7 COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines)
        if argv and argv[0] not in ("-h", "--help"):
            print_error(f"unknown command {argv[0]!r}", prog="drop7")
            print(usage, file=sys.stderr)
            return EXIT_BAD_INPUT
        print(usage)
        return 0 if argv else 2
    name = argv[0]
    module = importlib.import_module(COMMANDS[name][0])
    parser = OneLineParser(prog=f"drop7 {name}", description=COMMANDS[name][1])
    module.add_arguments(parser)
    try:
        args = parser.parse_args(argv[1:])
        return int(module.run(args) or 0)
    except (InputError, ValueError, OSError) as exc:
        return print_error(exc, prog=f"drop7 {name}")
    except MemoryError:
        return print_error("out of memory (are the numbers too large?)", prog=f"drop7 {name}")
    except KeyboardInterrupt:
        return 130
