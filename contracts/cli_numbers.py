"""Numbers on a command line: integers in a range, finite floats and seed blocks.

Every command's integer flags go through :func:`int_option` (an argparse
``type``) or :func:`parse_int`, its seeds through :func:`seed_option` and its
seed blocks through :func:`parse_seed_block` (both decimal or ``0x`` hex, as
the seed bank writes them), so an out-of-range number is refused in one line
naming the flag and the range, before any work: never wrapped into a 64-bit
counter, never a traceback, never a table sized by a typo.  A declaration's
and a profile's numbers (YAML, ``--config``) pass :func:`not_a_float` (through
:func:`protocol.schema.non_finite`): a NaN, an infinity or an integer too
large for a float is one line naming the key.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from contracts.errors import InputError, clip

#: the largest value of a signed 64-bit counter (moves, games, repeats)
INT64_MAX = (1 << 63) - 1
#: the number of 64-bit seeds
SEED_SPACE = 1 << 64


def parse_int(text: str, what: str, lo: int, hi: int, hex_ok: bool = False) -> int:
    """``text`` as an integer in ``lo..hi`` (decimal, or ``0x`` hex when ``hex_ok``).

    Raises :class:`~contracts.errors.InputError` naming ``what`` and the range otherwise.
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
        raise InputError(f"{what} must be {form} in {_span(lo, hi)}, got {clip(text)!r}")
    return value


def _span(lo: int, hi: int) -> str:
    """``lo..hi`` as a message shows it (the 64-bit limits by name)."""
    names = {INT64_MAX: "2**63-1", SEED_SPACE - 1: "2**64-1"}
    return f"{lo}..{names.get(hi, hi)}"


def int_option(lo: int = 0, hi: int = INT64_MAX, hex_ok: bool = False) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``lo..hi`` (default: a non-negative int64), decimal
    or, with ``hex_ok``, ``0x`` hex."""

    def convert(text: str) -> int:
        try:
            return parse_int(text, "the value", lo, hi, hex_ok)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = "integer"
    return convert


def seed_option(lo: int = 0, hi: int = SEED_SPACE - 1) -> Callable[[str], int]:
    """An argparse ``type`` for one seed: decimal or ``0x`` hex (the seed bank's notation)."""
    return int_option(lo, hi, hex_ok=True)


def not_a_float(value: object) -> bool:
    """Whether a parsed number cannot stand as a finite float: a NaN, an infinity, or an
    integer too large for a float (YAML and JSON read ``1`` and 400 digits as an ``int``,
    which every float arithmetic then refuses with a traceback).  Booleans and other types
    are not numbers here: the schema judges them."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            return True
    return False


def finite_option(text: str) -> float:
    """An argparse ``type``: a finite float (no nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"the value must be a finite number, got {clip(text)!r}")
    return value


def seed_hex(seed: int) -> str:
    """A 64-bit seed as the seed bank and the research's records write it: ``0x`` and 16
    lowercase hex digits."""
    if not 0 <= seed < SEED_SPACE:
        raise ValueError(f"seed {seed} is not in 0..2**64-1")
    return f"0x{seed:016x}"


def parse_seed_block(text: str, what: str = "seeds", max_count: int = INT64_MAX) -> tuple[int, int]:
    """``START:COUNT`` (decimal or 0x hex): seeds START .. START+COUNT-1, all within 64 bits."""
    start_text, sep, count_text = text.partition(":")
    if not sep or ":" in count_text:
        raise InputError(f"{what} {clip(text)!r} must be START:COUNT")
    try:
        start = parse_int(start_text, "START", 0, SEED_SPACE - 1, hex_ok=True)
        count = parse_int(count_text, "COUNT", 1, max_count, hex_ok=True)
    except InputError as exc:
        raise InputError(f"{what} {clip(text)!r} is not START:COUNT: {exc}") from None
    if start + count > SEED_SPACE:
        raise InputError(f"{what} {clip(text)!r}: START+COUNT must not pass 2**64 "
                         "(seeds are 64-bit)")
    return start, count
