"""The harness side of the referee protocol: another program plays as a policy.

:class:`ExternalPolicy` is the player of an ``external[...]:COMMAND`` policy
(:mod:`engines.play.policy_grammar`).  It starts the program (in the harness's
working directory, with the harness's environment; its standard error goes
to the harness's), shakes hands, sets the declared options, and then for
each decision sends the public state and ``go id N`` and reads the answer
``move C id N``.  The harness keeps the seed, the rules and the random
streams; the program sees only what
:func:`engines.play.referee_messages.position_line` writes.

Faults are recorded by the games driver (:mod:`engines.play.games`), never
hidden, and the game goes on with the driver's fallback (centre-first):

* a column that is off the board or full, an answer that is not
  ``move C id N`` for the pending ``go``, or a surplus line (a ``move`` of an
  earlier ``go``, read while waiting for this one's answer):
  :meth:`ExternalPolicy.choose` returns it (or -1), an ``illegal`` decision;
* no answer within ``movetime + grace``, or a program that exits or closes its
  output: it raises :class:`ProgramError`, an ``unfinished`` decision; the
  program is stopped and started afresh (handshake, options, ``newgame``) at
  the next decision; when that fails, every later decision of the game is
  ``unfinished`` and the next game tries again.
* every write has the deadline of what it belongs to (a full input pipe is a
  time-out, :class:`InputFullError`); after :data:`GAME_TIMEOUTS` time-outs in a
  game, the rest of its decisions are ``unfinished`` without being asked.

Every program runs under :mod:`engines.play.supervisor`, in a process group of
its own that is killed after a fault, after ``quit`` (once the program had
:data:`QUIT_LIMIT_S` to exit) and when the harness dies; a program's lines
are read with every byte that is not printable ASCII escaped (:func:`printable`).

An answer after ``movetime`` but within the grace is played; it is logged
and counted (the count is logged when the player closes).  Every log line
names the game's seed and the move.

A program that cannot start before the first game (a command word naming a
file that does not exist, not found, exits, no ``ready`` within
:data:`START_LIMIT_S`, an option it does not accept) is a
:class:`~engines.play.arm_specs.PolicyError`: one line, exit status 2;
:func:`check_program` is the same start, for the workflow's check before any
job.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Callable

import numpy as np

from contracts.hashing import file_sha256, hash_mismatch
from engines.drop7 import core
from engines.drop7.board import opening_cols
from engines.drop7.trajectory import replay_seeded
from engines.play import referee_messages as msg
from engines.play.arm_specs import ExternalSpec, PolicyError
from engines.play.players import Policy

#: seconds a program may take from its start to ``ready`` (loading, compiling)
START_LIMIT_S = 120.0
#: seconds a program is given to exit after ``quit`` before its process group is killed
QUIT_LIMIT_S = 2.0
#: time-outs of one game after which the rest of its decisions are not asked (unfinished)
GAME_TIMEOUTS = 3
#: the supervisor every program runs under (:mod:`engines.play.supervisor`)
SUPERVISOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "supervisor.py")


#: endings of a command word taken to name a script (besides any word with a ``/``)
SCRIPT_SUFFIXES = (".py", ".pyc", ".pyz", ".sh", ".bash", ".pl", ".rb", ".jl", ".r", ".js",
                   ".mjs", ".lua", ".jar")


class ProgramError(RuntimeError):
    """A decision the program did not give (a time-out, the program exited or closed its
    output), or a program that cannot start."""


class OptionError(ProgramError):
    """The program does not offer an option the arm sets."""


class InputFullError(TimeoutError):
    """A line that could not be written by its deadline: the program does not read its
    input (a time-out, like an answer that does not come)."""

    def __str__(self) -> str:
        return "its input pipe stayed full (it does not read its input)"


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


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Program:
    """One running program: its pipes, a writer and a line reader with deadlines, and its end.

    The program runs under :mod:`engines.play.supervisor`, the leader of a new process
    group, so that a time-out, a ``quit`` or the harness's death stops whatever it started
    too (see :meth:`kill`)."""

    def __init__(self, command: tuple[str, ...]) -> None:
        _check_command(command[0])
        self.proc = subprocess.Popen(
            [sys.executable, "-S", SUPERVISOR, str(os.getpid()), *command],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, start_new_session=True)
        self._killed = False
        _RUNNING.add(self)
        self._fd = self.proc.stdout.fileno()
        self._in = self.proc.stdin.fileno()
        os.set_blocking(self._in, False)
        self._buf = b""
        #: the features it offered in its handshake (``feature NAME VERSION``), name -> version
        self.features: dict[str, str] = {}

    def send(self, line: str, deadline: float) -> None:
        """Write one line by ``deadline`` (``time.monotonic``): a program that does not read
        its input, so that the pipe stays full until then, is a ``TimeoutError``; one that
        has exited a :class:`ProgramError`."""
        data = line.encode("ascii") + b"\n"
        while data:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self._in], [], left)[1]:
                raise InputFullError
            try:
                data = data[os.write(self._in, data):]
            except BlockingIOError:
                continue
            except OSError:  # a broken pipe
                raise self._gone("input") from None

    def read_line(self, deadline: float) -> str:
        """The next line, waiting until ``deadline`` (``time.monotonic``)."""
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready = select.select([self._fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise TimeoutError
            data = os.read(self._fd, 65536)
            if not data:
                raise self._gone("output")
            self._buf += data
        line, _, self._buf = self._buf.partition(b"\n")
        return printable(line.strip())

    def _gone(self, pipe: str) -> ProgramError:
        """The error of a pipe found closed, by a write (broken pipe: ``pipe`` is "input")
        or a read (end of file: "output").  A program that has exited says so with its
        status, whichever pipe found it first (a race); one still running closed the pipe."""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ProgramError(f"the program closed its {pipe} (it had not exited)")
        return ProgramError(f"the program exited (exit status {code})")

    def kill(self) -> None:
        """Stop the program and everything in its process group, and reap it.

        The group is killed even when its leader has exited already: a program's children
        (a server it started, a worker) stay in the group and must not outlive it.  The
        group's id stays the leader's while any member lives, so it names no one else; it is
        killed once (a second call does nothing: by then the id may name another group)."""
        if self._killed:
            return
        self._killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        _RUNNING.discard(self)
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()

    def quit(self) -> list[str]:
        """Send ``quit``, give the program :data:`QUIT_LIMIT_S` to exit (the grace), then kill
        its process group; the lines it wrote that no one read (read until it closes its
        output)."""
        deadline = time.monotonic() + QUIT_LIMIT_S
        left: list[str] = []
        with contextlib.suppress(ProgramError, OSError, TimeoutError):
            self.send(msg.QUIT, deadline)
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        with contextlib.suppress(ProgramError, OSError, TimeoutError):
            while True:
                left.append(self.read_line(deadline))
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=max(deadline - time.monotonic(), 0))
        self.kill()
        return left


#: the programs started and not yet killed (killed at the harness's exit)
_RUNNING: weakref.WeakSet[Program] = weakref.WeakSet()


@atexit.register
def _kill_running() -> None:
    """At the harness's exit, kill every program it started that is still running (a harness
    killed by a signal leaves this to the supervisor)."""
    for program in list(_RUNNING):
        program.kill()


def _check_command(word: str) -> None:
    """An ``OSError`` for a command word that names no program that can be run (the
    supervisor would only see it once it runs)."""
    if shutil.which(word) is None:
        there = os.path.exists(word) if "/" in word else False
        code = errno.EACCES if there else errno.ENOENT
        raise OSError(code, os.strerror(code), word)


def printable(raw: bytes) -> str:
    """A program's line as text that is safe in a log: printable ASCII and tabs as they are,
    every other byte as ``\\xNN``."""
    return "".join(chr(b) if 32 <= b < 127 or b == 9 else f"\\x{b:02x}" for b in raw)


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


def _stale(line: str, decision: int) -> bool:
    """Whether ``line`` answers a request numbered below ``decision`` (a ``move`` or a
    ``values`` answer): a surplus line."""
    move = msg.parse_move(line)
    values = msg.parse_values_answer(line)
    earlier = move[1] if move is not None else values[0] if values is not None else None
    return earlier is not None and earlier < decision


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


class ExternalPolicy(Policy):
    """An external program as a player (see the module's docstring for its faults).

    ``late`` and ``surplus`` count the answers after ``movetime`` (within the grace) and
    the surplus lines since the player was made; :meth:`close` logs them."""

    def __init__(self, spec: ExternalSpec, log: Callable[[str], None] = _stderr) -> None:
        self.spec, self.ext, self.log = spec, spec, log
        self.seed: int | None = None
        self._late_seed: int | None = None
        self.decision = self.games = self.late = self.surplus = 0
        try:
            self.program: Program | None
            self.program, self.program_name = start(self.ext)
        except ProgramError as exc:
            raise PolicyError(f"{self.name}: the program cannot start: {exc}") from None
        self._newgame = self._gave_up = False
        self._timeouts = 0  # of this game
        #: ``values`` answers that were not values of every legal column (logged, counted)
        self.value_faults = 0
        self.offers_values = (self.program.features.get(msg.VALUES)
                              == str(msg.FEATURES[msg.VALUES]))

    def warm_up(self) -> None:
        """Compile the position line's writer, so a game's wall time excludes it."""
        _, state, cols = replay_seeded(0, [])  # an opening position
        msg.position_line(state, cols)

    def new_game(self, seed: int) -> None:
        """Tell the program a game starts (the seed stays with the harness, for the logs)."""
        self._newgame, self._gave_up = True, False
        self._timeouts = 0
        self.seed = seed
        self.games += 1

    def _ready(self) -> Program:
        """The running program, started again after a fault (unless the game has had
        :data:`GAME_TIMEOUTS` time-outs: then no decision of it is asked any more)."""
        if self._timeouts >= GAME_TIMEOUTS:
            raise ProgramError(f"the program timed out {self._timeouts} times in this game: "
                               "the rest of the game is not asked")
        if self.program is None:
            if self._gave_up:
                raise ProgramError("the program could not be restarted in this game")
            try:
                self.program, _ = start(self.ext)
            except ProgramError as exc:
                self._gave_up = True  # one start's wait per game at most
                raise ProgramError(f"the program could not be restarted: {exc}") from None
            self._newgame = True
        return self.program

    def _request(self, state: np.ndarray, cols: np.ndarray, request: Callable[[int], str]
                 ) -> tuple[Program, float, float]:
        """Send ``newgame`` (when a game started), the position and ``request(N)`` for the
        next request number N; the program, when it was sent and the answer's deadline (every
        write is within it: a full input pipe is a time-out)."""
        program = self._ready()
        self.decision += 1
        sent = time.monotonic()
        deadline = sent + self.ext.limit_s  # a restart is not its time
        if self._newgame:
            program.send(msg.NEWGAME, deadline)
            self._newgame = False
        program.send(msg.position_line(state, cols), deadline)
        program.send(request(self.decision), deadline)
        return program, sent, deadline

    def _timeout(self, what: str, exc: TimeoutError) -> ProgramError:
        """The fault of a time-out (no answer, or a full input pipe), counted for the game."""
        self._timeouts += 1
        why = f"{exc}" if isinstance(exc, InputFullError) else f"no {what}"
        return self._fault(f"{why} within {self.ext.limit_s * 1000:.0f} ms (time-out); the "
                           "program is stopped")

    def _fault(self, message: str) -> ProgramError:
        if self.program is not None:
            self.program.kill()
            self.program = None
        return ProgramError(message)

    def _say(self, move: int, text: str) -> None:
        """One log line naming the game's seed, the move and the program."""
        self.log(f"seed {self.seed} move {move}: {self.program_name or self.name} {text}")

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        """Send the position and ``go id N``; the column of the answer ``move C id N``
        (-1 for a malformed answer or when a surplus line came first)."""
        move = int(state[core.ST_MOVES_PLAYED])
        surplus: list[str] = []
        try:
            program, sent, deadline = self._request(
                state, cols, lambda n: msg.go_line(n, self.ext.movetime_ms))
            while True:
                line = program.read_line(deadline)
                answer = msg.parse_move(line)
                if _stale(line, self.decision):
                    surplus.append(line)  # an earlier request's answer, however late it came
                elif msg.split(line)[0] != msg.INFO:
                    break
            took_ms = (time.monotonic() - sent) * 1000
        except TimeoutError as exc:
            raise self._timeout("answer", exc) from None
        except ProgramError as exc:
            raise self._fault(str(exc)) from None
        finally:
            for extra in surplus:
                self.surplus += 1
                self._say(move, f"wrote {extra!r} while go {self.decision} was pending: a "
                                "surplus line, answering no pending 'go'; an illegal decision")
        if self.ext.movetime_ms is not None and took_ms > self.ext.movetime_ms:
            self.late += 1
            if self._late_seed != self.seed:  # the first of the game is logged, all counted
                self._late_seed = self.seed
                self._say(move, f"answered in {took_ms:.0f} ms, beyond its movetime of "
                                f"{self.ext.movetime_ms} ms (within the grace): a late "
                                "answer, played (later ones of this game are only counted)")
        if answer is None or answer[1] != self.decision:
            self._say(move, f"answered {line!r} to go {self.decision}, not "
                            f"'{msg.MOVE} C id {self.decision}': an illegal decision")
            return -1
        column = answer[0]
        if surplus:
            return -1
        if not (0 <= column <= 6 and core.is_legal(cols, column)):
            self._say(move, f"answered column {column}, which is not legal: an illegal "
                            "decision")
        return column

    def column_values(self, state: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
        """Send the position and ``values id N``; the value of each column (NaN for an illegal
        one) of the answer ``values id N V0 .. V6``, or None (logged and counted in
        :attr:`value_faults`) for an answer that is not that with a number for each legal
        column and ``-`` for each other.  A time-out, an exit or a closed pipe is a
        :class:`ProgramError`, as for a move.  Only for a program that offers the feature."""
        move = int(state[core.ST_MOVES_PLAYED])
        try:
            program, _, deadline = self._request(state, cols, msg.values_request)
            surplus = 0
            while True:
                line = program.read_line(deadline)
                if _stale(line, self.decision):
                    surplus += 1
                    self.surplus += 1
                    self._say(move, f"wrote {line!r} while values {self.decision} was "
                                    "pending: a surplus line; no values at this root")
                elif msg.split(line)[0] != msg.INFO:
                    break
        except TimeoutError as exc:
            raise self._timeout("values", exc) from None
        except ProgramError as exc:
            raise self._fault(str(exc)) from None
        answer = msg.parse_values_answer(line)
        legal = [bool(core.is_legal(cols, c)) for c in range(7)]
        if surplus:
            self.value_faults += 1
            return None
        if (answer is None or answer[0] != self.decision
                or [v is not None for v in answer[1]] != legal):
            self.value_faults += 1
            self._say(move, f"answered {line!r} to values {self.decision}, not 'values id "
                            f"{self.decision} V0 .. V6' with a number for each legal column "
                            f"and '{msg.NO_VALUE}' for each other: no values at this root")
            return None
        return np.array([np.nan if v is None else v for v in answer[1]])

    def close(self) -> None:
        """Send ``quit`` and stop the program; log the lines it left unread (surplus lines
        after its last decision) and the counts of late answers and surplus lines."""
        program, self.program = getattr(self, "program", None), None
        if program is None:
            return
        for line in program.quit():
            if msg.split(line)[0] != msg.INFO:
                self.surplus += 1
                self.log(f"{self.program_name or self.name} wrote {line!r} after its last "
                         "decision: a surplus line, answering no 'go' (no game charged)")
        if self.late or self.surplus:
            self.log(f"{self.program_name or self.name}: {self.late} late answers (within the "
                     f"grace, played) and {self.surplus} surplus lines in {self.games} games")

    def __del__(self) -> None:
        self.close()
