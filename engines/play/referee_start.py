"""Starting an external program: its files, the handshake, the options, and the check.

:func:`start` checks the command's files (:func:`command_files`, and the
SHA-256 pins of :func:`check_files`), starts the program
(:class:`~engines.play.referee_program.Program`), shakes hands and sets the
declared options, all within :data:`START_LIMIT_S`.  A program that cannot
start before the first game (a command word naming a file that does not
exist, not found, exits, no ``ready`` in time, an option it does not
accept) is a :class:`~engines.play.arm_specs.PolicyError` of its player
(:mod:`engines.play.external_policy`): one line, exit status 2;
:func:`check_program` is the same start, with trial decisions, for the
workflow's check before any job.
"""

from __future__ import annotations

import os
import time

import numpy as np

from contracts.hashing import file_sha256, hash_mismatch
from engines.drop7 import core
from engines.drop7.board import opening_cols
from engines.play import referee_messages as msg
from engines.play.arm_specs import ExternalSpec
from engines.play.referee_program import InputFullError, Program, ProgramError

#: seconds a program may take from its start to ``ready`` (loading, compiling)
START_LIMIT_S = 120.0

#: endings of a command word taken to name a script (besides any word with a ``/``)
SCRIPT_SUFFIXES = (".py", ".pyc", ".pyz", ".sh", ".bash", ".pl", ".rb", ".jl", ".r", ".js",
                   ".mjs", ".lua", ".jar")


class OptionError(ProgramError):
    """The program does not offer an option the arm sets."""


def command_files(command: tuple[str, ...] | list[str]) -> list[str]:
    """The words after the first that name a file the program reads.

    A word that is not an option (no leading ``-``) and holds no ``=`` or ``:`` (not
    ``KEY=VALUE``, a policy or a URL) names a file when it ends in one of
    :data:`SCRIPT_SUFFIXES` (any case), or when it holds a ``/`` and is not an option's
    value (the word after one starting with ``-``, which may name a file the program
    writes)."""
    return [w for before, w in zip(command, command[1:], strict=False)
            if not w.startswith("-") and "=" not in w and ":" not in w
            and (w.lower().endswith(SCRIPT_SUFFIXES)
                 or ("/" in w and not before.startswith("-")))]


def check_files(command: tuple[str, ...] | list[str],
                pins: tuple[tuple[int, str], ...] = ()) -> None:
    """A :class:`ProgramError` naming the first word of :func:`command_files` that names
    no file, from the working directory (where the program starts), or the first pinned
    word (``(N, SHA-256)``) whose file does not hash to its pin."""
    for word in command_files(command):
        if not os.path.exists(word):
            raise ProgramError(f"{word}: no such file (a command word that names a file must "
                               f"exist, from {os.getcwd()})")
    for n, sha in pins:
        word = command[n]
        if not os.path.isfile(word):
            raise ProgramError(f"{word}: not a regular file (command word {n} is pinned)")
        have = file_sha256(word)
        if have != sha:
            raise ProgramError(f"{word}: {hash_mismatch(have, sha)}: the program changed "
                               "since its claim was planned")


def start(ext: ExternalSpec) -> tuple[Program, str]:
    """Start the program, shake hands and set the options; returns it and its name.

    Raises :class:`ProgramError` naming what went wrong (:class:`OptionError` for an
    option the program does not offer).
    """
    check_files(ext.command, ext.pins)
    try:
        program = Program(ext.command)
    except OSError as exc:
        raise ProgramError(f"{ext.command[0]}: {exc.strerror or exc}") from None
    deadline = time.monotonic() + START_LIMIT_S
    try:
        name, accepted = _handshake(program, deadline)
        for key, value in ext.options:
            if key not in accepted:
                raise OptionError(f"the program does not accept option {key!r} (it "
                                  f"accepts: {', '.join(accepted) or 'none'})")
            program.send(f"{msg.SETOPTION} {key} {value}", deadline)
    except InputFullError as exc:
        program.kill()
        raise ProgramError(f"{exc}: not started within {START_LIMIT_S:g} s") from None
    except BaseException:
        program.kill()
        raise
    return program, name


