"""The ``drop7`` console script: one dispatcher, subcommands live with their code.

Each subcommand is a module exposing ``add_arguments(parser)`` and
``run(args) -> int``; it is imported only when called, so ``drop7 replay``
does not pay for the statistics or the search.  Bad input is reported as one
line on stderr with exit status 2: a subcommand raises :class:`InputError`
(or ``ValueError`` / ``OSError``) and the dispatcher prints it; a flag that
argparse refuses is reported the same way (no usage block).  Integer flags
use :func:`int_option` and seed blocks :func:`parse_seed_block`, so every
subcommand refuses out-of-range numbers before any work.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

#: name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("engines.drop7.replay", "replay drop7-replay-v1 records (FILE or -)"),
    "play": ("engines.play.play_cli", "play whole games of a policy on a seed range"),
    "bench": ("engines.drop7.bench", "benchmarks printing JSON: engine, train, search"),
    "leaf-terms": ("engines.leaves.cli", "the frozen fair leaf's 18 terms and value"),
    "train": ("engines.train.cli", "train n-tuple or linear-trained weights by TC-TD(0)"),
    "stats": ("analysis.cli", "paired-screen statistics of a games table"),
    "run-arms": ("engines.play.runner_cli", "play several arms on one seed block, one shard"),
}


#: the largest value of a signed 64-bit counter (moves, games, repeats)
INT64_MAX = (1 << 63) - 1
#: the number of 64-bit seeds
SEED_SPACE = 1 << 64


class InputError(Exception):
    """Bad user input: reported as one line, exit status 2."""


class _FlagError(InputError):
    """argparse refused a flag (raised by :class:`OneLineParser` instead of exiting)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        raise _FlagError(_clip(message, 200))  # argparse echoes a bad value whole


def parse_int(text: str, what: str, lo: int, hi: int, hex_ok: bool = False) -> int:
    """``text`` as an integer in ``lo..hi`` (decimal, or ``0x`` hex when ``hex_ok``).

    Raises :class:`InputError` naming ``what`` and the range otherwise.
    """
    body = text.strip()
    hexa = hex_ok and body[:2] in ("0x", "0X")
    digits = body[2:] if hexa else body.removeprefix("-")
    allowed = "0123456789abcdefABCDEF" if hexa else "0123456789"
    value = None
    if 0 < len(digits) <= 40 and all(c in allowed for c in digits):
        value = int(digits, 16 if hexa else 10) * (-1 if body.startswith("-") else 1)
    if value is None or not lo <= value <= hi:
        form = "an integer" + (" (decimal or 0x hex)" if hex_ok else "")
        raise InputError(f"{what} must be {form} in {_span(lo, hi)}, got {_clip(text)!r}")
    return value


def _span(lo: int, hi: int) -> str:
    names = {INT64_MAX: "2**63-1", SEED_SPACE - 1: "2**64-1"}
    return f"{lo}..{names.get(hi, hi)}"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def int_option(lo: int = 0, hi: int = INT64_MAX) -> Callable[[str], int]:
    """An argparse ``type``: a decimal integer in ``lo..hi`` (default: a non-negative int64)."""

    def convert(text: str) -> int:
        try:
            return parse_int(text, "the value", lo, hi)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = "integer"
    return convert


def finite_option(text: str) -> float:
    """An argparse ``type``: a finite float (no nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"the value must be a finite number, got {_clip(text)!r}")
    return value


def parse_seed_block(text: str, what: str = "seeds", max_count: int = INT64_MAX) -> tuple[int, int]:
    """``START:COUNT`` (decimal or 0x hex): seeds START .. START+COUNT-1, all within 64 bits."""
    start_text, sep, count_text = text.partition(":")
    if not sep or ":" in count_text:
        raise InputError(f"{what} {_clip(text)!r} must be START:COUNT")
    try:
        start = parse_int(start_text, "START", 0, SEED_SPACE - 1, hex_ok=True)
        count = parse_int(count_text, "COUNT", 1, max_count, hex_ok=True)
    except InputError as exc:
        raise InputError(f"{what} {_clip(text)!r} is not START:COUNT: {exc}") from None
    if start + count > SEED_SPACE:
        raise InputError(f"{what} {_clip(text)!r}: START+COUNT must not pass 2**64 "
                         "(seeds are 64-bit)")
    return start, count


def read_input_lines(path: str) -> list[str]:
    """The lines of ``path`` (UTF-8), or of standard input when ``path`` is ``-``.

    Raises :class:`InputError` naming the file when it is missing, a
    directory, unreadable or not UTF-8 text.
    """
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)  # None: a text stream (tests)
            if stream is None:
                return sys.stdin.read().splitlines(keepends=True)
            data = stream.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    return text.splitlines(keepends=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drop7`` and ``python -m engines.drop7``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        lines = [f"  {name:<11} {text}" for name, (_, text) in COMMANDS.items()]
        usage = "usage: drop7 COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines)
        if argv and argv[0] not in ("-h", "--help"):
            print(f"drop7: error: unknown command {argv[0]!r}\n{usage}", file=sys.stderr)
            return 2
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
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"drop7 {name}: error: {message}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"drop7 {name}: error: out of memory (are the numbers too large?)",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