#: trial decisions the check asks for; the median of their seconds is the program's measured
#: seconds a decision (the dry run's estimate of its games, protocol/checks.py)
TRIAL_DECISIONS = 3


def check_program(ext: ExternalSpec) -> tuple[str, float]:
    """Start the program as a game would (its files and their pins, the start, the handshake,
    the options), ask it :data:`TRIAL_DECISIONS` trial decisions on a position of no seed
    (the opening board, disc 1, a ``newgame`` before each), and tell it to quit; its name and
    the median seconds of a trial decision (from the ``position`` sent to the answer read).
    Raises :class:`ProgramError` as :func:`start` does, or when a trial gets no ``move C id
    N`` with C a column within ``movetime + grace`` (an ``error`` there, after options were
    set, is an :class:`OptionError`)."""
    program, name = start(ext)
    cols = opening_cols()
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING], state[core.ST_LEVEL] = 1, 5, 1
    seconds = []
    for decision in range(1, TRIAL_DECISIONS + 1):
        try:
            deadline = time.monotonic() + ext.limit_s
            program.send(msg.NEWGAME, deadline)
            began = time.monotonic()
            program.send(msg.position_line(state, cols), deadline)
            program.send(msg.go_line(decision, ext.movetime_ms), deadline)
            line = program.read_line(deadline)
            while msg.split(line)[0] == msg.INFO:
                line = program.read_line(deadline)
            seconds.append(time.monotonic() - began)
        except TimeoutError as exc:
            program.kill()
            why = str(exc) or f"no answer to a trial 'go id {decision}'"
            raise ProgramError(f"{why} within {ext.limit_s * 1000:.0f} ms (movetime + grace)"
                               ) from None
        except ProgramError as exc:  # gone: an 'error' it wrote first says why
            left = program.quit()
            line = next((x for x in left if msg.split(x)[0] == msg.ERROR), None)
            if line is None:
                raise exc from None
        except BaseException:
            program.kill()
            raise
        answer = msg.parse_move(line)
        if answer is None or answer[1] != decision or not 0 <= answer[0] <= 6:
            program.kill()
            word, rest = msg.split(line)
            if word == msg.ERROR:
                error = OptionError if ext.options else ProgramError
                raise error(f"the program refused{' its options' if ext.options else ''}: "
                            f"{rest}")
            raise ProgramError(f"the program answered {line!r} to a trial 'go id {decision}' "
                               f"on the opening board, not '{msg.MOVE} C id {decision}' (C 0-6)")
    program.quit()
    return name, sorted(seconds)[len(seconds) // 2]


def _handshake(program: Program, deadline: float) -> tuple[str, dict[str, str]]:
    program.send(msg.hello_line(), deadline)
    name: str | None = None
    accepted: dict[str, str] = {}
    while True:
        try:
            line = program.read_line(deadline)
        except TimeoutError:
            raise ProgramError(f"no '{msg.READY}' within {START_LIMIT_S:g} s") from None
        word, rest = msg.split(line)
        if word == msg.INFO:
            continue
        if word == msg.ERROR:
            raise ProgramError(f"the program refused: {rest}")
        if name is None and word != msg.NAME:
            raise ProgramError(f"expected '{msg.NAME} TEXT' first, got {line!r}")
        if word == msg.NAME:
            name = rest
        elif word == msg.OPTION and len(rest.split()) == 2:
            key, default = rest.split()
            accepted[key] = default
        elif word == msg.FEATURE and len(rest.split()) == 2:
            key, version = rest.split()
            program.features[key] = version
        elif word == msg.READY and not rest:
            return name, accepted
        else:
            raise ProgramError(f"expected '{msg.OPTION} KEY DEFAULT', '{msg.FEATURE} NAME "
                               f"VERSION' or '{msg.READY}', got {line!r}")

